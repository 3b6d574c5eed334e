// run_tests(): the verdict, reproducibility (a test alone and inside run_tests give the same
// bits), and one error per bad field.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"
#include "stats_helpers.hpp"

using namespace llmv::stats;

namespace {
const std::vector<std::string> sentiment{"Positive", "Neutral", "Negative"};

// Three well-separated label clusters in d = 6; the passage from `passage_centre`.
TestInput example(int m = 25, double passage_shift = 0, std::uint64_t seed = 3) {
    llmv_test::Gaussian gaussian(seed);
    const Eigen::Index d = 6;
    auto centre_of = [&](int label) {
        Eigen::VectorXd c = Eigen::VectorXd::Zero(d);
        c[label] = 1;
        return c;
    };
    TestInput input;
    input.label = "Positive";
    input.labels = sentiment;
    Eigen::VectorXd passage_centre = centre_of(0);
    passage_centre[3] = passage_shift;
    input.passage = gaussian.cluster(passage_centre, 1, 0.15).row(0).transpose();
    for (int k = 0; k < 3; ++k) {
        input.pools[sentiment[k]] = gaussian.cluster(centre_of(k), m, 0.15);
        input.backtranslation[sentiment[k]] = std::vector<std::string>(m, sentiment[k]);
    }
    input.options.permutations = 199;
    input.options.seed = 17;
    return input;
}

std::string error_code_of(const TestInput& input) {
    try {
        run_tests(input);
    } catch (const llmv::Error& error) {
        return error.code();
    }
    return "no error";
}
}  // namespace

TEST_CASE("run_tests: valid with every number behind the verdict") {
    const TestOutput output = run_tests(example());
    CHECK(output.verdict == Verdict::valid);
    CHECK(std::string(verdict_name(output.verdict)) == "valid");
    CHECK(output.verdict_reason.rfind("Valid:", 0) == 0);
    CHECK(output.seed == 17);
    CHECK(output.validation.method == "exact");
    CHECK(output.validation.m == 25);
    CHECK_FALSE(output.validation.reject);
    REQUIRE(output.separation.size() == 2);  // S's order, β̂ left out
    CHECK(output.separation[0].label == "Neutral");
    CHECK(output.separation[1].label == "Negative");
    CHECK(output.separation[0].pass);
    CHECK(output.separation[0].permutations == 199);
    CHECK(output.backtranslation.run);
    CHECK(output.backtranslation.accuracy == 1.0);
    REQUIRE(output.backtranslation_other.size() == 2);
    CHECK(output.backtranslation_other[0].label == "Neutral");
}

TEST_CASE("run_tests: invalid when the passage lies away from f(β̂)") {
    const TestOutput output = run_tests(example(25, 3.0));
    CHECK(output.validation.reject);
    CHECK(output.verdict == Verdict::invalid);
    CHECK(output.verdict_reason.rfind("Invalid:", 0) == 0);
}

TEST_CASE("run_tests: a validation test that cannot reject gives inconclusive, never valid") {
    // The passage from the wrong cluster, every prerequisite passing. M = 10 at α = 0.05:
    // the smallest attainable p-value is 1/11 > α, so "not rejected" is no evidence.
    TestOutput output = run_tests(example(10, 3.0));
    CHECK_FALSE(output.validation.reject);
    CHECK_FALSE(output.validation.can_decide);
    CHECK(output.validation.smallest_deciding_size == 19);
    CHECK(output.backtranslation.pass);
    CHECK(output.separation[0].pass);
    CHECK(output.separation[1].pass);
    CHECK(output.verdict == Verdict::inconclusive);
    CHECK(output.verdict_reason ==
          "Inconclusive: the exact validation test cannot reject at α = 0.05 with M = 10 pool "
          "texts: its smallest attainable p-value, 1/(M + 1) = 0.09091, exceeds α; M >= 19 is "
          "needed (M + 1 >= 1/α).");
    // A passage from the right cluster is no more "valid" with M = 10.
    CHECK(run_tests(example(10, 0.0)).verdict == Verdict::inconclusive);

    // M = 19 is the smallest pool that can reject: p = 1/20 = α, and the same passage is invalid.
    output = run_tests(example(19, 3.0));
    CHECK(output.validation.can_decide);
    CHECK(output.validation.p_value == Approx(0.05));
    CHECK(output.validation.reject);
    CHECK(output.verdict == Verdict::invalid);
    CHECK(run_tests(example(19, 0.0)).verdict == Verdict::valid);

    // The rule follows α: M = 10 can reject at α = 1/11.
    TestInput input = example(10, 3.0);
    input.options.alpha = 1.0 / 11;
    CHECK(run_tests(input).verdict == Verdict::invalid);
}

TEST_CASE("run_tests: too few permutations or reference texts give inconclusive with the size") {
    TestInput input = example();
    input.options.permutations = 10;
    TestOutput output = run_tests(input);
    CHECK_FALSE(output.separation[0].can_decide);
    CHECK(output.verdict == Verdict::inconclusive);
    CHECK_THAT(output.verdict_reason,
               Catch::Contains("the separation test from 'Neutral' cannot pass at α = 0.05 with "
                               "R = 10 permutations: its smallest attainable p-value, 1/(R + 1) "
                               "= 0.09091, exceeds α; R >= 19 is needed (R + 1 >= 1/α)"));
    input.options.permutations = 19;
    CHECK(run_tests(input).verdict == Verdict::valid);

    // The paper's tests: B reference texts.
    llmv_test::Gaussian gaussian(41);
    input = example();
    input.options.validation_method = "paper";
    input.options.separation_method = "paper";
    for (const std::string& label : sentiment)
        input.paper_reference[label] = gaussian.cluster(
            input.pools[label].colwise().mean().transpose(), 10, 0.15);
    output = run_tests(input);
    CHECK_FALSE(output.validation.can_decide);
    CHECK_FALSE(output.separation[0].can_decide);
    CHECK(output.verdict == Verdict::inconclusive);
    CHECK_THAT(output.verdict_reason,
               Catch::Contains("the paper's validation test cannot decide at α = 0.05 with B = 10 "
                               "reference texts") &&
                   Catch::Contains("B >= 19 is needed (B + 1 >= 1/α)") &&
                   Catch::Contains("the paper's separation test from 'Neutral' cannot decide"));
}

TEST_CASE("smallest_deciding_size: size + 1 >= 1/α, boundary included") {
    CHECK(smallest_deciding_size(0.05) == 19);
    CHECK(smallest_deciding_size(0.01) == 99);
    CHECK(smallest_deciding_size(0.1) == 9);
    CHECK(smallest_deciding_size(1.0 / 11) == 10);
    CHECK(smallest_deciding_size(0.06) == 16);  // 1/17 = 0.0588 <= 0.06 < 1/16
    CHECK(smallest_deciding_size(0.5) == 1);
    CHECK_THROWS_WITH(smallest_deciding_size(0), Catch::Contains("`alpha`"));
}

TEST_CASE("run_tests: inconclusive verdicts say why") {
    TestInput input = example();
    input.backtranslation.clear();
    TestOutput output = run_tests(input);
    CHECK(output.verdict == Verdict::inconclusive);
    CHECK_FALSE(output.backtranslation.run);
    CHECK(output.backtranslation.label == "Positive");
    CHECK_THAT(output.verdict_reason, Catch::Contains("backtranslation not run"));

    input = example();
    input.backtranslation["Positive"][0] = "Neutral";
    input.backtranslation["Positive"][1] = "Neutral";
    input.backtranslation["Positive"][2] = "Neutral";  // 22/25 < 0.9
    output = run_tests(input);
    CHECK(output.verdict == Verdict::inconclusive);
    CHECK_THAT(output.verdict_reason, Catch::Contains("backtranslation of 'Positive' failed"));

    input = example();
    input.pools.erase("Neutral");
    input.pools.erase("Negative");
    input.backtranslation.erase("Neutral");
    input.backtranslation.erase("Negative");
    output = run_tests(input);
    CHECK(output.separation.empty());
    CHECK(output.verdict == Verdict::inconclusive);
    CHECK_THAT(output.verdict_reason,
               Catch::Contains("no pool texts for 'Neutral' and 'Negative', so separation from "
                               "them was not tested"));

    input = example();
    input.pools["Neutral"] = input.pools["Positive"];  // f ignores the label
    output = run_tests(input);
    CHECK_FALSE(output.separation[0].pass);
    CHECK(output.verdict == Verdict::inconclusive);
    CHECK_THAT(output.verdict_reason, Catch::Contains("separation from 'Neutral' failed"));
}

TEST_CASE("run_tests: a test alone gives the same bits as inside run_tests") {
    const TestInput input = example(12);
    const TestOutput output = run_tests(input);

    // Different pool names, different order of adding, extra pools: nothing may change.
    SimilarityBlocks blocks;
    blocks.add("gamma2", input.pools.at("Negative"), "x");
    blocks.add("beta", input.pools.at("Positive"), "x");
    blocks.add("y", input.passage.transpose(), "x");
    blocks.add("gamma1", input.pools.at("Neutral"), "x");
    blocks.block("beta", "gamma1");  // blocks computed before do not matter either
    const ValidationResult alone = validation_exact(blocks, "y", "beta", 0.05);
    CHECK(alone.statistic == output.validation.statistic);
    CHECK(alone.p_value == output.validation.p_value);
    CHECK(alone.critical_value == output.validation.critical_value);
    CHECK(alone.null_distribution == output.validation.null_distribution);

    // Every separation test starts from Rng(seed), so each one alone reproduces it.
    llmv::Rng rng(17);
    const SeparationResult first = separation_permutation(blocks, "beta", "gamma1", 0.05, 199, rng);
    llmv::Rng fresh(17);
    const SeparationResult second =
        separation_permutation(blocks, "beta", "gamma2", 0.05, 199, fresh);
    CHECK(first.null_distribution != second.null_distribution);
    CHECK(first.statistic == output.separation[0].statistic);
    CHECK(first.null_distribution == output.separation[0].null_distribution);
    CHECK(first.p_value == output.separation[0].p_value);
    CHECK(second.null_distribution == output.separation[1].null_distribution);
    CHECK(second.p_value == output.separation[1].p_value);

    // And a second run of run_tests is identical.
    const TestOutput again = run_tests(input);
    CHECK(again.separation[1].null_distribution == output.separation[1].null_distribution);
}

TEST_CASE("run_tests: labels match ignoring case and white space and keep S's spelling") {
    TestInput input = example();
    input.label = " positive";
    input.pools["NEUTRAL"] = input.pools.at("Neutral");
    input.pools.erase("Neutral");
    const TestOutput output = run_tests(input);
    CHECK(output.backtranslation.label == "Positive");
    CHECK(output.separation[0].label == "Neutral");
}

TEST_CASE("run_tests: the paper methods") {
    TestInput input = example(12);
    input.options.validation_method = "paper";
    input.options.separation_method = "paper";
    CHECK_THROWS_WITH(run_tests(input), Catch::Contains("`paper_reference`"));
    llmv_test::Gaussian gaussian(99);
    for (int k = 0; k < 3; ++k) {
        Eigen::VectorXd c = Eigen::VectorXd::Zero(6);
        c[k] = 1;
        input.paper_reference[sentiment[k]] = gaussian.cluster(c, 20, 0.15);
    }
    const TestOutput output = run_tests(input);
    CHECK(output.validation.method == "paper");
    CHECK(output.validation.b == 20);
    CHECK(output.validation.can_decide);
    REQUIRE(output.separation.size() == 2);
    CHECK(output.separation[0].method == "paper");
    CHECK(std::isnan(output.separation[0].p_value));
    CHECK(output.verdict == Verdict::valid);
}

TEST_CASE("run_tests: every bad field gets a clear error") {
    using Catch::Contains;
    TestInput input = example();

    input.passage[2] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(run_tests(input), Contains("`passage`") && Contains("NaN in column 3"));
    CHECK(error_code_of(input) == llmv::code::invalid_embedding);
    input = example();
    input.passage.setZero();
    CHECK_THROWS_WITH(run_tests(input), Contains("`passage`") && Contains("zero vector"));
    // Vectors scaled by 1e±200 are not zero vectors: their squared norms under- or overflow,
    // so the norm is taken after dividing by the largest |value|; the numbers do not change.
    const TestOutput reference = run_tests(example());
    for (const double scale : {1e200, 1e-200, 1e300, 1e-300}) {
        input = example();
        input.passage *= scale;
        input.pools["Positive"] *= scale;
        input.pools["Neutral"].row(3) *= scale;
        const TestOutput scaled = run_tests(input);
        CHECK(scaled.validation.statistic == Approx(reference.validation.statistic).epsilon(1e-12));
        CHECK(scaled.validation.p_value == reference.validation.p_value);
        CHECK(scaled.verdict == reference.verdict);
    }

    input = example();
    input.pools["Neutral"](4, 1) = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH(run_tests(input), Contains("`pools.Neutral`") && Contains("row 5") &&
                                            Contains("Inf in column 2"));
    input = example();
    input.pools["Negative"].row(2).setZero();
    CHECK_THROWS_WITH(run_tests(input),
                      Contains("`pools.Negative`") && Contains("row 3, a zero vector"));

    input = example();
    input.pools["Neutral"] = Eigen::MatrixXd::Ones(15, 5);
    CHECK_THROWS_WITH(run_tests(input), Contains("`pools.Neutral`") && Contains("dimension 5") &&
                                            Contains("dimension 6"));
    CHECK(error_code_of(input) == llmv::code::dimension_mismatch);

    input = example();
    input.pools["Negative"] = Eigen::MatrixXd::Ones(1, 6);
    input.backtranslation.erase("Negative");
    CHECK_THROWS_WITH(run_tests(input),
                      Contains("`pools.Negative`") && Contains("1 text") && Contains("at least 2"));
    CHECK(error_code_of(input) == llmv::code::pool_too_small);

    input = example();
    input.label = "Mixed";
    CHECK_THROWS_WITH(run_tests(input), Contains("`label`") && Contains("'Mixed'") &&
                                            Contains("'Positive', 'Neutral', 'Negative'"));
    CHECK(error_code_of(input) == llmv::code::unknown_label);

    input = example();
    input.pools.erase("Positive");
    CHECK_THROWS_WITH(run_tests(input), Contains("`pools`") && Contains("'Positive'"));

    input = example();
    input.pools["Mixed"] = input.pools.at("Neutral");
    CHECK_THROWS_WITH(run_tests(input), Contains("`pools`") && Contains("'Mixed'"));

    input = example();
    input.pools["neutral "] = input.pools.at("Neutral");
    CHECK_THROWS_WITH(run_tests(input), Contains("`pools`") && Contains("one entry per label"));

    for (double alpha : {0.0, 0.6, 1.0, -0.1, std::nan("")}) {
        input = example();
        input.options.alpha = alpha;
        CHECK_THROWS_WITH(run_tests(input), Contains("`alpha`") && Contains("a number in [1e-06, 0.5]"));
    }
    input = example();
    input.options.threshold = 1.2;
    CHECK_THROWS_WITH(run_tests(input), Contains("`threshold`") && Contains("1.2"));
    input = example();
    input.options.permutations = 0;
    CHECK_THROWS_WITH(run_tests(input), Contains("`permutations`") && Contains("received 0"));
    input = example();
    input.options.validation_method = "bootstrap";
    CHECK_THROWS_WITH(run_tests(input), Contains("`validation_method`") &&
                                            Contains("\"bootstrap\"") &&
                                            Contains("\"exact\", \"paper\""));
    input = example();
    input.options.separation_method = "mmd";
    CHECK_THROWS_WITH(run_tests(input),
                      Contains("`separation_method`") && Contains("\"paper\", \"permutation\""));
    input = example();
    input.options.backtranslation_rule = "strict";
    CHECK_THROWS_WITH(run_tests(input), Contains("`backtranslation_rule`"));

    input = example();
    input.labels = {"Positive", "positive", "Negative"};
    CHECK_THROWS_WITH(run_tests(input), Contains("`labels`") && Contains("distinct"));
    input = example();
    input.labels = {"Positive"};
    CHECK_THROWS_WITH(run_tests(input), Contains("`labels`") && Contains("at least 2"));

    input = example();
    input.backtranslation["Positive"].pop_back();
    CHECK_THROWS_WITH(run_tests(input), Contains("`backtranslation.Positive`") &&
                                            Contains("24 labels") && Contains("25 texts"));
    input = example();
    input.backtranslation["Mixed"] = {"Mixed"};
    CHECK_THROWS_WITH(run_tests(input), Contains("`backtranslation`") && Contains("'Mixed'"));
}

TEST_CASE("registries list the methods") {
    CHECK(validation_methods().count("exact") == 1);
    CHECK(validation_methods().count("paper") == 1);
    CHECK(separation_methods().count("permutation") == 1);
    CHECK(separation_methods().count("paper") == 1);
}

// Issue 42: labels without pool texts were skipped silently, and the verdict passed them by
// omission ("valid" with r(K) = 4 and two separation tests). Now the verdict is inconclusive
// and names each label whose separation was not tested.
TEST_CASE("run_tests: a label of S without pool texts is never passed by omission") {
    TestInput input = example();
    input.labels = {"Positive", "Neutral", "Negative", "Mixed"};
    const TestOutput one_missing = run_tests(input);
    CHECK(one_missing.separation.size() == 2);
    CHECK(one_missing.separation_untested == std::vector<std::string>{"Mixed"});
    CHECK(one_missing.verdict == Verdict::inconclusive);
    CHECK(one_missing.verdict_reason.find("no pool texts for 'Mixed', so separation from it was "
                                          "not tested") != std::string::npos);
    input.pools.erase("Negative");
    input.backtranslation.erase("Negative");
    const TestOutput two_missing = run_tests(input);
    CHECK(two_missing.separation.size() == 1);
    CHECK(two_missing.verdict == Verdict::inconclusive);
    CHECK(two_missing.verdict_reason.find("'Negative' and 'Mixed', so separation from them") !=
          std::string::npos);
    // With every pool there, the same data are valid: the missing pools made the difference.
    CHECK(run_tests(example()).verdict == Verdict::valid);
}
