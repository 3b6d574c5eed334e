// The pipeline's scheduler (private to cpp/pipeline/). See llmvalidate/pipeline.hpp for the
// contract; this header only connects the pieces of cpp/pipeline/*.cpp.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "llmvalidate/cache.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llm/provider.hpp"
#include "llmvalidate/task.hpp"

namespace llmv::pipeline {

// Loads config.task_path (a shipped task name or a path) or config.task_source (TOML text);
// throws llmv::Error.
Task load_config_task(const ValidationConfig& config);
// The task as used for one passage (its own simulation template, when it has one).
Task task_for_input(const Task& task, const PassageInput& passage);
// config.variables overridden by the passage's.
TaskVariables passage_variables(const ValidationConfig& config, const PassageInput& passage);

// Pool size per label (M, or the paper methods' N), and the labels that need the paper
// methods' B reference draws, given β̂.
int pool_size(const ValidationConfig& config);
bool uses_paper_method(const ValidationConfig& config);
std::vector<std::string> reference_labels(const ValidationConfig& config,
                                          const std::vector<std::string>& labels,
                                          const std::string& beta);
int calls_for(int texts, int per_call);  // ⌈texts / per_call⌉

// The chat request of one draw (a per-draw API seed, the JSON schema of the answer) and its
// cache key: shared by the scheduler and the dry run, so that both agree on what is cached.
ChatRequest chat_request_for(const ValidationConfig& config, const std::string& model,
                             const std::vector<std::string>& labels, bool simulate,
                             const std::string& prompt, int position, int count, int attempt);
CacheKey chat_key_for(const std::string& provider, const std::string& endpoint,
                      const ChatRequest& request, int position, int attempt);

// Redraws of an unusable answer: parse_retry_limit counts the answers paid for in this run
// only. Unusable answers already in the cache (an earlier run's) are redrawn without using it
// up, so a re-run against a healthy server asks again exactly for the draws that failed. This
// bounds the chain of cached draws walked (a safety net; a chain grows by at most
// parse_retry_limit + 1 per run).
inline constexpr int max_cached_attempts = 10000;

// The cache key of one text's embedding (scheduler and dry run).
CacheKey embedding_key_for(const std::string& provider, const std::string& endpoint,
                           const std::string& model, const std::string& text);

// What the tokens of `usage` (by model) cost at the table's prices (pricing.cpp).
CostEstimate cost_of_usage(const std::map<std::string, ModelUsage>& usage, const PriceTable* table,
                           const std::string& chat_provider, const std::string& chat_model,
                           const std::string& embedding_provider,
                           const std::string& embedding_model);

// Batch-API mode (batch_run.cpp): a pass of the run that sends nothing. A chat request or a
// text the cache does not hold is taken from `answered` / `vectors` when a provider batch gave
// it (and then cached exactly as a synchronous answer), else recorded once in `missing` /
// `missing_texts`, and its passage waits (it ends the pass unfinished).
struct DeferredCalls {
    std::unordered_map<std::string, HttpResponse> answered;         // chat key hash -> answer
    std::unordered_map<std::string, std::vector<double>> vectors;  // text -> its embedding
    struct Missing {
        std::string hash;     // the cache key's hash: the line's custom_id
        HttpRequest request;  // the synchronous request
        int attempt = 0;      // > 0: a redraw of an unusable answer
    };
    std::vector<Missing> missing;
    std::vector<std::string> missing_texts;
    std::set<std::string> seen;  // hashes and texts recorded
    std::size_t consumed = 0;    // answers and vectors taken from the batches
};

// The whole run. `keep_results`: BatchResult::passages holds every passage.
BatchResult run_engine(const ValidationConfig& config, const PassageSource& source,
                       const BatchCallbacks& callbacks, bool keep_results,
                       std::size_t passages_total, DeferredCalls* deferred = nullptr);

}  // namespace llmv::pipeline
