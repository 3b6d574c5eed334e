// The one provider registry: one line per built-in provider. Run-time additions (the
// `simulated` provider of the pipeline, test doubles) go through register_*_provider().
#include <algorithm>
#include <mutex>

#include "llmvalidate/error.hpp"
#include "llm/provider.hpp"

namespace llmv {

std::unique_ptr<ChatProvider> make_openai_chat_provider(const ProviderConfig&);
std::unique_ptr<ChatProvider> make_anthropic_chat_provider(const ProviderConfig&);
std::unique_ptr<ChatProvider> make_bedrock_chat_provider(const ProviderConfig&);
std::unique_ptr<EmbeddingProvider> make_openai_embedding_provider(const ProviderConfig&);
std::unique_ptr<EmbeddingProvider> make_bedrock_titan_embedding_provider(const ProviderConfig&);
std::unique_ptr<EmbeddingProvider> make_ollama_embedding_provider(const ProviderConfig&);

namespace {

struct Registry {
    std::mutex mutex;
    std::vector<std::pair<std::string, ChatProviderFactory>> chat = {
        {"openai", make_openai_chat_provider},
        {"anthropic", make_anthropic_chat_provider},
        {"bedrock", make_bedrock_chat_provider},
        // "simulated": registered at run time by the pipeline (register_chat_provider).
    };
    std::vector<std::pair<std::string, EmbeddingProviderFactory>> embedding = {
        {"openai", make_openai_embedding_provider},
        {"bedrock-titan", make_bedrock_titan_embedding_provider},
        {"ollama", make_ollama_embedding_provider},
        // "simulated": registered at run time by the pipeline (register_embedding_provider).
    };
};

Registry& registry() {
    static Registry instance;
    return instance;
}

template <typename Factory>
Factory find(std::vector<std::pair<std::string, Factory>>& table, const std::string& name,
             const char* kind) {
    for (const auto& [known, factory] : table) {
        if (known == name) return factory;
    }
    std::string names;
    for (const auto& entry : table)
        names += (names.empty() ? "" : ", ") + ("\"" + entry.first + "\"");
    throw_invalid(code::invalid_argument, "provider", "\"" + name + "\"",
                  std::string("one of the ") + kind + " providers " + names);
}

template <typename Factory>
void put(std::vector<std::pair<std::string, Factory>>& table, const std::string& name,
         Factory factory) {
    for (auto& entry : table) {
        if (entry.first == name) {
            entry.second = std::move(factory);
            return;
        }
    }
    table.emplace_back(name, std::move(factory));
}

}  // namespace

std::unique_ptr<ChatProvider> make_chat_provider(const std::string& name,
                                                 const ProviderConfig& config) {
    ChatProviderFactory factory;
    {
        std::lock_guard<std::mutex> lock(registry().mutex);
        factory = find(registry().chat, name, "chat");
    }
    return factory(config);
}

std::unique_ptr<EmbeddingProvider> make_embedding_provider(const std::string& name,
                                                           const ProviderConfig& config) {
    EmbeddingProviderFactory factory;
    {
        std::lock_guard<std::mutex> lock(registry().mutex);
        factory = find(registry().embedding, name, "embedding");
    }
    return factory(config);
}

std::vector<std::string> chat_provider_names() {
    std::lock_guard<std::mutex> lock(registry().mutex);
    std::vector<std::string> names;
    for (const auto& entry : registry().chat) names.push_back(entry.first);
    return names;
}

std::vector<std::string> embedding_provider_names() {
    std::lock_guard<std::mutex> lock(registry().mutex);
    std::vector<std::string> names;
    for (const auto& entry : registry().embedding) names.push_back(entry.first);
    return names;
}

void register_chat_provider(const std::string& name, ChatProviderFactory factory) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    put(registry().chat, name, std::move(factory));
}

void register_embedding_provider(const std::string& name, EmbeddingProviderFactory factory) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    put(registry().embedding, name, std::move(factory));
}

}  // namespace llmv
