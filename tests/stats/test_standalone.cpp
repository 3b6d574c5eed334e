// The stand-alone tests (standalone.hpp) against explicit loops over cosines, and against the
// same tests inside run_tests(), bit for bit. Data: Gaussian clusters from fixed seeds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/rng.hpp"
#include "llmvalidate/standalone.hpp"
#include "stats_helpers.hpp"

using namespace llmv::stats;
using llmv_test::cosine;
using llmv_test::row;

namespace {

// Type-7 quantile of `values` at p, by sorting (independent of quantile_type7()).
double type7(std::vector<double> values, double p) {
    std::sort(values.begin(), values.end());
    const double h = static_cast<double>(values.size() - 1) * p;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (h - std::floor(h)) * (values[hi] - values[lo]);
}

// mean over i in `a`, j in `b` of cos(row i of x, row j of y).
double mean_cosine(const Eigen::MatrixXd& x, const std::vector<Eigen::Index>& a,
                   const Eigen::MatrixXd& y, const std::vector<Eigen::Index>& b) {
    double total = 0;
    for (Eigen::Index i : a)
        for (Eigen::Index j : b) total += cosine(row(x, i), row(y, j));
    return total / static_cast<double>(a.size() * b.size());
}

std::vector<Eigen::Index> all_rows(const Eigen::MatrixXd& x) {
    std::vector<Eigen::Index> rows(static_cast<std::size_t>(x.rows()));
    std::iota(rows.begin(), rows.end(), Eigen::Index{0});
    return rows;
}

constexpr double tolerance = 1e-12;  // every statistic is a mean of cosines, in [-1, 1]

}  // namespace

TEST_CASE("validation_test exact: τ, the null T(s_j) and p from explicit loops") {
    llmv_test::Gaussian gaussian(20261);
    const Eigen::Index d = 6;
    const Eigen::MatrixXd pool = gaussian.cluster(llmv_test::centre(d), 24, 0.6);
    const Eigen::VectorXd passage = gaussian.cluster(llmv_test::centre(d, 0.8), 1, 0.6).row(0);

    const ValidationResult result = validation_test(passage, pool, 0.05);
    // Z = {y, s_1..s_M}; T(z) = mean over the other texts of Z of cos(z, z').
    Eigen::MatrixXd z(pool.rows() + 1, d);
    z.row(0) = passage.transpose();
    z.bottomRows(pool.rows()) = pool;
    std::vector<double> t(static_cast<std::size_t>(z.rows()));
    for (Eigen::Index i = 0; i < z.rows(); ++i) {
        double total = 0;
        for (Eigen::Index j = 0; j < z.rows(); ++j)
            if (j != i) total += cosine(row(z, i), row(z, j));
        t[static_cast<std::size_t>(i)] = total / static_cast<double>(pool.rows());
    }
    int at_most = 0;
    for (std::size_t j = 1; j < t.size(); ++j) at_most += t[j] <= t[0] ? 1 : 0;

    CHECK(result.method == "exact");
    CHECK(result.m == 24);
    CHECK(result.statistic == Approx(t[0]).margin(tolerance));
    REQUIRE(result.null_distribution.size() == 24);
    for (Eigen::Index j = 0; j < 24; ++j)
        CHECK(result.null_distribution[j] ==
              Approx(t[static_cast<std::size_t>(j + 1)]).margin(tolerance));
    CHECK(result.p_value == Approx((1.0 + at_most) / 25.0).margin(tolerance));
    CHECK(result.reject == ((1.0 + at_most) / 25.0 <= 0.05 + 1e-12));
}

TEST_CASE("validation_test paper: τ̃_b and the type-7 critical value from explicit loops") {
    llmv_test::Gaussian gaussian(77);
    const Eigen::Index d = 5;
    const Eigen::MatrixXd pool = gaussian.cluster(llmv_test::centre(d), 15, 0.7);
    const Eigen::MatrixXd reference = gaussian.cluster(llmv_test::centre(d), 30, 0.7);
    const Eigen::VectorXd passage = gaussian.cluster(llmv_test::centre(d, 0.5), 1, 0.7).row(0);

    const ValidationResult result =
        validation_test(passage, pool, 0.1, ValidationTestMethod::paper, reference);
    const double tau = mean_cosine(passage.transpose(), {0}, pool, all_rows(pool));
    std::vector<double> tilde;
    for (Eigen::Index b = 0; b < reference.rows(); ++b)
        tilde.push_back(mean_cosine(reference, {b}, pool, all_rows(pool)));
    const double critical = type7(tilde, 0.1);

    CHECK(result.method == "paper");
    CHECK(result.m == 15);
    CHECK(result.b == 30);
    CHECK(result.statistic == Approx(tau).margin(tolerance));
    for (std::size_t b = 0; b < tilde.size(); ++b)
        CHECK(result.null_distribution[static_cast<Eigen::Index>(b)] ==
              Approx(tilde[b]).margin(tolerance));
    CHECK(result.critical_value == Approx(critical).margin(tolerance));
    CHECK(result.reject == (critical > tau));
}

TEST_CASE("separation_test permutation: ξ and the draws of Rng(seed) from explicit loops") {
    llmv_test::Gaussian gaussian(314);
    const Eigen::Index d = 4;
    const Eigen::MatrixXd pool_a = gaussian.cluster(llmv_test::centre(d), 9, 0.8);
    const Eigen::MatrixXd pool_b = gaussian.cluster(llmv_test::centre(d, 1.0), 7, 0.8);
    const int permutations = 59;
    const std::uint64_t seed = 4242;

    const SeparationResult result = separation_test(
        pool_a, pool_b, 0.05, SeparationTestMethod::permutation, permutations, seed);
    Eigen::MatrixXd texts(16, d);
    texts.topRows(9) = pool_a;
    texts.bottomRows(7) = pool_b;
    auto xi_of = [&](const std::vector<long>& order) {
        std::vector<Eigen::Index> a, b;
        for (std::size_t i = 0; i < order.size(); ++i)
            (i < 9 ? a : b).push_back(static_cast<Eigen::Index>(order[i]));
        return mean_cosine(texts, a, texts, b);
    };
    std::vector<long> identity(16);
    std::iota(identity.begin(), identity.end(), 0L);
    const double xi = xi_of(identity);
    llmv::Rng rng(seed);
    int at_most = 0;
    REQUIRE(result.null_distribution.size() == permutations);
    for (int r = 0; r < permutations; ++r) {
        std::vector<long> order = identity;
        rng.shuffle(order);
        const double value = xi_of(order);
        CHECK(result.null_distribution[r] == Approx(value).margin(tolerance));
        at_most += value <= xi ? 1 : 0;
    }
    CHECK(result.method == "permutation");
    CHECK(result.m_beta == 9);
    CHECK(result.m_gamma == 7);
    CHECK(result.statistic == Approx(xi).margin(tolerance));
    CHECK(result.p_value == Approx((1.0 + at_most) / (permutations + 1.0)).margin(tolerance));
}

TEST_CASE("separation_test paper: ξ̄_b and the (1 - α) type-7 quantile from explicit loops") {
    llmv_test::Gaussian gaussian(99);
    const Eigen::Index d = 3;
    const Eigen::MatrixXd pool_a = gaussian.cluster(llmv_test::centre(d), 8, 0.5);
    const Eigen::MatrixXd pool_b = gaussian.cluster(llmv_test::centre(d, 1.5), 10, 0.5);
    const Eigen::MatrixXd reference = gaussian.cluster(llmv_test::centre(d, 1.5), 25, 0.5);

    const SeparationResult result =
        separation_test(pool_a, pool_b, 0.05, SeparationTestMethod::paper, 0, 1, reference);
    const double xi = mean_cosine(pool_a, all_rows(pool_a), pool_b, all_rows(pool_b));
    std::vector<double> xi_bar;
    for (Eigen::Index b = 0; b < reference.rows(); ++b)
        xi_bar.push_back(mean_cosine(reference, {b}, pool_a, all_rows(pool_a)));
    const double critical = type7(xi_bar, 0.95);

    CHECK(result.method == "paper");
    CHECK(result.b == 25);
    CHECK(result.permutations == 0);
    CHECK(result.statistic == Approx(xi).margin(tolerance));
    CHECK(result.critical_value == Approx(critical).margin(tolerance));
    CHECK(result.pass == !(xi > critical));
    CHECK(std::isnan(result.p_value));
}

TEST_CASE("the stand-alone tests equal the same tests inside run_tests(), bit for bit") {
    llmv_test::Gaussian gaussian(5);
    const Eigen::Index d = 7;
    TestInput input;
    input.labels = {"a", "b"};
    input.label = "a";
    input.pools["a"] = gaussian.cluster(llmv_test::centre(d), 20, 0.6);
    input.pools["b"] = gaussian.cluster(llmv_test::centre(d, 0.7), 20, 0.6);
    input.passage = gaussian.cluster(llmv_test::centre(d, 0.2), 1, 0.6).row(0);
    input.options.permutations = 99;
    input.options.seed = 123;
    const TestOutput whole = run_tests(input);

    const ValidationResult validation = validation_test(input.passage, input.pools["a"], 0.05);
    CHECK(validation.statistic == whole.validation.statistic);
    CHECK(validation.p_value == whole.validation.p_value);
    CHECK(validation.null_distribution == whole.validation.null_distribution);
    REQUIRE(whole.separation.size() == 1);
    const SeparationResult separation = separation_test(input.pools["a"], input.pools["b"], 0.05,
                                                        SeparationTestMethod::permutation, 99, 123);
    CHECK(separation.statistic == whole.separation[0].statistic);
    CHECK(separation.p_value == whole.separation[0].p_value);
    CHECK(separation.null_distribution == whole.separation[0].null_distribution);
}

TEST_CASE("stand-alone tests: method names, and errors that name the argument") {
    CHECK(validation_test_method("exact") == ValidationTestMethod::exact);
    CHECK(validation_test_method("paper") == ValidationTestMethod::paper);
    CHECK(separation_test_method("permutation") == SeparationTestMethod::permutation);
    CHECK(separation_test_method("paper") == SeparationTestMethod::paper);
    try {
        validation_test_method("rank");
        FAIL("an unknown method was accepted");
    } catch (const llmv::Error& error) {
        CHECK(error.code() == llmv::code::invalid_argument);
        CHECK(std::string(error.what()) ==
              "`method` must be \"exact\" or \"paper\"; received \"rank\".");
    }
    CHECK_THROWS_WITH(separation_test_method("exact", "smethod"),
                      "`smethod` must be \"permutation\" or \"paper\"; received \"exact\".");

    const Eigen::MatrixXd pool = Eigen::MatrixXd::Identity(3, 3);
    const Eigen::VectorXd passage = Eigen::VectorXd::Ones(4);
    try {
        validation_test(passage, pool, 0.05);
        FAIL("a passage of another dimension was accepted");
    } catch (const llmv::Error& error) {
        CHECK(error.code() == llmv::code::dimension_mismatch);
        CHECK(std::string(error.what()).find("`pool`") != std::string::npos);
    }
    CHECK_THROWS_AS(
        validation_test(Eigen::VectorXd::Ones(3), pool, 0.05, ValidationTestMethod::paper),
        llmv::Error);  // the paper method without reference texts
}
