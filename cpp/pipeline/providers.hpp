// The providers of one run, opened from the one resolution (resolve_providers(), resolution.hpp):
// the run and the dry run both go through open_providers(), so that they build their requests
// and cache keys from the same names, models and endpoints.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "llmvalidate/pipeline.hpp"
#include "llm/provider.hpp"
#include "llmvalidate/resolution.hpp"
#include "pipeline/simulated.hpp"

namespace llmv::pipeline {

struct RunProviders {
    // chat_model is simulated_model_name for the simulated provider.
    ResolvedProviders resolved;
    std::unique_ptr<SimulatedModel> simulated;    // the simulated provider (synthetic_chat)
    std::unique_ptr<ChatProvider> chat;           // every other chat provider
    std::unique_ptr<EmbeddingProvider> embedder;  // null: the local (hashed) embedder
    // The endpoints' identities, part of every cache key: "simulated://dgp" for the simulated
    // provider, empty for the local embedder.
    std::string chat_endpoint;
    std::string embedding_endpoint;
    // A model that retires soon (model_lifecycle_check.hpp): shown before the first call.
    std::vector<std::string> warnings;
};

// Opens the providers `resolved` names. `placeholder_key`, when not empty, stands in for a
// missing API key where nothing is sent (reading back from the cache, a dry run): the providers
// refuse to be built without one, and the endpoint's identity does not depend on it.
// A run that will send (no placeholder) checks its models' lifecycles first: a retired model
// throws llmv::Error before anything is sent; one retiring soon fills `warnings`.
RunProviders open_providers(const ValidationConfig& config, ResolvedProviders resolved,
                            const std::vector<std::string>& labels,
                            const std::string& placeholder_key);

// What a run says before its first call, through callbacks.on_warning (run_warnings.cpp): a
// model retiring soon ("model_retiring", `providers.warnings`), and each test that cannot reach
// its decision at this alpha and size ("cannot_decide", size_warnings(): every verdict would be
// "inconclusive", and the calls would be paid for nothing).
void warn_before_first_call(const ValidationConfig& config, const RunProviders& providers,
                            const BatchCallbacks& callbacks);

}  // namespace llmv::pipeline
