// A provider's spec: everything the engine knows about one vendor's provider, declared once in
// the vendor's own file in cpp/llm/ (openai_spec.cpp, anthropic_spec.cpp, bedrock_spec.cpp,
// ollama_spec.cpp) and listed by one line in cpp/llm/registry.cpp. The pipeline, core and the
// transport read specs, never a vendor's name: its defaults row (models dated with their
// sources, key variables, `auto` order, flags) is a row of provider_defaults()
// (llmvalidate/resolution.hpp), its factory builds the provider, and its capabilities (the batch
// API its endpoint offers; the signer and the model list live in the provider it builds) are
// chosen through it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "llm/model_catalogue.hpp"  // CatalogueModel
#include "llm/provider.hpp"
#include "llm/provider_batch.hpp"
#include "llmvalidate/provider_defaults.hpp"

namespace llmv {

// The batch API the endpoint of one of the provider's synchronous requests offers; null: none
// there (an Azure deployment of an OpenAI-compatible provider, say).
using BatchApiChooser =
    std::function<std::shared_ptr<const BatchApi>(const HttpRequest& synchronous)>;

// The vendor's own list of its models, read from its API: the first requests, and a reader of
// each answer that returns the request of the next page (model_catalogue.hpp's shape). The
// pipeline sends them (list_models, llmvalidate/models.hpp).
class ModelLister {
  public:
    virtual ~ModelLister() = default;
    virtual std::vector<HttpRequest> requests() const = 0;
    virtual std::optional<HttpRequest> read(const HttpRequest& request,
                                            const HttpResponse& response,
                                            std::vector<CatalogueModel>& into) const = 0;
};
// Throws llmv::Error (provider_config) for missing credentials, before anything is sent.
using ModelListerFactory = std::function<std::unique_ptr<ModelLister>(const ProviderConfig&)>;
// The model list of a vendor that model_catalogue.cpp reads ("openai", "anthropic", "bedrock").
ModelListerFactory vendor_model_list(const std::string& vendor);

struct ProviderSpec {
    // defaults.kind ("chat" or "embedding") and defaults.provider (the registry name) name it;
    // the rest is its row of provider_defaults(). A spec registered with a factory alone
    // (register_chat_provider) has no row: `listed` is false.
    pipeline::ProviderDefaults defaults;
    bool listed = true;
    ChatProviderFactory make_chat;            // kind "chat"
    EmbeddingProviderFactory make_embedding;  // kind "embedding"
    BatchApiChooser batch_api;                // unset: no batch API
    ModelListerFactory model_list;            // unset: no model list
};

// The hosts each vendor's own key goes to (ProviderDefaults::key_domains), declared in the
// vendor's spec file and read by its providers when they choose a key (key_for_server(),
// provider_util.hpp).
const std::vector<std::string>& openai_key_domains();
const std::vector<std::string>& anthropic_key_domains();
const std::vector<std::string>& bedrock_key_domains();

// The vendors' files: each returns its specs, chat and embedding.
std::vector<ProviderSpec> openai_provider_specs();
std::vector<ProviderSpec> anthropic_provider_specs();
std::vector<ProviderSpec> bedrock_provider_specs();
std::vector<ProviderSpec> ollama_provider_specs();

// The registry (thread-safe): the built-in specs in registry.cpp's order, then those added at
// run time. Adding a spec of a kind and name already there replaces it.
std::vector<ProviderSpec> provider_specs();
std::optional<ProviderSpec> find_provider_spec(const std::string& kind, const std::string& name);
void register_provider_spec(ProviderSpec spec);
// Takes a spec out of the registry (a provider of a test; a built-in one stays out until exit).
void remove_provider_spec(const std::string& kind, const std::string& name);
// Sets the row of a spec (adding a spec without a factory when there is none), or takes it off
// the table; register_provider_defaults() and remove_provider_defaults() of resolution.hpp.
void set_provider_row(const pipeline::ProviderDefaults& row);
void unlist_provider_row(const std::string& kind, const std::string& name);
// Changes whenever the registry does (the pipeline rebuilds its table then).
std::uint64_t provider_specs_version();

// The batch API of the provider `kind`/`name` for its synchronous request `synchronous`; null:
// none.
std::shared_ptr<const BatchApi> batch_api_of(const std::string& kind, const std::string& name,
                                             const HttpRequest& synchronous);

// The model list of provider `name` (of either kind; the chat spec's first). Throws
// llmv::Error(invalid_argument) naming the providers that have one.
std::unique_ptr<ModelLister> model_lister_of(const std::string& name, const ProviderConfig& config);

}  // namespace llmv
