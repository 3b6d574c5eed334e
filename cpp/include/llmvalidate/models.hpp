// `llmvalidate models --provider P` and R's llm_models(): the
// vendor's own list of models, from its API, with each model's lifecycle (the vendor's status
// and retirement date, else the shipped table's), the engine's defaults marked and whether
// the price table has each.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "llmvalidate/provider_config.hpp"
#include "llmvalidate/records.hpp"

namespace llmv::pipeline {

struct ListedModel {
    std::string id;
    std::string name;         // the vendor's display name, when given
    std::string kind;         // "model" or "inference profile"
    std::string status;       // the vendor's lifecycle word, when given
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

// The fields of the list, once, for every front end (records.hpp): the CLI's JSON, R's tibble.
template <class Visitor>
void visit(const ListedModel& x, Visitor& v) {
    v(records::Field{"id"}, x.id);
    v(records::Field{"name"}, x.name);
    v(records::Field{"kind"}, x.kind);
    v(records::Field{"status"}, x.status);
    v(records::Field{"lifecycle"}, x.lifecycle);
    v(records::Field{"retires"}, x.retires);
    v(records::Field{"replacement"}, x.replacement);
    v(records::Field{"lifecycle_source"}, x.lifecycle_source);
    v(records::Field{"default_for"}, x.default_for);
    v(records::Field{"priced"}, x.priced);
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
