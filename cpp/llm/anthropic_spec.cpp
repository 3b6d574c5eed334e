// Anthropic's spec (provider_spec.hpp): the Messages API chat provider, its defaults, key and
// Message Batches. No embeddings.
#include "llm/provider_spec.hpp"

namespace llmv {

std::unique_ptr<ChatProvider> make_anthropic_chat_provider(const ProviderConfig&);

// ANTHROPIC_API_KEY goes to https URLs of anthropic.com and its subdomains only
// (api.anthropic.com); a server at another base URL (ANTHROPIC_BASE_URL, --base-url) gets the
// key named for it (key_for_server(), provider_util.hpp).
const std::vector<std::string>& anthropic_key_domains() {
    static const std::vector<std::string> domains = {"anthropic.com"};
    return domains;
}

std::vector<ProviderSpec> anthropic_provider_specs() {
    ProviderSpec chat;
    chat.defaults = {"chat",
                     "anthropic",
                     "claude-haiku-5-5",
                     "",
                     "ANTHROPIC_API_KEY",
                     "2026-12-07",
                     "Anthropic model deprecations page, model status table (active; not retired "
                     "before 2027-10-07); npm @anthropic-ai/sdk 1.17.0 Model list, not in its "
                     "deprecated-models table",
                     {"ANTHROPIC_API_KEY", "LLMV_API_KEY"},
                     1,
                     {"ANTHROPIC_API_KEY"},
                     "ANTHROPIC_API_KEY"};
    chat.defaults.list_vendor = "anthropic";
    chat.defaults.list_host = "api.anthropic.com";
    chat.defaults.key_domains = anthropic_key_domains();
    chat.make_chat = make_anthropic_chat_provider;
    chat.batch_api = anthropic_batch_api_for;
    chat.model_list = vendor_model_list("anthropic");  // GET /v1/models, paged
    return {chat};
}

}  // namespace llmv
