// The fake provider server over real HTTP on 127.0.0.1: every protocol, SigV4 verification,
// scripted faults, counters, the control endpoints and the executable. The engine's own
// providers build the requests and parse the answers, so these tests also prove that the
// providers and the server agree on each wire format.
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>

#include "llm/aws_sigv4.hpp"
#include "fake_server.hpp"
#include "http_test_client.hpp"
#include "llm/hashed_embedder.hpp"
#include "llm/provider.hpp"
#include "llm/structured_output.hpp"
#include "llm/synthetic_text.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/task.hpp"
#include "transport/transport.hpp"

using nlohmann::json;
using namespace llmv;
using llmv::fake::FakeServer;
using llmv::fake::Fault;
using llmv::fake::send_http;

namespace {

ProviderConfig config_for(const FakeServer& server, const std::string& base_suffix) {
    ProviderConfig config;
    config.base_url = server.base_url() + base_suffix;
    config.environment = std::map<std::string, std::string>{};
    return config;
}

const std::vector<std::string> sentiment = {"Positive", "Neutral", "Negative"};

std::size_t vocabulary_hits(const std::string& text, const std::string& label) {
    const auto vocabulary = SyntheticText().vocabulary(label);
    const std::set<std::string> words(vocabulary.begin(), vocabulary.end());
    std::size_t hits = 0;
    for (const auto& word : HashedEmbedder::words(text)) hits += words.count(word);
    return hits;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
    return sum;
}

}  // namespace

// The fake server holds no SigV4 code of its own (issue 23): the official AWS signer judges our
// signatures when LLMV_SIGV4_VERIFIER names tools/conformance/sigv4_verifier.mjs (tools/test.sh
// sets it once the npm SDKs are installed). The tests that need a verdict on a signature's
// value say so and stop where it is not set.
bool official_signer() {
    const char* script = std::getenv("LLMV_SIGV4_VERIFIER");
    if (script && *script) return true;
    WARN(
        "LLMV_SIGV4_VERIFIER is not set: the fake server checks SigV4 signatures for their form "
        "only, so this check of a wrong signature is not run");
    return false;
}

TEST_CASE("OpenAI chat: passages lean to the asked label and are distinct") {
    FakeServer server;
    server.start();
    auto provider = make_chat_provider("openai", [&] {
        auto config = config_for(server, "/v1");
        config.api_key = "test-key";
        return config;
    }());
    auto request = ChatRequest::user_prompt(
        "fake-model",
        "Write 5 short passages whose sentiment is Negative. Possible sentiments: Positive, "
        "Neutral, Negative.");
    request.json_schema = passages_json_schema(5);
    const ChatResult result = provider->parse_response(send_http(provider->build_request(request)));
    REQUIRE(result.ok);
    CHECK(result.finish_reason == "stop");
    CHECK(result.input_tokens > 0);
    CHECK(result.output_tokens > 0);
    const PassagesAnswer answer = parse_passages_answer(result.text, 5);
    REQUIRE(answer.status == AnswerStatus::ok);
    std::set<std::string> distinct(answer.passages.begin(), answer.passages.end());
    CHECK(distinct.size() == 5);
    for (const auto& passage : answer.passages) {
        CHECK(vocabulary_hits(passage, "Negative") > vocabulary_hits(passage, "Positive"));
    }
    // A second request (same prompt, no seed) gives other passages.
    const ChatResult again = provider->parse_response(send_http(provider->build_request(request)));
    CHECK(parse_passages_answer(again.text, 5).passages != answer.passages);
    // The same seed gives the same passages.
    request.seed = 42;
    const auto first = provider->parse_response(send_http(provider->build_request(request))).text;
    const auto second = provider->parse_response(send_http(provider->build_request(request))).text;
    CHECK(first == second);
    CHECK(server.count("openai.chat") == 4);
    CHECK(server.total_count() == 4);
    const auto recorded = server.recorded(1);
    REQUIRE(recorded.size() == 1);
    CHECK(recorded[0].path == "/v1/chat/completions");
    CHECK(recorded[0].headers.at("authorization") == "Bearer test-key");
}

TEST_CASE("OpenAI chat: annotation picks the label of the text's vocabulary") {
    FakeServer server;
    server.start();
    auto config = config_for(server, "/v1");
    config.api_key = "test-key";
    auto provider = make_chat_provider("openai", config);
    const SyntheticText generator;
    for (const std::string& label : sentiment) {
        const std::string passage = generator.passages(label, 1, 7).front();
        auto request = ChatRequest::user_prompt(
            "fake-model",
            "Label the sentiment of this text as Positive, Neutral or Negative.\nText: \"" +
                passage + "\"");
        request.json_schema = label_json_schema(sentiment);
        const ChatResult result =
            provider->parse_response(send_http(provider->build_request(request)));
        REQUIRE(result.ok);
        const LabelAnswer answer = parse_label_answer(result.text, sentiment);
        REQUIRE(answer.status == AnswerStatus::ok);
        CHECK(answer.label == label);
    }
    // Without a schema the server answers like a chatty model (prose + code fence).
    auto request = ChatRequest::user_prompt("fake-model", "Write 3 passages that are Positive.");
    const ChatResult chatty = provider->parse_response(send_http(provider->build_request(request)));
    REQUIRE(chatty.ok);
    CHECK(chatty.text.find("```json") != std::string::npos);
    CHECK(parse_passages_answer(chatty.text, 3).status == AnswerStatus::ok);
}

TEST_CASE("Annotation error rate gives wrong labels at about that rate, always inside S") {
    fake::FakeServerOptions options;
    options.annotation_error_rate = 0.3;
    options.api_key = "";
    FakeServer server(options);
    server.start();
    auto provider = make_chat_provider("openai", config_for(server, "/v1"));
    const std::string passage = SyntheticText().passages("Positive", 1, 1).front();
    int wrong = 0;
    const int n = 60;
    for (int i = 0; i < n; ++i) {
        auto request = ChatRequest::user_prompt("m", "Classify: " + passage);
        request.json_schema = label_json_schema(sentiment);
        const auto answer = parse_label_answer(
            provider->parse_response(send_http(provider->build_request(request))).text, sentiment);
        REQUIRE(answer.status == AnswerStatus::ok);
        wrong += answer.label != "Positive";
    }
    CHECK(wrong > 5);
    CHECK(wrong < 35);
}

TEST_CASE("OpenAI chat: a wrong key gets 401 and the echoed key is redacted") {
    FakeServer server;
    server.start();
    auto config = config_for(server, "/v1");
    config.api_key = "sk-wrong-planted-key-123";
    auto provider = make_chat_provider("openai", config);
    const auto http = send_http(provider->build_request(ChatRequest::user_prompt("m", "hello")));
    CHECK(http.status == 401);
    CHECK(http.body.find("sk-wrong-planted-key-123") != std::string::npos);  // the server echoes it
    const ChatResult result = provider->parse_response(http);
    CHECK_FALSE(result.ok);
    CHECK(result.error.code == code::provider_auth);
    CHECK_FALSE(result.error.retryable);
    CHECK(result.error.message.find("sk-wrong-planted-key-123") == std::string::npos);
    CHECK(result.error.message.find("<redacted>") != std::string::npos);
}

TEST_CASE("Azure flavor: deployment path, api-version query and api-key header") {
    FakeServer server;
    server.start();
    auto config = config_for(server, "");
    config.api_key = "test-key";
    config.options = {{"flavor", "azure"}, {"api_version", "2024-10-21"}};
    auto provider = make_chat_provider("openai", config);
    const ChatResult result = provider->parse_response(send_http(provider->build_request(
        ChatRequest::user_prompt("my-deployment", "Write 1 passage that is Neutral."))));
    REQUIRE(result.ok);
    const auto recorded = server.recorded(1).front();
    CHECK(recorded.path ==
          "/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21");
    CHECK(recorded.headers.at("api-key") == "test-key");
    CHECK(recorded.headers.count("authorization") == 0);
}

TEST_CASE("Anthropic: tool-based structured output, version header required, 529 overloaded") {
    FakeServer server;
    server.start();
    auto config = config_for(server, "");
    config.api_key = "test-key";
    auto provider = make_chat_provider("anthropic", config);
    auto request =
        ChatRequest::user_prompt("claude-haiku-4-5", "Write 4 passages with the label Positive.");
    request.json_schema = passages_json_schema(4);
    const ChatResult result = provider->parse_response(send_http(provider->build_request(request)));
    REQUIRE(result.ok);
    CHECK(result.finish_reason == "tool_use");
    CHECK(parse_passages_answer(result.text, 4).status == AnswerStatus::ok);

    server.push_faults("anthropic.messages", {Fault::http(529)});
    const ChatResult overloaded =
        provider->parse_response(send_http(provider->build_request(request)));
    CHECK_FALSE(overloaded.ok);
    CHECK(overloaded.error.http_status == 529);
    CHECK(overloaded.error.provider_type == "overloaded_error");
    CHECK(overloaded.error.code == code::provider_server);
    CHECK(overloaded.error.retryable);

    // Without the anthropic-version header the server refuses, as the real API does.
    HttpRequest bare = provider->build_request(request);
    bare.headers.erase(std::remove_if(bare.headers.begin(), bare.headers.end(),
                                      [](const auto& h) { return h.first == "anthropic-version"; }),
                       bare.headers.end());
    const auto refused = provider->parse_response(send_http(bare));
    CHECK(refused.error.code == code::provider_bad_request);

    auto wrong = config;
    wrong.api_key = "not-the-key";
    auto wrong_provider = make_chat_provider("anthropic", wrong);
    const auto denied =
        wrong_provider->parse_response(send_http(wrong_provider->build_request(request)));
    CHECK(denied.error.code == code::provider_auth);
    CHECK(denied.error.provider_type == "authentication_error");
    CHECK(server.count("anthropic.messages") == 4);
}

TEST_CASE(
    "Bedrock Converse: a Llama model id sends no toolChoice, Claude and Nova force the tool") {
    FakeServer server;
    server.start();
    auto config = config_for(server, "");
    config.api_key = "bedrock-test-key";
    auto provider = make_chat_provider("bedrock", config);
    const auto sent_body = [&](const std::string& model) {
        auto request = ChatRequest::user_prompt(model, "Write 2 passages that are Negative.");
        request.json_schema = passages_json_schema(2);
        const auto result = provider->parse_response(send_http(provider->build_request(request)));
        CHECK(result.ok);
        return json::parse(server.recorded(1).front().body);
    };
    // AWS documents a forced tool choice only for Claude and Nova: a Llama call with
    // toolChoice fails, so the schema goes into the prompt and neither tools nor toolChoice
    // are sent.
    const json llama = sent_body("meta.llama3-70b-instruct-v1:0");
    CHECK_FALSE(llama.contains("toolConfig"));
    CHECK(llama.dump().find("toolChoice") == std::string::npos);
    CHECK(llama.at("system").at(0).at("text").get<std::string>().find("JSON Schema") !=
          std::string::npos);
    for (const std::string model :
         {"anthropic.claude-sonnet-4-5-20250929-v1:0", "us.amazon.nova-pro-v1:0"}) {
        const json forced = sent_body(model);
        CHECK(forced.at("toolConfig").at("toolChoice") ==
              json::parse(R"({"tool": {"name": "answer"}})"));
    }
    // An explicit option wins over the family rule.
    config.options = {{"structured", "tool"}};
    provider = make_chat_provider("bedrock", config);
    CHECK(sent_body("meta.llama3-8b-instruct-v1:0").at("toolConfig").contains("toolChoice"));
    config.options = {{"structured", "schema"}};
    CHECK_THROWS_WITH(
        make_chat_provider("bedrock", config),
        Catch::Contains("\"auto\", \"tool\", \"json\" or \"prompt\"") && Catch::Contains("\"schema\""));
}

TEST_CASE("Bedrock Converse: bearer token, correct and wrong SigV4 signatures") {
    FakeServer server;
    server.start();
    auto request = ChatRequest::user_prompt("anthropic.claude-3-5-sonnet-20240620-v1:0",
                                            "Write 2 passages that are Negative.");
    request.json_schema = passages_json_schema(2);

    SECTION("bearer token (Bedrock API key)") {
        auto config = config_for(server, "");
        config.api_key = "bedrock-test-key";
        auto provider = make_chat_provider("bedrock", config);
        const auto result = provider->parse_response(send_http(provider->build_request(request)));
        REQUIRE(result.ok);
        CHECK(result.finish_reason == "tool_use");
        CHECK(parse_passages_answer(result.text, 2).status == AnswerStatus::ok);
        CHECK(server.recorded(1).front().path ==
              "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse");
    }
    SECTION("SigV4 signed with the right secret is accepted") {
        auto config = config_for(server, "");
        config.aws_access_key_id = "AKIDEXAMPLE";
        config.aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
        config.region = "eu-west-1";
        auto provider = make_chat_provider("bedrock", config);
        const HttpRequest http = provider->build_request(request);
        CHECK((http.signer && http.signer->scheme() == "AWS SigV4 eu-west-1 bedrock"));
        const auto result = provider->parse_response(send_http(http));
        REQUIRE(result.ok);
        CHECK(result.input_tokens > 0);
        CHECK(server.recorded(1)
                  .front()
                  .headers.at("authorization")
                  .find("/eu-west-1/bedrock/aws4_request") != std::string::npos);
    }
    SECTION("SigV4 signed with a wrong secret gets 403") {
        if (!official_signer()) return;
        auto config = config_for(server, "");
        config.aws_access_key_id = "AKIDEXAMPLE";
        config.aws_secret_access_key = "wrong-secret-planted-0987";
        auto provider = make_chat_provider("bedrock", config);
        const auto http = send_http(provider->build_request(request));
        CHECK(http.status == 403);
        CHECK(http.headers.at("x-amzn-errortype").rfind("InvalidSignatureException", 0) == 0);
        const auto result = provider->parse_response(http);
        CHECK(result.error.code == code::provider_auth);
        CHECK(result.error.provider_type == "InvalidSignatureException");
        CHECK(result.error.message.find("wrong-secret-planted-0987") == std::string::npos);
    }
    SECTION("a body changed after signing gets 403") {
        if (!official_signer()) return;
        auto config = config_for(server, "");
        config.aws_access_key_id = "AKIDEXAMPLE";
        config.aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
        auto provider = make_chat_provider("bedrock", config);
        HttpRequest http = provider->build_request(request);
        sign_request(http, std::time(nullptr));
        // Signed, then tampered with: the signature covers the body's hash.
        HttpRequest tampered = http;
        tampered.body += " ";
        CHECK(send_http(tampered).status == 403);
        // The same signature over the body actually sent passes.
        CHECK(send_http(http).status == 200);
    }
    SECTION("the engine's own SigV4 signer is accepted, model id with ':' included") {
        auto config = config_for(server, "");
        config.aws_access_key_id = "AKIDEXAMPLE";
        config.aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
        config.aws_session_token = "a-session-token";
        auto provider = make_chat_provider("bedrock", config);
        HttpRequest http = provider->build_request(request);
        sign_request(http, std::time(nullptr));
        CHECK(!http.signer);
        const auto result = provider->parse_response(send_http(http));
        REQUIRE(result.ok);
        CHECK(server.recorded(1).front().headers.at("x-amz-security-token") == "a-session-token");
        // Signed with the wrong secret: rejected.
        if (!official_signer()) return;
        config.aws_secret_access_key = "not-the-secret";
        HttpRequest wrong = make_chat_provider("bedrock", config)->build_request(request);
        sign_request(wrong, std::time(nullptr));
        CHECK(send_http(wrong).status == 403);
    }
    SECTION("no Authorization at all gets 403") {
        httplib::Client client("127.0.0.1", server.port());
        auto result = client.Post("/model/x/converse", "{}", "application/json");
        REQUIRE(result);
        CHECK(result->status == 403);
    }
}

TEST_CASE("Embeddings: openai batch, bedrock-titan with SigV4, ollama (similar texts are closer)") {
    FakeServer server;
    server.start();
    const SyntheticText generator;
    const auto positives = generator.passages("Positive", 2, 3);
    const auto negative = generator.passages("Negative", 1, 3).front();
    std::vector<std::string> inputs = {positives[0], positives[1], negative};

    auto openai_config = config_for(server, "/v1");
    openai_config.api_key = "test-key";
    auto openai = make_embedding_provider("openai", openai_config);
    EmbeddingRequest request{"fake-embed", inputs, std::nullopt, true};
    const auto batch =
        openai->parse_response(send_http(openai->build_request(request)), inputs.size());
    REQUIRE(batch.ok);
    REQUIRE(batch.vectors.size() == 3);
    CHECK(batch.vectors[0].size() == 64);
    // Unit length to float32 precision: every vector is rounded to float32 when read.
    CHECK(std::abs(dot(batch.vectors[0], batch.vectors[0]) - 1.0) < 1e-6);
    CHECK(dot(batch.vectors[0], batch.vectors[1]) > dot(batch.vectors[0], batch.vectors[2]));
    CHECK(batch.input_tokens > 0);
    CHECK(server.count("openai.embeddings") == 1);

    auto ollama = make_embedding_provider("ollama", config_for(server, ""));
    const auto local =
        ollama->parse_response(send_http(ollama->build_request(request)), inputs.size());
    REQUIRE(local.ok);
    CHECK(local.vectors == batch.vectors);  // one embedder behind both

    auto titan_config = config_for(server, "");
    titan_config.aws_access_key_id = "AKIDEXAMPLE";
    titan_config.aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    auto titan = make_embedding_provider("bedrock-titan", titan_config);
    CHECK(titan->max_batch_size() == 1);
    EmbeddingRequest one{"amazon.titan-embed-text-v2:0", {inputs[0]}, 256, true};
    const auto single = titan->parse_response(send_http(titan->build_request(one)), 1);
    REQUIRE(single.ok);
    CHECK(single.vectors[0].size() == 256);
    CHECK(std::abs(dot(single.vectors[0], single.vectors[0]) - 1.0) < 1e-6);
    one.normalize = false;
    const auto raw = titan->parse_response(send_http(titan->build_request(one)), 1);
    REQUIRE(raw.ok);
    CHECK(std::abs(std::sqrt(dot(raw.vectors[0], raw.vectors[0])) - 3.0) < 1e-9);
    CHECK(server.count("bedrock.invoke") == 2);
    CHECK(server.recorded(1).front().path == "/model/amazon.titan-embed-text-v2%3A0/invoke");
}

TEST_CASE("Scripted faults come in order, per endpoint, and are counted") {
    FakeServer server;
    server.start();
    auto config = config_for(server, "/v1");
    config.api_key = "test-key";
    auto provider = make_chat_provider("openai", config);
    const HttpRequest request =
        provider->build_request(ChatRequest::user_prompt("m", "Write 1 passage that is Positive."));

    server.push_faults("openai.chat",
                       {Fault::http(429, "2"), Fault::of(Fault::Kind::none), Fault::http(503)});
    server.push_faults("*", {Fault::http(500)});
    auto first = send_http(request);
    CHECK(first.status == 429);
    CHECK(first.headers.at("retry-after") == "2");
    const auto limited = provider->parse_response(first);
    CHECK(limited.error.code == code::provider_rate_limited);
    REQUIRE(limited.error.retry_after_seconds);
    CHECK(*limited.error.retry_after_seconds == 2.0);
    CHECK(send_http(request).status == 200);
    CHECK(send_http(request).status == 503);
    CHECK(send_http(request).status == 500);  // the "*" queue, once the endpoint's is empty
    CHECK(send_http(request).status == 200);
    CHECK(server.count("openai.chat") == 5);

    SECTION("dropped connection") {
        server.push_faults("openai.chat", {Fault::of(Fault::Kind::drop_connection)});
        const auto dropped = send_http(request);
        CHECK(dropped.status == 0);
        CHECK(provider->parse_response(dropped).error.code == code::transport);
        CHECK(provider->parse_response(dropped).error.retryable);
    }
    SECTION("truncated body and malformed JSON are retryable malformed responses") {
        server.push_faults("openai.chat", {Fault::of(Fault::Kind::truncated_body),
                                           Fault::of(Fault::Kind::malformed_json)});
        for (int i = 0; i < 2; ++i) {
            const auto http = send_http(request);
            CHECK(http.status == 200);
            const auto result = provider->parse_response(http);
            CHECK_FALSE(result.ok);
            CHECK(result.error.code == code::provider_malformed_response);
            CHECK(result.error.retryable);
        }
    }
    SECTION("refusal") {
        server.push_faults("openai.chat", {Fault::of(Fault::Kind::refusal)});
        const auto result = provider->parse_response(send_http(request));
        REQUIRE(result.ok);
        CHECK(result.refused);
        CHECK(parse_passages_answer(result.text, 1).status == AnswerStatus::unparseable);
    }
    SECTION("label outside S") {
        server.push_faults("openai.chat", {Fault::of(Fault::Kind::label_outside_set)});
        auto annotate = ChatRequest::user_prompt("m", "Label this text: strong growth");
        annotate.json_schema = label_json_schema(sentiment);
        const auto result = provider->parse_response(send_http(provider->build_request(annotate)));
        REQUIRE(result.ok);
        const auto answer = parse_label_answer(result.text, sentiment);
        CHECK(answer.status == AnswerStatus::label_outside_set);
        CHECK(answer.raw_label == "Sarcastic");
    }
    SECTION("slow answer runs into the client's timeout") {
        server.push_faults("openai.chat", {Fault::slow(2500)});
        CHECK(send_http(request, 1).status == 0);
    }
}

TEST_CASE("Control endpoints script faults and report counters over HTTP") {
    FakeServer server;
    server.start();
    httplib::Client client("127.0.0.1", server.port());
    auto queued = client.Post(
        "/_control/faults",
        R"({"endpoint": "ollama.embed", "faults": [{"kind": "http_error", "status": 503, "retry_after": "1"}]})",
        "application/json");
    REQUIRE(queued);
    CHECK(queued->status == 200);
    auto bad =
        client.Post("/_control/faults", R"({"faults": [{"kind": "meteor"}]})", "application/json");
    REQUIRE(bad);
    CHECK(bad->status == 400);
    CHECK(bad->body.find("meteor") != std::string::npos);
    auto first =
        client.Post("/api/embed", R"({"model": "m", "input": "hello"})", "application/json");
    auto second =
        client.Post("/api/embed", R"({"model": "m", "input": ["a", "b"]})", "application/json");
    REQUIRE(first);
    REQUIRE(second);
    CHECK(first->status == 503);
    CHECK(json::parse(first->body).at("error").is_string());
    CHECK(second->status == 200);
    CHECK(json::parse(second->body).at("embeddings").size() == 2);
    auto counters = client.Get("/_control/counters");
    REQUIRE(counters);
    const json counts = json::parse(counters->body);
    CHECK(counts.at("total") == 2);
    CHECK(counts.at("ollama.embed") == 2);
    REQUIRE(client.Post("/_control/reset", "", "application/json"));
    CHECK(server.total_count() == 0);
}

TEST_CASE("Concurrent requests are all counted") {
    fake::FakeServerOptions options;
    options.latency_ms = 20;
    options.api_key = "";
    FakeServer server(options);
    server.start();
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&] {
            httplib::Client client("127.0.0.1", server.port());
            for (int i = 0; i < 5; ++i) {
                auto result = client.Post("/v1/embeddings", R"({"model": "m", "input": "x"})",
                                          "application/json");
                if (result && result->status == 200) ++ok;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    CHECK(ok == 40);
    CHECK(server.count("openai.embeddings") == 40);
}

TEST_CASE("The executable prints its port and serves until SIGTERM") {
    int out[2];
    REQUIRE(pipe(out) == 0);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        execl(FAKE_PROVIDER_SERVER, FAKE_PROVIDER_SERVER, "--port", "0", "--latency-ms", "1",
              "--threads", "4", static_cast<char*>(nullptr));
        _exit(127);
    }
    close(out[1]);
    std::string line;
    char c = 0;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    const int port = std::atoi(line.c_str());
    CHECK(port > 0);
    if (port > 0) {
        httplib::Client client("127.0.0.1", port);
        auto result =
            client.Post("/api/embed", R"({"model": "m", "input": "hello"})", "application/json");
        REQUIRE(result);
        CHECK(result->status == 200);
    }
    kill(child, SIGTERM);
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("The shipped task prompts are understood: n passages for the label, annotation back") {
    for (const std::string name : {"simple_sentiment", "temporal_focus", "clarity"}) {
        const Task task = load_task(name, std::string(LLMV_SOURCE_DIR) + "/prompts");
        fake::FakeServerOptions options;
        options.api_key = "";
        options.labels = task.labels();
        FakeServer server(options);
        server.start();
        auto provider = make_chat_provider("openai", config_for(server, "/v1"));
        for (const auto& label : task.labels()) {
            INFO(name << " / " << label);
            for (bool with_schema : {true, false}) {
                auto simulate = ChatRequest::user_prompt("m", task.render_simulation(label, 4, ""));
                if (with_schema) simulate.json_schema = passages_json_schema(4);
                const auto pool = parse_passages_answer(
                    provider->parse_response(send_http(provider->build_request(simulate))).text, 4);
                REQUIRE(pool.status == AnswerStatus::ok);
                for (const auto& passage : pool.passages) {
                    auto annotate = ChatRequest::user_prompt("m", task.render_annotation(passage));
                    if (with_schema) annotate.json_schema = label_json_schema(task.labels());
                    const auto answer = parse_label_answer(
                        provider->parse_response(send_http(provider->build_request(annotate))).text,
                        task.labels());
                    REQUIRE(answer.status == AnswerStatus::ok);
                    CHECK(answer.label == label);
                }
            }
        }
        CHECK(server.count("openai.chat") == task.labels().size() * 2 * 5);
    }
}

TEST_CASE("The libcurl transport against the fake server: every provider end to end") {
    FakeServer server;
    server.start();
    llmv::TransportOptions options;
    options.retry.max_retries = 0;
    llmv::Transport transport(options);
    auto config = config_for(server, "/v1");
    config.api_key = "test-key";

    auto openai = make_chat_provider("openai", config);
    auto request = ChatRequest::user_prompt("m", "Write 2 passages that are Neutral.");
    request.json_schema = passages_json_schema(2);
    const auto chat =
        openai->parse_response(transport.perform(openai->build_request(request)).response);
    REQUIRE(chat.ok);
    CHECK(parse_passages_answer(chat.text, 2).status == AnswerStatus::ok);

    auto aws = config_for(server, "");
    aws.aws_access_key_id = "AKIDEXAMPLE";
    aws.aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    aws.aws_session_token = "session-token-for-test";
    auto bedrock = make_chat_provider("bedrock", aws);

    // The transport signs with the request's signer (the engine's SigV4) and the server
    // recomputes the signature: accepted.
    auto plain_model = request;
    plain_model.model = "amazon.titan-text-express-v1";
    const auto signed_in_transport = transport.perform(bedrock->build_request(plain_model));
    CHECK(signed_in_transport.response.status == 200);
    CHECK(bedrock->parse_response(signed_in_transport.response).ok);

    // A model id with ':' (libcurl's own signer encodes it in a form Bedrock rejects),
    // signed ahead and by the transport: accepted both ways.
    auto colon_model = request;
    colon_model.model = "anthropic.claude-3-5-sonnet-20240620-v1:0";
    HttpRequest engine_signed = bedrock->build_request(colon_model);
    sign_request(engine_signed, std::time(nullptr));
    const auto accepted = transport.perform(engine_signed);
    CHECK(accepted.response.status == 200);
    CHECK(bedrock->parse_response(accepted.response).ok);
    const auto by_transport = transport.perform(bedrock->build_request(colon_model));
    CHECK(by_transport.response.status == 200);

    auto titan = make_embedding_provider("bedrock-titan", aws);
    HttpRequest titan_request =
        titan->build_request({"amazon.titan-embed-text-v2:0", {"hello"}, std::nullopt, true});
    sign_request(titan_request, std::time(nullptr));
    CHECK(titan->parse_response(transport.perform(titan_request).response, 1).ok);
    auto ollama = make_embedding_provider("ollama", config_for(server, ""));
    CHECK(ollama
              ->parse_response(
                  transport.perform(ollama->build_request({"m", {"a", "b"}, std::nullopt, true}))
                      .response,
                  2)
              .ok);
    auto anthropic_config = config_for(server, "");
    anthropic_config.api_key = "test-key";
    auto anthropic = make_chat_provider("anthropic", anthropic_config);
    CHECK(anthropic->parse_response(transport.perform(anthropic->build_request(request)).response)
              .ok);
}

// The author's reference code (bench/reference_cost.sh) asks for its own layout in the prompt,
// with no schema: texts as "text_1".."text_n" beside "failed", a label with an "explanation",
// JSON and nothing else, lengths in tokens.
TEST_CASE("Chat without a schema: the reference code's numbered texts and explained labels") {
    fake::FakeServerOptions options;
    options.follow_length = true;
    options.words_per_token = 0.75;
    options.chatty = false;
    options.labels = {"positive", "neutral", "negative"};
    FakeServer server(options);
    server.start();
    httplib::Client client("127.0.0.1", server.port());
    const auto ask = [&](const std::string& prompt) {
        const json body = {{"model", "gpt-4o-mini"},
                           {"messages", {{{"role", "user"}, {"content", prompt}}}}};
        const httplib::Headers key = {{"Authorization", "Bearer test-key"}};
        auto response =
            client.Post("/v1/chat/completions", key, body.dump(), "application/json");
        REQUIRE(response);
        REQUIRE(response->status == 200);
        const json answer = json::parse(response->body);
        const std::string content = answer["choices"][0]["message"]["content"];
        // Bare JSON: the whole content parses, and usage bills exactly its characters / 4.
        CHECK(answer["usage"]["completion_tokens"] == (content.size() + 3) / 4);
        return json::parse(content);
    };
    const json texts = ask(
        "TASK: Write 4 arbitrary passages from hypothetical articles with sentiment "
        "characterized as negative. The length of each passage should be around 40 tokens.\n"
        "RESPOND WITH ONLY A JSON OBJECT: {\"failed\": false, \"text_1\": <passage_1>, ..., "
        "\"text_n\": <passage_n>}");
    CHECK(texts.at("failed") == false);
    CHECK(texts.size() == 5);
    for (int i = 1; i <= 4; ++i) {
        const std::string text = texts.at("text_" + std::to_string(i));
        CHECK(HashedEmbedder::words(text).size() == 30);  // 40 tokens at 0.75 words a token
        CHECK(text.find('"') == std::string::npos);       // the reference reads it by regex
        CHECK(vocabulary_hits(text, "negative") > 0);
    }
    const json label = ask(
        "TASK: Read the following passage and classify the sentiment using one of the labels: "
        "['positive', 'neutral', 'negative'].\nPASSAGE:\nGains all round, a great year.\n"
        "RESPOND WITH ONLY A JSON OBJECT: {\"classification_failed\": false, \"label\": <label>, "
        "\"explanation\": \"<1-2 sentence explanation>\"}");
    CHECK(label.at("classification_failed") == false);
    CHECK(std::set<std::string>{"positive", "neutral", "negative"}.count(label.at("label")) == 1);
    CHECK(HashedEmbedder::words(label.at("explanation").get<std::string>()).size() == 30);

    // Our own prompts keep their layout, and a length in words is not converted.
    const json ours = ask(
        "TASK: Write 2 arbitrary passages with sentiment characterized as positive. The length "
        "of each passage should be around 12 words.");
    REQUIRE(ours.at("passages").size() == 2);
    CHECK(HashedEmbedder::words(ours["passages"][0].get<std::string>()).size() == 12);
}
