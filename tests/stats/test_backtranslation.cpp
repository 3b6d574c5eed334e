// Backtranslation: accuracy, counts, the Clopper-Pearson bound, the point and bound rules.
#include <catch2/catch.hpp>

#include <cmath>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"

using namespace llmv::stats;

namespace {
// P(X >= x) for X ~ Binomial(n, p), by summing the terms.
double upper_tail(int x, int n, double p) {
    double total = 0;
    for (int k = x; k <= n; ++k)
        total += std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                          k * std::log(p) + (n - k) * std::log1p(-p));
    return total;
}

// The Clopper-Pearson lower bound from its definition: the p with P(X >= x | p) = α.
double lower_bound_by_bisection(int x, int n, double alpha) {
    double lo = 0, hi = 1;
    for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2;
        (upper_tail(x, n, mid) < alpha ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}
}  // namespace

TEST_CASE("Clopper-Pearson lower bound") {
    // R: qbeta(0.05, 17, 4) and qbeta(0.05, 90, 11).
    CHECK(clopper_pearson_lower(17, 20, 0.05) == Approx(0.6563361956857181).margin(1e-12));
    CHECK(clopper_pearson_lower(90, 100, 0.05) == Approx(0.83628237672418515).margin(1e-12));
    CHECK(clopper_pearson_lower(10, 10, 0.05) == Approx(std::pow(0.05, 0.1)).margin(1e-14));
    CHECK(clopper_pearson_lower(0, 10, 0.05) == 0);
    for (int n : {1, 5, 30, 100})
        for (int x = 1; x <= n; x += std::max(1, n / 7))
            for (double alpha : {0.01, 0.05, 0.2})
                CHECK(clopper_pearson_lower(x, n, alpha) ==
                      Approx(lower_bound_by_bisection(x, n, alpha)).margin(1e-9));
}

TEST_CASE("backtranslation: accuracy and counts in S's order with other answers last") {
    const std::vector<std::string> labels{"Positive", "Neutral", "Negative"};
    const std::vector<std::string> back{"positive", " Positive ", "Neutral", "POSITIVE",
                                        "Mixed",    "positive",   "mixed",   "Positive"};
    const BacktranslationResult result =
        backtranslation("Positive", back, labels, 0.7, "point", 0.05);
    CHECK(result.run);
    CHECK(result.label == "Positive");
    CHECK(result.m == 8);
    CHECK(result.correct == 5);
    CHECK(result.accuracy == 5.0 / 8);
    CHECK(result.lower_bound == Approx(lower_bound_by_bisection(5, 8, 0.05)).margin(1e-9));
    REQUIRE(result.counts.size() == 4);
    CHECK(result.counts[0] == std::make_pair(std::string("Positive"), 5));
    CHECK(result.counts[1] == std::make_pair(std::string("Neutral"), 1));
    CHECK(result.counts[2] == std::make_pair(std::string("Negative"), 0));
    CHECK(result.counts[3] == std::make_pair(std::string("Mixed"), 2));
    CHECK_FALSE(result.pass);  // 0.625 < 0.7
}

TEST_CASE("backtranslation: the point and bound rules") {
    const std::vector<std::string> labels{"A", "B"};
    std::vector<std::string> back(20, "A");
    back[0] = back[1] = "B";  // 18/20 = 0.9
    const BacktranslationResult point = backtranslation("A", back, labels, 0.9, "point", 0.05);
    CHECK(point.accuracy == Approx(0.9));
    CHECK(point.pass);  // exactly at the threshold passes
    const BacktranslationResult bound = backtranslation("A", back, labels, 0.9, "bound", 0.05);
    CHECK(bound.lower_bound == Approx(lower_bound_by_bisection(18, 20, 0.05)).margin(1e-9));
    CHECK(bound.lower_bound < 0.9);
    CHECK_FALSE(bound.pass);
    CHECK(backtranslation("A", back, labels, 0.6, "bound", 0.05).pass);
    CHECK_FALSE(backtranslation("A", back, labels, 0.91, "point", 0.05).pass);
}

TEST_CASE("backtranslation: bad arguments name themselves") {
    const std::vector<std::string> labels{"A", "B"};
    CHECK_THROWS_WITH(backtranslation("A", {}, labels, 0.9, "point", 0.05),
                      Catch::Contains("`backtranslation`"));
    CHECK_THROWS_WITH(backtranslation("A", {"A"}, labels, 0.9, "strict", 0.05),
                      Catch::Contains("`backtranslation_rule`") && Catch::Contains("'strict'") &&
                          Catch::Contains("point, bound"));
    CHECK_THROWS_WITH(backtranslation("A", {"A"}, labels, 1.5, "point", 0.05),
                      Catch::Contains("`threshold`") && Catch::Contains("1.5"));
    // A target outside S would report accuracy 0 instead of a mistyped label.
    const std::vector<std::string> two{"Positive", "Negative"};
    CHECK_THROWS_WITH(
        backtranslation("Neutral", std::vector<std::string>(10, "Positive"), two, 0.9, "point",
                        0.05),
        Catch::Equals("`target` must be a label of `labels` ('Positive', 'Negative'); received "
                      "'Neutral'."));
    CHECK(backtranslation(" positive", {"Positive"}, two, 0.9, "point", 0.05).pass);
}

TEST_CASE("normalize_label folds case and white space") {
    CHECK(normalize_label("  Mostly \t Positive\n") == "mostly positive");
    CHECK(normalize_label("NEUTRAL") == "neutral");
    CHECK(normalize_label("") == "");
}

// Issue 10: the pipeline matched "very-positive" to "Very Positive" while this test counted it
// as wrong. One normaliser now decides for both.
TEST_CASE("backtranslation counts an answer as the pipeline's label matcher does") {
    const std::vector<std::string> labels = {"Very Positive", "Neutral"};
    const std::vector<std::string> answers = {"very-positive", "Very_Positive", "\"very positive.\"",
                                              "Neutral"};
    const auto result = backtranslation("Very Positive", answers, labels, 0.5, "point", 0.05);
    CHECK(result.correct == 3);
    CHECK(result.m == 4);
    CHECK(normalize_label("very-positive") == normalize_label("Very Positive"));
}
