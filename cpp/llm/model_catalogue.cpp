// The vendors' model lists (model_catalogue.hpp). Field names from the vendors' API references:
// OpenAI {"data": [{"id", "shutdown_date"}]} (shutdown_date: YYYY-MM-DD or null; OpenAI's
// models reference, list and retrieve, read 2026-12-07); Anthropic {"data": [{"id",
// "display_name", "lifecycle", "deprecated_at", "retires_at", "max_tokens"}], "has_more",
// "last_id"} paged with ?after_id= (npm @anthropic-ai/sdk 1.17.0 ModelInfo: lifecycle is
// active | deprecated | retired, the dates RFC 3339 or null; the list holds active and
// deprecated models unless `lifecycle[]` asks for retired ones too, arrays in brackets);
// Bedrock {"modelSummaries": [{"modelId", "modelName", "modelLifecycle": {"status",
// "endOfLifeTime", "legacyTime"}}]} (AWS API reference FoundationModelLifecycle: status ACTIVE
// | LEGACY, the times JSON timestamps; read 2026-12-07) and {"inferenceProfileSummaries":
// [{"inferenceProfileId", "inferenceProfileName", "status"}], "nextToken"}.
#include "llm/model_catalogue.hpp"

#include <algorithm>

#include "llm/bedrock_common.hpp"
#include "llm/model_lifecycle.hpp"
#include "llm/openai_common.hpp"
#include "llm/provider_spec.hpp"
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
    // The chat provider's rule: ANTHROPIC_API_KEY to Anthropic's hosts only.
    const detail::ChosenKey chosen =
        detail::key_for_server(config, base, anthropic_key_domains(), "ANTHROPIC_API_KEY");
    const std::string& key = chosen.value;
    if (key.empty() && detail::is_vendor_url(base, anthropic_key_domains())) {
        throw Error(code::provider_config,
                    "provider `anthropic` needs an API key to list its models: set `api_key` or " +
                        chosen.variable,
                    {"api_key"});
    }
    HttpRequest request;
    request.method = "GET";
    // Every lifecycle stage: a retired model is then known as retired from the vendor itself.
    request.url = base +
                  "/v1/models?limit=1000&lifecycle%5B%5D=active&lifecycle%5B%5D=deprecated"
                  "&lifecycle%5B%5D=retired" +
                  (after_id.empty() ? "" : "&after_id=" + percent_encode(after_id));
    request.headers = {{"anthropic-version", anthropic_version}};
    if (!key.empty()) {
        request.headers.insert(request.headers.begin(), {"x-api-key", key});
        request.secrets = {key};
    }
    request.connect_timeout_ms = config.connect_timeout_ms;
    request.total_timeout_ms = config.total_timeout_ms;
    return request;
}

// A date field: "YYYY-MM-DD", an RFC 3339 time, or seconds since 1970 (AWS JSON timestamps).
std::string date_field(const json& object, const char* key) {
    if (!object.contains(key)) return "";
    const json& value = object[key];
    if (value.is_string()) return date_of_timestamp(value.get<std::string>());
    if (value.is_number()) return date_of_epoch_seconds(value.get<double>());
    return "";
}

}  // namespace

std::string catalogue_to_json(const std::vector<CatalogueModel>& models) {
    json out = json::array();
    for (const CatalogueModel& model : models) {
        out.push_back({{"id", model.id},
                       {"name", model.name},
                       {"kind", model.kind},
                       {"status", model.status},
                       {"retires", model.retires},
                       {"deprecated", model.deprecated},
                       {"date_decides", model.date_decides},
                       {"max_tokens", model.max_tokens}});
    }
    return out.dump();
}

std::vector<CatalogueModel> catalogue_from_json(const std::string& text) {
    std::vector<CatalogueModel> models;
    const json list = json::parse(text, nullptr, false);
    if (!list.is_array()) return models;
    for (const json& entry : list) {
        if (!entry.is_object()) continue;
        CatalogueModel model;
        model.id = text_field(entry, "id");
        model.name = text_field(entry, "name");
        model.kind = text_field(entry, "kind");
        model.status = text_field(entry, "status");
        model.retires = text_field(entry, "retires");
        model.deprecated = text_field(entry, "deprecated");
        model.date_decides = entry.value("date_decides", true);
        model.max_tokens = entry.value("max_tokens", 0);
        if (!model.id.empty()) models.push_back(std::move(model));
    }
    return models;
}

const CatalogueModel* find_in_catalogue(const std::vector<CatalogueModel>& models,
                                        const std::string& model) {
    const CatalogueModel* exact = nullptr;
    for (const CatalogueModel& entry : models)
        if (entry.id == model) exact = &entry;
    if (exact && exact->kind == "model") return exact;
    // An inference profile's id is a geography and the foundation model's id
    // ("us.anthropic.claude-...", "global.anthropic.claude-..."); an ARN ends with one. The
    // profile's own entry has no lifecycle: the foundation model's says when it ends.
    const auto slash = model.rfind('/');
    std::string inner = slash == std::string::npos ? model : model.substr(slash + 1);
    const auto dot = inner.find('.');
    if (dot != std::string::npos && inner.find('.', dot + 1) != std::string::npos)
        inner = inner.substr(dot + 1);
    if (inner != model) {
        for (const CatalogueModel& entry : models)
            if (entry.id == inner && entry.kind == "model") return &entry;
    }
    return exact;
}

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

std::string ModelCatalogue::identity() const {
    std::string url = requests().front().url;
    const auto query = url.find('?');
    if (query != std::string::npos) url.erase(query);
    return provider_ + " " + url;
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
            CatalogueModel model{text_field(entry, "id"), text_field(entry, "display_name"),
                                 "model", ""};
            if (provider_ == "openai") {
                model.retires = date_field(entry, "shutdown_date");
            } else {
                model.status = text_field(entry, "lifecycle");
                model.retires = date_field(entry, "retires_at");
                model.deprecated = date_field(entry, "deprecated_at");
                model.date_decides = false;  // "lifecycle is the retirement signal"
                if (entry.contains("max_tokens") && entry["max_tokens"].is_number_integer())
                    model.max_tokens = entry["max_tokens"].get<int>();
            }
            into.push_back(std::move(model));
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
            CatalogueModel model{text_field(entry, "modelId"), text_field(entry, "modelName"),
                                 "model", ""};
            if (entry.contains("modelLifecycle") && entry["modelLifecycle"].is_object()) {
                const json& lifecycle = entry["modelLifecycle"];
                model.status = text_field(lifecycle, "status");
                model.retires = date_field(lifecycle, "endOfLifeTime");
                model.deprecated = date_field(lifecycle, "legacyTime");
            }
            into.push_back(std::move(model));
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
