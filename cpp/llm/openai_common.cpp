#include "llm/openai_common.hpp"

#include <algorithm>
#include <cctype>

#include "llm/provider_spec.hpp"
#include "llm/provider_util.hpp"
#include "llmvalidate/error.hpp"

namespace llmv::detail {

namespace {
const char* default_openai_base = "https://api.openai.com/v1";
const char* default_azure_api_version = "2024-10-21";
}  // namespace

bool is_openai_host(const std::string& base_url) {
    return is_vendor_url(base_url, openai_key_domains());
}

OpenAIEndpoint::OpenAIEndpoint(const ProviderConfig& config, const std::string& provider)
    : connect_timeout_ms_(config.connect_timeout_ms), total_timeout_ms_(config.total_timeout_ms) {
    const std::string flavor = option(config, "flavor", "openai");
    if (flavor != "openai" && flavor != "azure") {
        throw_invalid(code::provider_config, "options$flavor", "\"" + flavor + "\"",
                      "\"openai\" (any OpenAI-compatible server) or \"azure\"");
    }
    azure_ = flavor == "azure";
    std::string key_env = option(config, "api_key_env", "AZURE_OPENAI_API_KEY");
    if (!azure_) {
        base_url_ = strip_trailing_slashes(first_set(config, config.base_url, {"OPENAI_BASE_URL"}));
        if (base_url_.empty()) base_url_ = default_openai_base;
        // OpenAI's key goes to OpenAI's hosts only. Another server gets a key only when the
        // user names one for it: `api_key`, the variable option api_key_env names, or
        // config.server_key_env (LLMV_API_KEY).
        const ChosenKey chosen =
            key_for_server(config, base_url_, openai_key_domains(), "OPENAI_API_KEY");
        api_key_ = chosen.value;
        key_source_ = chosen.source;
        if (!chosen.variable.empty()) key_env = chosen.variable;
    } else {
        api_key_ = first_set(config, config.api_key, {key_env});
        key_source_ =
            !config.api_key.empty() ? "argument" : (api_key_.empty() ? "" : "$" + key_env);
    }
    if (azure_) {
        base_url_ =
            strip_trailing_slashes(first_set(config, config.base_url, {"AZURE_OPENAI_ENDPOINT"}));
        api_version_ =
            first_set(config, option(config, "api_version", ""), {"AZURE_OPENAI_API_VERSION"});
        if (api_version_.empty()) api_version_ = default_azure_api_version;
        if (base_url_.empty()) {
            throw Error(
                code::provider_config,
                "provider `" + provider +
                    "` with flavor \"azure\" needs a base URL: set "
                    "`base_url` or AZURE_OPENAI_ENDPOINT (https://<resource>.openai.azure.com)",
                {"base_url"});
        }
        if (api_key_.empty()) {
            throw Error(code::provider_config,
                        "provider `" + provider +
                            "` with flavor \"azure\" needs an "
                            "API key: set `api_key` or " +
                            key_env,
                        {"api_key"});
        }
    } else {
        // Local servers (Ollama, vLLM, llama-server) need no key; OpenAI itself does.
        if (api_key_.empty() && base_url_ == default_openai_base) {
            throw Error(code::provider_config,
                        "provider `" + provider + "` at " + base_url_ +
                            " needs an API key: set `api_key` or " + key_env +
                            " (or set `base_url` to a local server that needs none)",
                        {"api_key", "base_url"});
        }
    }
    if (!api_key_.empty()) secrets_.push_back(api_key_);
    if (!azure_) {
        organization_ = env_value(config, "OPENAI_ORG_ID");
        project_ = env_value(config, "OPENAI_PROJECT_ID");
    }
}

HttpRequest OpenAIEndpoint::request(const std::string& path, const std::string& model,
                                    std::string body) const {
    HttpRequest request;
    request.method = "POST";
    if (azure_) {
        request.url = base_url_ + "/openai/deployments/" + percent_encode(model) + "/" + path +
                      "?api-version=" + percent_encode(api_version_);
        request.headers.emplace_back("api-key", api_key_);
    } else {
        request.url = base_url_ + "/" + path;
        if (!api_key_.empty()) request.headers.emplace_back("Authorization", "Bearer " + api_key_);
        if (!organization_.empty())
            request.headers.emplace_back("OpenAI-Organization", organization_);
        if (!project_.empty()) request.headers.emplace_back("OpenAI-Project", project_);
    }
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = std::move(body);
    request.secrets = secrets_;
    request.connect_timeout_ms = connect_timeout_ms_;
    request.total_timeout_ms = total_timeout_ms_;
    return request;
}

HttpRequest OpenAIEndpoint::get(const std::string& path) const {
    HttpRequest request = this->request(path, "", "");
    request.method = "GET";
    request.headers.erase(
        std::remove_if(request.headers.begin(), request.headers.end(),
                       [](const auto& header) { return header.first == "Content-Type"; }),
        request.headers.end());
    return request;
}

std::string OpenAIEndpoint::describe(const std::string& provider) const {
    return detail::describe(provider,
                            {{"flavor", azure_ ? "azure" : "openai-compatible"},
                             {"base", base_url_},
                             {"api-version", api_version_},
                             {"key", key_source_.empty() ? "none" : "from " + key_source_}});
}

std::string OpenAIEndpoint::identity() const {
    return base_url_ + (azure_ ? " azure " + api_version_ : "");
}

}  // namespace llmv::detail
