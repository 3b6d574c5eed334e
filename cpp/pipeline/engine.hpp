// The pipeline's scheduler (private to cpp/pipeline/). See llmvalidate/pipeline.hpp for the
// contract; this header only connects the pieces of cpp/pipeline/*.cpp.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "llm/provider.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/task.hpp"

namespace llmv::pipeline {

// Loads config.task_path (a shipped task name or a path) or config.task_source (TOML text);
// throws llmv::Error. Without its answer-format instructions when the prompts need none
// (prompts_carry_answer_format), so that the run and the dry run render the same prompts.
Task load_config_task(const ValidationConfig& config);
// False when the prompts leave out the task's answer-format instructions: answer_format
// "auto", structured output "schema" and a chat provider that receives requests.
bool prompts_carry_answer_format(const ValidationConfig& config);
// The task as used for one passage (its own simulation template, when it has one).
Task task_for_input(const Task& task, const PassageInput& passage);
// config.variables overridden by the passage's.
TaskVariables passage_variables(const ValidationConfig& config, const PassageInput& passage);

// Every passage has text (check_passage_text); every human label is a label of the task (after
// check_config). Both throw llmv::Error before any call.
void check_passages(const std::vector<PassageInput>& passages);
void check_human_labels(const ValidationConfig& config, const std::vector<PassageInput>& passages);

// Whether the run pays for answers it keeps nowhere (no cache), given its resolution: the
// warning's text, or "".
std::string cache_warning_for(const ValidationConfig& config, const ResolvedProviders& resolved);

// Pool size per label (M, or the paper methods' N), and the labels that need the paper
// methods' B reference draws, given β̂.
int pool_size(const ValidationConfig& config);
bool uses_paper_method(const ValidationConfig& config);
// Whether the method `name` of `test` ("validation", "separation") draws B reference texts (the
// statistics' registry says: stats::test_methods()), as the paper's do.
bool draws_reference(const char* test, const std::string& name);
std::vector<std::string> reference_labels(const ValidationConfig& config,
                                          const std::vector<std::string>& labels,
                                          const std::string& beta);
int calls_for(int texts, int per_call);  // ⌈texts / per_call⌉

// Redraws of an unusable answer: parse_retry_limit counts the answers paid for in this run
// only. Unusable answers already in the cache (an earlier run's) are redrawn without using it
// up, so a re-run against a healthy server asks again exactly for the draws that failed. This
// bounds the chain of cached draws walked (a safety net; a chain grows by at most
// parse_retry_limit + 1 per run).
inline constexpr int max_cached_attempts = 10000;

// What the tokens of `usage` (by model) cost at the table's prices (pricing.cpp).
CostEstimate cost_of_usage(const std::map<std::string, ModelUsage>& usage, const PriceTable* table,
                           const std::string& chat_provider, const std::string& chat_model,
                           const std::string& embedding_provider,
                           const std::string& embedding_model);

// Batch-API mode (batch_run.cpp): a pass of the run that sends nothing. A chat request or a
// text the cache does not hold is asked of `answer` / `vector` (what the provider batches gave,
// which the batch runner keeps on disk) and then cached exactly as a synchronous answer; else it
// goes to `missing_request` / `missing_text`, and its passage waits (it ends the pass
// unfinished). Passages that wait leave memory once the pass has nothing else to do for them, so
// a pass holds a bounded number of passages whatever the corpus; the next pass starts them again
// from the cache.
struct DeferredCalls {
    std::function<std::optional<HttpResponse>(const std::string& hash)> answer;
    std::function<std::optional<std::vector<double>>(const std::string& text)> vector;
    // `request`: the synchronous request, as the provider built it; `attempt` > 0: a redraw.
    std::function<void(const std::string& hash, const HttpRequest& request, int attempt)>
        missing_request;
    std::function<void(const std::string& text)> missing_text;
    std::size_t consumed = 0;  // answers and vectors taken from the batches
};

// The whole run (scheduler.cpp). `keep_results`: BatchResult::passages holds every passage.
BatchResult run_engine(const ValidationConfig& config, const PassageSource& source,
                       const BatchCallbacks& callbacks, bool keep_results,
                       std::size_t passages_total, DeferredCalls* deferred = nullptr);

}  // namespace llmv::pipeline
