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

// The providers a vendor's list speaks for (its chat provider, then its embedding providers:
// one list may hold both kinds of model), from the rows' `list_vendor`.
std::vector<const ProviderDefaults*> listed_by(const std::string& vendor) {
    std::vector<const ProviderDefaults*> rows;
    for (const ProviderDefaults& row : provider_defaults())
        if (row.list_vendor == vendor) rows.push_back(&row);
    return rows;
}

// The list a provider name stands for: its row's vendor (bedrock-titan: bedrock's list).
std::string list_vendor_of(const std::string& provider) {
    for (const ProviderDefaults& row : provider_defaults())
        if (row.provider == provider && !row.list_vendor.empty()) return row.list_vendor;
    return provider;
}

}  // namespace

const std::vector<std::string>& model_list_vendors() { return catalogue_vendors(); }

std::string model_list_vendors_text() { return text::join_list(model_list_vendors()); }

ModelList list_models(const std::string& provider, const ProviderConfig& config,
                      const std::string& price_table_path, const std::function<bool()>& interrupted,
                      const std::string& cache_path) {
    const std::string vendor = list_vendor_of(provider);
    const std::vector<const ProviderDefaults*> rows = listed_by(vendor);
    ListReading how;
    how.cache_path = cache_path;
    how.interrupted = interrupted;
    const VendorList read = *read_vendor_list(vendor, config, how);
    ModelList list;
    list.provider = vendor;
    list.fetched = utc_text(read.fetched_unix, "%Y-%m-%d %H:%M UTC");
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
        for (const ProviderDefaults* defaults : rows)
            if (defaults->model == model.id) listed.default_for = defaults->kind;
        // Priced under any provider this list speaks for (Titan's rows are bedrock-titan's).
        for (const ProviderDefaults* row : rows)
            if (table && !listed.priced) listed.priced = table->find(row->provider, model.id) != nullptr;
        list.models.push_back(std::move(listed));
    }
    return list;
}

}  // namespace llmv::pipeline
