// The fake server's provider batch endpoints (OpenAI Batch API, Anthropic Message Batches) and
// their faults, driven by the engine's own batch requests and parsers (provider_batch.hpp): a
// batch that completes, errored lines, a batch that expires part-done, one cancelled from
// outside, a results file cut short, polling answered with 429s. Each line's answer must be
// what the synchronous endpoint gives, readable by the provider's parse_response().
#include <httplib.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "fake_server.hpp"
#include "http_test_client.hpp"
#include "llmvalidate/error.hpp"
#include "llm/provider.hpp"
#include "llm/provider_batch.hpp"

using nlohmann::json;
using namespace llmv;
using llmv::fake::BatchScript;
using llmv::fake::FakeServer;
using llmv::fake::Fault;

namespace {

// Every request of these tests is answered (a connection failure fails the test).
HttpResponse send_request(const HttpRequest& request) {
    HttpResponse response = fake::send_http(request);
    REQUIRE(response.transport_error.empty());
    return response;
}

ProviderConfig provider_config(const FakeServer& server, const std::string& suffix) {
    ProviderConfig config;
    config.base_url = server.base_url() + suffix;
    config.api_key = "test-key";
    config.environment = std::map<std::string, std::string>{};
    return config;
}

// `count` annotation requests of distinct sentences, as the provider builds them.
std::vector<BatchLine> chat_lines(const ChatProvider& provider, int count) {
    std::vector<BatchLine> lines;
    for (int i = 0; i < count; ++i) {
        ChatRequest request = ChatRequest::user_prompt(
            "fake-chat", "Classify the sentiment of this sentence as Positive, Neutral or Negative: "
                         "sales rose " + std::to_string(i + 1) + " percent.");
        request.seed = i;
        lines.push_back({"line" + std::to_string(i), provider.build_request(request)});
    }
    return lines;
}

// Queues one scripted batch: its kind, and the share of lines done (expire_part, cancelled) or
// the period of the errored lines (errored_lines).
void push_script(FakeServer& server, BatchScript::Kind kind, double done_share = 0.5, std::size_t every = 3) {
    BatchScript script;
    script.kind = kind;
    script.done_share = done_share;
    script.every = every;
    server.push_batch_scripts({script});
}

// The status a batch request's answer reports.
BatchStatus status_of(BatchApiKind kind, const HttpRequest& request) {
    return parse_batch_status(kind, send_request(request));
}

// Uploads `lines` and creates an OpenAI batch of them (not polled).
BatchStatus create_openai_batch(const std::vector<BatchLine>& lines) {
    const HttpRequest& synchronous = lines.front().request;
    const std::string file = openai_uploaded_file_id(send_request(openai_batch_upload(lines)));
    return status_of(BatchApiKind::openai, openai_batch_create(synchronous, file));
}

// Submits an OpenAI batch of `lines` and polls it until it ends.
BatchStatus run_openai_batch(const std::vector<BatchLine>& lines, int max_polls = 10) {
    const HttpRequest& synchronous = lines.front().request;
    BatchStatus status = create_openai_batch(lines);
    for (int poll = 0; poll < max_polls && !status.ended; ++poll)
        status = status_of(BatchApiKind::openai, batch_poll(synchronous, status.id));
    return status;
}

BatchResults openai_results(const HttpRequest& synchronous, const BatchStatus& status) {
    const std::string output =
        status.output_file.empty() ? "" : send_request(openai_file_content(synchronous, status.output_file)).body;
    const std::string errors =
        status.error_file.empty() ? "" : send_request(openai_file_content(synchronous, status.error_file)).body;
    return openai_batch_results(output, errors);
}

std::map<std::string, BatchLineResult> by_id(const BatchResults& results) {
    std::map<std::string, BatchLineResult> map;
    for (const BatchLineResult& line : results.lines) map[line.custom_id] = line;
    return map;
}

}  // namespace

TEST_CASE("fake batches: an OpenAI chat batch answers every line as the synchronous endpoint would") {
    FakeServer server;
    server.start();
    const auto provider = make_chat_provider("openai", provider_config(server, "/v1"));
    const std::vector<BatchLine> lines = chat_lines(*provider, 4);
    const BatchStatus status = run_openai_batch(lines);
    CHECK(status.status == "completed");
    CHECK(status.total == 4);
    CHECK(status.succeeded == 4);
    CHECK(server.count("openai.chat") == 0);  // nothing went through the synchronous endpoint
    const BatchResults results = openai_results(lines.front().request, status);
    CHECK(server.count("openai.files") == 2);  // the upload and the output file (no error file)
    REQUIRE(results.lines.size() == 4);
    CHECK(results.unreadable == 0);
    for (const BatchLineResult& line : results.lines) {
        REQUIRE(line.ok);
        const ChatResult answer = provider->parse_response(line.response);
        CHECK(answer.ok);
        CHECK(answer.text.find("\"label\"") != std::string::npos);
    }
    // The server's log: each line once, tagged with its batch, its body as sent.
    std::set<std::string> served_bodies;
    for (const auto& served : server.served()) {
        CHECK(served.batch_id == status.id);
        served_bodies.insert(json::parse(served.request_body).dump());
    }
    CHECK(served_bodies.size() == 4);
    for (const BatchLine& line : lines) CHECK(served_bodies.count(json::parse(line.request.body).dump()) == 1);
    // The same request synchronously gets the same answer (seeded): batch and sync agree.
    const HttpResponse direct = send_request(lines[2].request);
    CHECK(provider->parse_response(direct).text ==
          provider->parse_response(by_id(results)["line2"].response).text);
}

TEST_CASE("fake batches: OpenAI embeddings in a batch") {
    FakeServer server;
    server.start();
    const auto embedder = make_embedding_provider("openai", provider_config(server, "/v1"));
    EmbeddingRequest request;
    request.model = "fake-embedding";
    request.inputs = {"first text", "second text"};
    const std::vector<BatchLine> lines = {{"emb0", embedder->build_request(request)}};
    const BatchStatus status = run_openai_batch(lines);
    CHECK(status.status == "completed");
    const BatchResults results = openai_results(lines.front().request, status);
    REQUIRE(results.lines.size() == 1);
    REQUIRE(results.lines[0].ok);
    const EmbeddingResult vectors = embedder->parse_response(results.lines[0].response, 2);
    REQUIRE(vectors.ok);
    CHECK(vectors.vectors.size() == 2);
}

TEST_CASE("fake batches: OpenAI faults (errored lines, expired part-done, cancelled, cut short, 429 polls)") {
    FakeServer server;
    server.start();
    const auto provider = make_chat_provider("openai", provider_config(server, "/v1"));
    const std::vector<BatchLine> lines = chat_lines(*provider, 4);
    const HttpRequest& synchronous = lines.front().request;

    SECTION("errored lines: every second line fails, in the error file") {
        push_script(server, BatchScript::Kind::errored_lines, 0.5, 2);
        const BatchStatus status = run_openai_batch(lines);
        CHECK(status.status == "completed");
        CHECK(status.failed_lines == 2);
        auto results = by_id(openai_results(synchronous, status));
        CHECK_FALSE(results["line0"].ok);
        CHECK_THAT(results["line0"].error, Catch::Matchers::Contains("HTTP 500"));
        CHECK(results["line1"].ok);
        CHECK_FALSE(results["line2"].ok);
        CHECK(results["line3"].ok);
    }
    SECTION("a batch that expires with half its lines done") {
        push_script(server, BatchScript::Kind::expire_part, 0.5);
        const BatchStatus status = run_openai_batch(lines);
        CHECK(status.status == "expired");
        auto results = by_id(openai_results(synchronous, status));
        CHECK(results["line0"].ok);
        CHECK(results["line1"].ok);
        CHECK_THAT(results["line2"].error, Catch::Matchers::Contains("batch_expired"));
        CHECK_THAT(results["line3"].error, Catch::Matchers::Contains("batch_expired"));
    }
    SECTION("a batch cancelled from outside") {
        push_script(server, BatchScript::Kind::cancelled, 0.25);
        BatchStatus status = create_openai_batch(lines);
        status = status_of(BatchApiKind::openai, batch_poll(synchronous, status.id));
        CHECK(status.status == "cancelling");
        CHECK_FALSE(status.ended);
        status = status_of(BatchApiKind::openai, batch_poll(synchronous, status.id));
        CHECK(status.status == "cancelled");
        CHECK(status.ended);
        auto results = by_id(openai_results(synchronous, status));
        CHECK(results["line0"].ok);
        CHECK_THAT(results["line1"].error, Catch::Matchers::Contains("batch_cancelled"));
    }
    SECTION("a client cancels its own batch") {
        BatchStatus status = create_openai_batch(lines);
        status = status_of(BatchApiKind::openai, batch_cancel(synchronous, status.id));
        status = status_of(BatchApiKind::openai, batch_poll(synchronous, status.id));
        CHECK(status.status == "cancelled");
    }
    SECTION("an output file cut short: the last line is unreadable, the others are kept") {
        push_script(server, BatchScript::Kind::truncated_results);
        const BatchStatus status = run_openai_batch(lines);
        const BatchResults results = openai_results(synchronous, status);
        CHECK(results.unreadable == 1);
        CHECK(results.lines.size() == 3);
        for (const BatchLineResult& line : results.lines) CHECK(line.ok);
    }
    SECTION("polling answered with 429s") {
        server.push_faults("openai.batches", {Fault::http(429, "0"), Fault::http(429, "0")});
        const std::string file = openai_uploaded_file_id(send_request(openai_batch_upload(lines)));
        const HttpResponse refused = send_request(openai_batch_create(synchronous, file));
        CHECK(refused.status == 429);
        try {
            parse_batch_status(BatchApiKind::openai, refused);
            FAIL("no error");
        } catch (const Error& error) {
            CHECK(error.code() == code::provider_rate_limited);
        }
        CHECK(send_request(openai_batch_create(synchronous, file)).status == 429);
        const BatchStatus status = status_of(BatchApiKind::openai, openai_batch_create(synchronous, file));
        CHECK(status.status == "validating");
    }
    SECTION("a malformed line fails the whole batch at validation") {
        std::vector<BatchLine> bad = lines;
        bad[1].custom_id = bad[0].custom_id;  // custom_id must be unique
        const BatchStatus status = run_openai_batch(bad);
        CHECK(status.failed);
        CHECK_THAT(status.message, Catch::Matchers::Contains("not unique"));
    }
}

TEST_CASE("fake batches: Anthropic message batches, results and faults") {
    FakeServer server;
    server.start();
    const auto provider = make_chat_provider("anthropic", provider_config(server, ""));
    const std::vector<BatchLine> lines = chat_lines(*provider, 4);
    const HttpRequest& synchronous = lines.front().request;
    const auto run = [&]() {
        BatchStatus status =
            status_of(BatchApiKind::anthropic, anthropic_batch_create(lines));
        CHECK(status.status == "in_progress");
        for (int poll = 0; poll < 10 && !status.ended; ++poll)
            status = status_of(BatchApiKind::anthropic, batch_poll(synchronous, status.id));
        return status;
    };
    const auto results_of = [&](const BatchStatus& status) {
        return anthropic_batch_results(send_request(batch_results_request(synchronous, status)).body);
    };
    SECTION("every line succeeds") {
        const BatchStatus status = run();
        CHECK(status.ended);
        CHECK(status.succeeded == 4);
        const BatchResults results = results_of(status);
        REQUIRE(results.lines.size() == 4);
        for (const BatchLineResult& line : results.lines) {
            REQUIRE(line.ok);
            CHECK(provider->parse_response(line.response).ok);
        }
        CHECK(server.count("anthropic.messages") == 0);
        CHECK(server.count("anthropic.batches") >= 3);
    }
    SECTION("errored and expired lines") {
        push_script(server, BatchScript::Kind::errored_lines, 0.5, 4);
        auto results = by_id(results_of(run()));
        CHECK_THAT(results["line0"].error, Catch::Matchers::Contains("errored"));
        CHECK(results["line1"].ok);
        push_script(server, BatchScript::Kind::expire_part, 0.75);
        results = by_id(results_of(run()));
        CHECK(results["line2"].ok);
        CHECK(results["line3"].error == "expired");
    }
    SECTION("cancelled from outside, and a results stream cut short") {
        push_script(server, BatchScript::Kind::cancelled, 0.5);
        auto results = by_id(results_of(run()));
        CHECK(results["line1"].ok);
        CHECK(results["line2"].error == "canceled");
        push_script(server, BatchScript::Kind::truncated_results);
        const BatchResults partial = results_of(run());
        CHECK(partial.unreadable == 1);
        CHECK(partial.lines.size() == 3);
    }
    SECTION("polling answered with 429s") {
        BatchStatus status =
            status_of(BatchApiKind::anthropic, anthropic_batch_create(lines));
        server.push_faults("anthropic.batches", {Fault::http(429, "0")});
        const HttpResponse refused = send_request(batch_poll(synchronous, status.id));
        CHECK(refused.status == 429);
        CHECK_THROWS_AS(parse_batch_status(BatchApiKind::anthropic, refused), Error);
        status = status_of(BatchApiKind::anthropic, batch_poll(synchronous, status.id));
        CHECK(status.id.rfind("msgbatch_", 0) == 0);
    }
}

TEST_CASE("batch API: only OpenAI-compatible and Anthropic endpoints have one") {
    HttpRequest bedrock;
    bedrock.url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/x/converse";
    try {
        batch_api_for(bedrock);
        FAIL("no error");
    } catch (const Error& error) {
        CHECK(error.code() == code::invalid_argument);
        CHECK_THAT(error.what(), Catch::Matchers::Contains("batch_api") &&
                                     Catch::Matchers::Contains("/converse") &&
                                     Catch::Matchers::Contains("Bedrock"));
    }
    HttpRequest anthropic;
    anthropic.url = "https://api.anthropic.com/v1/messages";
    CHECK(batch_api_for(anthropic) == BatchApiKind::anthropic);
}
