// What every provider shares: request helpers, failure classification, retry hints.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/http_status.hpp"
#include "llm/provider.hpp"
#include "llm/provider_util.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/text.hpp"

namespace llmv {

using nlohmann::json;

ChatRequest ChatRequest::user_prompt(std::string model, std::string prompt) {
    ChatRequest request;
    request.model = std::move(model);
    request.messages.push_back({"user", std::move(prompt)});
    return request;
}

std::string ChatRequest::canonical_json() const {
    json out = json::object();  // std::map underneath: keys come out sorted
    out["model"] = model;
    out["system"] = system;
    json turns = json::array();
    for (const auto& message : messages) {
        turns.push_back({{"role", message.role}, {"content", message.content}});
    }
    out["messages"] = turns;
    out["temperature"] = temperature;
    out["top_p"] = top_p ? json(*top_p) : json(nullptr);
    out["max_tokens"] = max_tokens ? json(*max_tokens) : json(nullptr);
    out["seed"] = seed ? json(*seed) : json(nullptr);
    json schema = json::parse(json_schema, nullptr, false);
    out["json_schema"] = json_schema.empty()     ? json(nullptr)
                         : schema.is_discarded() ? json(json_schema)
                                                 : schema;
    out["schema_name"] = schema_name;
    // Only when set: the keys of every earlier request stay as they were.
    if (!structured_mode.empty()) out["structured_mode"] = structured_mode;
    if (!reasoning_effort.empty()) out["reasoning_effort"] = reasoning_effort;
    if (!send_temperature) out["temperature"] = nullptr;
    return out.dump();
}

const char* refused_feature_name(RefusedFeature feature) {
    switch (feature) {
        case RefusedFeature::none:
            return "none";
        case RefusedFeature::forced_tool:
            return "forced tool use";
        case RefusedFeature::json_schema:
            return "JSON-schema output";
        case RefusedFeature::temperature:
            return "temperature";
        case RefusedFeature::top_p:
            return "top_p";
        case RefusedFeature::reasoning_effort:
            return "reasoning effort";
        case RefusedFeature::model:
            return "the model";
    }
    return "?";
}

RefusedFeature ChatProvider::refused_feature(const HttpResponse&) const {
    return RefusedFeature::none;
}

std::string EmbeddingRequest::canonical_json() const {
    json out = json::object();
    out["model"] = model;
    out["inputs"] = inputs;
    out["dimensions"] = dimensions ? json(*dimensions) : json(nullptr);
    out["normalize"] = normalize;
    return out.dump();
}

HttpResponse ChatProvider::respond_locally(const HttpRequest&) const {
    throw Error(code::internal, "provider `" + name() + "` is not local; use the transport");
}

HttpResponse EmbeddingProvider::respond_locally(const HttpRequest&) const {
    throw Error(code::internal, "provider `" + name() + "` is not local; use the transport");
}

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

}  // namespace

ProviderError classify_http_failure(const HttpResponse& response) {
    ProviderError error;
    error.http_status = response.status;
    const long status = response.status;
    if (status == 0) {
        const std::string message = lower(response.transport_error);
        error.code = message.find("timed out") != std::string::npos ||
                             message.find("timeout") != std::string::npos
                         ? code::timeout
                         : code::transport;
        error.retryable = true;
        error.message = response.transport_error.empty() ? "the request failed before any answer"
                                                         : response.transport_error;
    } else if (status < 400) {
        error.code = code::provider_malformed_response;  // 1xx/2xx/3xx here: nothing usable
        error.retryable = true;
    } else {
        // The transport's map and list (core/http_status.hpp): one rule for both.
        error.code = error_code_for_status(status);
        error.retryable = is_transient_status(status);
    }
    error.retry_after_seconds =
        server_requested_wait(response.headers, static_cast<double>(std::time(nullptr)));
    return error;
}

namespace detail {

std::string env_value(const ProviderConfig& config, const std::string& name) {
    if (config.environment) {
        auto found = config.environment->find(name);
        return found == config.environment->end() ? std::string() : found->second;
    }
    const char* value = std::getenv(name.c_str());
    return value ? std::string(value) : std::string();
}

std::string first_set(const ProviderConfig& config, const std::string& explicit_value,
                      const std::vector<std::string>& env_names) {
    if (!explicit_value.empty()) return explicit_value;
    for (const auto& name : env_names) {
        std::string value = env_value(config, name);
        if (!value.empty()) return value;
    }
    return "";
}

void check_options(const ProviderConfig& config, const std::string& provider,
                   const std::vector<std::string>& allowed) {
    for (const auto& [key, value] : config.options) {
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
            std::string list;
            for (const auto& name : allowed)
                list += (list.empty() ? "" : ", ") + ("\"" + name + "\"");
            throw_invalid(code::provider_config, "options",
                          "\"" + key + "\" for provider `" + provider + "`",
                          allowed.empty() ? "empty for this provider" : "one of " + list);
        }
    }
}

std::string option(const ProviderConfig& config, const std::string& key,
                   const std::string& fallback) {
    auto found = config.options.find(key);
    return found == config.options.end() ? fallback : found->second;
}

std::string strip_trailing_slashes(std::string url) {
    while (!url.empty() && url.back() == '/') url.pop_back();
    return url;
}

json parse_schema(const std::string& schema_text) {
    json schema = json::parse(schema_text, nullptr, false);
    if (schema.is_discarded() || !schema.is_object()) {
        throw_invalid(code::invalid_argument, "json_schema", "\"" + abbreviate(schema_text) + "\"",
                      "a JSON Schema object as JSON text");
    }
    return schema;
}

void check_model(const std::string& model, const std::string& provider) {
    if (model.empty()) {
        throw_invalid(code::invalid_argument, "model", "an empty string",
                      "the model name of provider `" + provider + "` (see docs/providers.md)");
    }
}

bool is_success(const HttpResponse& response) {
    return response.status >= 200 && response.status < 300;
}

json parse_body(const std::string& body) { return json::parse(body, nullptr, false); }

std::int64_t int_field(const json& object, const char* key) {
    if (!object.is_object()) return 0;
    auto found = object.find(key);
    if (found == object.end() || !found->is_number()) return 0;
    return found->get<std::int64_t>();
}

ProviderError http_failure(const HttpResponse& response, const std::vector<std::string>& secrets) {
    ProviderError error = classify_http_failure(response);
    if (response.status != 0) {
        const json body = parse_body(response.body);
        std::string message, type;
        if (body.is_object()) {
            // OpenAI / Anthropic / llama-server: {"error": {...}}; Ollama: {"error": "..."};
            // vLLM (older): {"message": ..., "type": ...}; Bedrock: {"message": ...}.
            const json* detail = &body;
            if (body.contains("error") && body["error"].is_object()) detail = &body["error"];
            if (body.contains("error") && body["error"].is_string()) {
                message = body["error"].get<std::string>();
            }
            for (const char* key : {"message", "Message"}) {
                if (message.empty() && detail->contains(key) && (*detail)[key].is_string()) {
                    message = (*detail)[key].get<std::string>();
                }
            }
            if (detail->contains("type") && (*detail)["type"].is_string()) {
                type = (*detail)["type"].get<std::string>();
            } else if (detail->contains("code") && (*detail)["code"].is_string()) {
                type = (*detail)["code"].get<std::string>();
            }
        }
        if (type.empty()) {
            auto amazon = response.headers.find("x-amzn-errortype");
            if (amazon != response.headers.end())
                type = amazon->second.substr(0, amazon->second.find(':'));
        }
        if (message.empty()) {
            message = response.body.empty()
                          ? "HTTP " + std::to_string(response.status) + " with an empty body"
                          : abbreviate(response.body, 300);
        }
        error.message = "HTTP " + std::to_string(response.status) +
                        (type.empty() ? "" : " " + type) + ": " + message;
        error.provider_type = type;
    }
    error.message = redact(error.message, secrets);
    return error;
}

ProviderError malformed_response(const HttpResponse& response, const std::string& what,
                                 const std::vector<std::string>& secrets) {
    ProviderError error;
    error.code = code::provider_malformed_response;
    error.http_status = response.status;
    error.retryable = true;  // truncated or garbled bodies are usually a passing fault
    error.message = redact("HTTP " + std::to_string(response.status) + " answer " + what +
                               "; body starts: " + abbreviate(response.body, 200),
                           secrets);
    return error;
}

std::string describe(const std::string& name,
                     const std::vector<std::pair<std::string, std::string>>& facts) {
    std::string out = name + " (";
    bool first = true;
    for (const auto& [key, value] : facts) {
        if (value.empty()) continue;
        out += (first ? "" : ", ") + key + " " + text::without_url_credentials(value);
        first = false;
    }
    return out + ")";
}

}  // namespace detail
}  // namespace llmv
