// Issue 23: the model families' rules (model_rules.hpp) decide what a request carries, and a
// configuration a model refuses is an error before any call. Also the vendors' configuration
// sources the SDKs read (AWS_ENDPOINT_URL, OPENAI_ORG_ID / OPENAI_PROJECT_ID).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "llm/model_catalogue.hpp"
#include "llm/model_lifecycle.hpp"
#include "llm/model_rules.hpp"
#include "llm/provider.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/resolution.hpp"
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

ProviderConfig isolated(std::map<std::string, std::string> environment) {
    ProviderConfig config;
    config.environment = std::move(environment);
    return config;
}

json body_of(const std::string& provider, const ChatRequest& request,
             std::map<std::string, std::string> environment) {
    return json::parse(make_chat_provider(provider, isolated(std::move(environment)))->build_request(request).body);
}

std::string refusal(const std::string& provider, const std::string& model, double temperature,
                    std::optional<double> top_p, std::optional<int> max_tokens) {
    try {
        check_model_settings(provider, model, temperature, top_p, max_tokens);
    } catch (const Error& error) {
        CHECK(std::string(error.code()) == code::invalid_argument);
        return error.what();
    }
    return "";
}

std::string header(const HttpRequest& request, const std::string& name) {
    for (const auto& [key, value] : request.headers)
        if (key == name) return value;
    return "";
}

const std::map<std::string, std::string> bedrock_token = {{"AWS_BEARER_TOKEN_BEDROCK", "tok-12345"}};

}  // namespace

TEST_CASE("bedrock: no maxTokens unless the user sets one (Meta Llama allows at most 2048)") {
    ChatRequest request = ChatRequest::user_prompt("meta.llama3-70b-instruct-v1:0", "p");
    json body = body_of("bedrock", request, bedrock_token);
    REQUIRE(body.contains("inferenceConfig"));
    CHECK_FALSE(body["inferenceConfig"].contains("maxTokens"));
    CHECK(body["inferenceConfig"]["temperature"] == 1.0);
    request.max_tokens = 512;
    body = body_of("bedrock", request, bedrock_token);
    CHECK(body["inferenceConfig"]["maxTokens"] == 512);
    // Llama has no forced tool choice: the schema goes in the prompt.
    request.json_schema = R"({"type": "object", "properties": {"label": {"type": "string"}}})";
    CHECK_FALSE(body_of("bedrock", request, bedrock_token).contains("toolConfig"));
}

TEST_CASE("Claude Opus 4.7 and later take no temperature, and earlier Claude models do") {
    const std::map<std::string, std::string> key = {{"ANTHROPIC_API_KEY", "sk-ant-test"}};
    for (const std::string model : {"claude-opus-4-7", "claude-opus-4-8", "claude-sonnet-5", "claude-fable-5-1"}) {
        INFO(model);
        const json body = body_of("anthropic", ChatRequest::user_prompt(model, "p"), key);
        CHECK_FALSE(body.contains("temperature"));
        CHECK(body.at("max_tokens") == 4096);  // the Messages API requires it
    }
    for (const std::string model : {"claude-haiku-4-5", "claude-sonnet-4-6", "claude-haiku-4-5-20251001"}) {
        INFO(model);
        CHECK(body_of("anthropic", ChatRequest::user_prompt(model, "p"), key).at("temperature") == 1.0);
    }
    // On Bedrock, inference profiles and ARNs included.
    const json bedrock = body_of(
        "bedrock",
        ChatRequest::user_prompt("arn:aws:bedrock:us-east-1:123:inference-profile/us.anthropic.claude-opus-4-8", "p"),
        bedrock_token);
    CHECK_FALSE(bedrock.contains("inferenceConfig"));
    CHECK(model_rules("bedrock", "us.anthropic.claude-sonnet-4-6").forced_tool);
}

TEST_CASE("openai: reasoning models get max_completion_tokens and no temperature") {
    const std::map<std::string, std::string> key = {{"OPENAI_API_KEY", "sk-test"}};
    ChatRequest request = ChatRequest::user_prompt("gpt-5-mini", "p");
    request.max_tokens = 300;
    json body = body_of("openai", request, key);
    CHECK(body.at("max_completion_tokens") == 300);
    CHECK_FALSE(body.contains("max_tokens"));
    CHECK_FALSE(body.contains("temperature"));
    request.model = "gpt-4.1-mini";
    body = body_of("openai", request, key);
    CHECK(body.at("max_tokens") == 300);
    CHECK(body.at("temperature") == 1.0);
    // The option still wins over the model's rule.
    ProviderConfig config = isolated(key);
    config.options = {{"max_tokens_field", "max_completion_tokens"}};
    CHECK(json::parse(make_chat_provider("openai", config)->build_request(request).body)
              .contains("max_completion_tokens"));
}

TEST_CASE("a setting the model refuses is an error naming it, the value and what is allowed") {
    std::string message = refusal("anthropic", "claude-opus-4-8", 0.7, std::nullopt, std::nullopt);
    CHECK(message.rfind("`temperature` must be 1 only for model claude-opus-4-8", 0) == 0);
    CHECK(message.find("received 0.7.") != std::string::npos);
    CHECK(refusal("anthropic", "claude-opus-4-8", 1, std::nullopt, std::nullopt).empty());
    CHECK(refusal("anthropic", "claude-opus-4-8", 1, 0.995, std::nullopt).empty());
    CHECK(refusal("anthropic", "claude-opus-4-8", 1, 0.9, std::nullopt).find("from 0.99 to 1") !=
          std::string::npos);

    message = refusal("anthropic", "claude-haiku-4-5", 1, 0.9, std::nullopt);
    CHECK(message.rfind("`top_p` must be unset for model claude-haiku-4-5", 0) == 0);
    CHECK(message.find("temperature and top_p together") != std::string::npos);
    CHECK(refusal("anthropic", "claude-haiku-4-5", 1.5, std::nullopt, std::nullopt)
              .find("a number from 0 to 1") != std::string::npos);
    CHECK(refusal("anthropic", "claude-haiku-4-5", 0.3, std::nullopt, 64000).empty());
    CHECK(refusal("anthropic", "claude-haiku-4-5", 0.3, std::nullopt, 64001).rfind("`max_tokens`", 0) == 0);

    message = refusal("bedrock", "us.meta.llama3-8b-instruct-v1:0", 1, std::nullopt, 4096);
    CHECK(message.rfind("`max_tokens` must be unset, or at most 2048", 0) == 0);
    CHECK(refusal("bedrock", "meta.llama3-8b-instruct-v1:0", 1, 0.9, 2048).empty());

    CHECK(refusal("openai", "o3", 0.2, std::nullopt, std::nullopt).rfind("`temperature` must be 1 only", 0) == 0);
    CHECK(refusal("openai", "gpt-5-mini", 1, 0.5, std::nullopt).rfind("`top_p` must be unset", 0) == 0);
    CHECK(refusal("openai", "gpt-4.1-mini", 1.8, 0.5, 100).empty());
    CHECK(refusal("openai", "gpt-4.1-mini", 2.5, std::nullopt, std::nullopt).find("from 0 to 2") != std::string::npos);
}

TEST_CASE("every default model is current: not retired, and dated with its source") {
    for (const pipeline::ProviderDefaults& row : pipeline::provider_defaults()) {
        INFO(row.kind << " " << row.provider << " " << row.model);
        // Not retired by the shipped lifecycle table (model_lifecycle.hpp).
        if (const LifecycleRow* lifecycle = find_shipped_lifecycle(row.provider, row.model))
            CHECK(lifecycle->retires > today_utc());
        if (row.provider == "openai" || row.provider == "anthropic" || row.provider == "bedrock" ||
            row.provider == "bedrock-titan") {
            CHECK(row.checked.size() == 10);
            CHECK_FALSE(row.source.empty());
            // The defaults take the paper's sampling (temperature 1, no top_p, no cap).
            CHECK_NOTHROW(check_model_settings(row.provider, row.model, 1, std::nullopt, std::nullopt));
        }
    }
}

TEST_CASE("bedrock: AWS_ENDPOINT_URL is the endpoint when the service's own variable is unset") {
    std::map<std::string, std::string> environment = bedrock_token;
    environment["AWS_ENDPOINT_URL"] = "https://vpce-1.bedrock.example";
    const ChatRequest request = ChatRequest::user_prompt("anthropic.claude-sonnet-4-6", "p");
    CHECK(make_chat_provider("bedrock", isolated(environment))->build_request(request).url ==
          "https://vpce-1.bedrock.example/model/anthropic.claude-sonnet-4-6/converse");
    environment["AWS_ENDPOINT_URL_BEDROCK_RUNTIME"] = "https://runtime.example";
    CHECK(make_chat_provider("bedrock", isolated(environment))->build_request(request).url ==
          "https://runtime.example/model/anthropic.claude-sonnet-4-6/converse");
    // The control plane (the model list) reads its own variable, then the global one.
    environment["AWS_ENDPOINT_URL_BEDROCK"] = "https://control.example";
    const std::vector<HttpRequest> lists = ModelCatalogue("bedrock", isolated(environment)).requests();
    REQUIRE(lists.size() == 2);
    CHECK(lists[0].url == "https://control.example/foundation-models");
    CHECK(lists[0].method == "GET");
    CHECK(lists[1].url == "https://control.example/inference-profiles?maxResults=1000");
}

TEST_CASE("openai: OPENAI_ORG_ID and OPENAI_PROJECT_ID become the OpenAI-Organization and OpenAI-Project headers") {
    std::map<std::string, std::string> environment = {{"OPENAI_API_KEY", "sk-test"}};
    const ChatRequest request = ChatRequest::user_prompt("gpt-4.1-mini", "p");
    HttpRequest http = make_chat_provider("openai", isolated(environment))->build_request(request);
    CHECK(header(http, "OpenAI-Organization").empty());
    CHECK(header(http, "OpenAI-Project").empty());
    environment["OPENAI_ORG_ID"] = "org-123";
    environment["OPENAI_PROJECT_ID"] = "proj_456";
    http = make_chat_provider("openai", isolated(environment))->build_request(request);
    CHECK(header(http, "OpenAI-Organization") == "org-123");
    CHECK(header(http, "OpenAI-Project") == "proj_456");
    CHECK(header(make_embedding_provider("openai", isolated(environment))
                     ->build_request(EmbeddingRequest{"text-embedding-3-small", {"a"}, std::nullopt, true}),
                 "OpenAI-Project") == "proj_456");
}

TEST_CASE("bedrock: AWS_PROFILE reads keys, session token and region from the shared files") {
    const std::string directory = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    const std::string credentials = directory + "/llmv-test-aws-credentials";
    const std::string config = directory + "/llmv-test-aws-config";
    std::ofstream(credentials) << "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = s1\n"
                                  "# a comment\n[research]\naws_access_key_id = AKIDRESEARCH\n"
                                  "aws_secret_access_key = research/secret\naws_session_token = tok+en\n";
    std::ofstream(config) << "[default]\nregion = us-east-2\n[profile research]\nregion = eu-west-1\n";
    std::map<std::string, std::string> environment = {{"AWS_SHARED_CREDENTIALS_FILE", credentials},
                                                      {"AWS_CONFIG_FILE", config},
                                                      {"AWS_PROFILE", "research"}};
    const ChatRequest request = ChatRequest::user_prompt("anthropic.claude-sonnet-4-6", "p");
    HttpRequest http = make_chat_provider("bedrock", isolated(environment))->build_request(request);
    CHECK(http.url == "https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-sonnet-4-6/converse");
    CHECK((http.signer && http.signer->scheme() == "AWS SigV4 eu-west-1 bedrock"));
    CHECK(credentials_of(http).access_key_id == "AKIDRESEARCH");
    CHECK(credentials_of(http).secret_access_key == "research/secret");
    CHECK(credentials_of(http).session_token == "tok+en");
    CHECK(make_chat_provider("bedrock", isolated(environment))->description().find("research/secret") ==
          std::string::npos);
    // Variables win over the files, as in the AWS SDKs.
    environment["AWS_REGION"] = "ap-south-1";
    environment["AWS_ACCESS_KEY_ID"] = "AKIDENV";
    environment["AWS_SECRET_ACCESS_KEY"] = "env-secret";
    http = make_chat_provider("bedrock", isolated(environment))->build_request(request);
    CHECK(credentials_of(http).access_key_id == "AKIDENV");
    CHECK((http.signer && http.signer->scheme() == "AWS SigV4 ap-south-1 bedrock"));
    // Without AWS_PROFILE: the default profile.
    http = make_chat_provider("bedrock", isolated({{"AWS_SHARED_CREDENTIALS_FILE", credentials},
                                                   {"AWS_CONFIG_FILE", config}}))
               ->build_request(request);
    CHECK(credentials_of(http).access_key_id == "AKIDDEFAULT");
    CHECK((http.signer && http.signer->scheme() == "AWS SigV4 us-east-2 bedrock"));
    // A profile neither file has is named in the error.
    environment = {{"AWS_SHARED_CREDENTIALS_FILE", credentials}, {"AWS_CONFIG_FILE", config}, {"AWS_PROFILE", "nope"}};
    CHECK_THROWS_WITH(make_chat_provider("bedrock", isolated(environment)),
                      Catch::Matchers::Contains("AWS_PROFILE names profile `nope`"));
    std::remove(credentials.c_str());
    std::remove(config.c_str());
}
