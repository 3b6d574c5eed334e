// `anthropic`: the Messages API, POST {base}/v1/messages with x-api-key and
// anthropic-version: 2023-06-01. max_tokens is required by the API (default here 4096).
// Sampling follows the model's rules (model_rules.hpp): Claude Opus 4.7 and later take no
// temperature, so none is sent.
// Structured output follows the model's rules (model_rules.hpp): a single tool whose
// input_schema is the JSON Schema, forced with tool_choice (the answer is the tool input), for
// the models that take one; else output_config.format, the API's JSON-schema output (the
// answer is the text); else the schema in the system prompt. Option {"structured", ...}:
// "auto" (the rules), "tool", "json" or "prompt". A run that meets a refusal switches down
// that list once (ChatRequest::structured_mode; refused_feature() reads the 400).
// Reasoning effort goes in output_config.effort; thinking tokens are read from
// usage.output_tokens_details.thinking_tokens (npm @anthropic-ai/sdk 1.17.0 OutputConfig,
// OutputTokensDetails).
#include "llm/model_rules.hpp"
#include "llm/provider_spec.hpp"
#include "llm/provider_util.hpp"
#include "llm/refusals.hpp"
#include "llm/structured_output.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {

using nlohmann::json;

namespace {

const char* anthropic_version = "2023-06-01";
const int default_max_tokens = 4096;

class AnthropicChat final : public ChatProvider {
  public:
    explicit AnthropicChat(const ProviderConfig& config)
        : connect_timeout_ms_(config.connect_timeout_ms),
          total_timeout_ms_(config.total_timeout_ms) {
        detail::check_options(config, "anthropic", {"structured", "api_key_env"});
        structured_ = detail::option(config, "structured", "auto");
        if (structured_ != "auto" && structured_ != "tool" && structured_ != "json" &&
            structured_ != "prompt") {
            throw_invalid(code::provider_config, "options$structured", "\"" + structured_ + "\"",
                          "\"auto\", \"tool\", \"json\" or \"prompt\"");
        }
        base_url_ = detail::strip_trailing_slashes(
            detail::first_set(config, config.base_url, {"ANTHROPIC_BASE_URL"}));
        if (base_url_.empty()) base_url_ = "https://api.anthropic.com";
        // ANTHROPIC_API_KEY goes to Anthropic's hosts only (anthropic_spec.cpp); a server at
        // another base URL gets the key named for it (`api_key`, option api_key_env, else
        // LLMV_API_KEY), or none.
        const detail::ChosenKey chosen =
            detail::key_for_server(config, base_url_, anthropic_key_domains(), "ANTHROPIC_API_KEY");
        api_key_ = chosen.value;
        if (api_key_.empty() && detail::is_vendor_url(base_url_, anthropic_key_domains())) {
            throw Error(
                code::provider_config,
                "provider `anthropic` needs an API key: set `api_key` or " + chosen.variable,
                {"api_key"});
        }
        key_source_ = chosen.source.empty() ? "none" : chosen.source;
    }

    std::string name() const override { return "anthropic"; }
    std::string description() const override {
        return detail::describe(
            "anthropic", {{"base", base_url_},
                          {"anthropic-version", anthropic_version},
                          {"structured output", structured_},
                          {"key", key_source_ == "none" ? key_source_ : "from " + key_source_}});
    }
    std::string endpoint_identity() const override { return "anthropic " + base_url_; }

    HttpRequest build_request(const ChatRequest& request) const override {
        detail::check_model(request.model, "anthropic");
        const ModelRules rules = model_rules("anthropic", request.model);
        if (rules.send_temperature && (request.temperature < rules.temperature_low ||
                                       request.temperature > rules.temperature_high)) {
            throw_invalid(code::invalid_argument, "temperature",
                          std::to_string(request.temperature),
                          "between 0 and 1 for provider `anthropic`");
        }
        json body = json::object();
        body["model"] = request.model;
        body["max_tokens"] = request.max_tokens.value_or(default_max_tokens);
        json messages = json::array();
        for (const auto& message : request.messages) {
            const bool cached = messages.empty() && request.cache_prefix > 0 &&
                                request.cache_prefix <= message.content.size();
            if (!cached) {
                messages.push_back({{"role", message.role}, {"content", message.content}});
                continue;
            }
            // Prompt caching: the shared prefix is its own text block with a cache breakpoint;
            // the blocks are read as one text.
            json blocks = json::array({{{"type", "text"},
                                        {"text", message.content.substr(0, request.cache_prefix)},
                                        {"cache_control", {{"type", "ephemeral"}}}}});
            if (request.cache_prefix < message.content.size()) {
                blocks.push_back(
                    {{"type", "text"}, {"text", message.content.substr(request.cache_prefix)}});
            }
            messages.push_back({{"role", message.role}, {"content", blocks}});
        }
        if (messages.empty()) {
            throw_invalid(code::invalid_argument, "messages", "no message", "at least one message");
        }
        body["messages"] = messages;
        std::string system = request.system;
        if (rules.send_temperature && request.send_temperature)
            body["temperature"] = request.temperature;
        if (request.top_p) body["top_p"] = *request.top_p;
        if (!request.reasoning_effort.empty())
            body["output_config"]["effort"] = request.reasoning_effort;
        if (!request.json_schema.empty()) {
            json schema = detail::parse_schema(request.json_schema);
            const StructuredMode mode = structured_mode_for(
                rules, structured_, request.structured_mode, schema.value("type", "") == "object");
            if (mode == StructuredMode::forced_tool) {
                body["tools"] =
                    json::array({{{"name", request.schema_name},
                                  {"description", "Record the answer in the required structure."},
                                  {"input_schema", schema}}});
                body["tool_choice"] = {{"type", "tool"}, {"name", request.schema_name}};
            } else if (mode == StructuredMode::json_schema) {
                body["output_config"]["format"] = {{"type", "json_schema"}, {"schema", schema}};
            } else {  // tools and output formats take object schemas only
                system +=
                    std::string(system.empty() ? "" : "\n\n") + schema_instruction(schema.dump());
            }
        }
        if (!system.empty()) body["system"] = system;
        // No seed: the Messages API has none.

        HttpRequest http;
        http.url = base_url_ + "/v1/messages";
        http.headers = {{"anthropic-version", anthropic_version},
                        {"Content-Type", "application/json"}};
        if (!api_key_.empty()) {
            http.headers.insert(http.headers.begin(), {"x-api-key", api_key_});
            http.secrets = {api_key_};
        }
        http.body = body.dump();
        http.connect_timeout_ms = connect_timeout_ms_;
        http.total_timeout_ms = total_timeout_ms_;
        return http;
    }

    ChatResult parse_response(const HttpResponse& response) const override {
        ChatResult result;
        const std::vector<std::string> secrets =
            api_key_.empty() ? std::vector<std::string>{} : std::vector<std::string>{api_key_};
        if (!detail::is_success(response)) {
            result.error = detail::http_failure(response, secrets);
            return result;
        }
        const json body = detail::parse_body(response.body);
        if (body.is_discarded() || !body.is_object() || !body.contains("content") ||
            !body["content"].is_array()) {
            result.error = detail::malformed_response(response, "has no content array", secrets);
            return result;
        }
        std::string text;
        bool tool_answer = false;
        for (const auto& block : body["content"]) {
            if (!block.is_object()) continue;
            const std::string type = block.value("type", "");
            if (type == "tool_use" && block.contains("input")) {
                text = block["input"].dump();  // the tool input is the structured answer
                tool_answer = true;
            } else if (type == "text" && !tool_answer && block.contains("text") &&
                       block["text"].is_string()) {
                text += block["text"].get<std::string>();
            }
        }
        result.text = text;
        if (body.contains("stop_reason") && body["stop_reason"].is_string()) {
            result.finish_reason = body["stop_reason"].get<std::string>();
        }
        result.refused = result.finish_reason == "refusal";
        if (body.contains("model") && body["model"].is_string())
            result.model = body["model"].get<std::string>();
        if (body.contains("usage")) {
            // input_tokens counts only what follows the last cache breakpoint: the tokens
            // written to and read from the cache are added, so that input_tokens is the whole
            // prompt as for the other providers.
            const auto& usage = body["usage"];
            result.cached_input_tokens = detail::int_field(usage, "cache_read_input_tokens");
            result.cache_write_input_tokens =
                detail::int_field(usage, "cache_creation_input_tokens");
            result.input_tokens = detail::int_field(usage, "input_tokens") +
                                  result.cache_write_input_tokens + result.cached_input_tokens;
            result.output_tokens = detail::int_field(usage, "output_tokens");
            if (usage.contains("output_tokens_details") &&
                usage["output_tokens_details"].is_object())
                result.reasoning_tokens =
                    detail::int_field(usage["output_tokens_details"], "thinking_tokens");
        }
        result.ok = true;
        return result;
    }

    // Anthropic's 400 (invalid_request_error) names the refused field: "tool_choice: type
    // \"tool\" and \"any\" are not supported for this model." (the wording a public probe of
    // claude-fable-5-1 recorded, github anomalyco/opencode#46735).
    RefusedFeature refused_feature(const HttpResponse& response) const override {
        if (response.status != 400) return RefusedFeature::none;
        const std::string message = parse_response(response).error.message;
        return detail::refused_field(message,
                                     {{"tool_choice", RefusedFeature::forced_tool},
                                      {"output_config.format", RefusedFeature::json_schema},
                                      {"output_format", RefusedFeature::json_schema},
                                      {"effort", RefusedFeature::reasoning_effort},
                                      {"thinking", RefusedFeature::reasoning_effort},
                                      {"top_p", RefusedFeature::top_p},
                                      {"temperature", RefusedFeature::temperature}});
    }

  private:
    std::string base_url_;
    std::string api_key_;
    std::string key_source_;
    std::string structured_;
    long connect_timeout_ms_;
    long total_timeout_ms_;
};

}  // namespace

std::unique_ptr<ChatProvider> make_anthropic_chat_provider(const ProviderConfig& config) {
    return std::make_unique<AnthropicChat>(config);
}

}  // namespace llmv
