// Which key a provider sends to the server at its base URL (provider_util.hpp): a vendor's own
// key goes only to the hosts its spec declares (openai_spec.cpp, anthropic_spec.cpp); any other
// server gets a key only when one is named for it (docs/providers.md, "Keys").
#include <cctype>

#include "llm/provider_util.hpp"

namespace llmv::detail {

bool is_vendor_url(const std::string& url, const std::vector<std::string>& domains) {
    std::string lower;
    for (char c : url) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string scheme = "https://";
    if (lower.rfind(scheme, 0) != 0) return false;
    std::string host =
        lower.substr(scheme.size(), lower.find_first_of("/?#", scheme.size()) - scheme.size());
    if (host.find('@') != std::string::npos) return false;  // user@host: not a plain vendor URL
    if (host.size() > 4 && host.compare(host.size() - 4, 4, ":443") == 0)
        host.resize(host.size() - 4);
    for (const std::string& domain : domains) {
        if (host == domain) return true;
        if (host.size() > domain.size() + 1 &&
            host.compare(host.size() - domain.size() - 1, domain.size() + 1, "." + domain) == 0)
            return true;
    }
    return false;
}

ChosenKey key_for_server(const ProviderConfig& config, const std::string& base_url,
                         const std::vector<std::string>& vendor_domains,
                         const std::string& vendor_variable) {
    ChosenKey chosen;
    if (!config.api_key.empty()) {
        chosen.value = config.api_key;
        chosen.source = "argument";
        return chosen;
    }
    const auto named = config.options.find("api_key_env");
    if (named != config.options.end() && !named->second.empty())
        chosen.variable = named->second;
    else if (is_vendor_url(base_url, vendor_domains))
        chosen.variable = vendor_variable;
    else
        chosen.variable = config.server_key_env;  // LLMV_API_KEY, or LLMV_EMBEDDING_API_KEY
    chosen.value = env_value(config, chosen.variable);
    if (!chosen.value.empty()) chosen.source = "$" + chosen.variable;
    return chosen;
}

}  // namespace llmv::detail
