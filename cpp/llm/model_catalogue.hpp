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
    // The vendor's own lifecycle dates (YYYY-MM-DD; "" when it gives none): OpenAI's
    // shutdown_date, Anthropic's retires_at and deprecated_at, Bedrock's endOfLifeTime and
    // legacyTime.
    std::string retires = {};
    std::string deprecated = {};
    // A past `retires` means the model is retired (OpenAI, Bedrock). False for Anthropic, whose
    // `lifecycle` decides (lifecycle_state() in model_lifecycle.hpp).
    bool date_decides = true;
    int max_tokens = 0;  // Anthropic's largest max_tokens for the model (0: not given)
};

// A list as JSON text and back (the day cache of the lists keeps it).
std::string catalogue_to_json(const std::vector<CatalogueModel>& models);
std::vector<CatalogueModel> catalogue_from_json(const std::string& text);

// The model list's entry of `model`, or null. A Bedrock inference profile
// ("us.anthropic.claude-...") that the list does not hold is looked up as the foundation model
// inside it.
const CatalogueModel* find_in_catalogue(const std::vector<CatalogueModel>& models,
                                        const std::string& model);

// The vendors with a model list, in the order the help names them.
const std::vector<std::string>& catalogue_vendors();

class ModelCatalogue {
  public:
    // provider: "openai", "anthropic" or "bedrock" (also "bedrock-titan"); throws
    // invalid_argument for another name, provider_config for missing credentials.
    ModelCatalogue(const std::string& provider, const ProviderConfig& config);
    // Identifies the list (its vendor and first URL: the base URL, the region): the key of the
    // day cache. Holds no credential.
    std::string identity() const;
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
