// The whole pipeline against a real llama-server (the llama-server tier of issue 4): one
// passage, small M, every call through the engine's transport and cache. Run under
// tools/with-llama-server.sh (tools/test.d/llama.sh does); without LLMV_LLAMA_URL the test
// says it is skipped and returns.
//
// The tiny model cannot follow instructions, so the verdict itself means nothing here. What is
// checked is what the engine owes any real server: the exact number of calls of each kind,
// finite numbers everywhere, and a re-run from the cache that makes no call at all.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "llmvalidate/pipeline.hpp"

namespace {

std::string llama_url() {
    const char* url = std::getenv("LLMV_LLAMA_URL");
    if (!url || !*url) {
        WARN(
            "skipped: LLMV_LLAMA_URL is not set; run under tools/with-llama-server.sh "
            "(tools/test.d/llama.sh does) to test against a real llama-server");
        return "";
    }
    return url;
}

std::string fresh_cache_path() {
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    const auto dir =
        std::filesystem::temp_directory_path() / ("llmv-llama-pipeline-" + std::to_string(stamp));
    std::filesystem::create_directories(dir);
    return (dir / "cache.sqlite").string();
}

void check_finite(const llmv::pipeline::PassageResult& result) {
    const auto& tests = result.tests;
    INFO("validation: statistic " << tests.validation.statistic << ", critical value "
                                  << tests.validation.critical_value << ", p "
                                  << tests.validation.p_value);
    CHECK(std::isfinite(tests.validation.statistic));
    CHECK(std::isfinite(tests.validation.critical_value));
    CHECK(std::isfinite(tests.validation.p_value));
    REQUIRE(tests.separation.size() == 2);  // β̂ against each other label of S
    for (const auto& separation : tests.separation) {
        INFO("separation from " << separation.label << ": statistic " << separation.statistic
                                << ", critical value " << separation.critical_value << ", p "
                                << separation.p_value);
        CHECK(std::isfinite(separation.statistic));
        CHECK(std::isfinite(separation.critical_value));
        CHECK(std::isfinite(separation.p_value));
    }
    CHECK(tests.backtranslation.run);
    CHECK(std::isfinite(tests.backtranslation.accuracy));
    CHECK(std::isfinite(tests.backtranslation.lower_bound));
    CHECK(std::isfinite(result.annotation_stability));
}

}  // namespace

TEST_CASE(
    "llama-server: a full validation makes exactly R + K*ceil(M/n) + M calls, and a re-run from the "
    "cache makes none") {
    const auto url = llama_url();
    if (url.empty()) return;
    llmv::pipeline::ValidationConfig config;
    config.task_path = "simple_sentiment";  // K = 3
    config.provider = "openai";
    config.model = "stories260K";
    config.base_url = url + "/v1";
    config.api_key = "unused-by-llama-server";
    config.embedding_provider = "openai";
    config.embedding_model = "stories260K";
    config.cache_path = fresh_cache_path();
    config.m = 4;  // M
    config.n = 2;  // ceil(4 / 2) = 2 simulation calls per label
    config.annotation_repeats = 1;
    // With M = 4 the exact test's smallest p-value is 1/5: at α = 0.25 its critical value is
    // a number (at α = 0.05 it would be -Inf by definition, which is no error).
    config.tests.alpha = 0.25;
    config.tests.permutations = 99;
    config.max_tokens = 256;  // the 512-token vocabulary spells JSON in many small tokens
    // The server runs with -c 512: two full prompts at once can exceed the context it shares
    // between its slots (HTTP 500 "Context size has been exceeded"), so one at a time.
    config.concurrency = 1;
    config.total_timeout_ms = 120000;

    const llmv::pipeline::PassageInput passage{
        "fpb-1",
        "Operating profit rose to EUR 13.1 mn from EUR 8.7 mn in the corresponding period in 2007.",
        "",
        {},
        ""};
    const auto first = llmv::pipeline::validate_batch(config, {passage});
    REQUIRE(first.passages.size() == 1);
    const auto& result = first.passages.front();
    INFO(result.error_code << ": " << result.error_message);
    REQUIRE(result.ok);
    CHECK(first.synthetic == false);

    const auto& calls = result.calls;
    CHECK(calls.annotation_calls == 1);
    CHECK(calls.simulation_calls == 3 * 2);
    CHECK(calls.backtranslation_calls == 4);
    // Redraws of unusable answers are further calls, counted apart.
    CHECK(calls.chat_calls == 1 + 3 * 2 + 4 + calls.parse_retries);
    CHECK(calls.embedded_texts == 3 * 4 + 1);
    CHECK(calls.cache_hits == 0);
    CHECK(calls.input_tokens > 0);
    CHECK(calls.output_tokens > 0);
    CHECK(first.calls.embedding_requests >= 1);
    check_finite(result);

    const auto again = llmv::pipeline::validate_batch(config, {passage});
    REQUIRE(again.passages.size() == 1);
    const auto& rerun = again.passages.front();
    REQUIRE(rerun.ok);
    CHECK(again.calls.chat_calls == 0);
    CHECK(again.calls.embedding_requests == 0);
    CHECK(again.calls.transport_retries == 0);
    // Every answer of the first run, redraws included, and every vector came from the cache.
    CHECK(rerun.calls.cache_hits == calls.chat_calls + calls.embedded_texts);
    CHECK(rerun.label == result.label);
    CHECK(rerun.verdict == result.verdict);
    CHECK(rerun.tests.validation.statistic == result.tests.validation.statistic);
    CHECK(rerun.tests.validation.p_value == result.tests.validation.p_value);
    CHECK(rerun.tests.backtranslation.accuracy == result.tests.backtranslation.accuracy);
    for (std::size_t i = 0; i < rerun.tests.separation.size(); ++i) {
        CHECK(rerun.tests.separation[i].statistic == result.tests.separation[i].statistic);
    }
}
