#pragma once
// One provider's row of the defaults table (provider_defaults(), resolution.hpp): declared in
// the provider's spec, in its vendor's file in cpp/llm/ (provider_spec.hpp there).
#include <string>
#include <vector>

#include "llmvalidate/provider_config.hpp"

namespace llmv::pipeline {

// One row per provider of the registry (and the two synthetic stand-ins).
struct ProviderDefaults {
    std::string kind;      // "chat" or "embedding"
    std::string provider;  // registry name
    // The model used when none is given. Empty: none can be assumed (a server of your own
    // serves whatever model it loaded, so the model must be named).
    std::string model;
    // Chat providers: the embedding provider of the same vendor, which alone may receive the
    // chat provider's base URL and key. Empty: the vendor offers no embeddings.
    std::string embedding_family;
    std::string credential;  // where the key comes from, for the docs (never the key itself)
    // When `model` was last compared with the vendor's catalogue (YYYY-MM-DD), and where that
    // catalogue was read: vendors retire models, so a default is a dated fact, not a constant.
    std::string checked;
    std::string source;
    // The environment variables whose values are this provider's secrets: R redacts them from
    // every message, and the auth hints name the first of them.
    std::vector<std::string> key_variables = {};
    // Chat providers that "auto" may pick: the rank in its order (1 first; 0: never picked),
    // the variables any one of which picks it ("A+B": both set), and what a message calls them.
    int auto_rank = 0;
    std::vector<std::string> auto_variables = {};
    std::string auto_label = {};
    // Chat providers: the vendor's batch API is supported (--batch-api, batch = TRUE, batchapi).
    // Set in the table for every provider whose spec (cpp/llm/provider_spec.hpp) has one.
    bool batch_api = false;
    // The vendor's rule for the default model under a configuration, when `model` depends on
    // it (Bedrock: the inference profile callable from the configured region); unset: `model`.
    std::string (*default_model_for)(const std::string& model,
                                     const ProviderConfig& config) = nullptr;
    // A server on the user's own machine, free of charge: nothing it does is priced.
    bool free_local = false;
    // The provider speaks a protocol servers of one's own speak too (OpenAI's): given a base
    // URL, it is such a server. `auto` picks it for LLMV_BASE_URL or a base URL, it reads
    // LLMV_BASE_URL when named, a server of one's own has no default model, and the model rules
    // (llm/model_rules.hpp) apply only on the vendor's own host, `vendor_host`.
    bool serves_own_base_url = false;
    std::string vendor_host = {};
    // Embedding providers: the one picked when the chat provider's vendor has no embeddings and
    // this variable (the vendor's key) is set; empty: never picked that way.
    std::string fallback_variable = {};
    // Chat providers without a batch API: why, for the message refusing a batch-API run.
    std::string no_batch_api = {};
    // The vendor whose model list and lifecycle table speak for this provider ("" when none):
    // `llmvalidate models --provider` takes it, and the run's lifecycle check reads that list
    // (bedrock-titan's models are listed by bedrock's list). `list_host`: the part of a URL
    // that marks the vendor's own endpoint, where the list is read without being asked.
    std::string list_vendor = {};
    std::string list_host = {};
    // The domains the vendor's own key (the first of `key_variables`) may be sent to: https
    // URLs of these hosts and their subdomains. Any other base URL gets a key only when one is
    // named for it (an explicit key, the variable option api_key_env names, else LLMV_API_KEY:
    // docs/providers.md, "Keys"). Empty: the provider sends no vendor key.
    std::vector<std::string> key_domains = {};
};
}  // namespace llmv::pipeline
