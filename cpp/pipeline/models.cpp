// The vendors' model lists with their lifecycles, the engine's defaults and prices
// (models.hpp).
#include "llmvalidate/models.hpp"

#include <ctime>

#include "llm/model_catalogue.hpp"
#include "llm/model_lifecycle.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pricing.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/text.hpp"
#include "pipeline/model_lists.hpp"

namespace llmv::pipeline {

namespace {

// The price table's provider of a listed id: Bedrock's embedding models are priced under the
// embedding provider's name.
std::string priced_as(const std::string& provider, const std::string& id) {
    if (provider == "bedrock" && id.find("amazon.titan-embed") != std::string::npos)
        return "bedrock-titan";
    return provider;
}

std::string utc_minute(std::int64_t unix_seconds) {
    const std::time_t time = static_cast<std::time_t>(unix_seconds);
    std::tm utc{};
#ifdef _WIN32
    gmtime_s(&utc, &time);
#else
    gmtime_r(&time, &utc);
#endif
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M UTC", &utc);
    return buffer;
}

}  // namespace

const std::vector<std::string>& model_list_vendors() { return catalogue_vendors(); }

std::string model_list_vendors_text() { return text::join_list(model_list_vendors()); }

ModelList list_models(const std::string& provider, const ProviderConfig& config,
                      const std::string& price_table_path, const std::function<bool()>& interrupted,
                      const std::string& cache_path) {
    const std::string vendor = provider == "bedrock-titan" ? "bedrock" : provider;
    ListReading how;
    how.cache_path = cache_path;
    how.interrupted = interrupted;
    const VendorList read = *read_vendor_list(vendor, config, how);
    ModelList list;
    list.provider = vendor;
    list.fetched = utc_minute(read.fetched_unix);
    list.from_cache = read.from_cache;
    const std::unique_ptr<PriceTable> table = price_table_for(price_table_path);
    if (table) list.price_table = table->source;
    const std::string today = today_utc();
    for (const CatalogueModel& model : read.models) {
        ListedModel listed;
        listed.id = model.id;
        listed.name = model.name;
        listed.kind = model.kind;
        listed.status = model.status;
        const ModelLifecycle lifecycle = lifecycle_of(vendor, model.id, &model, today);
        listed.lifecycle = lifecycle.state;
        listed.retires = lifecycle.retires;
        listed.replacement = lifecycle.replacement;
        listed.lifecycle_source = lifecycle.source;
        for (const ProviderDefaults& defaults : provider_defaults()) {
            const bool same_vendor = defaults.provider == vendor ||
                                     (vendor == "bedrock" && defaults.provider == "bedrock-titan");
            if (same_vendor && defaults.model == model.id) listed.default_for = defaults.kind;
        }
        if (table) listed.priced = table->find(priced_as(vendor, model.id), model.id) != nullptr;
        list.models.push_back(std::move(listed));
    }
    return list;
}

}  // namespace llmv::pipeline
