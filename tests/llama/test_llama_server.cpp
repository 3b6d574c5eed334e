// The llama-server tier: the `openai` provider and the transport against a real llama.cpp
// `llama-server` serving the tiny stories260K model (shared/models/README.md). Run it with
// tools/with-llama-server.sh build/tests/test_llama (tools/test.d/llama.sh does), which
// starts the server and sets LLMV_LLAMA_URL. Without LLMV_LLAMA_URL every test says it is
// skipped and returns.
//
// The model cannot follow instructions (it continues children's stories), so these tests
// check the wire format and the engine's handling of it, never the content: a JSON schema
// makes the server constrain the answer to a label of S, whatever the model "thinks".
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llm/provider.hpp"
#include "llm/structured_output.hpp"
#include "llmvalidate/task.hpp"
#include "transport/transport.hpp"

namespace {

const std::string kModel = "stories260K";

// The server's base URL, or "" after a WARN saying the tier is skipped.
std::string server_url() {
    const char* url = std::getenv("LLMV_LLAMA_URL");
    if (!url || !*url) {
        WARN("skipped: LLMV_LLAMA_URL is not set; run under tools/with-llama-server.sh "
             "(tools/test.d/llama.sh does) to test against a real llama-server");
        return "";
    }
    return url;
}

llmv::ProviderConfig config_for(const std::string& url) {
    llmv::ProviderConfig config;
    config.base_url = url + "/v1";
    config.environment = std::map<std::string, std::string>{};  // no key from the environment
    config.total_timeout_ms = 120000;
    return config;
}

llmv::TransportOptions transport_options(std::size_t concurrency) {
    llmv::TransportOptions options;
    options.max_concurrency = concurrency;
    options.retry.max_retries = 2;
    options.retry.initial_backoff_seconds = 0.1;
    return options;
}

double norm(const std::vector<double>& vector) {
    double sum = 0;
    for (double x : vector) sum += x * x;
    return std::sqrt(sum);
}

const std::vector<std::string> kTexts = {
    "Operating profit rose to EUR 13.1 mn from EUR 8.7 mn in the corresponding period in 2007.",
    "The company expects its net sales for the whole of 2008 to remain at the 2007 level.",
    "Once upon a time, a little girl named Lily found a shiny red ball in the park.",
};

}  // namespace

TEST_CASE("llama-server: chat completions with a JSON schema return a label of S") {
    const auto url = server_url();
    if (url.empty()) return;
    const auto task = llmv::load_task("simple_sentiment", std::string(LLMV_SOURCE_DIR) + "/prompts");
    auto provider = llmv::make_chat_provider("openai", config_for(url));
    llmv::Transport transport(transport_options(1));

    auto request = llmv::ChatRequest::user_prompt(kModel, task.render_annotation(kTexts[0]));
    request.json_schema = llmv::label_json_schema(task.labels());
    request.max_tokens = 256;  // the model's vocabulary spells a label in many small tokens
    request.seed = 7;
    const auto http = provider->build_request(request);
    CHECK(http.url == url + "/v1/chat/completions");
    const auto response = transport.perform(http, kModel);
    INFO("status " << response.response.status << ", body: " << llmv::abbreviate(response.response.body, 400));
    REQUIRE(response.ok());
    const auto result = provider->parse_response(response.response);
    INFO("answer: " << result.text);
    REQUIRE(result.ok);
    CHECK(result.input_tokens > 0);
    CHECK(result.output_tokens > 0);
    const auto answer = llmv::parse_label_answer(result.text, task.labels());
    CHECK(answer.status == llmv::AnswerStatus::ok);
    CHECK(task.match_label(answer.label).has_value());
}

TEST_CASE("llama-server: embeddings with mean pooling are one normalised, deterministic vector per text") {
    const auto url = server_url();
    if (url.empty()) return;
    auto provider = llmv::make_embedding_provider("openai", config_for(url));
    llmv::Transport transport(transport_options(1));

    llmv::EmbeddingRequest request;
    request.model = kModel;
    request.inputs = {kTexts[0], kTexts[1], kTexts[2], kTexts[0]};
    const auto response = transport.perform(provider->build_request(request), kModel);
    INFO("status " << response.response.status << ", body: " << llmv::abbreviate(response.response.body, 400));
    REQUIRE(response.ok());
    const auto result = provider->parse_response(response.response, request.inputs.size());
    REQUIRE(result.ok);
    REQUIRE(result.vectors.size() == 4);
    const auto dimension = result.vectors[0].size();
    CHECK(dimension >= 8);  // one pooled vector of the model's width, not one per token
    for (const auto& vector : result.vectors) {
        REQUIRE(vector.size() == dimension);
        for (double x : vector) REQUIRE(std::isfinite(x));
        CHECK(std::abs(norm(vector) - 1.0) < 1e-3);  // the OpenAI endpoint L2-normalises
    }
    // The same text twice in one request gives the same vector.
    double max_difference = 0;
    for (std::size_t i = 0; i < dimension; ++i) {
        max_difference = std::max(max_difference, std::abs(result.vectors[0][i] - result.vectors[3][i]));
    }
    CHECK(max_difference < 1e-5);
    // The same request twice gives the same vector; alone or in a batch, the text's vector
    // agrees to float precision (the batch changes the order of ggml's sums).
    llmv::EmbeddingRequest alone;
    alone.model = kModel;
    alone.inputs = {kTexts[0]};
    const auto first = provider->parse_response(
        transport.perform(provider->build_request(alone), kModel).response, 1);
    const auto second = provider->parse_response(
        transport.perform(provider->build_request(alone), kModel).response, 1);
    REQUIRE(first.ok);
    REQUIRE(second.ok);
    REQUIRE(first.vectors.at(0).size() == dimension);
    REQUIRE(second.vectors.at(0).size() == dimension);
    double drift = 0, cos_batched = 0, cos_01 = 0;
    for (std::size_t i = 0; i < dimension; ++i) {
        drift = std::max(drift, std::abs(second.vectors[0][i] - first.vectors[0][i]));
        cos_batched += first.vectors[0][i] * result.vectors[0][i];
        cos_01 += result.vectors[0][i] * result.vectors[1][i];
    }
    CHECK(drift < 1e-6);
    CHECK(cos_batched > 0.9999);
    CHECK(cos_01 < 0.9999);  // different texts, different vectors
}

TEST_CASE("llama-server: an error body becomes a classified, readable provider error") {
    const auto url = server_url();
    if (url.empty()) return;
    auto provider = llmv::make_chat_provider("openai", config_for(url));
    llmv::Transport transport(transport_options(1));

    // A prompt longer than the server's context (-c 512): llama-server refuses it with a 400
    // and an OpenAI-style error object.
    std::string long_prompt;
    for (int i = 0; i < 1500; ++i) long_prompt += "once upon a time ";
    auto request = llmv::ChatRequest::user_prompt(kModel, long_prompt);
    request.max_tokens = 16;
    const auto response = transport.perform(provider->build_request(request), kModel);
    INFO("status " << response.response.status << ", body: " << llmv::abbreviate(response.response.body, 400));
    REQUIRE_FALSE(response.ok());
    CHECK(response.response.status >= 400);
    CHECK(response.response.status < 500);
    CHECK(response.attempts == 1);  // a 4xx is not retried
    const auto result = provider->parse_response(response.response);
    REQUIRE_FALSE(result.ok);
    CHECK(result.error.code == llmv::code::provider_bad_request);
    CHECK_FALSE(result.error.retryable);
    CHECK(result.error.http_status == response.response.status);
    // The server's own words reach the message (not just "HTTP 400").
    CHECK_THAT(result.error.message, Catch::Matchers::Contains("context"));
}

TEST_CASE("llama-server: several requests in flight all come back") {
    const auto url = server_url();
    if (url.empty()) return;
    const auto task = llmv::load_task("simple_sentiment", std::string(LLMV_SOURCE_DIR) + "/prompts");
    auto chat = llmv::make_chat_provider("openai", config_for(url));
    auto embed = llmv::make_embedding_provider("openai", config_for(url));

    auto options = transport_options(4);
    int outstanding = 0, most_outstanding = 0;
    options.trace = [&](const llmv::TraceEvent& event) {
        if (event.kind == llmv::TraceEvent::Kind::request) {
            most_outstanding = std::max(most_outstanding, ++outstanding);
        } else if (event.kind == llmv::TraceEvent::Kind::response ||
                   event.kind == llmv::TraceEvent::Kind::failed) {
            --outstanding;
        }
    };
    llmv::Transport transport(options);

    // Short prompts: the server's 512-token context (-c 512) is shared by its 4 slots, and four
    // annotation prompts of ~240 tokens each would not fit at once ("Context size has been
    // exceeded"); with -c 512, a pipeline run against llama-server needs concurrency 1-2.
    const std::vector<std::string> short_texts = {"Sales rose.", "Rates fell.", "The cat sat."};
    std::vector<llmv::Job> jobs;
    for (std::uint64_t i = 0; i < 6; ++i) {
        auto request = llmv::ChatRequest::user_prompt(
            kModel, "Classify as Positive, Neutral or Negative: " + short_texts[i % 3]);
        request.json_schema = llmv::label_json_schema(task.labels());
        request.max_tokens = 256;
        request.seed = static_cast<std::int64_t>(i);
        jobs.push_back({i, chat->build_request(request), kModel, 0, {}});
    }
    for (std::uint64_t i = 6; i < 8; ++i) {
        llmv::EmbeddingRequest request;
        request.model = kModel;
        request.inputs = {kTexts[i % 3]};
        jobs.push_back({i, embed->build_request(request), kModel, 0, {}});
    }
    const auto results = transport.run_all(jobs);
    REQUIRE(results.size() == jobs.size());
    CHECK(most_outstanding > 1);
    for (std::size_t i = 0; i < results.size(); ++i) {
        INFO("job " << i << ": status " << results[i].response.status << " "
                    << llmv::abbreviate(results[i].response.body, 300));
        REQUIRE(results[i].ok());
        CHECK(results[i].id == i);
        if (i < 6) {
            const auto result = chat->parse_response(results[i].response);
            REQUIRE(result.ok);
            CHECK(llmv::parse_label_answer(result.text, task.labels()).status == llmv::AnswerStatus::ok);
        } else {
            const auto result = embed->parse_response(results[i].response, 1);
            REQUIRE(result.ok);
            CHECK(result.vectors.at(0).size() >= 8);
        }
    }
}
