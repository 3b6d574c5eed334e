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
TestInput example(int m = 15, double passage_shift = 0, std::uint64_t seed = 3) {
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
    CHECK(output.validation.m == 15);
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
    // M = 25: with M < 19 the exact test cannot reject at α = 0.05 (⌊α(M+1)⌋ = 0).
    CHECK_FALSE(run_tests(example(15, 3.0)).validation.reject);
    const TestOutput output = run_tests(example(25, 3.0));
    CHECK(output.validation.reject);
    CHECK(output.verdict == Verdict::invalid);
    CHECK(output.verdict_reason.rfind("Invalid:", 0) == 0);
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
    input.backtranslation["Positive"][1] = "Neutral";  // 13/15 < 0.9
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
    CHECK_THAT(output.verdict_reason, Catch::Contains("separation could not be tested"));

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
        input.paper_reference[sentiment[k]] = gaussian.cluster(c, 10, 0.15);
    }
    const TestOutput output = run_tests(input);
    CHECK(output.validation.method == "paper");
    CHECK(output.validation.b == 10);
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
        CHECK_THROWS_WITH(run_tests(input), Contains("`alpha`") && Contains("a number in (0, 0.5]"));
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
                                            Contains("14 labels") && Contains("15 texts"));
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
