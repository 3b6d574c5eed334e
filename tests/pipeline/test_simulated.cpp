// The simulated provider's data-generating process (docs/simulated.md): its parameters do
// what the documentation says, its embeddings are the fake server's, and the pipeline runs on
// it offline with exact call counts.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llm/hashed_embedder.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/rng.hpp"
#include "pipeline/simulated.hpp"

using namespace llmv;
using namespace llmv::pipeline;

namespace {

const std::vector<std::string> sentiment = {"Positive", "Neutral", "Negative"};
const std::string topic =
    "An adverse change in market conditions could affect clients whose operations depend on the "
    "health of commercial real estate and energy markets.";

// Binomial tolerance: 5 standard errors.
bool near_share(double observed, double expected, int trials) {
    const double se = std::sqrt(std::max(expected * (1 - expected), 1e-4) / trials);
    return std::abs(observed - expected) <= 5 * se;
}

}  // namespace

TEST_CASE("simulated generator follows the requested label with probability follow_probability") {
    for (double follow : {1.0, 0.8, 0.5}) {
        SimulatedDgp dgp;
        dgp.follow_probability = follow;
        const SimulatedModel model(dgp, sentiment);
        const int trials = 1500;
        int followed = 0;
        std::map<std::string, int> others;
        for (int i = 0; i < trials; ++i) {
            std::string latent;
            const std::string text = model.one_text("Negative", topic, stable_hash("t" + std::to_string(i)), &latent);
            // The latent label is what the text carries: the lexicon count recovers it.
            CHECK(model.latent_label(text) == latent);
            if (latent == "Negative") {
                ++followed;
            } else {
                ++others[latent];
            }
        }
        INFO("follow = " << follow << ", followed " << followed << " of " << trials);
        CHECK(near_share(static_cast<double>(followed) / trials, follow, trials));
        if (follow < 1) {
            // The other labels share the rest evenly.
            CHECK(near_share(static_cast<double>(others["Positive"]) / trials, (1 - follow) / 2, trials));
        }
    }
}

TEST_CASE("simulated annotator answers with the rows of its confusion matrix") {
    SimulatedDgp dgp;
    dgp.follow_probability = 1.0;
    dgp.confusion = {{0.7, 0.2, 0.1}, {0.0, 1.0, 0.0}, {0.25, 0.25, 0.5}};
    const SimulatedModel model(dgp, sentiment);
    const int trials = 1200;
    for (std::size_t a = 0; a < 3; ++a) {
        std::map<std::string, int> answers;
        for (int i = 0; i < trials; ++i) {
            const std::string text = model.one_text(sentiment[a], topic, stable_hash("c" + std::to_string(i), a));
            const auto answer = nlohmann::json::parse(model.annotate(text, static_cast<std::uint64_t>(i)));
            ++answers[answer["label"].get<std::string>()];
        }
        for (std::size_t b = 0; b < 3; ++b) {
            INFO("latent " << sentiment[a] << ", answer " << sentiment[b] << ": " << answers[sentiment[b]]);
            CHECK(near_share(static_cast<double>(answers[sentiment[b]]) / trials, dgp.confusion[a][b], trials));
        }
    }
}

TEST_CASE("simulated annotator: unparseable answers at the configured rate, labels otherwise") {
    SimulatedDgp dgp;
    dgp.unparseable_probability = 0.3;
    const SimulatedModel model(dgp, sentiment);
    int unparseable = 0;
    const int trials = 1000;
    for (int i = 0; i < trials; ++i) {
        const std::string answer = model.annotate("weak losses decline", static_cast<std::uint64_t>(i));
        if (!nlohmann::json::accept(answer)) ++unparseable;
    }
    CHECK(near_share(static_cast<double>(unparseable) / trials, 0.3, trials));
}

TEST_CASE("simulated texts: label words at the label_signal share, topic words otherwise") {
    SimulatedDgp dgp;
    dgp.follow_probability = 1.0;
    dgp.label_signal = 0.4;
    dgp.words = 200;
    const SimulatedModel model(dgp, sentiment);
    const std::string text = model.one_text("Positive", topic, 99);
    const auto words = HashedEmbedder::words(text);
    REQUIRE(words.size() == 200);
    const auto topic_vocabulary = topic_words(topic, {});
    int from_topic = 0;
    for (const auto& word : words) {
        if (std::find(topic_vocabulary.begin(), topic_vocabulary.end(), word) != topic_vocabulary.end()) ++from_topic;
    }
    CHECK(near_share(1.0 - static_cast<double>(from_topic) / 200, 0.4, 200));
}

TEST_CASE("simulated embeddings are the fake server's hashed embedder") {
    const HashedEmbedder server_embedder(64, 0);  // FakeServerOptions defaults
    const std::string text = "Weak demand and falling prices hurt the bank's clients.";
    CHECK(shared_embedder().embed(text) == server_embedder.embed(text));
}

TEST_CASE("simulated DGP parameters are checked, naming the field and the value") {
    SimulatedDgp dgp;
    dgp.follow_probability = 1.5;
    CHECK_THROWS_WITH(SimulatedModel(dgp, sentiment), Catch::Matchers::Contains("follow_probability") &&
                                                           Catch::Matchers::Contains("1.5"));
    SimulatedDgp ragged;
    ragged.confusion = {{1.0, 0.0, 0.0}, {0.5, 0.5}};
    CHECK_THROWS_WITH(SimulatedModel(ragged, sentiment), Catch::Matchers::Contains("confusion"));
    SimulatedDgp not_summing;
    not_summing.confusion = {{0.5, 0.0, 0.0}, {0, 1, 0}, {0, 0, 1}};
    CHECK_THROWS_WITH(SimulatedModel(not_summing, sentiment), Catch::Matchers::Contains("summing to 1"));
}

TEST_CASE("a negative cache busy timeout is refused before any call, naming the field") {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "simulated";
    config.cache_busy_timeout_ms = -1;
    try {
        check_config(config);
        FAIL("check_config accepted cache_busy_timeout_ms = -1");
    } catch (const Error& error) {
        CHECK(error.code() == code::invalid_argument);
        CHECK_THAT(error.what(), Catch::Matchers::Contains("cache_busy_timeout_ms") &&
                                     Catch::Matchers::Contains("-1") &&
                                     Catch::Matchers::Contains("0..2147483647"));
    }
    config.cache_busy_timeout_ms = 0;  // 0: a locked file fails at once, allowed
    CHECK_NOTHROW(check_config(config));
}

TEST_CASE("the pipeline runs offline on the simulated provider with exact counts, marked synthetic") {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "simulated";
    config.m = 30;
    config.n = 7;
    config.annotation_repeats = 2;
    const PassageResult result = validate_passage(config, {"y", topic + " Losses and weak demand.", "", {}, ""});
    REQUIRE(result.ok);
    CHECK(result.synthetic);
    CHECK(result.model == simulated_model_name);
    CHECK(result.calls.annotation_calls == 2);
    CHECK(result.calls.simulation_calls == 3 * 5);  // ceil(30 / 7) = 5 calls per label
    CHECK(result.calls.backtranslation_calls == 30);
    CHECK(result.calls.embedded_texts == 3 * 30 + 1);
    CHECK(result.tests.validation.m == 30);
    CHECK(result.prompt_hashes.count("annotation") == 1);
    CHECK(result.prompt_hashes.count("simulation:Negative") == 1);
}

TEST_CASE("the simulated provider's unparseable answers are counted and redrawn, never dropped") {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "simulated";
    config.m = 40;
    config.simulated.unparseable_probability = 0.2;
    config.parse_retry_limit = 5;
    const PassageResult result = validate_passage(config, {"y", topic, "", {}, ""});
    REQUIRE(result.ok);
    CHECK(result.calls.unparseable > 0);
    CHECK(result.calls.parse_retries == result.calls.unparseable);
    // Every pool text was backtranslated: the counts add up to M.
    int total = 0;
    for (const auto& entry : result.tests.backtranslation.counts) total += entry.second;
    CHECK(total == 40);
}

TEST_CASE("paper methods draw B reference texts as further draws of the same pools") {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "simulated";
    config.m = 20;
    config.n = 10;
    config.paper_b = 15;
    config.tests.validation_method = "paper";
    config.tests.separation_method = "paper";
    const PassageResult result = validate_passage(config, {"y", topic, "", {}, ""});
    REQUIRE(result.ok);
    // Every label needs references (β̂ for validation, the others for separation):
    // ceil((20 + 15) / 10) = 4 calls per label, 3 * 35 + 1 texts.
    CHECK(result.calls.simulation_calls == 12);
    CHECK(result.calls.embedded_texts == 3 * 35 + 1);
    CHECK(result.tests.validation.method == "paper");
    CHECK(result.tests.validation.b == 15);
    CHECK(expected_calls_per_passage(config, 3).simulation_calls == 12);
}

TEST_CASE("power: high when the annotation is right, invalid when the annotator is always wrong") {
    PowerConfig power;
    power.validation.task_path = "simple_sentiment";
    power.validation.provider = "simulated";
    power.validation.m = 20;
    power.validation.n = 10;
    power.validation.tests.permutations = 99;
    power.validation.simulated.follow_probability = 1.0;
    power.validation.simulated.annotator_accuracy = 1.0;
    power.true_label = "Negative";
    power.replications = 40;
    const PowerResult right = estimate_power(power);
    CHECK(right.replications == 40);
    CHECK(right.share_annotation_correct == 1.0);
    CHECK(right.share_backtranslation_pass == 1.0);
    CHECK(right.share_valid >= 0.8);  // the exact test rejects a valid annotation at rate <= alpha

    // Texts of Negative are annotated Positive, and Positive texts Positive: the passage's
    // annotation is wrong, the prerequisites of Positive pass, the validation test should reject.
    // Power rises with the distance between the labels' texts (the label_signal share).
    power.validation.simulated.confusion = {{1, 0, 0}, {0, 1, 0}, {1, 0, 0}};
    power.validation.simulated.label_signal = 0.1;
    const PowerResult faint = estimate_power(power);
    power.validation.simulated.label_signal = 0.8;
    const PowerResult strong = estimate_power(power);
    CHECK(faint.share_annotation_correct == 0.0);
    CHECK(strong.share_annotation_correct == 0.0);
    CHECK(strong.share_invalid_given_wrong >= 0.8);
    CHECK(strong.share_invalid_given_wrong > faint.share_invalid_given_wrong);
}

TEST_CASE("llmvalidate run with no provider configured says SYNTHETIC on its first line") {
    const std::string command =
        std::string("env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u AWS_ACCESS_KEY_ID -u AWS_BEARER_TOKEN_BEDROCK "
                    "-u LLMV_BASE_URL ") +
        LLMV_CLI + " run --task simple_sentiment --no-cache -M 20 --text 'Losses widened as demand fell.' 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe);
    std::string output;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
    const int status = pclose(pipe);
    CHECK(status == 0);
    CHECK_THAT(output.substr(0, output.find('\n')), Catch::Matchers::StartsWith("SYNTHETIC RESULTS"));
    CHECK_THAT(output, Catch::Matchers::Contains("Validation (exact, M = 20)"));
}

TEST_CASE("a human label outside the task's labels is refused before any call") {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "simulated";
    config.m = 20;
    const std::vector<PassageInput> passages = {{"a", topic, "positive", {}, ""},
                                                {"b", topic, "Happy", {}, ""}};
    const std::string message =
        "`human label of passage b` must be a label of the task ('Positive', 'Neutral', "
        "'Negative') or empty; received 'Happy'.";
    int calls = 0;
    BatchCallbacks callbacks;
    callbacks.on_passage = [&](const PassageResult&) { ++calls; };
    CHECK_THROWS_WITH(validate_batch(config, passages, callbacks), Catch::Equals(message));
    CHECK(calls == 0);
    CHECK_THROWS_WITH(dry_run(config, passages), Catch::Equals(message));
    try {
        dry_run(config, passages);
    } catch (const Error& error) {
        CHECK(error.code() == code::unknown_label);
    }
    // In a stream, the line with the bad label fails alone, as any malformed line does: the
    // other passages are validated.
    std::size_t next = 0;
    const PassageSource source = [&](PassageInput& out) {
        if (next >= passages.size()) return false;
        out = passages[next++];
        return true;
    };
    std::vector<PassageResult> streamed;  // a stream hands each passage to on_passage
    BatchCallbacks collect;
    collect.on_passage = [&](const PassageResult& result) { streamed.push_back(result); };
    validate_stream(config, source, collect);
    REQUIRE(streamed.size() == 2);
    for (const PassageResult& result : streamed) {
        if (result.id == "b") {
            CHECK_FALSE(result.ok);
            CHECK(result.error_message.find("received 'Happy'") != std::string::npos);
        } else {
            CHECK(result.ok);
        }
    }
    // Case and white space do not matter, and an empty label is no label.
    const std::vector<PassageInput> fine = {{"a", topic, " NEGATIVE ", {}, ""},
                                            {"b", topic, "", {}, ""}};
    CHECK_NOTHROW(dry_run(config, fine));
}

TEST_CASE("the dry run and size_warnings say when the chosen sizes cannot decide") {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "simulated";
    config.m = 10;
    std::vector<std::string> warnings = size_warnings(config);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] ==
          "The exact validation test cannot reject at α = 0.05 with M = 10 pool texts: its "
          "smallest attainable p-value, 1/(M + 1) = 0.09091, exceeds α; M >= 19 is needed "
          "(M + 1 >= 1/α); every verdict will be \"inconclusive\".");
    const DryRunReport report = dry_run(config, {{"a", topic, "", {}, ""}});
    CHECK(report.warnings == warnings);

    config.m = 19;
    CHECK(size_warnings(config).empty());
    config.tests.permutations = 9;
    warnings = size_warnings(config);
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::Matchers::StartsWith("The separation test cannot pass at α = "
                                                        "0.05 with R = 9 permutations"));
    config.tests.permutations = 999;
    config.tests.validation_method = "paper";
    config.paper_b = 10;
    CHECK_THAT(size_warnings(config).at(0),
               Catch::Matchers::Contains("B = 10 reference texts") &&
                   Catch::Matchers::Contains("B >= 19"));
    config.tests.alpha = 0.1;  // 10 + 1 >= 1/0.1
    CHECK(size_warnings(config).empty());
}
