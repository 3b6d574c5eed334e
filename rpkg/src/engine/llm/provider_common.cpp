// What every provider shares: request helpers, failure classification, retry hints.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

#include "llm/provider_util.hpp"
#include "core/text.hpp"
#include "llmvalidate/error.hpp"
#include "llm/provider.hpp"

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
    return out.dump();
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

using text::trim;

// Days since 1970-01-01 of a proleptic Gregorian date (no time zone library needed).
long long days_from_civil(long long year, unsigned month, unsigned day) {
    year -= month <= 2;
    const long long era = (year >= 0 ? year : year - 399) / 400;
    const unsigned year_of_era = static_cast<unsigned>(year - era * 400);
    const unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const unsigned day_of_era =
        year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + static_cast<long long>(day_of_era) - 719468;
}

// "Sun, 06 Nov 1994 08:49:37 GMT" (IMF-fixdate, the form RFC 9110 requires senders to use).
std::optional<double> parse_http_date(const std::string& text) {
    static const char* months[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                   "jul", "aug", "sep", "oct", "nov", "dec"};
    char weekday[8] = {0}, month_name[8] = {0}, zone[8] = {0};
    int day = 0, year = 0, hour = 0, minute = 0, second = 0;
    if (std::sscanf(text.c_str(), "%3s, %d %3s %d %d:%d:%d %3s", weekday, &day, month_name, &year,
                    &hour, &minute, &second, zone) != 8) {
        return std::nullopt;
    }
    const std::string month_lower = lower(month_name);
    int month = 0;
    for (int i = 0; i < 12; ++i) {
        if (month_lower == months[i]) month = i + 1;
    }
    if (month == 0 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
        return std::nullopt;
    }
    const long long days =
        days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    return static_cast<double>(days * 86400 + hour * 3600 + minute * 60 + second);
}

// "2026-01-01T00:00:30Z" (Anthropic's rate-limit reset headers); fractional seconds allowed.
std::optional<double> parse_rfc3339(const std::string& text) {
    int year = 0, month = 0, day = 0, hour = 0, minute = 0;
    double second = 0;
    if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%lf", &year, &month, &day, &hour, &minute,
                    &second) != 6) {
        return std::nullopt;
    }
    double offset = 0;
    auto zone_at = text.find_first_of("Z+-", 19);
    if (zone_at != std::string::npos && text[zone_at] != 'Z') {
        int zone_hours = 0, zone_minutes = 0;
        if (std::sscanf(text.c_str() + zone_at + 1, "%d:%d", &zone_hours, &zone_minutes) == 2) {
            offset = (zone_hours * 3600.0 + zone_minutes * 60.0) * (text[zone_at] == '-' ? -1 : 1);
        }
    }
    const long long days =
        days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    return static_cast<double>(days * 86400 + hour * 3600 + minute * 60) + second - offset;
}

// OpenAI's x-ratelimit-reset-*: "1s", "6m0s", "20ms", "1h2m3.5s".
std::optional<double> parse_duration(const std::string& text) {
    double total = 0;
    std::size_t at = 0;
    bool any = false;
    while (at < text.size()) {
        char* end = nullptr;
        const double value = std::strtod(text.c_str() + at, &end);
        const std::size_t number_end = static_cast<std::size_t>(end - text.c_str());
        if (number_end == at) return std::nullopt;
        at = number_end;
        if (text.compare(at, 2, "ms") == 0) {
            total += value / 1000.0;
            at += 2;
        } else if (at < text.size() && text[at] == 's') {
            total += value;
            ++at;
        } else if (at < text.size() && text[at] == 'm') {
            total += value * 60.0;
            ++at;
        } else if (at < text.size() && text[at] == 'h') {
            total += value * 3600.0;
            ++at;
        } else {
            return std::nullopt;
        }
        any = true;
    }
    if (!any) return std::nullopt;
    return total;
}

const std::string* header(const std::map<std::string, std::string>& headers,
                          const std::string& name) {
    auto found = headers.find(name);
    return found == headers.end() ? nullptr : &found->second;
}

}  // namespace

std::optional<double> retry_after_from_headers(const std::map<std::string, std::string>& headers,
                                               double now_unix) {
    if (auto value = header(headers, "retry-after-ms")) {
        char* end = nullptr;
        const double ms = std::strtod(value->c_str(), &end);
        if (end != value->c_str() && ms >= 0) return ms / 1000.0;
    }
    if (auto value = header(headers, "retry-after")) {
        const std::string text = trim(*value);
        char* end = nullptr;
        const double seconds = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size() && seconds >= 0) return seconds;
        if (auto date = parse_http_date(text)) return std::max(0.0, *date - now_unix);
    }
    // Rate-limit headers: the reset time of every limit that is used up.
    std::optional<double> wait;
    auto consider = [&wait](std::optional<double> seconds) {
        if (seconds && *seconds >= 0) wait = std::max(wait.value_or(0.0), *seconds);
    };
    for (const char* kind : {"requests", "tokens", "input-tokens", "output-tokens"}) {
        const std::string suffix = kind;
        auto remaining = header(headers, "anthropic-ratelimit-" + suffix + "-remaining");
        auto reset = header(headers, "anthropic-ratelimit-" + suffix + "-reset");
        if (remaining && reset && trim(*remaining) == "0") {
            if (auto at = parse_rfc3339(trim(*reset))) consider(*at - now_unix);
        }
        auto openai_remaining = header(headers, "x-ratelimit-remaining-" + suffix);
        auto openai_reset = header(headers, "x-ratelimit-reset-" + suffix);
        if (openai_remaining && openai_reset && trim(*openai_remaining) == "0") {
            consider(parse_duration(trim(*openai_reset)));
        }
    }
    return wait;
}

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
    } else if (status == 429) {
        error.code = code::provider_rate_limited;
        error.retryable = true;
    } else if (status == 401 || status == 403) {
        error.code = code::provider_auth;
    } else if (status == 404) {
        error.code = code::provider_not_found;
    } else if (status == 408) {
        error.code = code::provider_server;  // the server gave up waiting: worth another try
        error.retryable = true;
    } else if (status >= 500) {  // includes 529 (Anthropic: overloaded)
        error.code = code::provider_server;
        // The transport's RetryPolicy::retry_statuses: 501, 505, ... are not transient.
        error.retryable = status == 500 || status == 502 || status == 503 || status == 504 || status == 529;
    } else if (status >= 400) {
        error.code = code::provider_bad_request;
    } else {
        error.code = code::provider_malformed_response;  // 1xx/3xx: nothing usable
        error.retryable = true;
    }
    error.retry_after_seconds =
        retry_after_from_headers(response.headers, static_cast<double>(std::time(nullptr)));
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

std::string percent_encode(const std::string& text) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
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
        out += (first ? "" : ", ") + key + " " + value;
        first = false;
    }
    return out + ")";
}

}  // namespace detail
}  // namespace llmv
