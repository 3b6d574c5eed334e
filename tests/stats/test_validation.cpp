// The validation test: hand-computed cases, ties, M = 2, and Monte Carlo size and power.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "llmvalidate/rng.hpp"
#include "llmvalidate/stats.hpp"
#include "stats_helpers.hpp"

using namespace llmv::stats;
using llmv_test::cosine;

namespace {

// T(z) = mean over z' != z of cos(z, z') on Z = {y} ∪ pool, by explicit loops on raw vectors.
std::vector<double> scores_by_loops(const std::vector<double>& y,
                                    const std::vector<std::vector<double>>& pool) {
    std::vector<std::vector<double>> z{y};
    z.insert(z.end(), pool.begin(), pool.end());
    std::vector<double> scores;
    for (std::size_t i = 0; i < z.size(); ++i) {
        double total = 0;
        for (std::size_t j = 0; j < z.size(); ++j)
            if (j != i) total += cosine(z[i], z[j]);
        scores.push_back(total / static_cast<double>(pool.size()));
    }
    return scores;  // scores[0] = τ
}

ValidationResult exact(const std::vector<double>& y, const std::vector<std::vector<double>>& pool,
                       double alpha) {
    SimilarityBlocks blocks;
    blocks.add("", llmv_test::rows({y}), "passage");
    blocks.add("beta", llmv_test::rows(pool), "pool");
    return validation_exact(blocks, "", "beta", alpha);
}

}  // namespace

TEST_CASE("exact validation: four vectors with closed-form cosines") {
    // Angles 0° (y), 60°, 90°, 180°, at different lengths. cos: y·s1 = 1/2, y·s2 = 0,
    // y·s3 = -1, s1·s2 = √3/2, s1·s3 = -1/2, s2·s3 = 0.
    const std::vector<double> y{2, 0};
    const std::vector<std::vector<double>> pool{{1, std::sqrt(3.0)}, {0, 3}, {-5, 0}};
    const ValidationResult result = exact(y, pool, 0.05);
    const double root3 = std::sqrt(3.0);
    CHECK(result.method == "exact");
    CHECK(result.m == 3);
    CHECK(result.statistic == Approx(-1.0 / 6).margin(1e-15));  // (1/2 + 0 - 1) / 3
    REQUIRE(result.null_distribution.size() == 3);
    CHECK(result.null_distribution[0] == Approx(root3 / 6).margin(1e-15));  // (1/2 + √3/2 - 1/2)/3
    CHECK(result.null_distribution[1] == Approx(root3 / 6).margin(1e-15));  // (0 + √3/2 + 0)/3
    CHECK(result.null_distribution[2] == Approx(-0.5).margin(1e-15));       // (-1 - 1/2 + 0)/3
    // Only T(s3) = -1/2 <= τ = -1/6: p = (1 + 1) / 4.
    CHECK(result.p_value == 0.5);
    // ⌊0.05 · 4⌋ = 0: no rank can reject, the critical value is -infinity.
    CHECK(result.critical_value == -std::numeric_limits<double>::infinity());
    CHECK_FALSE(result.reject);

    // At α = 1/2: ⌊0.5 · 4⌋ = 2, the 2nd smallest T(s_j) = √3/6 > τ, and p = 1/2 <= α.
    const ValidationResult half = exact(y, pool, 0.5);
    CHECK(half.critical_value == Approx(root3 / 6).margin(1e-15));
    CHECK(half.reject);
    CHECK(half.statistic < half.critical_value);
}

TEST_CASE("exact validation agrees with explicit loops on five 4-d vectors") {
    const std::vector<double> y{0.3, -1.2, 0.5, 2.0};
    const std::vector<std::vector<double>> pool{
        {1.0, 0.2, -0.3, 0.4}, {0.1, -0.9, 0.8, 1.5}, {-0.4, 0.3, 1.1, 0.2}, {0.7, -0.5, 0.1, 1.9}};
    const std::vector<double> scores = scores_by_loops(y, pool);
    for (double alpha : {0.05, 0.2, 0.4, 0.6}) {
        const ValidationResult result = exact(y, pool, alpha);
        CHECK(result.statistic == Approx(scores[0]).margin(1e-14));
        int at_most = 0;
        std::vector<double> null_values(scores.begin() + 1, scores.end());
        for (std::size_t j = 0; j < null_values.size(); ++j) {
            CHECK(result.null_distribution[static_cast<Eigen::Index>(j)] ==
                  Approx(null_values[j]).margin(1e-14));
            if (null_values[j] <= scores[0]) ++at_most;
        }
        CHECK(result.p_value == Approx((1.0 + at_most) / 5.0));
        std::sort(null_values.begin(), null_values.end());
        const int rank = static_cast<int>(std::floor(alpha * 5 + 1e-9));
        const double critical = rank == 0 ? -std::numeric_limits<double>::infinity()
                                          : null_values[static_cast<std::size_t>(rank - 1)];
        CHECK(result.critical_value == Approx(critical).margin(1e-14));
        CHECK(result.reject == ((1.0 + at_most) / 5.0 <= alpha + 1e-12));
        CHECK(result.reject == (result.statistic < result.critical_value));
    }
}

TEST_CASE("exact validation: a passage identical to a pool text ties and the tie counts") {
    // y and s1 point the same way (different lengths): T(y) = T(s1) in exact arithmetic.
    const std::vector<double> y{1, 2, 3};
    const std::vector<std::vector<double>> pool{{2, 4, 6}, {3, -1, 0.5}, {-1, 0.5, 2}};
    const std::vector<double> scores = scores_by_loops(y, pool);
    CHECK(scores[0] == Approx(scores[1]).margin(1e-14));
    const ValidationResult result = exact(y, pool, 0.05);
    int at_most = 1;  // s1, the tie
    if (scores[2] < scores[0]) ++at_most;
    if (scores[3] < scores[0]) ++at_most;
    CHECK(result.p_value == Approx((1.0 + at_most) / 4.0));
}

TEST_CASE("exact validation: identical texts give p = 1") {
    // Same direction, lengths that make the normalised vectors differ in the last bits.
    const std::vector<double> base{0.1, 0.7, -0.3, 0.2};
    std::vector<std::vector<double>> pool;
    for (double scale : {1.0, 3.0, 0.1, 7.7, 1e-3}) {
        std::vector<double> v = base;
        for (double& x : v) x *= scale;
        pool.push_back(v);
    }
    const ValidationResult result = exact(base, pool, 0.05);
    CHECK(result.statistic == Approx(1.0).margin(1e-14));
    CHECK(result.p_value == 1.0);
    CHECK_FALSE(result.reject);
}

TEST_CASE("exact validation: M = 2 can never reject at α = 0.05") {
    const ValidationResult result = exact({1, 0}, {{0, 1}, {0, 2}}, 0.05);
    // y is orthogonal to both texts: τ = 0; T(s_j) = (0 + 1) / 2.
    CHECK(result.statistic == Approx(0).margin(1e-15));
    CHECK(result.null_distribution[0] == Approx(0.5));
    CHECK(result.p_value == Approx(1.0 / 3));  // the smallest possible p with M = 2
    CHECK(result.critical_value == -std::numeric_limits<double>::infinity());
    CHECK_FALSE(result.reject);
    // At α = 1/3 the same data reject.
    CHECK(exact({1, 0}, {{0, 1}, {0, 2}}, 1.0 / 3).reject);
}

TEST_CASE("paper validation: explicit re-implementation of the reference arithmetic") {
    // y equals reference text 2, so τ ties with τ̃_2 (the tie must be counted in p).
    const std::vector<double> y{1.0, 0.1, 0.6};
    const std::vector<std::vector<double>> pool{{1.0, 0.8, 0.1}, {0.2, 1.1, -0.4}, {0.9, 0.3, 0.3}};
    const std::vector<std::vector<double>> reference{
        {0.4, 1.2, 0.0}, {1.0, 0.1, 0.6}, {-0.2, 0.9, 0.4}, {0.6, 0.6, -0.6}, {0.3, 0.2, 1.0}};
    SimilarityBlocks blocks;
    blocks.add("", llmv_test::rows({y}), "passage");
    blocks.add("A", llmv_test::rows(pool), "pool");
    blocks.add("ref", llmv_test::rows(reference), "reference");

    double tau = 0;
    for (const auto& a : pool) tau += cosine(y, a) / 3;
    std::vector<double> tilde;
    for (const auto& r : reference) {
        double total = 0;
        for (const auto& a : pool) total += cosine(r, a);
        tilde.push_back(total / 3);
    }
    for (double alpha : {0.05, 0.5, 0.9}) {
        const ValidationResult result = validation_paper(blocks, "", "A", "ref", alpha);
        std::vector<double> sorted = tilde;
        std::sort(sorted.begin(), sorted.end());
        // Type 7: h = (B - 1) α, linear interpolation between the order statistics around h.
        const double h = 4 * alpha;
        const auto lo = static_cast<std::size_t>(std::floor(h));
        const double critical =
            sorted[lo] +
            (h - std::floor(h)) * (sorted[std::min<std::size_t>(lo + 1, 4)] - sorted[lo]);
        // p: the level at which the type-7 quantile reaches τ, by the closed form of the
        // interpolation (issue 42: the rank count (1 + #{τ̃ <= τ}) / (B + 1) disagreed with the
        // decision): j the last order statistic at most τ, then h = j + (τ - x_j)/(x_j+1 - x_j).
        std::size_t j = 0;
        while (j + 1 < sorted.size() && sorted[j + 1] <= tau) ++j;
        const double level =
            sorted[0] > tau ? 0.0
            : j + 1 == sorted.size()
                ? 1.0
                : (static_cast<double>(j) + (tau - sorted[j]) / (sorted[j + 1] - sorted[j])) / 4.0;
        CHECK(result.method == "paper");
        CHECK(result.m == 3);
        CHECK(result.b == 5);
        CHECK(result.statistic == Approx(tau).margin(1e-14));
        for (std::size_t b = 0; b < tilde.size(); ++b)
            CHECK(result.null_distribution[static_cast<Eigen::Index>(b)] ==
                  Approx(tilde[b]).margin(1e-14));
        CHECK(result.critical_value == Approx(critical).margin(1e-14));
        CHECK(result.reject == (critical > tau));
        CHECK(result.p_value == Approx(level).margin(1e-9));
        CHECK(result.reject == (result.p_value < alpha));
    }
    // τ ≈ 0.587 lies between the 5% (≈ 0.330) and 90% (≈ 0.750) quantiles of τ̃, so the
    // decision differs across α (R: quantile(tilde, c(.05, .9))).
    CHECK(validation_paper(blocks, "", "A", "ref", 0.9).reject !=
          validation_paper(blocks, "", "A", "ref", 0.05).reject);
}

namespace {
double exact_rejection_rate(int m, int replications, std::uint64_t seed, double shift,
                            double spread = 0.5) {
    llmv_test::Gaussian gaussian(seed);
    const Eigen::Index d = 8;
    const Eigen::VectorXd centre = llmv_test::centre(d);
    const Eigen::VectorXd moved = llmv_test::centre(d, shift);
    int rejections = 0;
    for (int r = 0; r < replications; ++r) {
        SimilarityBlocks blocks;
        blocks.add("", gaussian.cluster(moved, 1, spread), "passage");
        blocks.add("beta", gaussian.cluster(centre, m, spread), "pool");
        rejections += validation_exact(blocks, "", "beta", 0.05).reject ? 1 : 0;
    }
    return static_cast<double>(rejections) / replications;
}
}  // namespace

TEST_CASE("exact validation: size within Monte Carlo error of α over 2000 replications") {
    // Normalised Gaussian clusters, y and the pool from one cluster (H0 true). The exact size
    // is ⌊α(M+1)⌋/(M+1) = 1/21 (M = 20), 5/101 (M = 100); the band is about ±3 standard errors.
    const double size_20 = exact_rejection_rate(20, 2000, 11, 0);
    const double size_100 = exact_rejection_rate(100, 2000, 12, 0);
    INFO("size at M = 20: " << size_20 << ", at M = 100: " << size_100);
    CHECK(size_20 >= 0.035);
    CHECK(size_20 <= 0.065);
    CHECK(size_100 >= 0.035);
    CHECK(size_100 <= 0.065);
}

TEST_CASE("exact validation: power rises with the distance between clusters") {
    std::vector<double> power;
    // Tight clusters (spread 0.25 in d = 8); y's centre moves away from the pool's.
    for (double shift : {0.0, 0.5, 1.0, 2.0})
        power.push_back(exact_rejection_rate(50, 400, 21, shift, 0.25));
    INFO("power at shifts 0, 0.5, 1, 2: " << power[0] << " " << power[1] << " " << power[2] << " "
                                          << power[3]);
    CHECK(power[0] <= 0.09);
    CHECK(power[1] > power[0]);
    CHECK(power[2] > power[1]);
    CHECK(power[3] >= power[2]);
    CHECK(power[3] > 0.8);
}

// Issue 42: under the paper's method the printed p-value read 0.059 beside "rejected" in 12 of
// 106 rows. The p-value now agrees with the decision: rejected exactly when p < α, on 1,000
// simulated null sets and statistics, at several α and B, ties and extremes included.
TEST_CASE("paper validation: the p-value agrees with the decision on 1,000 simulated rows") {
    llmv::Rng rng(20261207);
    int disagreements = 0;
    int rejections = 0;
    for (int row = 0; row < 1000; ++row) {
        const int b = 5 + static_cast<int>(rng.uniform() * 200);
        std::vector<double> null_values;
        for (int i = 0; i < b; ++i) null_values.push_back(rng.uniform());
        // A statistic among the null values, on one of them (a tie), or outside them.
        const double pick = rng.uniform();
        double statistic = rng.uniform();
        if (pick < 0.2) statistic = null_values[static_cast<std::size_t>(rng.uniform() * b)];
        if (pick > 0.95) statistic = pick > 0.975 ? -0.5 : 1.5;
        for (double alpha : {0.01, 0.05, 0.1, 0.25}) {
            const bool reject = quantile_type7(null_values, alpha) > statistic;
            const double p = type7_rejection_level(null_values, statistic);
            rejections += reject ? 1 : 0;
            if (reject != (p < alpha)) ++disagreements;
        }
    }
    CHECK(disagreements == 0);
    CHECK(rejections > 100);  // both decisions occur
    CHECK(rejections < 3900);
    CHECK(type7_rejection_level({0.2, 0.4}, 0.1) == 0);  // below every null value: always rejects
    CHECK(type7_rejection_level({0.2, 0.4}, 0.4) == 1);  // at the largest: never
    CHECK(type7_rejection_level({0.2, 0.4}, 0.3) == Approx(0.5));
}
