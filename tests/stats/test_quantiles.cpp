// Quantiles, rank critical values and the p-value comparisons.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <limits>

#include "llmvalidate/error.hpp"
#include "llmvalidate/standalone.hpp"
#include "llmvalidate/stats.hpp"

using namespace llmv::stats;

TEST_CASE("type-7 quantile equals R's quantile()") {
    // Sorted: 0.12 0.25 0.31 0.44 0.57. R's index = 1 + (n - 1) p, then (1 - h) x_lo + h x_hi:
    //   p = 0.05: index 1.2 -> 0.8 * 0.12 + 0.2 * 0.25 = 0.146
    //   p = 0.95: index 4.8 -> 0.2 * 0.44 + 0.8 * 0.57 = 0.544
    //   p = 0.3:  index 2.2 -> 0.8 * 0.25 + 0.2 * 0.31 = 0.262
    // R prints sprintf("%.17g", quantile(x, c(.05, .95, .3))): 0.14599999999999999,
    // 0.54399999999999993, 0.26200000000000001; our arithmetic is R's, so the bits agree.
    const std::vector<double> x{0.31, 0.12, 0.57, 0.44, 0.25};
    CHECK(quantile_type7(x, 0.05) == 0.14599999999999999);
    CHECK(quantile_type7(x, 0.95) == 0.54399999999999993);
    CHECK(quantile_type7(x, 0.3) == 0.26200000000000001);
    CHECK(quantile_type7(x, 0.5) == 0.31);
    CHECK(quantile_type7(x, 0) == 0.12);
    CHECK(quantile_type7(x, 1) == 0.57);
    // Four values: index 1.15 -> 0.85 * 0.1 + 0.15 * 0.3 = 0.13; index 3.85 -> 0.84.
    const std::vector<double> y{0.5, 0.1, 0.9, 0.3};
    CHECK(quantile_type7(y, 0.05) == Approx(0.13).margin(1e-15));
    CHECK(quantile_type7(y, 0.95) == Approx(0.84).margin(1e-15));
    CHECK(quantile_type7({2.5}, 0.3) == 2.5);
    CHECK_THROWS(quantile_type7({}, 0.5));
}

TEST_CASE("rank critical value and p-values agree") {
    const std::vector<double> null_values{0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.8, 0.6, 0.4};
    // n = 9: ⌊0.2 · 10⌋ = 2 -> the 2nd smallest, 0.2; ⌊0.05 · 10⌋ = 0 -> -inf.
    CHECK(rank_critical_value(null_values, 0.2) == 0.2);
    CHECK(rank_critical_value(null_values, 0.05) == -std::numeric_limits<double>::infinity());
    CHECK(rank_critical_value(null_values, 0.1) == 0.1);  // ⌊0.1 · 10⌋ = 1 despite rounding
    // With 19 null values, α = 0.05: ⌊0.05 · 20⌋ = 1, and p = 1/20 must count as <= α.
    std::vector<double> nineteen;
    for (int i = 1; i <= 19; ++i) nineteen.push_back(i);
    CHECK(rank_critical_value(nineteen, 0.05) == 1);
    CHECK(p_at_most(1.0 / 20, 0.05));
    CHECK_FALSE(p_at_most(2.0 / 20, 0.05));
    // For every statistic s: p <= α  <=>  s < critical value.
    const Eigen::VectorXd values = Eigen::Map<const Eigen::VectorXd>(null_values.data(), 9);
    for (double alpha : {0.1, 0.2, 0.3, 0.5})
        for (double s : {0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.45}) {
            const double p = (1.0 + count_at_most(values, s)) / 10.0;
            CHECK(p_at_most(p, alpha) == (s < rank_critical_value(null_values, alpha)));
        }
}

TEST_CASE("count_at_most counts near-ties as ties") {
    Eigen::VectorXd values(4);
    values << 0.5, 0.5 + 1e-13, 0.5 + 1e-6, 0.4;
    CHECK(count_at_most(values, 0.5) == 3);
    CHECK(count_at_most(values, 0.39) == 0);
}

// Issue 25: the deciding size is computed in closed form; the search that counted up from
// 1/alpha never ended at alpha = 1e-20. Every loop in it is bounded.
TEST_CASE("smallest_deciding_size is exact at the boundaries and bounded for any alpha") {
    CHECK(smallest_deciding_size(0.05) == 19);  // 1/20 counts as <= 0.05
    CHECK(smallest_deciding_size(0.5) == 1);
    CHECK(smallest_deciding_size(1.0 / 3) == 2);
    CHECK(smallest_deciding_size(0.01) == 99);
    CHECK(smallest_deciding_size(1e-6) == 999999);
    for (double alpha : {0.049, 0.051, 0.1, 0.2, 0.001, 1e-5}) {
        const int size = smallest_deciding_size(alpha);
        INFO("alpha " << alpha << ": " << size);
        CHECK(p_at_most(1.0 / (size + 1.0), alpha));
        CHECK((size == 1 || !p_at_most(1.0 / size, alpha)));
    }
    CHECK(smallest_deciding_size(1e-20) == std::numeric_limits<int>::max());
    CHECK(smallest_deciding_size(std::numeric_limits<double>::denorm_min()) == std::numeric_limits<int>::max());
    CHECK_THROWS(smallest_deciding_size(0));
}

// The permutation blocks look at the calling thread's interrupt flag.
TEST_CASE("a permutation test stops with llmv.cancelled once the interrupt flag is set") {
    Eigen::MatrixXd a = Eigen::MatrixXd::Random(40, 8);
    Eigen::MatrixXd b = Eigen::MatrixXd::Random(40, 8).array() + 0.5;
    std::atomic<bool> flag{true};
    const InterruptScope scope(&flag);
    try {
        separation_test(a, b, 0.05, SeparationTestMethod::permutation, 999);
        FAIL("no interrupt");
    } catch (const llmv::Error& error) {
        CHECK(std::string(error.code()) == "llmv.cancelled");
    }
    flag = false;
    CHECK_NOTHROW(separation_test(a, b, 0.05, SeparationTestMethod::permutation, 999));
}
