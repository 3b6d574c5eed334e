// The separation test: hand-computed cases, both product paths, ties, identical pools, M = 2,
// unequal pool sizes, and Monte Carlo size and power; the paper variant against explicit loops.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "llmvalidate/stats.hpp"
#include "stats_helpers.hpp"

using namespace llmv::stats;
using llmv_test::cosine;
using Vectors = std::vector<std::vector<double>>;

namespace {

// ξ of a split of `texts` (indicator `in_beta`), by explicit loops over pairs.
double cross_mean(const Vectors& texts, const std::vector<bool>& in_beta) {
    double total = 0;
    int pairs = 0;
    for (std::size_t i = 0; i < texts.size(); ++i)
        for (std::size_t j = 0; j < texts.size(); ++j)
            if (in_beta[i] && !in_beta[j]) {
                total += cosine(texts[i], texts[j]);
                ++pairs;
            }
    return total / pairs;
}

struct Reference {
    double statistic;
    std::vector<double> null_values;
    double p_value;
    double critical_value;
};

// The documented draw procedure, re-done here: for each permutation, shuffle the identity
// order with Rng::shuffle; the first M_β positions form group β.
Reference permutation_by_loops(const Vectors& beta, const Vectors& gamma, int permutations,
                               std::uint64_t seed, double alpha) {
    Vectors texts = beta;
    texts.insert(texts.end(), gamma.begin(), gamma.end());
    std::vector<bool> observed(texts.size(), false);
    for (std::size_t i = 0; i < beta.size(); ++i) observed[i] = true;
    Reference reference;
    reference.statistic = cross_mean(texts, observed);
    llmv::Rng rng(seed);
    int at_most = 0;
    for (int r = 0; r < permutations; ++r) {
        std::vector<long> order(texts.size());
        std::iota(order.begin(), order.end(), 0L);
        rng.shuffle(order);
        std::vector<bool> in_beta(texts.size(), false);
        for (std::size_t i = 0; i < beta.size(); ++i)
            in_beta[static_cast<std::size_t>(order[i])] = true;
        const double value = cross_mean(texts, in_beta);
        reference.null_values.push_back(value);
        if (value <= reference.statistic + 1e-12) ++at_most;
    }
    reference.p_value = (1.0 + at_most) / (permutations + 1.0);
    std::vector<double> sorted = reference.null_values;
    std::sort(sorted.begin(), sorted.end());
    const int rank = static_cast<int>(std::floor(alpha * (permutations + 1) + 1e-9));
    reference.critical_value = rank == 0 ? -std::numeric_limits<double>::infinity()
                                         : sorted[static_cast<std::size_t>(rank - 1)];
    return reference;
}

SeparationResult permutation(const Vectors& beta, const Vectors& gamma, int permutations,
                             std::uint64_t seed, double alpha) {
    SimilarityBlocks blocks;
    blocks.add("beta", llmv_test::rows(beta), "pool_beta");
    blocks.add("gamma", llmv_test::rows(gamma), "pool_gamma");
    llmv::Rng rng(seed);
    return separation_permutation(blocks, "beta", "gamma", alpha, permutations, rng);
}

Vectors padded(const Vectors& texts, std::size_t dimension) {
    Vectors out = texts;
    for (auto& text : out) text.resize(dimension, 0.0);  // zeros change no cosine
    return out;
}

void check_against_loops(const Vectors& beta, const Vectors& gamma, int permutations,
                         std::uint64_t seed, double alpha) {
    const Reference reference = permutation_by_loops(beta, gamma, permutations, seed, alpha);
    const SeparationResult result = permutation(beta, gamma, permutations, seed, alpha);
    CHECK(result.method == "permutation");
    CHECK(result.m_beta == static_cast<int>(beta.size()));
    CHECK(result.m_gamma == static_cast<int>(gamma.size()));
    CHECK(result.permutations == permutations);
    CHECK(result.statistic == Approx(reference.statistic).margin(1e-14));
    REQUIRE(result.null_distribution.size() == permutations);
    for (int r = 0; r < permutations; ++r)
        CHECK(result.null_distribution[r] ==
              Approx(reference.null_values[static_cast<std::size_t>(r)]).margin(1e-14));
    CHECK(result.p_value == Approx(reference.p_value));
    CHECK(result.critical_value == Approx(reference.critical_value).margin(1e-14));
    CHECK(result.pass == (reference.p_value <= alpha + 1e-12));
}

}  // namespace

TEST_CASE("permutation separation: closed-form ξ with unequal pool sizes") {
    // cos pairs: (1,0)~(1,1) = 1/√2, (1,0)~(-1,0) = -1, (1,0)~(0,-2) = 0,
    //            (0,1)~(1,1) = 1/√2, (0,1)~(-1,0) = 0,  (0,1)~(0,-2) = -1.
    const Vectors beta{{1, 0}, {0, 1}};
    const Vectors gamma{{1, 1}, {-1, 0}, {0, -2}};
    const SeparationResult result = permutation(beta, gamma, 20, 7, 0.05);
    CHECK(result.statistic == Approx((std::sqrt(2.0) - 2) / 6).margin(1e-15));
}

TEST_CASE("permutation separation agrees with explicit loops on both product paths") {
    const Vectors beta{{1.0, 0.2, -0.1}, {0.8, 0.4, 0.3}, {1.2, -0.1, 0.2}};
    const Vectors gamma{{0.1, 1.0, 0.4}, {-0.2, 0.9, 0.1}, {0.3, 1.1, -0.3}, {0.2, 0.7, 0.5}};
    // d = 3, n = 7: the subset-sum path (two quads, the second one straddling β and γ).
    check_against_loops(beta, gamma, 200, 42, 0.05);
    check_against_loops(beta, gamma, 57, 3, 0.2);
    // d = 20: more than one chunk of 16 coordinates, the second one partly padding.
    check_against_loops(padded(beta, 20), padded(gamma, 20), 100, 8, 0.05);
    // Padded to d = 29 > 4n: the Gram path; same cosines, so the same numbers.
    check_against_loops(padded(beta, 29), padded(gamma, 29), 200, 42, 0.05);
    const SeparationResult small_d = permutation(beta, gamma, 300, 5, 0.05);
    const SeparationResult large_d = permutation(padded(beta, 29), padded(gamma, 29), 300, 5, 0.05);
    for (int r = 0; r < 300; ++r)
        CHECK(small_d.null_distribution[r] == Approx(large_d.null_distribution[r]).margin(1e-14));
    CHECK(small_d.p_value == large_d.p_value);
    // These clusters are far apart: separation passes.
    CHECK(small_d.pass);
}

TEST_CASE("permutation separation: more permutations than one product block") {
    const Vectors beta{{1.0, 0.1}, {0.9, 0.3}, {0.2, 0.1}};
    const Vectors gamma{{0.1, 1.0}, {0.4, 0.9}, {-0.3, 1.0}};
    check_against_loops(beta, gamma, 2100, 9, 0.05);
}

TEST_CASE("permutation separation: identical pools never separate") {
    // P_β = P_γ = {a, b}. Cross sums: observed split 2 + 2 cos(a,b); {a,a}|{b,b} gives
    // 4 cos(a,b) < 2 + 2 cos(a,b). So every ξ_perm <= ξ (the ties included) and p = 1.
    const Vectors pool{{1, 0.5, 0}, {0.2, 1, 0.4}};
    const SeparationResult result = permutation(pool, pool, 99, 1, 0.05);
    CHECK(result.p_value == 1.0);
    CHECK_FALSE(result.pass);
    check_against_loops(pool, pool, 99, 1, 0.05);
}

TEST_CASE("permutation separation: M = 2 cannot pass at α = 0.05") {
    // Two far-apart pairs: of the 6 splits of 4 texts, 2 (the observed one and its mirror)
    // have the smallest cross similarity, so p ≈ 1/3.
    const Vectors beta{{1, 0}, {1, 0.01}};
    const Vectors gamma{{0, 1}, {0.01, 1}};
    const SeparationResult result = permutation(beta, gamma, 999, 4, 0.05);
    CHECK(result.p_value > 0.25);
    CHECK(result.p_value < 0.42);
    CHECK_FALSE(result.pass);
    check_against_loops(beta, gamma, 999, 4, 0.05);
}

TEST_CASE("permutation separation: tests sharing draws equal each test alone, bit for bit") {
    // run_tests() runs β against every γ at once: the γ of one pool size share their draws
    // and the partial sums over P_β. Each must equal the one-pair test from Rng(seed), with
    // M_β = 9 (a quad straddles β and γ), two γ of 9 texts and one of 6, over 2 chunks.
    llmv_test::Gaussian gaussian(77);
    TestInput input;
    input.labels = {"b", "g1", "g2", "g3"};
    input.label = "b";
    input.passage = gaussian.cluster(llmv_test::centre(20), 1, 0.5).row(0).transpose();
    input.pools["b"] = gaussian.cluster(llmv_test::centre(20), 9, 0.5);
    input.pools["g1"] = gaussian.cluster(llmv_test::centre(20, 0.3), 9, 0.5);
    input.pools["g2"] = gaussian.cluster(llmv_test::centre(20, 0.1), 6, 0.5);
    input.pools["g3"] = gaussian.cluster(llmv_test::centre(20, 0.0), 9, 0.5);
    input.options.permutations = 300;  // more than one block of 256
    input.options.seed = 12;
    const TestOutput output = run_tests(input);
    REQUIRE(output.separation.size() == 3);
    for (std::size_t g = 0; g < 3; ++g) {
        const std::string& label = output.separation[g].label;
        INFO("gamma = " << label);
        SimilarityBlocks blocks;
        blocks.add("beta", input.pools.at("b"), "pool_beta");
        blocks.add("gamma", input.pools.at(label), "pool_gamma");
        llmv::Rng rng(12);
        const SeparationResult alone =
            separation_permutation(blocks, "beta", "gamma", 0.05, 300, rng);
        CHECK(alone.null_distribution == output.separation[g].null_distribution);
        CHECK(alone.p_value == output.separation[g].p_value);
        CHECK(alone.critical_value == output.separation[g].critical_value);
    }
    // g1 and g3 share draws but not pools: their null values differ.
    CHECK(output.separation[0].null_distribution != output.separation[2].null_distribution);
}

TEST_CASE("permutation separation: the draws follow the seed") {
    const Vectors beta{{1.0, 0.2, -0.1}, {0.8, 0.4, 0.3}, {0.5, 0.5, 0.5}};
    const Vectors gamma{{0.1, 1.0, 0.4}, {0.6, 0.6, 0.1}, {0.3, 1.1, -0.3}};
    const SeparationResult first = permutation(beta, gamma, 50, 1, 0.05);
    const SeparationResult again = permutation(beta, gamma, 50, 1, 0.05);
    const SeparationResult other = permutation(beta, gamma, 50, 2, 0.05);
    CHECK(first.null_distribution == again.null_distribution);  // bit for bit
    CHECK(first.null_distribution != other.null_distribution);
}

namespace {
double permutation_pass_rate(Eigen::Index m, Eigen::Index d, double shift, int replications,
                             int permutations, std::uint64_t seed) {
    llmv_test::Gaussian gaussian(seed);
    llmv::Rng rng(seed + 1000);
    int passes = 0;
    for (int r = 0; r < replications; ++r) {
        SimilarityBlocks blocks;
        blocks.add("beta", gaussian.cluster(llmv_test::centre(d), m, 0.5), "pool_beta");
        blocks.add("gamma", gaussian.cluster(llmv_test::centre(d, shift), m, 0.5), "pool_gamma");
        passes += separation_permutation(blocks, "beta", "gamma", 0.05, permutations, rng).pass;
    }
    return static_cast<double>(passes) / replications;
}
}  // namespace

TEST_CASE("permutation separation passes at rate <= α when two labels share a distribution") {
    // f ignores the label: both pools from one normalised Gaussian cluster. With R = 199 the
    // exact size is 10/200 = α; 2,000 replications give a standard error of 0.005.
    const double rate_zt = permutation_pass_rate(20, 8, 0, 2000, 199, 31);  // subset sums
    INFO("pass rate (M = 20, d = 8): " << rate_zt);
    CHECK(rate_zt <= 0.065);
    CHECK(rate_zt >= 0.03);  // not conservative to the point of having no power
    // d > 4n: the Gram path (fewer replications: it is the same test, checked above by loops).
    const double rate_gram = permutation_pass_rate(6, 64, 0, 1000, 99, 32);
    INFO("pass rate (M = 6, d = 64): " << rate_gram);
    CHECK(rate_gram <= 0.065);
}

TEST_CASE("permutation separation: power rises with the distance between clusters") {
    std::vector<double> power;
    for (double shift : {0.0, 0.2, 0.4, 0.8})
        power.push_back(permutation_pass_rate(20, 8, shift, 300, 99, 41));
    INFO("pass rates at shifts 0, 0.2, 0.4, 0.8: " << power[0] << " " << power[1] << " " << power[2]
                                                   << " " << power[3]);
    CHECK(power[1] > power[0]);
    CHECK(power[2] > power[1]);
    CHECK(power[3] >= power[2]);
    CHECK(power[3] > 0.9);
}

TEST_CASE("paper separation: explicit re-implementation of the reference arithmetic") {
    const Vectors beta{{1.0, 0.2, -0.1}, {0.8, 0.4, 0.3}, {1.2, -0.1, 0.2}};
    const Vectors gamma{{0.1, 1.0, 0.4}, {-0.2, 0.9, 0.1}, {0.3, 1.1, -0.3}, {0.9, 0.7, 0.5}};
    const Vectors reference{{0.2, 1.0, 0.2}, {1.0, 0.3, 0.1}, {0.4, 0.8, 0.0},
                            {0.0, 1.0, 1.0}, {0.7, 0.7, 0.2}, {-0.1, 1.2, 0.3}};
    SimilarityBlocks blocks;
    blocks.add("beta", llmv_test::rows(beta), "pool_beta");
    blocks.add("gamma", llmv_test::rows(gamma), "pool_gamma");
    blocks.add("ref", llmv_test::rows(reference), "reference");

    double xi = 0;
    for (const auto& b : beta)
        for (const auto& g : gamma) xi += cosine(b, g) / 12;
    std::vector<double> xi_bar;
    for (const auto& r : reference) {
        double total = 0;
        for (const auto& b : beta) total += cosine(r, b);
        xi_bar.push_back(total / 3);
    }
    std::vector<double> sorted = xi_bar;
    std::sort(sorted.begin(), sorted.end());
    bool some_pass = false, some_fail = false;
    for (double alpha : {0.05, 0.5, 0.95}) {
        // Type 7 at 1 - α: h = (B - 1)(1 - α), interpolate between the order statistics.
        const double h = 5 * (1 - alpha);
        const auto lo = static_cast<std::size_t>(std::floor(h));
        const double critical =
            sorted[lo] +
            (h - std::floor(h)) * (sorted[std::min<std::size_t>(lo + 1, 5)] - sorted[lo]);
        const SeparationResult result = separation_paper(blocks, "beta", "gamma", "ref", alpha);
        CHECK(result.method == "paper");
        CHECK(result.b == 6);             // B, the reference texts
        CHECK(result.permutations == 0);  // no permutation was drawn
        CHECK(result.statistic == Approx(xi).margin(1e-14));
        for (std::size_t b = 0; b < xi_bar.size(); ++b)
            CHECK(result.null_distribution[static_cast<Eigen::Index>(b)] ==
                  Approx(xi_bar[b]).margin(1e-14));
        CHECK(result.critical_value == Approx(critical).margin(1e-14));
        CHECK(result.pass == !(xi > critical));
        CHECK(std::isnan(result.p_value));
        (result.pass ? some_pass : some_fail) = true;
    }
    CHECK(some_pass);  // the example straddles the decision, so a wrong quantile shows
    CHECK(some_fail);
}

TEST_CASE("paper separation can hardly fail when f ignores the label") {
    // The documented defect: with both pools (and the reference) from one distribution, ξ sits
    // near the centre of {ξ̄_b}, so it almost never exceeds the (1 - α)-quantile.
    llmv_test::Gaussian gaussian(51);
    llmv::Rng rng(52);
    int paper_passes = 0, permutation_passes = 0;
    const int replications = 300;
    for (int r = 0; r < replications; ++r) {
        SimilarityBlocks blocks;
        const Eigen::VectorXd centre = llmv_test::centre(8);
        blocks.add("beta", gaussian.cluster(centre, 20, 0.5), "pool_beta");
        blocks.add("gamma", gaussian.cluster(centre, 20, 0.5), "pool_gamma");
        blocks.add("ref", gaussian.cluster(centre, 20, 0.5), "reference");
        paper_passes += separation_paper(blocks, "beta", "gamma", "ref", 0.05).pass;
        permutation_passes += separation_permutation(blocks, "beta", "gamma", 0.05, 99, rng).pass;
    }
    INFO("paper passes " << paper_passes << ", permutation passes " << permutation_passes << " of "
                         << replications);
    CHECK(paper_passes >= 0.95 * replications);
    CHECK(permutation_passes <= 0.1 * replications);
}
