// open_providers() (providers.hpp): the one place where the run and the dry run turn a
// resolution into provider objects.
#include "pipeline/providers.hpp"

#include "pipeline/model_lifecycle_check.hpp"

namespace llmv::pipeline {

RunProviders open_providers(const ValidationConfig& config, ResolvedProviders resolved,
                            const std::vector<std::string>& labels,
                            const std::string& placeholder_key) {
    RunProviders providers;
    if (placeholder_key.empty())
        providers.warnings = check_model_lifecycles(config, resolved, /*may_fetch=*/true);
    if (resolved.synthetic_chat) {
        providers.simulated = std::make_unique<SimulatedModel>(config.simulated, labels);
        resolved.chat_model = simulated_model_name;
        providers.chat_endpoint = "simulated://dgp";
    } else {
        ProviderConfig chat_config = resolved.chat;
        if (!placeholder_key.empty() && chat_config.api_key.empty()) chat_config.api_key = placeholder_key;
        providers.chat = make_chat_provider(resolved.chat_provider, chat_config);
        providers.chat_endpoint = providers.chat->endpoint_identity();
    }
    if (!resolved.local_embedding) {
        ProviderConfig embedding_config = resolved.embedding;
        if (!placeholder_key.empty() && embedding_config.api_key.empty())
            embedding_config.api_key = placeholder_key;
        providers.embedder = make_embedding_provider(resolved.embedding_provider, embedding_config);
        providers.embedding_endpoint = providers.embedder->endpoint_identity();
    }
    providers.resolved = std::move(resolved);
    return providers;
}

}  // namespace llmv::pipeline
