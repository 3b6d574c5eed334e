// Issue 39: capabilities per model family (model_families.cpp), the request builders that
// follow them (no forced tool where a model refuses one; JSON-schema output or the prompt
// instead; reasoning effort; max_completion_tokens), and each provider's error classifier.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "llm/model_rules.hpp"
#include "llm/provider.hpp"
#include "llmvalidate/error.hpp"

using nlohmann::json;
using namespace llmv;

namespace {

ProviderConfig keyed(const std::string& provider) {
    using Environment = std::map<std::string, std::string>;
    ProviderConfig config;
    if (provider == "anthropic") config.environment = Environment{{"ANTHROPIC_API_KEY", "k"}};
    if (provider == "openai") config.environment = Environment{{"OPENAI_API_KEY", "k"}};
    if (provider == "bedrock")
        config.environment = Environment{{"AWS_BEARER_TOKEN_BEDROCK", "tok-12345"}};
    return config;
}

ChatRequest schema_request(const std::string& model) {
    ChatRequest request = ChatRequest::user_prompt(model, "Label this.");
    request.json_schema = R"({"type":"object","properties":{"label":{"type":"string"}}})";
    request.schema_name = "label";
    return request;
}

json body_of(const std::string& provider, const ChatRequest& request) {
    return json::parse(make_chat_provider(provider, keyed(provider))->build_request(request).body);
}

std::string refusal(const std::string& provider, const std::string& model,
                    std::optional<int> max_tokens, const std::string& effort = "auto") {
    try {
        check_model_settings(provider, model, 1, std::nullopt, max_tokens, effort);
    } catch (const Error& error) {
        return error.what();
    }
    return "";
}

HttpResponse error_response(long status, const std::string& body) {
    HttpResponse response;
    response.status = status;
    response.body = body;
    return response;
}

RefusedFeature classify(const std::string& provider, long status, const std::string& body) {
    return make_chat_provider(provider, keyed(provider))
        ->refused_feature(error_response(status, body));
}

}  // namespace

TEST_CASE("the family table: forced tools only where the vendor documents them",
          "[model_rules][capabilities]") {
    for (const char* model : {"claude-sonnet-5-5", "claude-opus-5-5", "claude-fable-5-1"}) {
        INFO(model);
        const ModelRules rules = model_rules("anthropic", model);
        CHECK(rules.known);
        CHECK_FALSE(rules.forced_tool);
        CHECK(rules.json_schema);
        CHECK(first_structured_mode(rules) == StructuredMode::json_schema);
        CHECK(rules.reasoning);
        CHECK(rules.auto_effort == "low");
    }
    for (const char* model : {"claude-opus-5", "claude-sonnet-5", "claude-fable-5",
                              "claude-sonnet-4-6", "claude-haiku-4-5-20251001"}) {
        INFO(model);
        CHECK(model_rules("anthropic", model).forced_tool);
    }
    // Opus 5.5 is not Opus 5: families by name, not by version number.
    CHECK(model_rules("anthropic", "claude-opus-5").family !=
          model_rules("anthropic", "claude-opus-5-5").family);
    // Bedrock ids (profiles, ARNs, version suffixes) find the same rows, with Converse's field.
    const ModelRules profile = model_rules("bedrock", "global.anthropic.claude-sonnet-5-5-v1:0");
    CHECK(profile.family == "Claude Sonnet 5.5");
    CHECK(profile.token_limit_field == "maxTokens");
    CHECK(
        model_rules("bedrock",
                    "arn:aws:bedrock:eu-west-1:123:inference-profile/eu.anthropic.claude-opus-5-5")
            .family == "Claude Opus 5.5");
    // An id no row names: conservative (no forced tool, no temperature), marked unknown.
    const ModelRules unknown = model_rules("anthropic", "claude-nova-7");
    CHECK_FALSE(unknown.known);
    CHECK_FALSE(unknown.forced_tool);
    CHECK_FALSE(unknown.send_temperature);
    CHECK(unknown.reasoning_efforts.empty());
}

TEST_CASE("OpenAI reasoning models by family: effort levels, no temperature, max_completion_tokens",
          "[model_rules][capabilities]") {
    const ModelRules luna = model_rules("openai", "gpt-6-luna");
    CHECK(luna.reasoning);
    CHECK_FALSE(luna.send_temperature);
    CHECK_FALSE(luna.top_p_allowed);
    CHECK(luna.token_limit_field == "max_completion_tokens");
    CHECK(luna.reasoning_efforts ==
          std::vector<std::string>{"none", "low", "medium", "high", "xhigh", "max"});
    CHECK(effort_to_send(luna, "auto") == "none");
    CHECK(effort_to_send(luna, "high") == "high");
    CHECK(model_rules("openai", "gpt-5.6-terra").reasoning);
    CHECK(model_rules("openai", "gpt-4.1-mini-2025-04-14").send_temperature);
    CHECK(effort_to_send(model_rules("openai", "gpt-4.1-mini"), "auto").empty());
    // An OpenAI-compatible server's own model: what the API allows.
    CHECK(model_rules("openai", "fake-chat").send_temperature);
    CHECK(reasoning_tokens_estimate(luna, "none") == 0);
    CHECK(reasoning_tokens_estimate(luna, "medium") == 800);
    CHECK(reasoning_tokens_estimate(model_rules("openai", "gpt-4.1-mini"), "medium") == 0);

    ChatRequest request = ChatRequest::user_prompt("gpt-6-luna", "p");
    request.temperature = 1;
    request.max_tokens = 300;
    request.reasoning_effort = "none";
    const json body = body_of("openai", request);
    CHECK_FALSE(body.contains("temperature"));
    CHECK_FALSE(body.contains("max_tokens"));
    CHECK(body.at("max_completion_tokens") == 300);
    CHECK(body.at("reasoning_effort") == "none");
}

TEST_CASE("the reasoning effort is checked against the model's levels, naming the setting",
          "[model_rules][capabilities]") {
    const std::string message = refusal("openai", "gpt-6-luna", std::nullopt, "minimal");
    CHECK(message.rfind("`reasoning_effort` must be auto, or one of none, low, medium, high, "
                        "xhigh, max for model gpt-6-luna",
                        0) == 0);
    CHECK(message.find("received minimal") != std::string::npos);
    CHECK(refusal("openai", "gpt-6-luna", std::nullopt, "xhigh").empty());
    CHECK(refusal("openai", "gpt-4.1-mini", std::nullopt, "low")
              .find("the model takes no reasoning effort") != std::string::npos);
    CHECK(refusal("anthropic", "claude-haiku-4-5", std::nullopt, "auto").empty());
}

TEST_CASE("Meta Llama 3.1 and later take 4,096 output tokens on Bedrock, Llama 3 2,048",
          "[model_rules][capabilities]") {
    CHECK(refusal("bedrock", "meta.llama3-1-70b-instruct-v1:0", 4096).empty());
    CHECK(refusal("bedrock", "us.meta.llama3-3-70b-instruct-v1:0", 4096).empty());
    CHECK(refusal("bedrock", "meta.llama3-1-70b-instruct-v1:0", 4097)
              .rfind("`max_tokens` must be unset, or at most 4096", 0) == 0);
    CHECK(refusal("bedrock", "meta.llama3-8b-instruct-v1:0", 4096)
              .rfind("`max_tokens` must be unset, or at most 2048", 0) == 0);
}

TEST_CASE("the builders follow the rules: forced tool, JSON-schema output, or the prompt",
          "[capabilities]") {
    // Anthropic: a forced tool for Sonnet 4.6, output_config.format for Sonnet 5.5.
    json body = body_of("anthropic", schema_request("claude-sonnet-4-6"));
    CHECK(body["tool_choice"]["type"] == "tool");
    CHECK_FALSE(body.contains("output_config"));
    body = body_of("anthropic", schema_request("claude-sonnet-5-5"));
    CHECK_FALSE(body.contains("tool_choice"));
    CHECK_FALSE(body.contains("tools"));
    CHECK(body["output_config"]["format"]["type"] == "json_schema");
    CHECK(body["output_config"]["format"]["schema"]["type"] == "object");
    // The run's switch moves down the list.
    ChatRequest switched = schema_request("claude-sonnet-4-6");
    switched.structured_mode = "json_schema";
    CHECK(body_of("anthropic", switched)["output_config"]["format"]["type"] == "json_schema");
    switched.structured_mode = "prompt";
    body = body_of("anthropic", switched);
    CHECK_FALSE(body.contains("output_config"));
    CHECK(body["system"].get<std::string>().find("valid against this JSON Schema") !=
          std::string::npos);
    // Effort where the request carries one, in output_config.effort.
    ChatRequest effort = schema_request("claude-opus-5-5");
    effort.reasoning_effort = "low";
    CHECK(body_of("anthropic", effort)["output_config"]["effort"] == "low");

    // Bedrock Converse: outputConfig.textFormat with the schema as a string.
    body = body_of("bedrock", schema_request("us.anthropic.claude-sonnet-5-5"));
    CHECK_FALSE(body.contains("toolConfig"));
    const json format = body["outputConfig"]["textFormat"];
    CHECK(format["type"] == "json_schema");
    CHECK(format["structure"]["jsonSchema"]["name"] == "label");
    CHECK(json::parse(format["structure"]["jsonSchema"]["schema"].get<std::string>())["type"] ==
          "object");
    CHECK(body_of(
              "bedrock",
              schema_request(
                  "us.anthropic.claude-sonnet-4-6"))["toolConfig"]["toolChoice"]["tool"]["name"] ==
          "label");
    // Meta Llama: the prompt.
    body = body_of("bedrock", schema_request("meta.llama3-1-70b-instruct-v1:0"));
    CHECK_FALSE(body.contains("toolConfig"));
    CHECK_FALSE(body.contains("outputConfig"));

    // OpenAI: response_format, or the prompt after a refusal of it.
    ChatRequest openai = schema_request("gpt-4.1-mini");
    CHECK(body_of("openai", openai)["response_format"]["type"] == "json_schema");
    openai.structured_mode = "prompt";
    body = body_of("openai", openai);
    CHECK_FALSE(body.contains("response_format"));
    CHECK(body["messages"][0]["role"] == "system");
}

TEST_CASE("each provider's classifier reads its vendor's 400", "[capabilities]") {
    const std::string anthropic_tool =
        R"({"type":"error","error":{"type":"invalid_request_error","message":"tool_choice: type \"tool\" and \"any\" are not supported for this model."},"request_id":"req_1"})";
    CHECK(classify("anthropic", 400, anthropic_tool) == RefusedFeature::forced_tool);
    CHECK(classify("anthropic", 429, anthropic_tool) == RefusedFeature::none);
    CHECK(
        classify(
            "anthropic", 400,
            R"({"type":"error","error":{"type":"invalid_request_error","message":"temperature: range: 0..1"}})") ==
        RefusedFeature::none);
    CHECK(
        classify(
            "anthropic", 400,
            R"({"type":"error","error":{"type":"invalid_request_error","message":"`temperature` is deprecated for this model."}})") ==
        RefusedFeature::temperature);
    CHECK(
        classify(
            "bedrock", 400,
            R"({"message":"This model doesn't support the toolChoice field. Remove toolChoice and try again."})") ==
        RefusedFeature::forced_tool);
    CHECK(classify("bedrock", 400, R"({"message":"The provided model identifier is invalid."})") ==
          RefusedFeature::model);
    CHECK(
        classify(
            "openai", 400,
            R"({"error":{"message":"Unsupported parameter: 'temperature' is not supported with this model.","type":"invalid_request_error","param":"temperature","code":"unsupported_parameter"}})") ==
        RefusedFeature::temperature);
    CHECK(
        classify(
            "openai", 400,
            R"({"error":{"message":"Invalid schema for response_format 'label'.","type":"invalid_request_error","param":"response_format","code":null}})") ==
        RefusedFeature::none);
}
