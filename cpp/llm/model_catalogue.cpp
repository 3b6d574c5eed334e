// The vendors' model lists (model_catalogue.hpp). Field names from the vendors' API references:
// OpenAI {"data": [{"id"}]}; Anthropic {"data": [{"id", "display_name"}], "has_more",
// "last_id"} paged with ?after_id=; Bedrock {"modelSummaries": [{"modelId", "modelName",
// "modelLifecycle": {"status"}}]} and {"inferenceProfileSummaries": [{"inferenceProfileId",
// "inferenceProfileName", "status"}], "nextToken"}.
#include "llm/model_catalogue.hpp"

#include <algorithm>

#include "llm/bedrock_common.hpp"
#include "llm/openai_common.hpp"
#include "llm/provider_util.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/text.hpp"

namespace llmv {

using nlohmann::json;

namespace {

const char* anthropic_version = "2023-06-01";

std::string text_field(const json& object, const char* key) {
    return object.contains(key) && object[key].is_string() ? object[key].get<std::string>()
                                                           : std::string();
}

HttpRequest anthropic_models_request(const ProviderConfig& config, const std::string& after_id) {
    std::string base = detail::strip_trailing_slashes(
        detail::first_set(config, config.base_url, {"ANTHROPIC_BASE_URL"}));
    if (base.empty()) base = "https://api.anthropic.com";
    const std::string key = detail::first_set(config, config.api_key, {"ANTHROPIC_API_KEY"});
    if (key.empty()) {
        throw Error(code::provider_config,
                    "provider `anthropic` needs an API key to list its models: set `api_key` or "
                    "ANTHROPIC_API_KEY");
    }
    HttpRequest request;
    request.method = "GET";
    request.url = base + "/v1/models?limit=1000" +
                  (after_id.empty() ? "" : "&after_id=" + percent_encode(after_id));
    request.headers = {{"x-api-key", key}, {"anthropic-version", anthropic_version}};
    request.secrets = {key};
    request.connect_timeout_ms = config.connect_timeout_ms;
    request.total_timeout_ms = config.total_timeout_ms;
    return request;
}

}  // namespace

const std::vector<std::string>& catalogue_vendors() {
    static const std::vector<std::string> vendors = {"openai", "anthropic", "bedrock"};
    return vendors;
}

ModelCatalogue::ModelCatalogue(const std::string& provider, const ProviderConfig& config)
    : provider_(provider == "bedrock-titan" ? "bedrock" : provider), config_(config) {
    const auto& vendors = catalogue_vendors();
    if (std::find(vendors.begin(), vendors.end(), provider_) == vendors.end()) {
        throw_invalid(
            code::invalid_argument, "provider", "\"" + provider + "\"",
            "a vendor with a model list: " + text::join_list(vendors, ", ", " or ", "\""));
    }
    (void)requests();  // credentials are checked now, before anything is sent
}

std::vector<HttpRequest> ModelCatalogue::requests() const {
    if (provider_ == "openai") return {detail::OpenAIEndpoint(config_, "openai").get("models")};
    if (provider_ == "anthropic") return {anthropic_models_request(config_, "")};
    const detail::BedrockEndpoint endpoint(config_, "bedrock");
    return {endpoint.control_request("/foundation-models"),
            endpoint.control_request("/inference-profiles?maxResults=1000")};
}

std::optional<HttpRequest> ModelCatalogue::read(const HttpRequest& request,
                                                const HttpResponse& response,
                                                std::vector<CatalogueModel>& into) const {
    if (!detail::is_success(response)) {
        const ProviderError error = detail::http_failure(response, request.secrets);
        throw Error(error.code.empty() ? code::provider_server : error.code,
                    "listing the models of " + provider_ + " failed (HTTP " +
                        std::to_string(response.status) + "): " + error.message);
    }
    const json body = detail::parse_body(response.body);
    const auto malformed = [&](const std::string& what) {
        return Error(code::provider_malformed_response,
                     "the model list of " + provider_ + " " + what + "; received " +
                         detail::malformed_response(response, what, request.secrets).message);
    };
    if (!body.is_object()) throw malformed("is not a JSON object");
    if (provider_ == "openai" || provider_ == "anthropic") {
        if (!body.contains("data") || !body["data"].is_array())
            throw malformed("has no data array");
        for (const json& entry : body["data"]) {
            if (!entry.is_object() || text_field(entry, "id").empty()) continue;
            into.push_back(
                {text_field(entry, "id"), text_field(entry, "display_name"), "model", ""});
        }
        if (provider_ == "anthropic" && body.value("has_more", false) &&
            !text_field(body, "last_id").empty()) {
            return anthropic_models_request(config_, text_field(body, "last_id"));
        }
        return std::nullopt;
    }
    if (body.contains("modelSummaries") && body["modelSummaries"].is_array()) {
        for (const json& entry : body["modelSummaries"]) {
            if (!entry.is_object() || text_field(entry, "modelId").empty()) continue;
            std::string status;
            if (entry.contains("modelLifecycle") && entry["modelLifecycle"].is_object())
                status = text_field(entry["modelLifecycle"], "status");
            into.push_back(
                {text_field(entry, "modelId"), text_field(entry, "modelName"), "model", status});
        }
        return std::nullopt;
    }
    if (body.contains("inferenceProfileSummaries") &&
        body["inferenceProfileSummaries"].is_array()) {
        for (const json& entry : body["inferenceProfileSummaries"]) {
            if (!entry.is_object() || text_field(entry, "inferenceProfileId").empty()) continue;
            into.push_back({text_field(entry, "inferenceProfileId"),
                            text_field(entry, "inferenceProfileName"), "inference profile",
                            text_field(entry, "status")});
        }
        if (!text_field(body, "nextToken").empty()) {
            HttpRequest next = request;
            const auto query = next.url.find("&nextToken=");
            if (query != std::string::npos) next.url.erase(query);
            next.url += "&nextToken=" + percent_encode(text_field(body, "nextToken"));
            return next;
        }
        return std::nullopt;
    }
    throw malformed("has neither modelSummaries nor inferenceProfileSummaries");
}

}  // namespace llmv
