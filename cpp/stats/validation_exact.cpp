// Validation test, method "exact": the rank (conformal) test of METHOD.md.
//
// On Z = {y, s_1..s_M} every text gets T(z) = mean over z' != z of cos(z, z'). With
// σ = Σ_j s_j:  T(y) = y·σ / M = τ  and  T(s_j) = (s_j·(y + σ) - s_j·s_j) / M,
// so the whole null distribution costs O(M d), not O(M² d).
#include <cmath>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {

ValidationResult validation_exact(SimilarityBlocks& blocks, const std::string& passage,
                                  const std::string& pool, double alpha) {
    detail::require_pool(blocks, passage, 1, "passage");
    detail::require_pool(blocks, pool, 2, "pool");
    const Eigen::MatrixXd& y = blocks.pool(passage);
    const Eigen::MatrixXd& texts = blocks.pool(pool);
    if (y.rows() != 1)
        throw_invalid(code::invalid_argument, blocks.argument(passage),
                      std::to_string(y.rows()) + " rows", "one embedding (one row)");
    if (y.cols() != texts.cols())
        throw_invalid(code::dimension_mismatch, blocks.argument(pool),
                      "embeddings of dimension " + std::to_string(texts.cols()),
                      "embeddings of dimension " + std::to_string(y.cols()) +
                          ", the dimension of `" + blocks.argument(passage) + "`");

    const Eigen::Index m = texts.rows();
    const double count = static_cast<double>(m);
    const Eigen::VectorXd passage_vector = y.row(0).transpose();
    const Eigen::VectorXd& pool_sum = blocks.sum(pool);
    const Eigen::VectorXd passage_plus_pool = passage_vector + pool_sum;

    ValidationResult result;
    result.method = "exact";
    result.alpha = alpha;
    result.m = static_cast<int>(m);
    result.b = 0;
    result.statistic = detail::ordered_dot(passage_vector, pool_sum) / count;
    result.null_distribution.resize(m);
    for (Eigen::Index j = 0; j < m; ++j) {
        const double with_self = detail::ordered_row_dot(texts, j, passage_plus_pool);
        double self = 0;
        for (Eigen::Index k = 0; k < texts.cols(); ++k) self += texts(j, k) * texts(j, k);
        result.null_distribution[j] = (with_self - self) / count;
    }
    const int at_most = count_at_most(result.null_distribution, result.statistic);
    result.p_value = (1.0 + at_most) / (count + 1.0);
    result.critical_value = rank_critical_value(
        std::vector<double>(result.null_distribution.data(), result.null_distribution.data() + m),
        alpha);
    result.reject = p_at_most(result.p_value, alpha);
    result.smallest_deciding_size = smallest_deciding_size(alpha);
    result.can_decide = result.m >= result.smallest_deciding_size;
    return result;
}

namespace detail {
ValidationResult run_validation_exact(SimilarityBlocks& blocks, const TestInput& input) {
    return validation_exact(blocks, passage_pool, label_pool(input.label), input.options.alpha);
}
}  // namespace detail

}  // namespace llmv::stats
