// Separation test, method "paper": the arithmetic of the author's reference code.
// ξ = mean_ij cos(f(β)_i, f(γ)_j); ξ̄_b = mean_i cos(ỹ_b, f(β)_i) for B reference texts ỹ_b
// from f(γ); critical value = type-7 (1 - α)-quantile of {ξ̄_b}; separation fails iff ξ
// exceeds it.
//
// p_value is NaN: the reference reports none, and no rank p-value is honest here. ξ is an
// average over N texts of f(γ), the ξ̄_b are single texts of f(γ); they are not exchangeable
// even when f ignores the label, so (1 + #{ξ̄_b >= ξ}) / (B + 1) would not be a p-value.
// (This is the defect METHOD.md documents: ξ sits near the centre of {ξ̄_b}, so the test can
// hardly fail.)
#include <limits>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {

SeparationResult separation_paper(SimilarityBlocks& blocks, const std::string& pool_beta,
                                  const std::string& pool_gamma, const std::string& reference_gamma,
                                  double alpha) {
    detail::require_pool(blocks, pool_beta, 2, "pool_beta");
    detail::require_pool(blocks, pool_gamma, 2, "pool_gamma");
    detail::require_pool(blocks, reference_gamma, 2, "reference_gamma");
    const Eigen::MatrixXd& references = blocks.pool(reference_gamma);
    const Eigen::Index m_beta = blocks.pool(pool_beta).rows();
    const Eigen::Index m_gamma = blocks.pool(pool_gamma).rows();
    const Eigen::VectorXd& sum_beta = blocks.sum(pool_beta);
    const Eigen::VectorXd& sum_gamma = blocks.sum(pool_gamma);

    SeparationResult result;
    result.label = pool_gamma;
    result.method = "paper";
    result.alpha = alpha;
    result.m_beta = static_cast<int>(m_beta);
    result.m_gamma = static_cast<int>(m_gamma);
    result.b = static_cast<int>(references.rows());
    result.statistic = detail::ordered_dot(sum_beta, sum_gamma) /
                       (static_cast<double>(m_beta) * static_cast<double>(m_gamma));
    result.null_distribution.resize(references.rows());
    for (Eigen::Index b = 0; b < references.rows(); ++b)
        result.null_distribution[b] =
            detail::ordered_row_dot(references, b, sum_beta) / static_cast<double>(m_beta);
    result.critical_value =
        quantile_type7(std::vector<double>(result.null_distribution.data(),
                                           result.null_distribution.data() + references.rows()),
                       1 - alpha);
    result.pass = !(result.statistic > result.critical_value);
    result.p_value = std::numeric_limits<double>::quiet_NaN();
    // The same size rule as every other test: B + 1 >= 1/α reference texts.
    result.smallest_deciding_size = smallest_deciding_size(alpha);
    result.can_decide = result.b >= result.smallest_deciding_size;
    return result;
}

namespace detail {
std::vector<SeparationResult> run_separation_paper(SimilarityBlocks& blocks, const TestInput& input,
                                                   const std::vector<std::string>& gammas) {
    std::vector<SeparationResult> results;
    for (const std::string& gamma : gammas) {
        results.push_back(separation_paper(blocks, label_pool(input.label), label_pool(gamma),
                                           reference_pool(gamma), input.options.alpha));
        results.back().label = gamma;
    }
    return results;
}
}  // namespace detail

}  // namespace llmv::stats
