// `llmvalidate models --provider P` and R's llm_models(): the
// vendor's own list of models, from its API, with the engine's defaults marked and whether
// the price table has each.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "llmvalidate/provider_config.hpp"

namespace llmv::pipeline {

struct ListedModel {
    std::string id;
    std::string name;         // the vendor's display name, when given
    std::string kind;         // "model" or "inference profile"
    std::string status;       // the vendor's lifecycle word, when given
    std::string default_for;  // "chat", "embedding", or "" (not a default of the engine)
    bool priced = false;      // the price table has a row for it
};

struct ModelList {
    std::string provider;
    std::vector<ListedModel> models;  // in the vendor's order
    std::string price_table;          // the table `priced` refers to ("" when none was found)
};

// The vendors whose model list the engine can read ("openai", "anthropic", "bedrock"): the one
// list that list_models() accepts and that the front ends' help and messages name.
const std::vector<std::string>& model_list_vendors();
// "openai, anthropic or bedrock": model_list_vendors() as a sentence.
std::string model_list_vendors_text();

// Asks the vendor (one of model_list_vendors()) for its models. `config` gives the base URL
// and credentials as for a run (empty: the environment). Throws llmv::Error with the vendor's
// message when the list cannot be read. `interrupted` is asked at least every 50 ms while a
// request is out (Ctrl-C, R's interrupt, Stata's Break); true cancels (llmv.cancelled).
ModelList list_models(const std::string& provider, const ProviderConfig& config,
                      const std::string& price_table_path = "",
                      const std::function<bool()>& interrupted = {});

}  // namespace llmv::pipeline
