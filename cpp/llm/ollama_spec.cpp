// Ollama's spec (provider_spec.hpp): the embeddings of a local Ollama server (its native
// /api/embed), free of charge. Its chat goes through the OpenAI-compatible provider at a base URL.
#include "llm/provider_spec.hpp"

namespace llmv {

std::unique_ptr<EmbeddingProvider> make_ollama_embedding_provider(const ProviderConfig&);

std::vector<ProviderSpec> ollama_provider_specs() {
    ProviderSpec embedding;
    embedding.defaults = {"embedding",
                          "ollama",
                          "nomic-embed-text",
                          "",
                          "none",
                          "",
                          "a local server: any pulled model",
                          {"LLMV_EMBEDDING_API_KEY"}};
    embedding.defaults.free_local = true;
    embedding.make_embedding = make_ollama_embedding_provider;
    return {embedding};
}

}  // namespace llmv
