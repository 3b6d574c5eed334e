// Separation test, method "permutation": a two-sample permutation test on P_β ∪ P_γ.
//
// Statistic ξ = mean_ij cos(β_i, γ_j) = σ_β·σ_γ / (M_β M_γ), σ = the pool's sum of rows.
// Draws: for r = 1..R, start from the identity order 0..n-1 (n = M_β + M_γ; rows of P_β
// first, then P_γ), shuffle it with Rng::shuffle, and call the texts at the first M_β
// positions group β. Nothing else draws from the generator. In run_tests() every separation
// test starts from the same generator state, Rng(seed), so the tests of β against each γ of
// one pool size share their R draws (and separation_permutation() with that seed reproduces
// any one of them alone).
//
// Null values, in double precision and in one fixed order of operations (so the same bits
// on every platform; each of the d coordinates is summed on its own, so SIMD width cannot
// change a bit):
//   the n rows are taken in consecutive quads (rows 4q..4q+3, the last one padded with
//   zero rows); S_r = Σ over quads q in ascending order of (the sum of the rows of quad q
//   in group β, in ascending row order); cross_r = S_r · (σ_β + σ_γ - S_r), summed in
//   coordinate order; ξ_r = cross_r / (M_β M_γ).
// Why quads: every quad has only 16 possible subsets, so the 16 subset sums of every quad
// are made once, and a permutation then costs one addition per quad (n/4 row additions)
// where a product Zᵀ U spends a multiply-add per row (n), and gathering the rows of group
// β, M_β. The subset sums are made for column chunks of 16 coordinates, so one chunk's
// table (n/4 · 16 · 16 doubles, 1 MB at n = 2,000) stays in cache while every permutation
// is summed over it. Tests that share their draws share the partial sums over the quads
// made of P_β rows only (the first ⌊M_β/4⌋), which is the same sum in the same order.
// When the Gram matrix of the n texts is the smaller object (4n < d, e.g. M = 50 with
// d = 3072) it is used instead: H = (Z Zᵀ) U, cross_r = Σ over the rows outside group r of
// H_ir, with Z the stacked pools and U the n x R indicator matrix of the permuted groups.
#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {
namespace {
constexpr int permutations_per_block = 256;  // bounds the memory of the partial sums
constexpr Eigen::Index chunk_width = 16;     // coordinates summed together (8 SSE2 registers)
constexpr Eigen::Index quad = 4;             // rows per subset table
constexpr Eigen::Index subsets = 16;         // 2^quad
// Break is looked at (check_interrupt) after this many permutation draws, and after every panel
// of this many rows of a Gram matrix: each a few milliseconds of work at the largest sizes.
constexpr int draws_per_check = 256;
constexpr Eigen::Index gram_rows_per_check = 16;
using Chunk = Eigen::Matrix<double, chunk_width, 1>;

// R permuted groups β of the rows 0..n-1: codes[r · quads + q] has bit j set when row 4q + j
// is in group r.
struct Draws {
    Eigen::Index quads = 0;
    std::vector<std::uint8_t> codes;
    std::uint8_t code(int permutation, Eigen::Index q) const {
        return codes[static_cast<std::size_t>(permutation * quads + q)];
    }
};

Draws draw_groups(Eigen::Index n, Eigen::Index m_beta, int permutations, Rng& rng) {
    Draws draws;
    draws.quads = (n + quad - 1) / quad;
    draws.codes.assign(static_cast<std::size_t>(permutations * draws.quads), 0);
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    for (int r = 0; r < permutations; ++r) {
        if (r % draws_per_check == 0) check_interrupt();
        std::iota(order.begin(), order.end(), Eigen::Index{0});
        rng.shuffle(order);
        std::uint8_t* codes = draws.codes.data() + r * draws.quads;
        for (Eigen::Index i = 0; i < m_beta; ++i)
            codes[order[i] / quad] |= static_cast<std::uint8_t>(1u << (order[i] % quad));
    }
    return draws;
}

// table[(q · subsets + code) · chunk_width + lane], for quads q in [first_quad, last_quad): the sum
// of the rows 4q + j with bit j of `code` set, over the coordinates of chunk `chunk`, rows added in
// ascending order (the subset without its highest row, plus that row). Rows >= n are zero.
void fill_subset_sums(const Eigen::MatrixXd& beta, const Eigen::MatrixXd& gamma, Eigen::Index chunk,
                      Eigen::Index first_quad, Eigen::Index last_quad, std::vector<double>& table) {
    const Eigen::Index m_beta = beta.rows();
    const Eigen::Index n = m_beta + gamma.rows();
    const Eigen::Index d = beta.cols();
    const Eigen::Index quads = (n + quad - 1) / quad;
    const Eigen::Index first_column = chunk * chunk_width;
    const Eigen::Index width = std::min(chunk_width, d - first_column);
    table.resize(static_cast<std::size_t>(quads * subsets * chunk_width));
    // The empty subset and the single rows (bit j alone); rows >= n and lanes >= width are 0.
    for (Eigen::Index q = first_quad; q < last_quad; ++q) {
        double* sums = table.data() + q * subsets * chunk_width;
        Chunk::Map(sums).setZero();
        for (Eigen::Index j = 0; j < quad; ++j) {
            const Eigen::Index i = q * quad + j;
            double* single = sums + (Eigen::Index{1} << j) * chunk_width;
            for (Eigen::Index lane = 0; lane < chunk_width; ++lane)
                single[lane] = i >= n || lane >= width ? 0.0
                               : i < m_beta            ? beta(i, first_column + lane)
                                                       : gamma(i - m_beta, first_column + lane);
        }
    }
    for (Eigen::Index q = first_quad; q < last_quad; ++q) {
        double* sums = table.data() + q * subsets * chunk_width;
        for (Eigen::Index code = 3; code < subsets; ++code) {
            Eigen::Index highest = subsets / 2;
            while ((code & highest) == 0) highest >>= 1;
            if (code == highest) continue;  // a single row, filled above
            Chunk::Map(sums + code * chunk_width) =
                Chunk::Map(sums + (code ^ highest) * chunk_width) +
                Chunk::Map(sums + highest * chunk_width);
        }
    }
}

// For columns c < columns of one block of permutations (the block's first is `first`):
// sums[c · padded + chunk · chunk_width + lane] += Σ over quads [from, to) of the subset sums.
void add_quads(const std::vector<double>& table, const Draws& draws, int first, int columns,
               Eigen::Index chunk, Eigen::Index padded, Eigen::Index from, Eigen::Index to,
               std::vector<double>& sums) {
    for (int c = 0; c < columns; ++c) {
        double* out = sums.data() + c * padded + chunk * chunk_width;
        // A fixed-size vector, so that the compiler keeps the running sum in registers.
        Chunk group = Chunk::Map(out);
        for (Eigen::Index q = from; q < to; ++q)
            group +=
                Chunk::Map(table.data() + (q * subsets + draws.code(first + c, q)) * chunk_width);
        Chunk::Map(out) = group;
    }
}

SeparationResult start_result(SimilarityBlocks& blocks, const std::string& pool_beta,
                              const std::string& pool_gamma, double alpha, int permutations) {
    const Eigen::Index m_beta = blocks.pool(pool_beta).rows();
    const Eigen::Index m_gamma = blocks.pool(pool_gamma).rows();
    SeparationResult result;
    result.label = pool_gamma;
    result.method = "permutation";
    result.alpha = alpha;
    result.m_beta = static_cast<int>(m_beta);
    result.m_gamma = static_cast<int>(m_gamma);
    result.permutations = permutations;
    result.statistic = detail::ordered_dot(blocks.sum(pool_beta), blocks.sum(pool_gamma)) /
                       (static_cast<double>(m_beta) * static_cast<double>(m_gamma));
    result.null_distribution.resize(permutations);
    return result;
}

void finish_result(SeparationResult& result) {
    result.p_value = (1.0 + count_at_most(result.null_distribution, result.statistic)) /
                     (static_cast<double>(result.permutations) + 1.0);
    result.critical_value = rank_critical_value(
        std::vector<double>(result.null_distribution.data(),
                            result.null_distribution.data() + result.permutations),
        result.alpha);
    result.pass = p_at_most(result.p_value, result.alpha);
    result.smallest_deciding_size = smallest_deciding_size(result.alpha);
    result.can_decide = result.permutations >= result.smallest_deciding_size;
}

// The Gram route (4n < d): cross_r = Σ over rows outside group r of (Z Zᵀ U)_ir.
void null_through_gram(const Eigen::MatrixXd& beta, const Eigen::MatrixXd& gamma,
                       const Draws& draws, SeparationResult& result) {
    const Eigen::Index m_beta = beta.rows();
    const Eigen::Index n = m_beta + gamma.rows();
    const double pairs = static_cast<double>(m_beta) * static_cast<double>(gamma.rows());
    Eigen::MatrixXd stacked(n, beta.cols());
    stacked.topRows(m_beta) = beta;
    stacked.bottomRows(gamma.rows()) = gamma;
    // In panels of rows, so that Break is seen while a large Gram matrix is made. Each entry is
    // accumulated as in one product (the same bits): no panel is a single row, which Eigen would
    // compute as a matrix-vector product, so the last one takes the rows left over.
    Eigen::MatrixXd gram(n, n);
    for (Eigen::Index row = 0, rows = 0; row < n; row += rows) {
        check_interrupt();
        rows = n - row < 2 * gram_rows_per_check ? n - row : gram_rows_per_check;
        gram.middleRows(row, rows).noalias() = stacked.middleRows(row, rows) * stacked.transpose();
    }
    for (int first = 0; first < result.permutations; first += permutations_per_block) {
        check_interrupt();
        const int columns = std::min(permutations_per_block, result.permutations - first);
        Eigen::MatrixXd indicator = Eigen::MatrixXd::Zero(n, columns);
        for (int c = 0; c < columns; ++c)
            for (Eigen::Index i = 0; i < n; ++i)
                if ((draws.code(first + c, i / quad) >> (i % quad)) & 1u) indicator(i, c) = 1;
        const Eigen::MatrixXd products = gram * indicator;
        for (int c = 0; c < columns; ++c) {
            double cross = 0;
            for (Eigen::Index i = 0; i < n; ++i)
                if (indicator(i, c) == 0) cross += products(i, c);
            result.null_distribution[first + c] = cross / pairs;
        }
    }
}

// Every γ in `gammas` has the same pool size, and all share `draws`.
void null_through_subset_sums(SimilarityBlocks& blocks, const std::string& pool_beta,
                              const std::vector<std::string>& gammas, const Draws& draws,
                              std::vector<SeparationResult>& results) {
    const Eigen::MatrixXd& beta = blocks.pool(pool_beta);
    const Eigen::Index m_beta = beta.rows();
    const Eigen::Index d = beta.cols();
    const Eigen::Index chunks = (d + chunk_width - 1) / chunk_width;
    const Eigen::Index padded = chunks * chunk_width;
    const Eigen::Index beta_quads = m_beta / quad;  // quads of P_β rows only
    const int permutations = results.front().permutations;
    std::vector<double> table;
    std::vector<double> prefix;  // the sums over the β-only quads, shared by every γ
    std::vector<double> sums;
    Eigen::VectorXd rest(d);
    std::vector<Eigen::VectorXd> totals;  // σ_β + σ_γ of each γ
    for (const std::string& gamma : gammas)
        totals.push_back(blocks.sum(pool_beta) + blocks.sum(gamma));
    for (int first = 0; first < permutations; first += permutations_per_block) {
        check_interrupt();
        const int columns = std::min(permutations_per_block, permutations - first);
        prefix.assign(static_cast<std::size_t>(columns * padded), 0.0);
        const Eigen::MatrixXd& any_gamma = blocks.pool(gammas.front());
        for (Eigen::Index chunk = 0; chunk < chunks && beta_quads > 0; ++chunk) {
            check_interrupt();
            fill_subset_sums(beta, any_gamma, chunk, 0, beta_quads, table);
            add_quads(table, draws, first, columns, chunk, padded, 0, beta_quads, prefix);
        }
        for (std::size_t g = 0; g < gammas.size(); ++g) {
            const Eigen::MatrixXd& gamma = blocks.pool(gammas[g]);
            const Eigen::VectorXd& total = totals[g];
            const double pairs = static_cast<double>(m_beta) * static_cast<double>(gamma.rows());
            sums = prefix;
            for (Eigen::Index chunk = 0; chunk < chunks; ++chunk) {
                check_interrupt();
                fill_subset_sums(beta, gamma, chunk, beta_quads, draws.quads, table);
                add_quads(table, draws, first, columns, chunk, padded, beta_quads, draws.quads,
                          sums);
            }
            for (int c = 0; c < columns; ++c) {
                const double* group = sums.data() + c * padded;
                for (Eigen::Index k = 0; k < d; ++k) rest[k] = total[k] - group[k];
                results[g].null_distribution[first + c] =
                    detail::ordered_dot(group, rest.data(), d) / pairs;
            }
        }
    }
}

void check_permutations(int permutations) {
    const settings::Setting& setting = settings::setting("permutations");
    settings::check_value(setting, settings::Value{true, static_cast<double>(permutations), {}});
}
}  // namespace

namespace detail {
// The tests of β against every γ. Each starts from a copy of `rng`; tests whose pools have
// the same size therefore share their draws (drawn once) and the partial sums over P_β.
// `after`, when given, receives the generator as the last size's draws leave it.
std::vector<SeparationResult> separation_permutation_each(
    SimilarityBlocks& blocks, const std::string& pool_beta,
    const std::vector<std::string>& pool_gammas, double alpha, int permutations, const Rng& rng,
    Rng* after = nullptr) {
    require_pool(blocks, pool_beta, 2, "pool_beta");
    for (const std::string& gamma : pool_gammas) require_pool(blocks, gamma, 2, "pool_gamma");
    check_permutations(permutations);
    const Eigen::MatrixXd& beta = blocks.pool(pool_beta);
    std::vector<SeparationResult> results;
    for (const std::string& gamma : pool_gammas)
        results.push_back(start_result(blocks, pool_beta, gamma, alpha, permutations));

    std::map<Eigen::Index, std::vector<std::size_t>> by_size;  // γ pool size -> its tests
    for (std::size_t g = 0; g < pool_gammas.size(); ++g)
        by_size[blocks.pool(pool_gammas[g]).rows()].push_back(g);
    for (const auto& [m_gamma, members] : by_size) {
        const Eigen::Index n = beta.rows() + m_gamma;
        Rng draw_rng = rng;
        const Draws draws = draw_groups(n, beta.rows(), permutations, draw_rng);
        if (after) *after = draw_rng;
        if (4 * n < beta.cols()) {
            for (const std::size_t g : members)
                null_through_gram(beta, blocks.pool(pool_gammas[g]), draws, results[g]);
            continue;
        }
        std::vector<std::string> gammas;
        std::vector<SeparationResult> shared;
        for (const std::size_t g : members) {
            gammas.push_back(pool_gammas[g]);
            shared.push_back(std::move(results[g]));
        }
        null_through_subset_sums(blocks, pool_beta, gammas, draws, shared);
        for (std::size_t i = 0; i < members.size(); ++i) results[members[i]] = std::move(shared[i]);
    }
    for (SeparationResult& result : results) finish_result(result);
    return results;
}
}  // namespace detail

SeparationResult separation_permutation(SimilarityBlocks& blocks, const std::string& pool_beta,
                                        const std::string& pool_gamma, double alpha,
                                        int permutations, Rng& rng) {
    // The generator moves on past the R draws, as a caller drawing on expects.
    return detail::separation_permutation_each(blocks, pool_beta, {pool_gamma}, alpha, permutations,
                                               Rng(rng), &rng)
        .front();
}

namespace detail {
std::vector<SeparationResult> run_separation_permutation(SimilarityBlocks& blocks,
                                                         const TestInput& input,
                                                         const std::vector<std::string>& gammas) {
    std::vector<std::string> pools;
    for (const std::string& gamma : gammas) pools.push_back(label_pool(gamma));
    std::vector<SeparationResult> results =
        separation_permutation_each(blocks, label_pool(input.label), pools, input.options.alpha,
                                    input.options.permutations, Rng(input.options.seed));
    for (std::size_t g = 0; g < gammas.size(); ++g) results[g].label = gammas[g];
    return results;
}
}  // namespace detail

}  // namespace llmv::stats
