// `llmvalidate models --provider P` and R's llm_models(): the
// vendor's own list of models, from its API, with each model's lifecycle (the vendor's status
// and retirement date, else the shipped table's), the engine's defaults marked and whether
// the price table has each.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "llmvalidate/provider_config.hpp"
#include "llmvalidate/records.hpp"

namespace llmv::pipeline {

struct ListedModel {
    std::string id;
    std::string name;    // the vendor's display name, when given
    std::string kind;    // "model" or "inference profile"
    std::string status;  // the vendor's lifecycle word, when given
    // "active", "deprecated" (retirement announced, still served) or "retired".
    std::string lifecycle;
    std::string retires;      // YYYY-MM-DD; "" when no retirement is announced
    std::string replacement;  // the vendor's recommended replacement, when known
    // Where `retires` comes from: "vendor" (its model list) or the shipped table's source.
    std::string lifecycle_source;
    std::string default_for;  // "chat", "embedding", or "" (not a default of the engine)
    bool priced = false;      // the price table has a row for it
};

struct ModelList {
    std::string provider;
    std::vector<ListedModel> models;  // in the vendor's order
    std::string price_table;          // the table `priced` refers to ("" when none was found)
    std::string fetched;              // when the vendor answered: "2026-12-07 09:41 UTC"
    bool from_cache = false;          // read from the day cache, not asked now
};

// A date YYYY-MM-DD as Stata's %td number (days since 1960-01-01); absent for "" or another
// text. Howard Hinnant's days-from-civil, shifted by the 3,653 days from 1960 to 1970.
inline records::Maybe<double> stata_day(const std::string& date) {
    int year = 0, month = 0, day = 0;
    if (date.size() != 10 || std::sscanf(date.c_str(), "%4d-%2d-%2d", &year, &month, &day) != 3)
        return {0, false};
    year -= month <= 2 ? 1 : 0;
    const long era = (year >= 0 ? year : year - 399) / 400;
    const long year_of_era = year - era * 400;
    const long day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const long day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return {static_cast<double>(era * 146097 + day_of_era - 719468 + 3653), true};
}

// Stata's codes of a listed model's words, the columns of r(catalogue) (`llmvalidate models`).
inline int stata_default_code(const ListedModel& x) {
    return x.default_for == "chat" ? 1 : x.default_for == "embedding" ? 2 : 0;
}
inline int stata_lifecycle_code(const ListedModel& x) {
    return x.lifecycle == "retired" ? 2 : x.lifecycle == "deprecated" ? 1 : 0;
}

// The fields of the list, once, for every front end (records.hpp): the CLI's JSON, R's tibble,
// and Stata's r(catalogue), whose columns (default, priced, profile, lifecycle, retires) are
// codes of the words and a %td date: fields of Stata's alone (no JSON, no R).
template <class Visitor>
void visit(const ListedModel& x, Visitor& v) {
    const auto stata_only = [](const char* name, const char* stata) {
        return records::Field{name, stata, false, false, false};
    };
    v(records::Field{"id"}, x.id);
    v(records::Field{"name"}, x.name);
    v(records::Field{"kind"}, x.kind);
    v(records::Field{"status"}, x.status);
    v(records::Field{"lifecycle"}, x.lifecycle);
    v(records::Field{"retires"}, x.retires);
    v(records::Field{"replacement"}, x.replacement);
    v(records::Field{"lifecycle_source"}, x.lifecycle_source);
    v(records::Field{"default_for"}, x.default_for);
    v(stata_only("default_code", "default"), stata_default_code(x));
    v(records::Field{"priced", "priced"}, x.priced);
    v(stata_only("profile", "profile"), x.kind != "model");
    v(stata_only("lifecycle_code", "lifecycle"), stata_lifecycle_code(x));
    v(stata_only("retires_date", "retires"), stata_day(x.retires));
}

template <class Visitor>
void visit(const ModelList& x, Visitor& v) {
    v(records::Field{"provider"}, x.provider);
    v(records::Field{"price_table"}, x.price_table);
    v(records::Field{"fetched"}, x.fetched);
    v(records::Field{"from_cache"}, x.from_cache);
    v(records::Field{"models"}, records::Table<ListedModel>{x.models});
}

// The vendors whose model list the engine can read ("openai", "anthropic", "bedrock"): the one
// list that list_models() accepts and that the front ends' help and messages name.
const std::vector<std::string>& model_list_vendors();
// "openai, anthropic or bedrock": model_list_vendors() as a sentence.
std::string model_list_vendors_text();

// Asks the vendor (one of model_list_vendors()) for its models. `config` gives the base URL
// and credentials as for a run (empty: the environment). Throws llmv::Error with the vendor's
// message when the list cannot be read. `interrupted` is asked at least every 50 ms while a
// request is out (Ctrl-C, R's interrupt, Stata's Break); true cancels (llmv.cancelled).
// `cache_path`: the day cache (a cache file): a list fetched less than a day ago is read from
// it instead of asking the vendor, and a list fetched now is stored there ("": always ask).
ModelList list_models(const std::string& provider, const ProviderConfig& config,
                      const std::string& price_table_path = "",
                      const std::function<bool()>& interrupted = {},
                      const std::string& cache_path = "");

}  // namespace llmv::pipeline
