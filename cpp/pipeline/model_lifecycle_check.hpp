// Before the first call of a run (and in its dry run): is the chat or embedding model retired,
// or retiring soon? The vendor's own model list says, read through the day cache
// (model_lists.hpp); the shipped table (llm/model_lifecycle.hpp) answers when the list cannot
// be read or gives the model no date. A retired model stops the run before any call; one that
// retires within `lifecycle_warning_days` gives a warning with the date and the vendor's
// replacement, which every front end shows before the first call (BatchCallbacks::on_warning,
// DryRunReport::warnings).
//
// When the list is asked for: LLMV_MODEL_LIST=auto (the default) at the vendor's own endpoint
// only (a base URL of your own is a proxy or a local server, which may not list the vendor's
// models); "always" at any base URL (a gateway that serves the vendor's list); "never": the
// shipped table only. A list that cannot be read (no /v1/models, a timeout, a refused key)
// falls back to the table without a word: it never fails a run.
#pragma once

#include <string>
#include <vector>

#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/resolution.hpp"

namespace llmv::pipeline {

inline constexpr long lifecycle_warning_days = 60;

// The warnings (none: nothing retires within lifecycle_warning_days). Throws llmv::Error
// (invalid_argument) naming `model` or `embedding_model` for a retired model. `may_fetch`
// false: the day cache and the table only (the dry run sends nothing).
std::vector<std::string> check_model_lifecycles(const ValidationConfig& config,
                                                const ResolvedProviders& resolved, bool may_fetch);

}  // namespace llmv::pipeline
