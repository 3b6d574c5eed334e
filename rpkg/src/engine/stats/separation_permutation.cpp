// Separation test, method "permutation": a two-sample permutation test on P_β ∪ P_γ.
//
// Statistic ξ = mean_ij cos(β_i, γ_j) = σ_β·σ_γ / (M_β M_γ), σ = the pool's sum of rows.
// Draws: for r = 1..R, start from the identity order 0..n-1 (n = M_β + M_γ; rows of P_β
// first, then P_γ), shuffle it with Rng::shuffle, and call the texts at the first M_β
// positions group β. Nothing else draws from the generator.
// Null values: with U the n x R indicator matrix of the permuted groups β, ONE product gives
// every cross-group sum, whichever is cheaper of
//   d < n:  S = Zᵀ U (d x R),   cross_r = S_r · (σ_β + σ_γ - S_r)      [d n R flops]
//   d >= n: H = (Z Zᵀ) U (n x R), cross_r = Σ_{i outside group r} H_ir   [n² R flops]
// (Z = the n x d stacked pools). Both are exact; the choice depends only on the shapes. The
// product is taken over blocks of permutations_per_product columns, to bound memory.
#include <algorithm>
#include <numeric>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {
namespace {
constexpr int permutations_per_product = 1024;
}

SeparationResult separation_permutation(SimilarityBlocks& blocks, const std::string& pool_beta,
                                        const std::string& pool_gamma, double alpha,
                                        int permutations, Rng& rng) {
    detail::require_pool(blocks, pool_beta, 2, "pool_beta");
    detail::require_pool(blocks, pool_gamma, 2, "pool_gamma");
    if (permutations < 1)
        throw_invalid(code::invalid_argument, "permutations", std::to_string(permutations),
                      "a whole number >= 1 (999 is the default)");
    const Eigen::MatrixXd& beta = blocks.pool(pool_beta);
    const Eigen::MatrixXd& gamma = blocks.pool(pool_gamma);
    const Eigen::Index m_beta = beta.rows();
    const Eigen::Index m_gamma = gamma.rows();
    const Eigen::Index n = m_beta + m_gamma;
    const Eigen::Index d = beta.cols();
    const double pairs = static_cast<double>(m_beta) * static_cast<double>(m_gamma);
    const Eigen::VectorXd& sum_beta = blocks.sum(pool_beta);
    const Eigen::VectorXd& sum_gamma = blocks.sum(pool_gamma);

    SeparationResult result;
    result.label = pool_gamma;
    result.method = "permutation";
    result.alpha = alpha;
    result.m_beta = static_cast<int>(m_beta);
    result.m_gamma = static_cast<int>(m_gamma);
    result.permutations = permutations;
    result.statistic = detail::ordered_dot(sum_beta, sum_gamma) / pairs;
    result.null_distribution.resize(permutations);

    Eigen::MatrixXd stacked(n, d);
    stacked.topRows(m_beta) = beta;
    stacked.bottomRows(m_gamma) = gamma;
    const bool through_gram = d >= n;
    Eigen::MatrixXd gram;
    if (through_gram) gram = stacked * stacked.transpose();
    const Eigen::VectorXd total = sum_beta + sum_gamma;

    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    for (int first = 0; first < permutations; first += permutations_per_product) {
        const int columns = std::min(permutations_per_product, permutations - first);
        Eigen::MatrixXd indicator = Eigen::MatrixXd::Zero(n, columns);
        for (int c = 0; c < columns; ++c) {
            std::iota(order.begin(), order.end(), Eigen::Index{0});
            rng.shuffle(order);
            for (Eigen::Index i = 0; i < m_beta; ++i) indicator(order[i], c) = 1;
        }
        if (through_gram) {
            const Eigen::MatrixXd products = gram * indicator;
            for (int c = 0; c < columns; ++c) {
                double cross = 0;
                for (Eigen::Index i = 0; i < n; ++i)
                    if (indicator(i, c) == 0) cross += products(i, c);
                result.null_distribution[first + c] = cross / pairs;
            }
        } else {
            const Eigen::MatrixXd sums = stacked.transpose() * indicator;
            Eigen::VectorXd rest(d);
            for (int c = 0; c < columns; ++c) {
                const double* group = sums.col(c).data();
                for (Eigen::Index k = 0; k < d; ++k) rest[k] = total[k] - group[k];
                result.null_distribution[first + c] =
                    detail::ordered_dot(group, rest.data(), d) / pairs;
            }
        }
    }

    result.p_value = (1.0 + count_at_most(result.null_distribution, result.statistic)) /
                     (static_cast<double>(permutations) + 1.0);
    result.critical_value =
        rank_critical_value(std::vector<double>(result.null_distribution.data(),
                                                result.null_distribution.data() + permutations),
                            alpha);
    result.pass = p_at_most(result.p_value, alpha);
    return result;
}

namespace detail {
SeparationResult run_separation_permutation(SimilarityBlocks& blocks, const TestInput& input,
                                            const std::string& gamma, Rng& rng) {
    SeparationResult result =
        separation_permutation(blocks, label_pool(input.label), label_pool(gamma),
                               input.options.alpha, input.options.permutations, rng);
    result.label = gamma;
    return result;
}
}  // namespace detail

}  // namespace llmv::stats
