// `bedrock`: the Bedrock Converse API, POST {base}/model/{modelId}/converse, one request
// shape for every model family. Structured output follows the model's rules (model_rules.hpp):
// a tool (toolConfig with the schema as inputSchema.json, forced with toolChoice.tool) for the
// families AWS documents a forced tool choice for (Anthropic Claude, Amazon Nova) unless the
// model refuses one (Claude Sonnet 5.5, ...); else outputConfig.textFormat, Converse's
// JSON-schema output (@aws-sdk/client-bedrock-runtime 3.1178.0 OutputConfig), where the rules
// say the model takes it; else the schema in the system prompt (e.g. Meta Llama, whose
// Converse support has no toolChoice). Option {"structured", ...}: "auto" (the rules), "tool",
// "json" or "prompt"; a run that meets a refusal switches down that list once.
// inferenceConfig carries only what the user set (and the temperature, unless the model takes
// none): without maxTokens the service uses the model's own maximum, which for Meta Llama is
// below any fixed default. Reasoning effort goes in outputConfig.effort.
#include "llm/bedrock_common.hpp"
#include "llm/model_rules.hpp"
#include "llm/provider_util.hpp"
#include "llm/refusals.hpp"
#include "llm/structured_output.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {

using nlohmann::json;

namespace {

class BedrockChat final : public ChatProvider {
  public:
    explicit BedrockChat(const ProviderConfig& config) : endpoint_(config, "bedrock") {
        detail::check_options(config, "bedrock", {"structured"});
        structured_ = detail::option(config, "structured", "auto");
        if (structured_ != "auto" && structured_ != "tool" && structured_ != "json" &&
            structured_ != "prompt") {
            throw_invalid(code::provider_config, "options$structured", "\"" + structured_ + "\"",
                          "\"auto\", \"tool\", \"json\" or \"prompt\"");
        }
    }

    std::string name() const override { return "bedrock"; }
    std::string description() const override {
        return endpoint_.describe("bedrock") + " structured output " + structured_;
    }
    std::string endpoint_identity() const override { return "bedrock " + endpoint_.identity(); }

    HttpRequest build_request(const ChatRequest& request) const override {
        detail::check_model(request.model, "bedrock");
        json body = json::object();
        json messages = json::array();
        for (const auto& message : request.messages) {
            messages.push_back(
                {{"role", message.role}, {"content", json::array({{{"text", message.content}}})}});
        }
        if (messages.empty()) {
            throw_invalid(code::invalid_argument, "messages", "no message", "at least one message");
        }
        body["messages"] = messages;
        const ModelRules rules = model_rules("bedrock", request.model);
        json inference = json::object();
        if (request.max_tokens) inference["maxTokens"] = *request.max_tokens;
        if (rules.send_temperature && request.send_temperature)
            inference["temperature"] = request.temperature;
        if (request.top_p) inference["topP"] = *request.top_p;
        if (!inference.empty()) body["inferenceConfig"] = inference;
        if (!request.reasoning_effort.empty())
            body["outputConfig"]["effort"] = request.reasoning_effort;
        std::string system = request.system;
        if (!request.json_schema.empty()) {
            json schema = detail::parse_schema(request.json_schema);
            const StructuredMode mode = structured_mode_for(
                rules, structured_, request.structured_mode, schema.value("type", "") == "object");
            if (mode == StructuredMode::forced_tool) {
                body["toolConfig"] = {
                    {"tools",
                     json::array(
                         {{{"toolSpec",
                            {{"name", request.schema_name},
                             {"description", "Record the answer in the required structure."},
                             {"inputSchema", {{"json", schema}}}}}}})},
                    {"toolChoice", {{"tool", {{"name", request.schema_name}}}}}};
            } else if (mode == StructuredMode::json_schema) {
                // JsonSchemaDefinition.schema is the schema as a string.
                body["outputConfig"]["textFormat"] = {
                    {"type", "json_schema"},
                    {"structure",
                     {{"jsonSchema", {{"schema", schema.dump()}, {"name", request.schema_name}}}}}};
            } else {
                system +=
                    std::string(system.empty() ? "" : "\n\n") + schema_instruction(schema.dump());
            }
        }
        if (!system.empty()) body["system"] = json::array({{{"text", system}}});
        // No seed: Converse has none.
        return endpoint_.request(request.model, "converse", body.dump());
    }

    ChatResult parse_response(const HttpResponse& response) const override {
        ChatResult result;
        if (!detail::is_success(response)) {
            result.error = detail::http_failure(response, endpoint_.secrets());
            return result;
        }
        const json body = detail::parse_body(response.body);
        const json* content = nullptr;
        if (body.is_object() && body.contains("output") && body["output"].is_object() &&
            body["output"].contains("message") && body["output"]["message"].is_object() &&
            body["output"]["message"].contains("content") &&
            body["output"]["message"]["content"].is_array()) {
            content = &body["output"]["message"]["content"];
        }
        if (!content) {
            result.error = detail::malformed_response(response, "has no output.message.content",
                                                      endpoint_.secrets());
            return result;
        }
        std::string text;
        bool tool_answer = false;
        for (const auto& block : *content) {
            if (!block.is_object()) continue;
            if (block.contains("toolUse") && block["toolUse"].is_object() &&
                block["toolUse"].contains("input")) {
                text = block["toolUse"]["input"].dump();
                tool_answer = true;
            } else if (!tool_answer && block.contains("text") && block["text"].is_string()) {
                text += block["text"].get<std::string>();
            }
        }
        result.text = text;
        if (body.contains("stopReason") && body["stopReason"].is_string()) {
            result.finish_reason = body["stopReason"].get<std::string>();
        }
        result.refused = result.finish_reason == "content_filtered" ||
                         result.finish_reason == "guardrail_intervened";
        if (body.contains("usage")) {
            result.input_tokens = detail::int_field(body["usage"], "inputTokens");
            result.output_tokens = detail::int_field(body["usage"], "outputTokens");
        }
        result.ok = true;
        return result;
    }

    // Bedrock's ValidationException names the refused field ("This model doesn't support the
    // toolChoice field. Remove toolChoice and try again."); a model id past its end of life or
    // unknown in the region is refused with a 400 too: the model, not a feature.
    RefusedFeature refused_feature(const HttpResponse& response) const override {
        if (response.status != 400) return RefusedFeature::none;
        const std::string message = parse_response(response).error.message;
        if (message.find("model identifier is invalid") != std::string::npos ||
            message.find("end of its life") != std::string::npos)
            return RefusedFeature::model;
        return detail::refused_field(message, {{"toolChoice", RefusedFeature::forced_tool},
                                               {"textFormat", RefusedFeature::json_schema},
                                               {"effort", RefusedFeature::reasoning_effort},
                                               {"thinking", RefusedFeature::reasoning_effort},
                                               {"outputConfig", RefusedFeature::json_schema},
                                               {"topP", RefusedFeature::top_p},
                                               {"top_p", RefusedFeature::top_p},
                                               {"temperature", RefusedFeature::temperature}});
    }

  private:
    detail::BedrockEndpoint endpoint_;
    std::string structured_;
};

}  // namespace

std::unique_ptr<ChatProvider> make_bedrock_chat_provider(const ProviderConfig& config) {
    return std::make_unique<BedrockChat>(config);
}

}  // namespace llmv
