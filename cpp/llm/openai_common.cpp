#include "llm/openai_common.hpp"

#include <algorithm>
#include <cctype>

#include "llm/provider_util.hpp"
#include "llmvalidate/error.hpp"

namespace llmv::detail {

namespace {
const char* default_openai_base = "https://api.openai.com/v1";
const char* default_azure_api_version = "2024-10-21";
}  // namespace

bool is_openai_host(const std::string& base_url) {
    std::string url;
    for (char c : base_url) url += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string scheme = "https://";
    if (url.rfind(scheme, 0) != 0) return false;
    std::string host = url.substr(scheme.size(), url.find_first_of("/?#", scheme.size()) - scheme.size());
    if (host.find('@') != std::string::npos) return false;  // user@host: not a plain OpenAI URL
    if (host.size() > 4 && host.compare(host.size() - 4, 4, ":443") == 0) host.resize(host.size() - 4);
    const std::string domain = "openai.com";
    if (host == domain) return true;
    return host.size() > domain.size() + 1 &&
           host.compare(host.size() - domain.size() - 1, domain.size() + 1, "." + domain) == 0;
}

OpenAIEndpoint::OpenAIEndpoint(const ProviderConfig& config, const std::string& provider)
    : connect_timeout_ms_(config.connect_timeout_ms), total_timeout_ms_(config.total_timeout_ms) {
    const std::string flavor = option(config, "flavor", "openai");
    if (flavor != "openai" && flavor != "azure") {
        throw_invalid(code::provider_config, "options$flavor", "\"" + flavor + "\"",
                      "\"openai\" (any OpenAI-compatible server) or \"azure\"");
    }
    azure_ = flavor == "azure";
    std::string key_env =
        option(config, "api_key_env", azure_ ? "AZURE_OPENAI_API_KEY" : "OPENAI_API_KEY");
    if (!azure_) {
        base_url_ = strip_trailing_slashes(first_set(config, config.base_url, {"OPENAI_BASE_URL"}));
        if (base_url_.empty()) base_url_ = default_openai_base;
        // OpenAI's key goes to OpenAI's hosts only. Another server gets a key only when the
        // user names one for it: `api_key`, the variable option api_key_env names, or
        // config.server_key_env (LLMV_API_KEY).
        if (!is_openai_host(base_url_) && !config.options.count("api_key_env"))
            key_env = config.server_key_env;
    }
    api_key_ = first_set(config, config.api_key, {key_env});
    key_source_ = !config.api_key.empty() ? "argument" : (api_key_.empty() ? "" : "$" + key_env);
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
            throw Error(code::provider_config, "provider `" + provider +
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
        if (!organization_.empty()) request.headers.emplace_back("OpenAI-Organization", organization_);
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
    request.headers.erase(std::remove_if(request.headers.begin(), request.headers.end(),
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
