// Prints, as one JSON document, the HTTP requests the engine's providers build for the inputs
// the SDK conformance suite (tools/conformance/sdk_conformance.mjs) also gives the vendors'
// SDKs: each case's inputs, and our method, URL, headers and body; Bedrock requests signed
// with SigV4 at a fixed time. No network.
#include <cctype>
#include <iostream>

#include <nlohmann/json.hpp>

#include "llm/aws_sigv4.hpp"
#include "llm/model_rules.hpp"
#include "llm/provider.hpp"

using nlohmann::json;
using namespace llmv;

namespace {

const char* schema = R"({"type": "object", "properties": {"label": {"type": "string", "enum": ["Positive", "Negative"]}}, "required": ["label"], "additionalProperties": false})";

json as_json(const HttpRequest& request) {
    json headers = json::object();
    for (const auto& [name, value] : request.headers) {
        std::string lower = name;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        headers[lower] = value;
    }
    json body = json::parse(request.body, nullptr, false);
    return {{"method", request.method}, {"url", request.url}, {"headers", headers},
            {"body", body.is_discarded() ? json(request.body) : body}, {"raw_body", request.body}};
}

// OPENAI_API_KEY goes only to OpenAI's own hosts: the capture server on loopback is given the
// key explicitly, as a user names a key for a server of their own.
ProviderConfig config_of(std::map<std::string, std::string> environment, std::string base_url) {
    ProviderConfig config;
    if (const auto key = environment.find("OPENAI_API_KEY"); key != environment.end())
        config.api_key = key->second;
    // AWS credentials go to AWS's hosts only: given explicitly, as the `aws_*` fields.
    const auto variable = [&](const char* name) {
        const auto found = environment.find(name);
        return found == environment.end() ? std::string() : found->second;
    };
    config.aws_access_key_id = variable("AWS_ACCESS_KEY_ID");
    config.aws_secret_access_key = variable("AWS_SECRET_ACCESS_KEY");
    config.aws_session_token = variable("AWS_SESSION_TOKEN");
    config.environment = std::move(environment);
    config.base_url = std::move(base_url);
    return config;
}

}  // namespace

int main(int argc, char** argv) {
    // The capture server's base URL; the SDKs are pointed at the same one.
    const std::string base = argc > 1 ? argv[1] : "http://127.0.0.1:9";
    json cases = json::array();

    {  // OpenAI chat completions: every field the engine sends, structured output included.
        ChatRequest request = ChatRequest::user_prompt("gpt-4.1-mini", "Classify: revenue grew.");
        request.system = "Be brief.";
        request.temperature = 0.7;
        request.top_p = 0.9;
        request.max_tokens = 100;
        request.seed = 11;
        request.json_schema = schema;
        auto provider = make_chat_provider(
            "openai", config_of({{"OPENAI_API_KEY", "sk-conformance"}, {"OPENAI_ORG_ID", "org-conf"},
                                 {"OPENAI_PROJECT_ID", "proj_conf"}},
                                base + "/v1"));
        cases.push_back({{"name", "openai.chat"}, {"input", json::parse(request.canonical_json())},
                         {"ours", as_json(provider->build_request(request))}});
        // A reasoning model: max_completion_tokens, no temperature, its reasoning effort.
        ChatRequest reasoning = ChatRequest::user_prompt("gpt-6-luna", "Classify: revenue grew.");
        reasoning.max_tokens = 200;
        reasoning.reasoning_effort = "none";
        cases.push_back({{"name", "openai.chat.reasoning"}, {"input", json::parse(reasoning.canonical_json())},
                         {"ours", as_json(provider->build_request(reasoning))}});
    }
    {  // OpenAI embeddings.
        auto provider = make_embedding_provider(
            "openai", config_of({{"OPENAI_API_KEY", "sk-conformance"}}, base + "/v1"));
        EmbeddingRequest request{"text-embedding-3-small", {"Revenue grew.", "Costs fell."}, std::nullopt, true};
        cases.push_back({{"name", "openai.embeddings"}, {"input", {{"model", request.model}, {"inputs", request.inputs}}},
                         {"ours", as_json(provider->build_request(request))}});
    }
    {  // Anthropic Messages: a forced tool and a prompt-cache breakpoint.
        ChatRequest request = ChatRequest::user_prompt("claude-haiku-4-5", "SHARED PREFIX. Classify: revenue grew.");
        request.system = "Be brief.";
        request.temperature = 0.5;
        request.max_tokens = 256;
        request.json_schema = schema;
        request.cache_prefix = std::string("SHARED PREFIX. ").size();
        // ANTHROPIC_API_KEY goes to Anthropic's hosts only; the loopback base gets LLMV_API_KEY.
        auto provider = make_chat_provider(
            "anthropic", config_of({{"ANTHROPIC_API_KEY", "sk-ant-conformance"},
                                    {"LLMV_API_KEY", "sk-ant-conformance"}},
                                   base));
        cases.push_back({{"name", "anthropic.messages"}, {"input", json::parse(request.canonical_json())},
                         {"cache_prefix", request.cache_prefix},
                         {"ours", as_json(provider->build_request(request))}});
        // A model that refuses forced tools (Claude Sonnet 5.5): JSON-schema output and effort.
        ChatRequest json_output = ChatRequest::user_prompt("claude-sonnet-5-5", "Classify: revenue grew.");
        json_output.system = "Be brief.";
        json_output.max_tokens = 256;
        json_output.json_schema = schema;
        json_output.reasoning_effort = "low";
        cases.push_back({{"name", "anthropic.messages.json_output"},
                         {"input", json::parse(json_output.canonical_json())},
                         {"ours", as_json(provider->build_request(json_output))}});
    }
    // Bedrock: Converse and Titan, signed with SigV4 (a session token) at a fixed time, for
    // model ids with ':', '/', '+' and '=' and an inference-profile ARN.
    const std::map<std::string, std::string> aws = {
        {"AWS_ACCESS_KEY_ID", "AKIDCONFORMANCE"},
        {"AWS_SECRET_ACCESS_KEY", "conformance/secret+key=="},
        {"AWS_SESSION_TOKEN", "session/token+with=chars"},
        {"AWS_REGION", "us-west-2"}};
    const std::time_t signing_time = 1764806400;  // 2025-12-04T00:00:00Z
    const std::vector<std::string> models = {
        "anthropic.claude-sonnet-4-5-20250929-v1:0", "us.anthropic.claude-sonnet-4-6",
        "arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.anthropic.claude-sonnet-4-6",
        "us.anthropic.claude-sonnet-5-5", "meta.llama3-70b-instruct-v1:0", "custom/model+id=v1:0"};
    auto bedrock = make_chat_provider("bedrock", config_of(aws, base));
    for (const std::string& model : models) {
        ChatRequest request = ChatRequest::user_prompt(model, "Classify: revenue grew.");
        request.system = "Be brief.";
        request.temperature = 0.5;
        request.top_p = 0.9;
        request.max_tokens = 300;
        if (model.find("claude") != std::string::npos) request.json_schema = schema;
        HttpRequest http = bedrock->build_request(request);
        const HttpRequest unsigned_request = http;
        sign_request(http, signing_time);
        json ours = as_json(http);
        ours["unsigned_headers"] = as_json(unsigned_request)["headers"];
        // How the model rules ask for the schema, and whether a temperature is sent.
        const ModelRules rules = model_rules("bedrock", model);
        const char* structured = first_structured_mode(rules) == StructuredMode::forced_tool ? "tool"
                                 : first_structured_mode(rules) == StructuredMode::json_schema
                                     ? "json"
                                     : "prompt";
        cases.push_back({{"name", "bedrock.converse " + model}, {"model", model},
                         {"structured", structured}, {"send_temperature", rules.send_temperature},
                         {"input", json::parse(request.canonical_json())}, {"ours", ours},
                         {"signing", {{"time", signing_time}, {"region", "us-west-2"}, {"service", "bedrock"},
                                      {"access_key_id", aws.at("AWS_ACCESS_KEY_ID")},
                                      {"secret_access_key", aws.at("AWS_SECRET_ACCESS_KEY")},
                                      {"session_token", aws.at("AWS_SESSION_TOKEN")}}}});
    }
    {
        auto titan = make_embedding_provider("bedrock-titan", config_of(aws, base));
        EmbeddingRequest request{"amazon.titan-embed-text-v2:0", {"Revenue grew."}, 512, true};
        HttpRequest http = titan->build_request(request);
        sign_request(http, signing_time);
        cases.push_back({{"name", "bedrock.invoke titan"}, {"model", request.model},
                         {"input", {{"inputText", request.inputs[0]}, {"dimensions", 512}, {"normalize", true}}},
                         {"ours", as_json(http)},
                         {"signing", {{"time", signing_time}, {"region", "us-west-2"}, {"service", "bedrock"},
                                      {"access_key_id", aws.at("AWS_ACCESS_KEY_ID")},
                                      {"secret_access_key", aws.at("AWS_SECRET_ACCESS_KEY")},
                                      {"session_token", aws.at("AWS_SESSION_TOKEN")}}}});
    }
    std::cout << cases.dump(2) << "\n";
    return 0;
}
