// The engine's tables R reads (settings, presets, provider defaults), its provider
// resolution, and the category of an error code.
#include "glue_calls.hpp"

#include <string>
#include <vector>

#include "glue_convert.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/models.hpp"
#include "llmvalidate/record_lists.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/validation_config.hpp"
#include "record_r.hpp"

using namespace glue;

extern "C" {

// The engine's provider resolution (auto, default models, each key to its own vendor) and
// the warning of a paid run without a cache: R applies them before any call.
SEXP llmv_resolve_providers(SEXP config_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    return guarded([&]() -> Rcpp::RObject {
        const pipeline::ValidationConfig config = as_config(config_list);
        // An error names fields (`embedding_model`): guarded() spells them as R's arguments.
        const pipeline::ResolvedProviders resolved = pipeline::resolve_providers(config);
        return Rcpp::List::create(Rcpp::Named("provider") = resolved.chat_provider,
                                  Rcpp::Named("model") = resolved.chat_model,
                                  Rcpp::Named("base_url") = resolved.chat.base_url,
                                  Rcpp::Named("embedding_provider") = resolved.embedding_provider,
                                  Rcpp::Named("embedding_model") = resolved.embedding_model,
                                  Rcpp::Named("synthetic") = resolved.synthetic_chat,
                                  Rcpp::Named("description") = resolved.description(),
                                  Rcpp::Named("cache_warning") = pipeline::cache_warning(config));
    });
    END_RCPP
}

// The engine's table of provider defaults (resolution.hpp), one element per column.
SEXP llmv_provider_defaults() {
    BEGIN_RCPP
    return guarded([&]() -> Rcpp::RObject {
        // One column per field of the row's list (record_lists.hpp).
        return llmv::records::to_r_columns(pipeline::provider_defaults());
    });
    END_RCPP
}

// The statistics' test methods of the engine's registry (stats.hpp), one column per field of
// their list (record_lists.hpp): test, name, title, doc, draws ("M", "R" or "B").
SEXP llmv_test_methods() {
    BEGIN_RCPP
    return guarded([&]() -> Rcpp::RObject {
        return llmv::records::to_r_columns(llmv::stats::test_methods());
    });
    END_RCPP
}

// The vendor's own model list (models.hpp) through its one field list (records.hpp): the models
// as columns, with the list's provider, price table and when it was read; R's interrupt cancels.
// `api_key`: a provider object's own key ("": the environment); `cache`: the day cache ("": none).
SEXP llmv_models(SEXP provider_, SEXP base_url_, SEXP price_table_, SEXP api_key_, SEXP cache_) {
    BEGIN_RCPP
    const std::string provider = Rcpp::as<std::string>(provider_);
    const std::string base_url = Rcpp::as<std::string>(base_url_);
    const std::string price_table = Rcpp::as<std::string>(price_table_);
    const std::string api_key = Rcpp::as<std::string>(api_key_);
    const std::string cache = Rcpp::as<std::string>(cache_);
    return guarded([&]() -> Rcpp::RObject {
        llmv::ProviderConfig config;
        config.base_url = base_url;
        config.api_key = api_key;
        const pipeline::ModelList list = pipeline::list_models(
            provider, config, price_table, []() { return interrupt_pending(); }, cache);
        return llmv::records::to_r(list);
    });
    END_RCPP
}

// The engine's presets (settings.hpp): name -> named character vector of setting values.
SEXP llmv_presets() {
    BEGIN_RCPP
    return guarded([&]() -> Rcpp::RObject {
        Rcpp::List out;
        for (const settings::Preset& preset : settings::presets()) {
            Rcpp::CharacterVector values;
            std::vector<std::string> names;
            for (const auto& [name, value] : preset.values) {
                values.push_back(value);
                names.push_back(name);
            }
            values.attr("names") = names;
            out[preset.name] = values;
        }
        return out;
    });
    END_RCPP
}

// The settings table (llmvalidate/settings.hpp), one element per column, for R's argument
// checks and the parity test against formals().
SEXP llmv_settings() {
    BEGIN_RCPP
    return guarded([&]() -> Rcpp::RObject {
        std::vector<std::string> name, cli, r, stata, kind, default_value, choices, allowed, doc,
            group;
        std::vector<double> low, high;
        std::vector<int> low_open, high_open, optional, statistics, by_hand;
        const char* kinds[] = {"integer", "number", "choice", "seed", "flag", "text"};
        for (const settings::Setting& setting : settings::table()) {
            name.push_back(setting.name);
            cli.push_back(setting.cli);
            r.push_back(setting.r);
            stata.push_back(setting.stata);
            kind.push_back(kinds[static_cast<int>(setting.kind)]);
            default_value.push_back(pipeline::setting_default(setting));
            std::string joined;
            for (const std::string& choice : setting.choices)
                joined += (joined.empty() ? "" : ",") + choice;
            choices.push_back(joined);
            allowed.push_back(settings::allowed(setting));
            doc.push_back(setting.doc);
            low.push_back(setting.low);
            high.push_back(setting.high);
            low_open.push_back(setting.low_open);
            high_open.push_back(setting.high_open);
            optional.push_back(setting.optional);
            statistics.push_back(setting.statistics);
            by_hand.push_back(setting.by_hand);
            group.push_back(setting.group == settings::Group::simulated ? "simulated"
                                                                        : "validation");
        }
        return Rcpp::List::create(
            Rcpp::Named("name") = name, Rcpp::Named("cli") = cli, Rcpp::Named("r") = r,
            Rcpp::Named("stata") = stata, Rcpp::Named("kind") = kind,
            Rcpp::Named("default") = default_value, Rcpp::Named("low") = low,
            Rcpp::Named("high") = high,
            Rcpp::Named("low_open") = Rcpp::LogicalVector(low_open.begin(), low_open.end()),
            Rcpp::Named("high_open") = Rcpp::LogicalVector(high_open.begin(), high_open.end()),
            Rcpp::Named("optional") = Rcpp::LogicalVector(optional.begin(), optional.end()),
            Rcpp::Named("statistics") = Rcpp::LogicalVector(statistics.begin(), statistics.end()),
            Rcpp::Named("by_hand") = Rcpp::LogicalVector(by_hand.begin(), by_hand.end()),
            Rcpp::Named("choices") = choices, Rcpp::Named("allowed") = allowed,
            Rcpp::Named("doc") = doc, Rcpp::Named("group") = group);
    });
    END_RCPP
}

// Every table setting of the engine's configuration built from an R config list, as the
// table formats it (name -> value): the settings a run used, defaults included.
SEXP llmv_config_settings(SEXP config_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    return guarded([&]() -> Rcpp::RObject {
        const pipeline::ValidationConfig config = as_config(config_list);
        // In the table's order, as docs/settings.md lists them.
        std::vector<std::string> names, values;
        for (const settings::Setting& setting : settings::table()) {
            if (setting.by_hand || !settings::binds(config, setting.name)) continue;
            names.push_back(setting.name);
            values.push_back(settings::format_value(setting, settings::get(config, setting)));
        }
        Rcpp::CharacterVector out = Rcpp::wrap(values);
        out.attr("names") = names;
        return out;
    });
    END_RCPP
}

// The category of an engine error code (llmv::error_category): R's condition class.
SEXP llmv_error_category(SEXP code_) {
    BEGIN_RCPP
    const std::string error_code = Rcpp::as<std::string>(code_);
    return Rcpp::wrap(std::string(llmv::category_name(llmv::error_category(error_code))));
    END_RCPP
}

}  // extern "C"
