#pragma once
// Which provider, which model, which key and which cache: decided here once, for the run, the
// dry run, the CLI, R and Stata. docs/providers.md's table of defaults is generated from
// provider_defaults() (a test fails on drift).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/provider_config.hpp"
#include "llmvalidate/provider_defaults.hpp"
#include "llmvalidate/settings.hpp"

namespace llmv::pipeline {

const std::vector<ProviderDefaults>& provider_defaults();
// The table is the rows of the providers' specs (cpp/llm/provider_spec.hpp: one file per
// vendor), chat then embedding, each followed by the synthetic stand-in (simulated, hashed).
// A row added to the table at run time (or replacing the row of the same kind and provider), as
// a provider of one's own (with register_chat_provider()) or a test's throwaway provider is
// declared; resolution, `auto`, the secrets, the batch-API check and the front ends' lists then
// read it. Not safe while a run reads the table: call it before.
void register_provider_defaults(const ProviderDefaults& row);
void remove_provider_defaults(const std::string& kind, const std::string& provider);
// The chat providers "auto" picks from, in its order, after LLMV_BASE_URL: "LLMV_BASE_URL,
// ANTHROPIC_API_KEY, ..." (for the front ends' help and messages).
std::string auto_sources(const std::string& separator = ", ", const std::string& last = ", ");
// Every environment variable that may hold a secret of some provider (key_variables of every
// row, once each, in the table's order).
std::vector<std::string> secret_variables();
// The chat providers whose batch API is supported, joined by `separator`, and whether one is.
std::string batch_api_provider_names(const std::string& separator = " or ");
bool has_batch_api(const std::string& chat_provider);
// The registry's names of one kind ("chat" or "embedding"), in the table's order and joined by
// `separator`, each between `quote`s: what a front end's help and the engine's messages list.
std::string provider_names(const std::string& kind, const std::string& separator = ", ",
                           const std::string& quote = "");

// The chat provider "auto" picks from the environment, in the order auto_sources() gives:
// LLMV_BASE_URL (any OpenAI-compatible server), then the rows' auto_variables by auto_rank.
inline constexpr const char* auto_provider_name = "auto";

struct ResolveOptions {
    // With no provider configured, "auto" falls back to the simulated provider, and a chat
    // provider without embeddings to the hashed embedder. Only a front end that says so on its
    // first line may allow this (the CLI's main job); everywhere else it is an error.
    bool allow_synthetic_fallback = false;
    // Tests: read these variables instead of the process environment.
    std::optional<std::map<std::string, std::string>> environment;
};

struct ResolvedProviders {
    std::string chat_provider;       // never "auto"
    std::string chat_model;          // "simulated-dgp-1" for the simulated provider
    std::string chosen_from;         // what "auto" read ("ANTHROPIC_API_KEY", ...); empty otherwise
    ProviderConfig chat;             // base URL, key, options and timeouts of the chat provider
    std::string embedding_provider;  // "hashed" for the local embedder
    std::string embedding_model;
    ProviderConfig embedding;  // never holds another vendor's key or base URL
    bool synthetic_chat = false;
    bool local_embedding = false;
    // Why the embedder is the synthetic one although a real chat provider runs (empty when it
    // is not): the front ends print it.
    std::string synthetic_embedding_reason;
    // One line for a report's head: "Provider: anthropic (model ...), chosen from ...".
    std::string description() const;
};

// Auto-selection, default models (an explicit model, then LLMV_MODEL / LLMV_EMBEDDING_MODEL,
// then the table), and each credential to its own vendor only. Throws llmv.input.* errors
// that name the setting and what is allowed.
ResolvedProviders resolve_providers(const ValidationConfig& config,
                                    const ResolveOptions& options = {});


// Writes the resolved names and models back into the configuration, so that a front end
// reports exactly what the engine will run (resolving again gives the same result).
void apply_resolution(ValidationConfig& config, const ResolvedProviders& resolved);

// The per-user cache every front end shares: $LLMV_CACHE, else cache.sqlite in the directory
// R's tools::R_user_dir("llmvalidate", "cache") names ($R_USER_CACHE_DIR/R/llmvalidate, else
// $XDG_CACHE_HOME/R/llmvalidate, else ~/.cache/R/llmvalidate on Linux,
// ~/Library/Caches/org.R-project.R/R/llmvalidate on macOS, %LOCALAPPDATA%/R/cache/R/llmvalidate
// on Windows). The directory is not created here.
std::string default_cache_path(
    const std::optional<std::map<std::string, std::string>>& environment = {});

// Creates the default cache's directory (and its parents) when `path` is default_cache_path();
// a path the user gave must already have its directory.
void prepare_cache_directory(const std::string& path);

// The embedding provider of the chat provider's own vendor ("openai" -> "openai", "bedrock" ->
// "bedrock-titan", "simulated" -> "hashed"); empty when the vendor has none (anthropic).
std::string default_embedding_provider(const std::string& chat_provider);

}  // namespace llmv::pipeline
