// Helpers shared by the provider files (internal to cpp/llm/).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llm/provider.hpp"

namespace llmv::detail {

// The configured environment (tests) or the process environment; "" when unset.
std::string env_value(const ProviderConfig& config, const std::string& name);
// The first non-empty of: explicit, then each environment variable in turn.
std::string first_set(const ProviderConfig& config, const std::string& explicit_value,
                      const std::vector<std::string>& env_names);
// Rejects option keys a provider does not know (names the key and the allowed ones).
void check_options(const ProviderConfig& config, const std::string& provider,
                   const std::vector<std::string>& allowed);
std::string option(const ProviderConfig& config, const std::string& key,
                   const std::string& fallback);
std::string strip_trailing_slashes(std::string url);
// True for https URLs whose host is one of `domains` or a subdomain of one, with no user part:
// the hosts a vendor's own key goes to, as the vendor's spec declares them (vendor_keys.cpp).
bool is_vendor_url(const std::string& url, const std::vector<std::string>& domains);
// The key sent to the server at `base_url`: `api_key` when given; else the variable option
// api_key_env names; else, at the vendor's own hosts, `vendor_variable`; else
// config.server_key_env (LLMV_API_KEY). A vendor's key never reaches another server.
struct ChosenKey {
    std::string value;     // empty: none (no credential header is sent)
    std::string source;    // "argument", "$VARIABLE", or "" when none
    std::string variable;  // the variable read ("" for an explicit key)
};
ChosenKey key_for_server(const ProviderConfig& config, const std::string& base_url,
                         const std::vector<std::string>& vendor_domains,
                         const std::string& vendor_variable);
// Parses the JSON Schema text of a request; throws invalid_argument naming `json_schema`.
nlohmann::json parse_schema(const std::string& schema_text);
void check_model(const std::string& model, const std::string& provider);
// Fills code/retryable/retry hint from the status, then message and provider_type from an
// error body in any of the shapes the providers use, redacted with `secrets`.
ProviderError http_failure(const HttpResponse& response, const std::vector<std::string>& secrets);
// A 2xx whose body is not the expected JSON.
ProviderError malformed_response(const HttpResponse& response, const std::string& what,
                                 const std::vector<std::string>& secrets);
bool is_success(const HttpResponse& response);
// Parses a body; nullopt-like discarded value on failure.
nlohmann::json parse_body(const std::string& body);
std::int64_t int_field(const nlohmann::json& object, const char* key);
// "openai (base https://api.openai.com/v1, auth bearer)"
std::string describe(const std::string& name,
                     const std::vector<std::pair<std::string, std::string>>& facts);

}  // namespace llmv::detail
