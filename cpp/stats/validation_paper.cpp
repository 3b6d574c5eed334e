// Validation test, method "paper": the arithmetic of the author's reference code.
// τ = mean_i cos(y, A_i); τ̃_b = mean_i cos(ỹ_b, A_i) for B reference texts ỹ_b from f(β̂);
// critical value = type-7 α-quantile of {τ̃_b}; validity rejected iff critical value > τ.
// The reference reports no p-value; we report the level at which that rule starts to reject
// (type7_rejection_level), so that "p < α" is the decision: a rank count (1 + #{τ̃_b <= τ}) /
// (B + 1), reported before, could read 0.059 beside "rejected" at α = 0.05 (issue 42).
#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {

ValidationResult validation_paper(SimilarityBlocks& blocks, const std::string& passage,
                                  const std::string& pool, const std::string& reference,
                                  double alpha) {
    detail::require_pool(blocks, passage, 1, "passage");
    detail::require_pool(blocks, pool, 2, "pool");
    detail::require_pool(blocks, reference, 2, "reference");
    const Eigen::MatrixXd& y = blocks.pool(passage);
    if (y.rows() != 1)
        throw_invalid(code::invalid_argument, blocks.argument(passage),
                      std::to_string(y.rows()) + " rows", "one embedding (one row)");
    const Eigen::MatrixXd& references = blocks.pool(reference);
    const double n = static_cast<double>(blocks.pool(pool).rows());
    const Eigen::VectorXd& pool_sum = blocks.sum(pool);
    const Eigen::VectorXd passage_vector = y.row(0).transpose();

    ValidationResult result;
    result.method = "paper";
    result.alpha = alpha;
    result.m = static_cast<int>(blocks.pool(pool).rows());
    result.b = static_cast<int>(references.rows());
    result.statistic = detail::ordered_dot(passage_vector, pool_sum) / n;
    result.null_distribution.resize(references.rows());
    for (Eigen::Index b = 0; b < references.rows(); ++b)
        result.null_distribution[b] = detail::ordered_row_dot(references, b, pool_sum) / n;
    const std::vector<double> null_values(
        result.null_distribution.data(),
        result.null_distribution.data() + result.null_distribution.size());
    result.critical_value = quantile_type7(null_values, alpha);
    result.reject = result.critical_value > result.statistic;
    result.p_value = type7_rejection_level(null_values, result.statistic);
    // With B + 1 < 1/α the α-quantile of the B reference scores lies below the smallest of
    // B + 1 exchangeable draws: its "reject" and the reported p-value disagree.
    result.smallest_deciding_size = smallest_deciding_size(alpha);
    result.can_decide = result.b >= result.smallest_deciding_size;
    return result;
}

namespace detail {
ValidationResult run_validation_paper(SimilarityBlocks& blocks, const TestInput& input) {
    return validation_paper(blocks, passage_pool, label_pool(input.label),
                            reference_pool(input.label), input.options.alpha);
}
}  // namespace detail

}  // namespace llmv::stats
