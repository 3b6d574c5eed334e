// OpenAI's spec (provider_spec.hpp): the chat and embedding providers of the OpenAI API and of
// every server that speaks it (a base URL of one's own: vLLM, llama-server, Ollama's /v1,
// OpenRouter; Azure with flavor azure), its defaults, keys and batch API.
#include "llm/provider_spec.hpp"

namespace llmv {

std::unique_ptr<ChatProvider> make_openai_chat_provider(const ProviderConfig&);
std::unique_ptr<EmbeddingProvider> make_openai_embedding_provider(const ProviderConfig&);

// OPENAI_API_KEY goes to https URLs of openai.com and its subdomains only.
const std::vector<std::string>& openai_key_domains() {
    static const std::vector<std::string> domains = {"openai.com"};
    return domains;
}

std::vector<ProviderSpec> openai_provider_specs() {
    ProviderSpec chat;
    chat.defaults = {
        "chat",
        "openai",
        "gpt-6-luna",
        "openai",
        "OPENAI_API_KEY (AZURE_OPENAI_API_KEY with flavor azure); none for a local server",
        "2026-12-07",
        "OpenAI model page gpt-6-luna (released 2026-09-22, no shutdown date) and deprecations "
        "page (the replacement of gpt-4.1-mini, which shuts down on 2027-01-14); npm openai "
        "7.60.0 ChatModel list",
        {"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "LLMV_API_KEY"},
        2,
        {"OPENAI_API_KEY"},
        "OPENAI_API_KEY"};
    chat.defaults.serves_own_base_url = true;
    chat.defaults.vendor_host = "api.openai.com";
    chat.defaults.key_domains = openai_key_domains();
    chat.defaults.list_vendor = "openai";
    chat.defaults.list_host = "api.openai.com";
    chat.make_chat = make_openai_chat_provider;
    chat.batch_api = openai_batch_api_for;  // chat completions; none for Azure's deployments
    chat.model_list = vendor_model_list("openai");  // GET /v1/models

    ProviderSpec embedding;
    embedding.defaults = {
        "embedding",
        "openai",
        "text-embedding-3-small",
        "",
        "OPENAI_API_KEY",
        "2026-12-04",
        "npm openai EmbeddingModel list; OpenAI deprecations page (not listed)",
        {"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "LLMV_EMBEDDING_API_KEY", "LLMV_API_KEY"}};
    embedding.defaults.serves_own_base_url = true;
    embedding.defaults.vendor_host = "api.openai.com";
    embedding.defaults.key_domains = openai_key_domains();
    embedding.defaults.list_vendor = "openai";
    embedding.defaults.list_host = "api.openai.com";
    // The embedder of a chat vendor without embeddings, when OpenAI's key is there.
    embedding.defaults.fallback_variable = "OPENAI_API_KEY";
    embedding.make_embedding = make_openai_embedding_provider;
    embedding.batch_api = openai_batch_api_for;  // /v1/embeddings batches
    return {chat, embedding};
}

}  // namespace llmv
