// `openai`: the OpenAI-compatible POST {base}/chat/completions, which OpenAI, Azure OpenAI,
// Ollama, vLLM, llama.cpp's llama-server, OpenRouter and Together all speak. The base URL
// includes the version prefix ("https://api.openai.com/v1"), as in the OpenAI SDKs.
#include "llm/model_rules.hpp"
#include "llm/openai_common.hpp"
#include "llm/provider_util.hpp"
#include "llm/refusals.hpp"
#include "llm/structured_output.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {

using nlohmann::json;

namespace {

class OpenAIChat final : public ChatProvider {
  public:
    explicit OpenAIChat(const ProviderConfig& config) : endpoint_(config, "openai") {
        detail::check_options(
            config, "openai",
            {"flavor", "api_version", "api_key_env", "max_tokens_field", "strict"});
        // "auto": the model's own field (model_rules.hpp: max_completion_tokens for the
        // reasoning models, which refuse max_tokens).
        max_tokens_field_ = detail::option(config, "max_tokens_field", "auto");
        if (max_tokens_field_ != "auto" && max_tokens_field_ != "max_tokens" &&
            max_tokens_field_ != "max_completion_tokens") {
            throw_invalid(code::provider_config, "options$max_tokens_field",
                          "\"" + max_tokens_field_ + "\"",
                          "\"auto\", \"max_tokens\" or \"max_completion_tokens\"");
        }
        const std::string strict = detail::option(config, "strict", "true");
        if (strict != "true" && strict != "false") {
            throw_invalid(code::provider_config, "options$strict", "\"" + strict + "\"",
                          "\"true\" or \"false\"");
        }
        strict_ = strict == "true";
    }

    std::string name() const override { return "openai"; }
    std::string description() const override { return endpoint_.describe("openai"); }
    std::string endpoint_identity() const override { return "openai " + endpoint_.identity(); }

    HttpRequest build_request(const ChatRequest& request) const override {
        detail::check_model(request.model, "openai");
        json body = json::object();
        body["model"] = request.model;
        const ModelRules rules = model_rules("openai", request.model);
        // The API's JSON-schema output (response_format), unless the run switched to the schema
        // in the prompt after the model refused it.
        const bool schema_in_prompt =
            !request.json_schema.empty() && request.structured_mode == "prompt";
        std::string system = request.system;
        if (schema_in_prompt) {
            system += std::string(system.empty() ? "" : "\n\n") +
                      schema_instruction(detail::parse_schema(request.json_schema).dump());
        }
        json messages = json::array();
        if (!system.empty()) messages.push_back({{"role", "system"}, {"content", system}});
        for (const auto& message : request.messages) {
            messages.push_back({{"role", message.role}, {"content", message.content}});
        }
        if (messages.empty()) {
            throw_invalid(code::invalid_argument, "messages", "no message", "at least one message");
        }
        body["messages"] = messages;
        if (rules.send_temperature && request.send_temperature)
            body["temperature"] = request.temperature;
        if (request.top_p) body["top_p"] = *request.top_p;
        if (request.max_tokens) {
            body[max_tokens_field_ == "auto" ? rules.token_limit_field : max_tokens_field_] =
                *request.max_tokens;
        }
        if (!request.reasoning_effort.empty()) body["reasoning_effort"] = request.reasoning_effort;
        if (request.seed) body["seed"] = *request.seed;
        if (!request.json_schema.empty() && !schema_in_prompt) {
            body["response_format"] = {{"type", "json_schema"},
                                       {"json_schema",
                                        {{"name", request.schema_name},
                                         {"strict", strict_},
                                         {"schema", detail::parse_schema(request.json_schema)}}}};
        }
        return endpoint_.request("chat/completions", request.model, body.dump());
    }

    ChatResult parse_response(const HttpResponse& response) const override {
        ChatResult result;
        if (!detail::is_success(response)) {
            result.error = detail::http_failure(response, endpoint_.secrets());
            return result;
        }
        const json body = detail::parse_body(response.body);
        if (body.is_discarded() || !body.is_object()) {
            result.error = detail::malformed_response(response, "is not JSON", endpoint_.secrets());
            return result;
        }
        if (body.contains("error")) {  // some compatible servers answer 200 with an error object
            HttpResponse as_error = response;
            as_error.status = 500;
            result.error = detail::http_failure(as_error, endpoint_.secrets());
            result.error.http_status = response.status;
            return result;
        }
        const auto choices = body.find("choices");
        if (choices == body.end() || !choices->is_array() || choices->empty() ||
            !(*choices)[0].is_object() || !(*choices)[0].contains("message") ||
            !(*choices)[0]["message"].is_object()) {
            result.error = detail::malformed_response(response, "has no choices[0].message",
                                                      endpoint_.secrets());
            return result;
        }
        const json& choice = (*choices)[0];
        const json& message = choice["message"];
        if (message.contains("refusal") && message["refusal"].is_string() &&
            !message["refusal"].get<std::string>().empty()) {
            result.refused = true;
            result.text = message["refusal"].get<std::string>();
        } else if (message.contains("content") && message["content"].is_string()) {
            result.text = message["content"].get<std::string>();
        } else if (!(message.contains("content") && message["content"].is_null())) {
            result.error =
                detail::malformed_response(response, "has no message content", endpoint_.secrets());
            return result;
        }
        if (choice.contains("finish_reason") && choice["finish_reason"].is_string()) {
            result.finish_reason = choice["finish_reason"].get<std::string>();
        }
        if (result.refused && result.finish_reason.empty()) result.finish_reason = "refusal";
        if (body.contains("model") && body["model"].is_string())
            result.model = body["model"].get<std::string>();
        if (body.contains("usage")) {
            result.input_tokens = detail::int_field(body["usage"], "prompt_tokens");
            result.output_tokens = detail::int_field(body["usage"], "completion_tokens");
            // Automatic prompt caching: the cached share of prompt_tokens.
            if (body["usage"].contains("prompt_tokens_details") &&
                body["usage"]["prompt_tokens_details"].is_object()) {
                result.cached_input_tokens =
                    detail::int_field(body["usage"]["prompt_tokens_details"], "cached_tokens");
            }
            // Reasoning models: the reasoning share of completion_tokens (npm openai 6.49.0
            // CompletionUsage.completion_tokens_details.reasoning_tokens).
            if (body["usage"].contains("completion_tokens_details") &&
                body["usage"]["completion_tokens_details"].is_object()) {
                result.reasoning_tokens = detail::int_field(
                    body["usage"]["completion_tokens_details"], "reasoning_tokens");
            }
        }
        result.ok = true;
        return result;
    }

    // OpenAI's 400 names the parameter ({"error": {"message": "Unsupported parameter:
    // 'temperature' is not supported with this model.", "param": "temperature", "code":
    // "unsupported_parameter"}}); compatible servers say it in their own words.
    RefusedFeature refused_feature(const HttpResponse& response) const override {
        if (response.status != 400) return RefusedFeature::none;
        const json body = detail::parse_body(response.body);
        std::string message = parse_response(response).error.message;
        if (body.is_object() && body.contains("error") && body["error"].is_object()) {
            const json& error = body["error"];
            const std::string kind = error.value("code", json()).is_string()
                                         ? error["code"].get<std::string>()
                                         : std::string();
            if (error.contains("param") && error["param"].is_string() &&
                (kind == "unsupported_parameter" || kind == "unsupported_value"))
                message += " (" + error["param"].get<std::string>() + " not supported)";
        }
        return detail::refused_field(message,
                                     {{"response_format", RefusedFeature::json_schema},
                                      {"json_schema", RefusedFeature::json_schema},
                                      {"reasoning_effort", RefusedFeature::reasoning_effort},
                                      {"top_p", RefusedFeature::top_p},
                                      {"temperature", RefusedFeature::temperature}});
    }

  private:
    detail::OpenAIEndpoint endpoint_;
    std::string max_tokens_field_;
    bool strict_ = true;
};

}  // namespace

std::unique_ptr<ChatProvider> make_openai_chat_provider(const ProviderConfig& config) {
    return std::make_unique<OpenAIChat>(config);
}

}  // namespace llmv
