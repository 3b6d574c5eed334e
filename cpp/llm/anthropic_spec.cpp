// Anthropic's spec (provider_spec.hpp): the Messages API chat provider, its defaults, key and
// Message Batches. No embeddings.
#include "llm/provider_spec.hpp"

namespace llmv {

std::unique_ptr<ChatProvider> make_anthropic_chat_provider(const ProviderConfig&);

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
                     {"ANTHROPIC_API_KEY"},
                     1,
                     {"ANTHROPIC_API_KEY"},
                     "ANTHROPIC_API_KEY"};
    chat.defaults.list_vendor = "anthropic";
    chat.defaults.list_host = "api.anthropic.com";
    chat.make_chat = make_anthropic_chat_provider;
    chat.batch_api = anthropic_batch_api_for;
    chat.model_list = vendor_model_list("anthropic");  // GET /v1/models, paged
    return {chat};
}

}  // namespace llmv
