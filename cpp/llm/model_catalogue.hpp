// A vendor's own list of models, from its API: OpenAI and Anthropic GET /v1/models, Bedrock
// ListFoundationModels (GET /foundation-models) and ListInferenceProfiles (GET
// /inference-profiles). Like the providers, this builds requests and reads answers; the
// pipeline sends them (list_models in llmvalidate/models.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "llm/provider.hpp"

namespace llmv {

struct CatalogueModel {
    std::string id;
    std::string name;    // the vendor's display name, when it gives one
    std::string kind;    // "model", or "inference profile" (Bedrock)
    std::string status;  // the vendor's lifecycle word ("ACTIVE", "LEGACY"), when it gives one
};

// The vendors with a model list, in the order the help names them.
const std::vector<std::string>& catalogue_vendors();

class ModelCatalogue {
  public:
    // provider: "openai", "anthropic" or "bedrock" (also "bedrock-titan"); throws
    // invalid_argument for another name, provider_config for missing credentials.
    ModelCatalogue(const std::string& provider, const ProviderConfig& config);
    // The first request of each list (Bedrock: models, then inference profiles).
    std::vector<HttpRequest> requests() const;
    // Adds the models of one answer; returns the request of the next page, if any. Throws
    // llmv::Error with the vendor's message for a failed answer.
    std::optional<HttpRequest> read(const HttpRequest& request, const HttpResponse& response,
                                    std::vector<CatalogueModel>& into) const;

  private:
    std::string provider_;
    ProviderConfig config_;
};

}  // namespace llmv
