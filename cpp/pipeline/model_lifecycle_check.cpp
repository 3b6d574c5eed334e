// The lifecycle check before a run's first call (model_lifecycle_check.hpp).
#include "pipeline/model_lifecycle_check.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include "llm/model_catalogue.hpp"
#include "llm/model_lifecycle.hpp"
#include "llm/model_rules.hpp"
#include "llmvalidate/error.hpp"
#include "pipeline/model_lists.hpp"

namespace llmv::pipeline {

namespace {

// A listing before a run waits at most this long: a server that does not answer costs the
// run a moment, not its timeout.
constexpr long listing_timeout_ms = 15000;

std::string environment_value(const ProviderConfig& config, const char* name) {
    if (config.environment) {
        const auto found = config.environment->find(name);
        return found == config.environment->end() ? "" : found->second;
    }
    const char* value = std::getenv(name);
    return value ? value : "";
}

// The row of a provider (its list's vendor and host, whether servers of one's own speak its
// protocol), declared in its vendor's spec; nullptr for a provider without a row.
const ProviderDefaults* row_of(const std::string& provider) {
    for (const ProviderDefaults& row : provider_defaults())
        if (row.provider == provider) return &row;
    return nullptr;
}

// The vendor's own endpoint (no base URL, or the vendor's host), where a list is read.
bool vendor_endpoint(const ProviderDefaults& row, const std::string& base_url) {
    return base_url.empty() || base_url.find(row.list_host) != std::string::npos;
}

struct Model {
    const char* setting;  // the engine's name of the setting that chose it
    std::string provider;
    std::string model;
    const ProviderConfig* config;
};

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

}  // namespace

std::vector<std::string> check_model_lifecycles(const ValidationConfig& config,
                                                const ResolvedProviders& resolved, bool may_fetch) {
    std::vector<Model> models;
    if (!resolved.synthetic_chat)
        models.push_back({"model", resolved.chat_provider, resolved.chat_model, &resolved.chat});
    if (!resolved.local_embedding)
        models.push_back({"embedding_model", resolved.embedding_provider, resolved.embedding_model,
                          &resolved.embedding});
    std::vector<std::string> warnings;
    const std::string today = today_utc();
    std::map<std::string, std::optional<VendorList>> lists;  // by vendor and base URL
    for (const Model& checked : models) {
        const ProviderDefaults* row = row_of(checked.provider);
        if (!row || row->list_vendor.empty()) continue;
        const std::string& vendor = row->list_vendor;
        const ProviderConfig& provider_config = *checked.config;
        const std::string mode = environment_value(provider_config, "LLMV_MODEL_LIST");
        // Where the list would be read (the base URL given, or the vendor's environment
        // variable, or its default); without credentials there is no list to read.
        std::string list_url;
        try {
            list_url = model_list_identity(vendor, provider_config);
        } catch (const std::exception&) {
            list_url.clear();
        }
        const bool at_vendor =
            vendor_endpoint(*row, list_url.empty() ? provider_config.base_url : list_url);
        // A server of your own speaking the vendor's protocol keeps its own models (as the
        // model rules).
        if (row->serves_own_base_url && !at_vendor && mode != "always") continue;
        const std::string list_key = vendor + " " + provider_config.base_url;
        if (!lists.count(list_key)) {
            std::optional<VendorList> list;
            if (mode != "never") {
                ListReading how;
                how.cache_path = config.cache_path;
                how.may_fetch = may_fetch && (at_vendor || mode == "always");
                how.total_timeout_ms = listing_timeout_ms;
                how.max_retries = 0;  // a list that fails once is not worth a run's wait
                try {
                    list = read_vendor_list(vendor, provider_config, how);
                } catch (const std::exception&) {
                    list.reset();  // no list: the shipped table answers
                }
            }
            lists[list_key] = std::move(list);
        }
        const std::optional<VendorList>& list = lists[list_key];
        const CatalogueModel* entry =
            list ? find_in_catalogue(list->models, checked.model) : nullptr;
        const ModelLifecycle lifecycle = lifecycle_of(vendor, checked.model, entry, today);
        if (lifecycle.state == "active" || lifecycle.state.empty()) continue;
        const std::string source =
            lifecycle.source.rfind("vendor", 0) == 0
                ? "the model list of " + vendor +
                      (lifecycle.source == "vendor" ? std::string() : lifecycle.source.substr(6))
                : lifecycle.source;
        const std::string replacement =
            lifecycle.replacement.empty() ? "the vendor names no replacement here"
                                          : "the vendor's replacement is " + lifecycle.replacement;
        if (lifecycle.state == "retired") {
            throw_invalid(code::invalid_argument, checked.setting, quoted(checked.model),
                          "a model " + vendor + " still serves: this one was retired" +
                              (lifecycle.retires.empty() ? "" : " on " + lifecycle.retires) + " (" +
                              source + "); " + replacement + ". " +
                              model_not_available_message(
                                  vendor, checked.model,
                                  settings::model_list_hint(vendor, config.messages_for)));
        }
        if (lifecycle.retires.empty()) continue;  // deprecated, no date announced
        const long days = days_between(today, lifecycle.retires);
        if (days > lifecycle_warning_days) continue;
        const std::string when = days > 1    ? "in " + std::to_string(days) + " days"
                                 : days == 1 ? "tomorrow"
                                 : days == 0 ? "today"
                                             : "overdue by " + std::to_string(-days) + " days";
        warnings.push_back("Model " + checked.model + " (" + checked.provider + ", the `" +
                           checked.setting + "` setting) retires on " + lifecycle.retires + ", " +
                           when + " (" + source + "); " + replacement +
                           ". Runs on it fail from that day: choose another model before then.");
    }
    return warnings;
}

}  // namespace llmv::pipeline
