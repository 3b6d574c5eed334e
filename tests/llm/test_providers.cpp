// Request bodies and headers of every provider against the documented wire formats (exact
// JSON), response parsing including error bodies, and credentials kept out of every
// printable string.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <ctime>
#include <map>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llm/openai_common.hpp"
#include "core/http_status.hpp"
#include "llm/provider.hpp"
#include "llm/structured_output.hpp"
#include "llm/aws_sigv4.hpp"

// The request's SigV4 signer (null: not signed), as the Bedrock provider attaches it.
inline const llmv::AwsSigV4Signer* aws_signer(const llmv::HttpRequest& request) {
    return dynamic_cast<const llmv::AwsSigV4Signer*>(request.signer.get());
}

// Its credentials; empty without one.
inline llmv::AwsCredentials credentials_of(const llmv::HttpRequest& request) {
    const auto* signer = aws_signer(request);
    return signer ? signer->credentials() : llmv::AwsCredentials{};
}

using nlohmann::json;
using namespace llmv;

namespace {

ProviderConfig isolated(std::map<std::string, std::string> environment = {}) {
    ProviderConfig config;
    config.environment = std::move(environment);
    return config;
}

std::string header(const HttpRequest& request, const std::string& name) {
    std::string found;
    int count = 0;
    for (const auto& [key, value] : request.headers) {
        if (key == name) {
            found = value;
            ++count;
        }
    }
    REQUIRE(count <= 1);
    return found;
}

bool has_header(const HttpRequest& request, const std::string& name) {
    for (const auto& entry : request.headers) {
        if (entry.first == name) return true;
    }
    return false;
}

HttpResponse response(long status, std::string body,
                      std::map<std::string, std::string> headers = {}) {
    HttpResponse out;
    out.status = status;
    out.body = std::move(body);
    out.headers = std::move(headers);
    return out;
}

ChatRequest full_request() {
    ChatRequest request = ChatRequest::user_prompt("model-x", "Say \"hi\"");
    request.system = "Be brief.";
    request.temperature = 0.7;
    request.top_p = 0.9;
    request.max_tokens = 100;
    request.seed = 11;
    return request;
}

const char* passages_schema =
    R"({"type":"object","properties":{"passages":{"type":"array","items":{"type":"string"}}},"required":["passages"]})";

}  // namespace

TEST_CASE("registry: built-in names, unknown names, run-time registration") {
    const auto chat = chat_provider_names();
    CHECK(chat == std::vector<std::string>{"openai", "anthropic", "bedrock"});
    CHECK(embedding_provider_names() ==
          std::vector<std::string>{"openai", "bedrock-titan", "ollama"});
    try {
        make_chat_provider("openia", isolated());
        FAIL("no error");
    } catch (const Error& error) {
        CHECK(error.code() == code::invalid_argument);
        CHECK(std::string(error.what()).find("\"openia\"") != std::string::npos);
        CHECK(std::string(error.what()).find("\"anthropic\"") != std::string::npos);
    }
    // The `simulated` slot: code outside cpp/llm/ registers a provider in one call.
    register_chat_provider("test-double", [](const ProviderConfig& config) {
        return make_chat_provider("openai", config);
    });
    auto config = isolated();
    config.base_url = "http://127.0.0.1:1/v1";
    CHECK(make_chat_provider("test-double", config)->name() == "openai");
    CHECK(chat_provider_names().back() == "test-double");
}

TEST_CASE("openai: request body and headers") {
    auto config = isolated({{"OPENAI_API_KEY", "sk-test-123456"}});
    auto provider = make_chat_provider("openai", config);
    const HttpRequest request = provider->build_request(full_request());
    CHECK(request.method == "POST");
    CHECK(request.url == "https://api.openai.com/v1/chat/completions");
    CHECK(header(request, "Authorization") == "Bearer sk-test-123456");
    CHECK(header(request, "Content-Type") == "application/json");
    CHECK(!request.signer);
    CHECK(request.secrets == std::vector<std::string>{"sk-test-123456"});
    CHECK(json::parse(request.body) == json::parse(R"({
        "model": "model-x",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say \"hi\""}],
        "temperature": 0.7, "top_p": 0.9, "max_tokens": 100, "seed": 11})"));

    SECTION("defaults: temperature 1.0, nothing optional sent") {
        const auto minimal = provider->build_request(ChatRequest::user_prompt("m", "p"));
        CHECK(
            json::parse(minimal.body) ==
            json::parse(
                R"({"model": "m", "messages": [{"role": "user", "content": "p"}], "temperature": 1.0})"));
    }
    SECTION("json schema as response_format") {
        auto with_schema = ChatRequest::user_prompt("m", "p");
        with_schema.json_schema = passages_schema;
        with_schema.schema_name = "passages";
        const json body = json::parse(provider->build_request(with_schema).body);
        CHECK(body.at("response_format") == json({{"type", "json_schema"},
                                                  {"json_schema",
                                                   {{"name", "passages"},
                                                    {"strict", true},
                                                    {"schema", json::parse(passages_schema)}}}}));
    }
    SECTION("max_completion_tokens for newer OpenAI models") {
        config.options = {{"max_tokens_field", "max_completion_tokens"}};
        auto newer = make_chat_provider("openai", config);
        const json body = json::parse(newer->build_request(full_request()).body);
        CHECK(body.at("max_completion_tokens") == 100);
        CHECK_FALSE(body.contains("max_tokens"));
    }
    SECTION("a local server needs no key; base URL from the environment") {
        auto local = make_chat_provider(
            "openai", isolated({{"OPENAI_BASE_URL", "http://127.0.0.1:8080/v1/"}}));
        const auto http = local->build_request(full_request());
        CHECK(http.url == "http://127.0.0.1:8080/v1/chat/completions");
        CHECK_FALSE(has_header(http, "Authorization"));
    }
    SECTION("OpenRouter-style key in another variable") {
        auto other = isolated({{"OPENROUTER_API_KEY", "or-key-0001"}});
        other.base_url = "https://openrouter.ai/api/v1";
        other.options = {{"api_key_env", "OPENROUTER_API_KEY"}};
        const auto http = make_chat_provider("openai", other)->build_request(full_request());
        CHECK(http.url == "https://openrouter.ai/api/v1/chat/completions");
        CHECK(header(http, "Authorization") == "Bearer or-key-0001");
    }
    SECTION("OpenAI itself without a key is a configuration error naming the variable") {
        try {
            make_chat_provider("openai", isolated());
            FAIL("no error");
        } catch (const Error& error) {
            CHECK(error.code() == code::provider_config);
            CHECK(std::string(error.what()).find("OPENAI_API_KEY") != std::string::npos);
        }
    }
    SECTION("bad options and a bad schema name the argument") {
        auto bad = config;
        bad.options = {{"flavour", "azure"}};
        CHECK_THROWS_WITH(make_chat_provider("openai", bad),
                          Catch::Contains("\"flavour\"") && Catch::Contains("\"flavor\""));
        auto broken = ChatRequest::user_prompt("m", "p");
        broken.json_schema = "{not json";
        CHECK_THROWS_WITH(provider->build_request(broken), Catch::Contains("json_schema"));
        CHECK_THROWS_WITH(provider->build_request(ChatRequest::user_prompt("", "p")),
                          Catch::Contains("`model`"));
    }
}

TEST_CASE("openai: azure flavor") {
    auto config = isolated({{"AZURE_OPENAI_API_KEY", "az-key-98765"},
                            {"AZURE_OPENAI_ENDPOINT", "https://res.openai.azure.com/"}});
    config.options = {{"flavor", "azure"}};
    auto provider = make_chat_provider("openai", config);
    const auto request = provider->build_request(full_request());
    CHECK(request.url ==
          "https://res.openai.azure.com/openai/deployments/model-x/chat/"
          "completions?api-version=2024-10-21");
    CHECK(header(request, "api-key") == "az-key-98765");
    CHECK_FALSE(has_header(request, "Authorization"));
    auto embeddings = make_embedding_provider("openai", config);
    CHECK(embeddings->build_request({"emb", {"a"}, std::nullopt, true}).url ==
          "https://res.openai.azure.com/openai/deployments/emb/embeddings?api-version=2024-10-21");
    config.environment->erase("AZURE_OPENAI_API_KEY");
    CHECK_THROWS_WITH(make_chat_provider("openai", config),
                      Catch::Contains("AZURE_OPENAI_API_KEY"));
}

TEST_CASE("openai: response parsing") {
    auto provider = make_chat_provider("openai", isolated({{"OPENAI_API_KEY", "sk-test-123456"}}));
    const auto ok = provider->parse_response(response(200, R"({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-x",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"label\": \"A \\\"quoted\\\" one\"}", "refusal": null},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}})"));
    REQUIRE(ok.ok);
    CHECK(ok.text == R"({"label": "A \"quoted\" one"})");
    CHECK(ok.finish_reason == "stop");
    CHECK(ok.model == "gpt-x");
    CHECK(ok.input_tokens == 12);
    CHECK(ok.output_tokens == 5);
    CHECK_FALSE(ok.refused);

    const auto refusal = provider->parse_response(response(200, R"({"choices": [{"index": 0,
        "message": {"role": "assistant", "content": null, "refusal": "I can't help with that."}, "finish_reason": "stop"}]})"));
    REQUIRE(refusal.ok);
    CHECK(refusal.refused);
    CHECK(refusal.text == "I can't help with that.");

    const auto length = provider->parse_response(response(200, R"({"choices": [{"index": 0,
        "message": {"role": "assistant", "content": "{\"passages\": [\"a"}, "finish_reason": "length"}]})"));
    REQUIRE(length.ok);
    CHECK(length.finish_reason == "length");

    const auto truncated =
        provider->parse_response(response(200, R"({"choices": [{"index": 0, "mess)"));
    CHECK_FALSE(truncated.ok);
    CHECK(truncated.error.code == code::provider_malformed_response);
    CHECK(truncated.error.retryable);

    const auto no_choices = provider->parse_response(response(200, R"({"choices": []})"));
    CHECK(no_choices.error.code == code::provider_malformed_response);
}

TEST_CASE("error bodies of every provider are classified with the provider's own message") {
    auto openai =
        make_chat_provider("openai", isolated({{"OPENAI_API_KEY", "sk-planted-secret-42"}}));
    SECTION("openai 429 with Retry-After seconds") {
        const auto result = openai->parse_response(response(
            429,
            R"({"error": {"message": "Rate limit reached for requests", "type": "requests", "param": null, "code": "rate_limit_exceeded"}})",
            {{"retry-after", "7"}}));
        CHECK_FALSE(result.ok);
        CHECK(result.error.code == code::provider_rate_limited);
        CHECK(result.error.retryable);
        CHECK(result.error.http_status == 429);
        CHECK(result.error.provider_type == "requests");
        CHECK(result.error.message.find("Rate limit reached for requests") != std::string::npos);
        REQUIRE(result.error.retry_after_seconds);
        CHECK(*result.error.retry_after_seconds == 7.0);
    }
    SECTION("openai 401 echoing the key: redacted") {
        const auto result = openai->parse_response(response(
            401,
            R"({"error": {"message": "Incorrect API key provided: sk-planted-secret-42.", "type": "invalid_request_error", "code": "invalid_api_key"}})"));
        CHECK(result.error.code == code::provider_auth);
        CHECK_FALSE(result.error.retryable);
        CHECK(result.error.message.find("sk-planted-secret-42") == std::string::npos);
        CHECK(result.error.message.find("Incorrect API key provided: <redacted>") !=
              std::string::npos);
    }
    SECTION("openai 400 and 404 fail at once") {
        CHECK(openai
                  ->parse_response(response(
                      400, R"({"error": {"message": "bad", "type": "invalid_request_error"}})"))
                  .error.code == code::provider_bad_request);
        const auto missing = openai->parse_response(response(
            404,
            R"({"error": {"message": "The model `m` does not exist", "type": "invalid_request_error"}})"));
        CHECK(missing.error.code == code::provider_not_found);
        CHECK_FALSE(missing.error.retryable);
    }
    SECTION("status 0: transport failure, timeouts told apart") {
        HttpResponse failed;
        failed.transport_error = "Operation timed out after 1000 milliseconds";
        CHECK(openai->parse_response(failed).error.code == code::timeout);
        failed.transport_error = "Connection refused";
        const auto refused = openai->parse_response(failed);
        CHECK(refused.error.code == code::transport);
        CHECK(refused.error.retryable);
    }
    SECTION("anthropic 529 overloaded_error and 429 rate_limit_error") {
        auto anthropic =
            make_chat_provider("anthropic", isolated({{"ANTHROPIC_API_KEY", "sk-ant-planted"}}));
        const auto overloaded = anthropic->parse_response(response(
            529,
            R"({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_1"})"));
        CHECK(overloaded.error.code == code::provider_server);
        CHECK(overloaded.error.retryable);
        CHECK(overloaded.error.provider_type == "overloaded_error");
        CHECK(overloaded.error.message == "HTTP 529 overloaded_error: Overloaded");
        const auto limited = anthropic->parse_response(response(
            429,
            R"({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}})",
            {{"anthropic-ratelimit-requests-remaining", "0"},
             {"anthropic-ratelimit-requests-reset", "2099-01-01T00:00:00Z"}}));
        CHECK(limited.error.code == code::provider_rate_limited);
        REQUIRE(limited.error.retry_after_seconds);
        CHECK(*limited.error.retry_after_seconds > 1e8);  // decades away: the reset time was read
        const auto invalid = anthropic->parse_response(response(
            400,
            R"({"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: field required"}})"));
        CHECK(invalid.error.code == code::provider_bad_request);
        CHECK(invalid.error.message.find("max_tokens: field required") != std::string::npos);
    }
    SECTION("bedrock: message body and x-amzn-ErrorType header") {
        auto bedrock = make_chat_provider(
            "bedrock", isolated({{"AWS_BEARER_TOKEN_BEDROCK", "bedrock-planted-token"}}));
        const auto throttled = bedrock->parse_response(response(
            429, R"({"message": "Too many requests, please wait before trying again."})",
            {{"x-amzn-errortype",
              "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"}}));
        CHECK(throttled.error.code == code::provider_rate_limited);
        CHECK(throttled.error.provider_type == "ThrottlingException");
        CHECK(throttled.error.message.find("Too many requests") != std::string::npos);
        const auto denied = bedrock->parse_response(response(
            403,
            R"({"message": "You don't have access to the model with the specified model ID."})",
            {{"x-amzn-errortype", "AccessDeniedException"}}));
        CHECK(denied.error.code == code::provider_auth);
        const auto validation =
            bedrock->parse_response(response(400, R"({"Message": "Malformed input request"})"));
        CHECK(validation.error.code == code::provider_bad_request);
        CHECK(validation.error.message.find("Malformed input request") != std::string::npos);
        CHECK(bedrock->parse_response(response(503, "")).error.retryable);
    }
    SECTION("ollama: {\"error\": string}") {
        auto ollama = make_embedding_provider("ollama", isolated());
        const auto missing = ollama->parse_response(
            response(404, R"({"error": "model \"nomic\" not found, try pulling it first"})"), 1);
        CHECK(missing.error.code == code::provider_not_found);
        CHECK(missing.error.message.find("try pulling it first") != std::string::npos);
    }
}

TEST_CASE("retry hints: a failure carries the wait the server asked for, read by the transport's parser") {
    // The parsing itself is tested in tests/transport/retry_test.cpp; here: the provider side
    // reads the same headers the same way.
    const std::vector<std::map<std::string, std::string>> cases = {
        {{"retry-after", "120"}},
        {{"retry-after-ms", "250"}},
        {{"x-ratelimit-remaining-tokens", "0"}, {"x-ratelimit-reset-tokens", "6m0s"},
         {"x-ratelimit-remaining-requests", "5"}, {"x-ratelimit-reset-requests", "1s"}},
        {{"retry-after", "soon"}},
        {}};
    for (const auto& headers : cases) {
        HttpResponse response;
        response.status = 429;
        response.headers = headers;
        const ProviderError error = classify_http_failure(response);
        CHECK(error.code == code::provider_rate_limited);
        CHECK(error.retryable);
        const auto expected = server_requested_wait(headers, static_cast<double>(std::time(nullptr)));
        REQUIRE(error.retry_after_seconds.has_value() == expected.has_value());
        if (expected) CHECK(*error.retry_after_seconds == Approx(*expected));
    }
    HttpResponse response;
    response.status = 429;
    response.headers = {{"retry-after", "120"}};
    CHECK(classify_http_failure(response).retry_after_seconds.value() == 120.0);
    response.headers = {{"x-ratelimit-remaining-tokens", "0"}, {"x-ratelimit-reset-tokens", "6m0s"}};
    CHECK(classify_http_failure(response).retry_after_seconds.value() == 360.0);
}

TEST_CASE("anthropic: request body and headers") {
    auto provider =
        make_chat_provider("anthropic", isolated({{"ANTHROPIC_API_KEY", "sk-ant-test-555"}}));
    const HttpRequest request = provider->build_request(full_request());
    CHECK(request.url == "https://api.anthropic.com/v1/messages");
    CHECK(header(request, "x-api-key") == "sk-ant-test-555");
    CHECK(header(request, "anthropic-version") == "2023-06-01");
    CHECK(header(request, "Content-Type") == "application/json");
    CHECK_FALSE(has_header(request, "Authorization"));
    // No seed: the Messages API has none.
    CHECK(json::parse(request.body) == json::parse(R"({
        "model": "model-x", "max_tokens": 100, "system": "Be brief.",
        "messages": [{"role": "user", "content": "Say \"hi\""}],
        "temperature": 0.7, "top_p": 0.9})"));

    SECTION("max_tokens is required by the API: default 4096") {
        const json body =
            json::parse(provider->build_request(ChatRequest::user_prompt("m", "p")).body);
        CHECK(body.at("max_tokens") == 4096);
        CHECK(body.at("temperature") == 1.0);
        CHECK_FALSE(body.contains("top_p"));
    }
    SECTION("structured output through a forced tool") {
        auto structured = ChatRequest::user_prompt("m", "p");
        structured.json_schema = passages_schema;
        const json body = json::parse(provider->build_request(structured).body);
        CHECK(
            body.at("tools") ==
            json::parse(
                std::string(
                    R"([{"name": "answer", "description": "Record the answer in the required structure.", "input_schema": )") +
                passages_schema + "}]"));
        CHECK(body.at("tool_choice") == json::parse(R"({"type": "tool", "name": "answer"})"));
    }
    SECTION("structured output through the prompt") {
        auto config = isolated({{"ANTHROPIC_API_KEY", "sk-ant-test-555"}});
        config.options = {{"structured", "prompt"}};
        auto prompted = make_chat_provider("anthropic", config);
        auto structured = ChatRequest::user_prompt("m", "p");
        structured.json_schema = passages_schema;
        const json body = json::parse(prompted->build_request(structured).body);
        CHECK_FALSE(body.contains("tools"));
        CHECK(body.at("system").get<std::string>().find(json::parse(passages_schema).dump()) !=
              std::string::npos);
    }
    SECTION("temperature outside 0..1 names the argument") {
        auto hot = ChatRequest::user_prompt("m", "p");
        hot.temperature = 1.5;
        CHECK_THROWS_WITH(provider->build_request(hot),
                          Catch::Contains("`temperature`") && Catch::Contains("between 0 and 1"));
    }
    SECTION("missing key names the variable") {
        CHECK_THROWS_WITH(make_chat_provider("anthropic", isolated()),
                          Catch::Contains("ANTHROPIC_API_KEY"));
    }
}

TEST_CASE("anthropic: response parsing, text and tool_use") {
    auto provider =
        make_chat_provider("anthropic", isolated({{"ANTHROPIC_API_KEY", "sk-ant-test-555"}}));
    const auto text = provider->parse_response(response(200, R"({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [{"type": "text", "text": "Hello "}, {"type": "text", "text": "world"}],
        "stop_reason": "end_turn", "stop_sequence": null, "usage": {"input_tokens": 9, "output_tokens": 2}})"));
    REQUIRE(text.ok);
    CHECK(text.text == "Hello world");
    CHECK(text.finish_reason == "end_turn");
    CHECK(text.input_tokens == 9);
    CHECK(text.output_tokens == 2);
    const auto tool = provider->parse_response(response(200, R"({
        "content": [{"type": "text", "text": "Sure."}, {"type": "tool_use", "id": "toolu_1", "name": "answer",
                     "input": {"passages": ["He said \"no\".", "b"]}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}})"));
    REQUIRE(tool.ok);
    const auto passages = parse_passages_answer(tool.text, 2);
    REQUIRE(passages.status == AnswerStatus::ok);
    CHECK(passages.passages[0] == "He said \"no\".");
    const auto refusal = provider->parse_response(response(
        200, R"({"content": [{"type": "text", "text": "I won't."}], "stop_reason": "refusal"})"));
    CHECK(refusal.refused);
    CHECK(provider->parse_response(response(200, R"({"type": "message"})")).error.code ==
          code::provider_malformed_response);
}

TEST_CASE("bedrock: Converse request, SigV4 or bearer, region") {
    const std::map<std::string, std::string> keys = {
        {"AWS_ACCESS_KEY_ID", "AKIAPLANTED0001"},
        {"AWS_SECRET_ACCESS_KEY", "planted/secret+key"},
        {"AWS_SESSION_TOKEN", "planted-session-token"},
        {"AWS_REGION", "eu-central-1"}};
    auto provider = make_chat_provider("bedrock", isolated(keys));
    const HttpRequest request = provider->build_request(full_request());
    CHECK(request.url ==
          "https://bedrock-runtime.eu-central-1.amazonaws.com/model/model-x/converse");
    CHECK((request.signer && request.signer->scheme() == "AWS SigV4 eu-central-1 bedrock"));
    CHECK(credentials_of(request).access_key_id == "AKIAPLANTED0001");
    CHECK(credentials_of(request).secret_access_key == "planted/secret+key");
    CHECK(credentials_of(request).session_token == "planted-session-token");
    CHECK_FALSE(has_header(request, "Authorization"));
    CHECK(header(request, "Content-Type") == "application/json");
    for (const char* secret : {"planted/secret+key", "planted-session-token", "AKIAPLANTED0001"}) {
        CHECK(std::find(request.secrets.begin(), request.secrets.end(), secret) !=
              request.secrets.end());
    }
    CHECK(json::parse(request.body) == json::parse(R"({
        "messages": [{"role": "user", "content": [{"text": "Say \"hi\""}]}],
        "system": [{"text": "Be brief."}],
        "inferenceConfig": {"maxTokens": 100, "temperature": 0.7, "topP": 0.9}})"));

    SECTION("model ids with ':' and ARNs are percent-encoded in the path") {
        auto arn = ChatRequest::user_prompt(
            "arn:aws:bedrock:us-east-1:123:inference-profile/us.anthropic.claude-v2:1", "p");
        CHECK(provider->build_request(arn).url ==
              "https://bedrock-runtime.eu-central-1.amazonaws.com/model/"
              "arn%3Aaws%3Abedrock%3Aus-east-1%3A123%3Ainference-profile%2Fus.anthropic.claude-v2%"
              "3A1/converse");
    }
    SECTION("toolConfig for structured output (Claude: a forced tool)") {
        auto structured = ChatRequest::user_prompt("anthropic.claude-sonnet-4-6", "p");
        structured.json_schema = passages_schema;
        const json body = json::parse(provider->build_request(structured).body);
        CHECK(body.at("toolConfig") ==
              json::parse(std::string(R"({"tools": [{"toolSpec": {"name": "answer",
            "description": "Record the answer in the required structure.", "inputSchema": {"json": )") +
                          passages_schema +
                          R"(}}}], "toolChoice": {"tool": {"name": "answer"}}})"));
        // No maxTokens unless the user set one: the model's own maximum applies.
        CHECK(body.at("inferenceConfig") == json::parse(R"({"temperature": 1.0})"));
    }
    SECTION("a Bedrock API key wins: bearer header, no signing") {
        auto with_token = keys;
        with_token["AWS_BEARER_TOKEN_BEDROCK"] = "bedrock-api-key-777";
        auto bearer = make_chat_provider("bedrock", isolated(with_token));
        const auto http = bearer->build_request(full_request());
        CHECK(header(http, "Authorization") == "Bearer bedrock-api-key-777");
        CHECK(!http.signer);
        CHECK(aws_signer(http) == nullptr);
        CHECK(bearer->description().find("bedrock-api-key-777") == std::string::npos);
    }
    SECTION("region fallbacks and no credentials") {
        auto other =
            make_chat_provider("bedrock", isolated({{"AWS_BEARER_TOKEN_BEDROCK", "tok-12345"}}));
        CHECK(other->build_request(full_request())
                  .url.rfind("https://bedrock-runtime.us-east-1.amazonaws.com/", 0) == 0);
        auto config = isolated(
            {{"AWS_BEARER_TOKEN_BEDROCK", "tok-12345"}, {"AWS_DEFAULT_REGION", "ap-south-1"}});
        CHECK(make_chat_provider("bedrock", config)
                  ->build_request(full_request())
                  .url.find("ap-south-1") != std::string::npos);
        CHECK_THROWS_WITH(
            make_chat_provider("bedrock", isolated()),
            Catch::Contains("AWS_BEARER_TOKEN_BEDROCK") && Catch::Contains("AWS_ACCESS_KEY_ID"));
    }
}

TEST_CASE("bedrock: Converse response parsing") {
    auto provider =
        make_chat_provider("bedrock", isolated({{"AWS_BEARER_TOKEN_BEDROCK", "tok-12345"}}));
    const auto text = provider->parse_response(response(200, R"({
        "output": {"message": {"role": "assistant", "content": [{"text": "{\"label\": \"Positive\"}"}]}},
        "stopReason": "end_turn", "usage": {"inputTokens": 30, "outputTokens": 6, "totalTokens": 36},
        "metrics": {"latencyMs": 120}})"));
    REQUIRE(text.ok);
    CHECK(text.text == R"({"label": "Positive"})");
    CHECK(text.finish_reason == "end_turn");
    CHECK(text.input_tokens == 30);
    CHECK(text.output_tokens == 6);
    const auto tool = provider->parse_response(response(200, R"({
        "output": {"message": {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "answer",
                   "input": {"label": "Neutral"}}}]}}, "stopReason": "tool_use", "usage": {"inputTokens": 1, "outputTokens": 1}})"));
    REQUIRE(tool.ok);
    CHECK(parse_label_answer(tool.text, {"Positive", "Neutral"}).label == "Neutral");
    const auto filtered =
        provider->parse_response(response(200, R"({"output": {"message": {"role": "assistant",
        "content": [{"text": "blocked"}]}}, "stopReason": "content_filtered"})"));
    CHECK(filtered.refused);
    CHECK(provider->parse_response(response(200, R"({"output": {}})")).error.code ==
          code::provider_malformed_response);
}

TEST_CASE("embeddings: openai request, batch limit and response order") {
    auto provider =
        make_embedding_provider("openai", isolated({{"OPENAI_API_KEY", "sk-test-123456"}}));
    CHECK(provider->max_batch_size() == 2048);
    const auto request =
        provider->build_request({"text-embedding-3-small", {"a", "b \"c\""}, 256, true});
    CHECK(request.url == "https://api.openai.com/v1/embeddings");
    CHECK(json::parse(request.body) ==
          json::parse(R"({"model": "text-embedding-3-small", "input": ["a", "b \"c\""],
                                                      "encoding_format": "base64", "dimensions": 256})"));
    // Vectors come back in `index` order even when the array is not.
    const auto result = provider->parse_response(response(200, R"({"object": "list", "model": "e",
        "data": [{"object": "embedding", "index": 1, "embedding": [0, 1]}, {"object": "embedding", "index": 0, "embedding": [1, 0]}],
        "usage": {"prompt_tokens": 4, "total_tokens": 4}})"),
                                                 2);
    REQUIRE(result.ok);
    CHECK(result.vectors == std::vector<std::vector<double>>{{1, 0}, {0, 1}});
    CHECK(result.input_tokens == 4);
    const auto short_answer =
        provider->parse_response(response(200, R"({"data": [{"index": 0, "embedding": [1]}]})"), 2);
    CHECK_FALSE(short_answer.ok);
    CHECK(short_answer.error.code == code::provider_malformed_response);
    CHECK(short_answer.vectors.empty());
    std::vector<std::string> too_many(2049, "x");
    CHECK_THROWS_WITH(provider->build_request({"m", too_many, std::nullopt, true}),
                      Catch::Contains("2049"));
    auto small = isolated({{"OPENAI_API_KEY", "k-12345"}});
    small.options = {{"max_batch_size", "64"}};
    CHECK(make_embedding_provider("openai", small)->max_batch_size() == 64);
    small.options = {{"max_batch_size", "lots"}};
    CHECK_THROWS_WITH(make_embedding_provider("openai", small), Catch::Contains("\"lots\""));
}

TEST_CASE("embeddings: openai base64 float32 answers, numbers rounded to float32, the option") {
    auto provider =
        make_embedding_provider("openai", isolated({{"OPENAI_API_KEY", "sk-test-123456"}}));
    // base64 of the little-endian float32 numbers 1.0, -2.5 (OpenAI's encoding_format "base64").
    const auto base64 = provider->parse_response(
        response(200, R"({"data": [{"index": 0, "embedding": "AACAPwAAIMA="}], "model": "e"})"), 1);
    REQUIRE(base64.ok);
    CHECK(base64.vectors == std::vector<std::vector<double>>{{1.0, -2.5}});
    // A server that ignores encoding_format answers with numbers: each is rounded to float32,
    // so that the statistics see the same precision whichever way the vector came.
    const auto numbers = provider->parse_response(
        response(200, R"({"data": [{"index": 0, "embedding": [0.1, 1e-50]}]})"), 1);
    REQUIRE(numbers.ok);
    CHECK(numbers.vectors[0][0] == static_cast<double>(0.1f));
    CHECK(numbers.vectors[0][0] != 0.1);
    CHECK(numbers.vectors[0][1] == 0.0);
    for (const char* bad : {R"("AACAPwAAIM")", R"("AACAPw=!")", R"("AACA")", R"("")", "[1e300]", R"("AADAfw==")"}) {
        const auto result = provider->parse_response(
            response(200, std::string(R"({"data": [{"index": 0, "embedding": )") + bad + "}]}"), 1);
        INFO(bad);
        CHECK_FALSE(result.ok);
        CHECK(result.error.code == code::provider_malformed_response);
    }
    auto config = isolated({{"OPENAI_API_KEY", "k-12345"}});
    config.options = {{"encoding_format", "float"}};
    const auto request =
        make_embedding_provider("openai", config)->build_request({"m", {"a"}, std::nullopt, true});
    CHECK(json::parse(request.body)["encoding_format"] == "float");
    config.options = {{"encoding_format", "binary"}};
    CHECK_THROWS_WITH(make_embedding_provider("openai", config),
                      Catch::Contains("options$encoding_format") && Catch::Contains("\"binary\"") &&
                          Catch::Contains("\"base64\" or \"float\""));
}

TEST_CASE("embeddings: bedrock-titan v2 body, one input per request") {
    auto provider = make_embedding_provider("bedrock-titan",
                                            isolated({{"AWS_ACCESS_KEY_ID", "AKIA0000TEST"},
                                                      {"AWS_SECRET_ACCESS_KEY", "secret-0000"}}));
    CHECK(provider->max_batch_size() == 1);
    const auto request =
        provider->build_request({"amazon.titan-embed-text-v2:0", {"Hello"}, 512, true});
    CHECK(request.url ==
          "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.titan-embed-text-v2%3A0/"
          "invoke");
    CHECK((request.signer && request.signer->scheme() == "AWS SigV4 us-east-1 bedrock"));
    CHECK(json::parse(request.body) ==
          json::parse(R"({"inputText": "Hello", "dimensions": 512, "normalize": true})"));
    CHECK(json::parse(
              provider->build_request({"amazon.titan-embed-text-v2:0", {"Hi"}, std::nullopt, false})
                  .body) == json::parse(R"({"inputText": "Hi", "normalize": false})"));
    CHECK_THROWS_WITH(
        provider->build_request({"amazon.titan-embed-text-v2:0", {"a", "b"}, std::nullopt, true}),
        Catch::Contains("exactly 1"));
    CHECK_THROWS_WITH(provider->build_request({"amazon.titan-embed-text-v2:0", {"a"}, 300, true}),
                      Catch::Contains("256, 512 or 1024"));
    const auto result = provider->parse_response(
        response(200, R"({"embedding": [0.6, 0.8], "inputTextTokenCount": 2,
                                                                  "embeddingsByType": {"float": [0.6, 0.8]}})"),
        1);
    REQUIRE(result.ok);
    // Every vector is float32 once read, whatever the provider (docs/transport-and-cache.md).
    CHECK(result.vectors == std::vector<std::vector<double>>{{static_cast<double>(0.6f), static_cast<double>(0.8f)}});
    CHECK(result.input_tokens == 2);
    CHECK(provider->parse_response(response(200, R"({"embedding": []})"), 1).error.code ==
          code::provider_malformed_response);
}

TEST_CASE("embeddings: ollama /api/embed") {
    auto provider =
        make_embedding_provider("ollama", isolated({{"OLLAMA_HOST", "127.0.0.1:11500"}}));
    const auto request =
        provider->build_request({"nomic-embed-text", {"a", "b"}, std::nullopt, true});
    CHECK(request.url == "http://127.0.0.1:11500/api/embed");
    CHECK(request.headers ==
          std::vector<std::pair<std::string, std::string>>{{"Content-Type", "application/json"}});
    CHECK(json::parse(request.body) ==
          json::parse(R"({"model": "nomic-embed-text", "input": ["a", "b"]})"));
    const auto result = provider->parse_response(
        response(
            200,
            R"({"model": "nomic-embed-text", "embeddings": [[0.1, 0.2], [0.3, 0.4]], "prompt_eval_count": 8})"),
        2);
    REQUIRE(result.ok);
    CHECK(result.vectors.size() == 2);
    CHECK(result.input_tokens == 8);
    CHECK(provider->parse_response(response(200, R"({"embeddings": [[0.1]]})"), 2).error.code ==
          code::provider_malformed_response);
    CHECK(make_embedding_provider("ollama", isolated())
              ->build_request({"m", {"a"}, std::nullopt, true})
              .url == "http://127.0.0.1:11434/api/embed");
}

TEST_CASE("credentials never appear in descriptions, identities or errors") {
    const std::string planted = "PLANTED-KEY-9f8e7d6c";
    std::vector<std::unique_ptr<ChatProvider>> chat;
    chat.push_back(make_chat_provider("openai", isolated({{"OPENAI_API_KEY", planted}})));
    chat.push_back(make_chat_provider("anthropic", isolated({{"ANTHROPIC_API_KEY", planted}})));
    chat.push_back(
        make_chat_provider("bedrock", isolated({{"AWS_BEARER_TOKEN_BEDROCK", planted}})));
    chat.push_back(make_chat_provider("bedrock", isolated({{"AWS_ACCESS_KEY_ID", "AKIA" + planted},
                                                           {"AWS_SECRET_ACCESS_KEY", planted}})));
    auto azure = isolated({{"AZURE_OPENAI_API_KEY", planted},
                           {"AZURE_OPENAI_ENDPOINT", "https://r.openai.azure.com"}});
    azure.options = {{"flavor", "azure"}};
    chat.push_back(make_chat_provider("openai", azure));
    for (const auto& provider : chat) {
        INFO(provider->description());
        CHECK(provider->description().find(planted) == std::string::npos);
        CHECK(provider->endpoint_identity().find(planted) == std::string::npos);
        const HttpRequest request = provider->build_request(ChatRequest::user_prompt("m", "p"));
        CHECK(std::find(request.secrets.begin(), request.secrets.end(), planted) !=
              request.secrets.end());
        CHECK(request.body.find(planted) == std::string::npos);
        CHECK(request.url.find(planted) == std::string::npos);
        // An error body quoting the key comes back redacted, whatever its shape.
        for (const std::string& body :
             {R"({"error": {"message": "bad key )" + planted + R"("}})",
              R"({"message": "bad key )" + planted + R"("})", "plain text " + planted}) {
            const auto result = provider->parse_response(response(401, body));
            CHECK(result.error.message.find(planted) == std::string::npos);
        }
        CHECK(provider->parse_response(response(200, "garbage " + planted))
                  .error.message.find(planted) == std::string::npos);
    }
    auto titan =
        make_embedding_provider("bedrock-titan", isolated({{"AWS_BEARER_TOKEN_BEDROCK", planted}}));
    CHECK(titan->description().find(planted) == std::string::npos);
    CHECK(titan->parse_response(response(403, R"({"message": ")" + planted + R"("})"), 1)
              .error.message.find(planted) == std::string::npos);
}

TEST_CASE("canonical JSON of a request covers every generation parameter") {
    ChatRequest a = full_request();
    ChatRequest b = full_request();
    CHECK(a.canonical_json() == b.canonical_json());
    b.temperature = 0.8;
    CHECK(a.canonical_json() != b.canonical_json());
    b = full_request();
    b.seed.reset();
    CHECK(a.canonical_json() != b.canonical_json());
    b = full_request();
    b.json_schema = passages_schema;
    CHECK(a.canonical_json() != b.canonical_json());
    // Schema whitespace does not matter: it is stored parsed.
    ChatRequest c = full_request();
    c.json_schema = json::parse(passages_schema).dump(2);
    b.json_schema = passages_schema;
    CHECK(b.canonical_json() == c.canonical_json());
    const EmbeddingRequest e1{"m", {"x"}, std::nullopt, true}, e2{"m", {"y"}, std::nullopt, true};
    CHECK(e1.canonical_json() != e2.canonical_json());
}

// Issue 25: OPENAI_API_KEY goes to OpenAI's hosts only; another OpenAI-compatible server gets
// the key named for it (api_key, option api_key_env, or LLMV_API_KEY), never OpenAI's.
TEST_CASE("openai: OPENAI_API_KEY only to OpenAI's hosts, and another server gets the key named for it") {
    CHECK(detail::is_openai_host("https://api.openai.com/v1"));
    CHECK(detail::is_openai_host("HTTPS://API.OpenAI.com:443/v1"));
    CHECK(detail::is_openai_host("https://eu.api.openai.com/v1"));
    CHECK_FALSE(detail::is_openai_host("http://api.openai.com/v1"));           // not TLS
    CHECK_FALSE(detail::is_openai_host("https://api.openai.com.evil.test/v1"));
    CHECK_FALSE(detail::is_openai_host("https://api.openai.com@evil.test/v1"));
    CHECK_FALSE(detail::is_openai_host("https://notopenai.com/v1"));
    CHECK_FALSE(detail::is_openai_host("http://127.0.0.1:8080/v1"));

    const auto authorization = [](const ProviderConfig& config) {
        return header(make_chat_provider("openai", config)->build_request(full_request()), "Authorization");
    };
    auto config = isolated({{"OPENAI_API_KEY", "sk-openai-vendor"}});
    CHECK(authorization(config) == "Bearer sk-openai-vendor");  // OpenAI's own URL
    config.base_url = "http://127.0.0.1:8080/v1";
    CHECK(authorization(config).empty());
    (*config.environment)["OPENAI_BASE_URL"] = "https://openrouter.example/api/v1";
    config.base_url.clear();
    CHECK(authorization(config).empty());  // OPENAI_BASE_URL elsewhere: not OpenAI's key either
    (*config.environment)["LLMV_API_KEY"] = "sk-named-for-my-server";
    CHECK(authorization(config) == "Bearer sk-named-for-my-server");
    config.base_url = "http://127.0.0.1:8080/v1";
    CHECK(authorization(config) == "Bearer sk-named-for-my-server");
    config.options["api_key_env"] = "OPENROUTER_API_KEY";
    (*config.environment)["OPENROUTER_API_KEY"] = "sk-or-named";
    CHECK(authorization(config) == "Bearer sk-or-named");
    config.options["api_key_env"] = "OPENAI_API_KEY";  // named by the user: sent
    CHECK(authorization(config) == "Bearer sk-openai-vendor");
    config.options.clear();
    config.api_key = "sk-explicit";
    CHECK(authorization(config) == "Bearer sk-explicit");
    // The description says where the key came from, never the key.
    config.api_key.clear();
    const std::string described = make_chat_provider("openai", config)->description();
    CHECK(described.find("$LLMV_API_KEY") != std::string::npos);
    CHECK(described.find("sk-named") == std::string::npos);
    // LLMV_API_KEY never goes to OpenAI's own URL.
    config.base_url = "https://api.openai.com/v1";
    config.environment->erase("OPENAI_API_KEY");
    CHECK_THROWS_WITH(make_chat_provider("openai", config), Catch::Contains("OPENAI_API_KEY"));
}
