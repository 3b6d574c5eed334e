// Running a validation: one passage, or many as one stream of requests, with the callbacks a
// front end supplies and the batch's result.
//
// How a batch runs. A batch is one stream of requests, not a loop over passages. Each passage
// is a small dependency graph:
//
//   annotate y (R draws)  ->  simulate the pools of the labels the tests need (β̂ first)
//                         ->  annotate the β̂ pool (backtranslation), embed y and the pools
//                         ->  stats::run_tests  ->  verdict
//
// and every ready request of every passage in flight is handed to the transport, which keeps
// up to `concurrency` of them on the wire. Passages are admitted from the input as capacity
// frees up, so memory does not grow with the number of rows when results are streamed
// (BatchCallbacks::on_passage, keep_results = false).
//
// Draw indices. The j-th draw of a pool is its own cached request: the cache key
// (llmvalidate/cache.hpp) holds the provider, endpoint, model, every generation parameter,
// the full prompt, a draw index and an attempt number:
//   annotation of y          draw index r = 0..R-1
//   simulation of a pool     draw index c = 0..⌈M/n⌉-1 (the c-th call of that label's pool)
//   backtranslation          draw index j = the position of the text in its pool
// (the prompts of the three kinds differ, so their indices never collide), so a re-run with
// the same cache makes zero calls, and two draws within a run are never the same cached
// response. An answer that cannot be parsed, or whose label is outside S, is cached and
// counted like any other answer, then redrawn with the same draw index and attempt
// a = 1..parse_retry_limit (the attempt number is the retry namespace): a re-run replays the
// same failures and the same retries from the cache, reproduces every number and still
// makes zero calls. Embeddings are cached per text (no draw index: they are deterministic).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "llmvalidate/accounting.hpp"
#include "llmvalidate/passage.hpp"
#include "llmvalidate/pricing.hpp"
#include "llmvalidate/stats.hpp"
#include "llmvalidate/validation_config.hpp"

namespace llmv::pipeline {

struct Progress {
    std::int64_t calls_total = 0;  // chat + embedding requests the batch needs (so far known)
    std::int64_t calls_done = 0;
    std::int64_t cache_hits = 0;
    std::int64_t retries = 0;  // transport + parse retries
    std::int64_t input_tokens = 0;
    std::int64_t output_tokens = 0;
    std::size_t passages_total = 0;  // 0 while a streamed input is still being read
    std::size_t passages_done = 0;
    std::size_t passages_failed = 0;
    double elapsed_seconds = 0;
    double eta_seconds = -1;  // -1: unknown yet
};

// A warning of a run, typed so that each front end can show it in its own way.
struct RunWarning {
    // "model_retiring": before the first call, a model retiring within 60 days, with the date
    // and the vendor's replacement (the dry run's are in DryRunReport::warnings).
    // "fallback": the model refused a feature and the run switched once
    // (BatchResult::setting_changes; the text is also in BatchResult::warnings).
    // "cannot_decide": before the first call, a test that cannot reach its decision at this
    // alpha and size (size_warnings()): every verdict of the run will be "inconclusive".
    std::string kind;
    std::string text;
};

struct BatchCallbacks {
    // Called from the calling thread, at most every `progress_interval_seconds` and once at the
    // end.
    std::function<void(const Progress&)> on_progress;
    double progress_interval_seconds = 0.2;
    // Each passage as soon as it is finished (completion order, see PassageResult::index).
    std::function<void(const PassageResult&)> on_passage;
    // A warning, from the calling thread, when it arises; every front end shows it as its
    // warnings (R: a condition of class llmvalidate_warning_<kind>).
    std::function<void(const RunWarning&)> on_warning;
    // Set to true from any thread (R interrupt, Stata Break, SIGINT): requests in flight are
    // abandoned, nothing half-written reaches the cache, unfinished passages are reported with
    // error_code llmv.cancelled, and a re-run resumes from the cache with zero repeated calls.
    std::atomic<bool>* cancel = nullptr;
};

struct BatchSummary {
    stats::PassageSummary summary;  // Table 9 (and Table 10 when human labels are given)
    std::vector<std::string> ids;   // passages with a verdict, in input order
    std::vector<double> p_values;   // validation p-values, input order
    std::vector<double> p_bh;       // Benjamini-Hochberg adjusted
    std::size_t n_passages = 0;
    std::size_t n_failed = 0;
    std::size_t n_valid = 0, n_invalid = 0, n_inconclusive = 0;
};

// A setting the run changed on its way, after the model refused what it asked for: the
// setting's engine name, its value before and after, and why.
struct SettingChange {
    std::string setting;
    std::string from;
    std::string to;
    std::string reason;
};

struct BatchResult {
    std::vector<PassageResult> passages;  // input order; empty when keep_results = false
    BatchSummary summary;
    CallCounts calls;   // totals
    Progress progress;  // final
    bool cancelled = false;
    bool synthetic = false;
    // Answers the cache could not take (another process held its file's lock through every
    // retry, or its disk failed) are written to this JSON-lines side file instead;
    // `llmvalidate cache --import` (R: llm_cache_import()) adds them to a cache. Empty when
    // every answer reached the cache.
    std::string unwritten_file;
    std::size_t unwritten_answers = 0;
    // Why, in words: "locked by another process (...)", "disk full (...)", "read-only (...)".
    std::string unwritten_reason = {};
    // A write failed for a reason other than a lock: no new request was sent after it, and the
    // passages not finished then failed with llmv.cache.failed. A re-run after the import
    // pays only for what is missing.
    bool cache_stopped = false;
    // Tokens per model as the providers reported them (cache hits cost nothing), and what they
    // cost at the price table's prices (synchronous APIs).
    std::map<std::string, ModelUsage> usage;
    CostEstimate cost;
    // The settings the run used differ from those it was given where the model refused one
    // (each switch once, with its warning in `warnings`).
    std::vector<SettingChange> setting_changes = {};
    std::vector<std::string> warnings = {};
};

// Pulls the next passage into `out`; returns false at the end of the input. Lets a batch read
// a 20,000-row file without holding it.
using PassageSource = std::function<bool(PassageInput& out)>;

// Every passage needs text to annotate: an empty or white-space-only passage is refused with
// llmv.input.invalid_argument, naming the passage (its id and position) and the value
// received. validate_batch(), dry_run() and read_generations() check every passage with it
// before any call, so one blank row stops the run before anything is paid for; a streamed
// batch (validate_stream) and validate_passage() fail such a row alone, with no call. The CLI, R
// and Stata reach it through these functions.
void check_passage_text(const PassageInput& passage, std::size_t index);

// One passage. Never throws for a failed passage (see PassageResult::ok).
PassageResult validate_passage(const ValidationConfig& config, const PassageInput& passage,
                               const BatchCallbacks& callbacks = {});

// Many passages, one stream of requests.
BatchResult validate_batch(const ValidationConfig& config,
                           const std::vector<PassageInput>& passages,
                           const BatchCallbacks& callbacks = {}, bool keep_results = true);
BatchResult validate_stream(const ValidationConfig& config, const PassageSource& source,
                            const BatchCallbacks& callbacks = {}, bool keep_results = false);

// Summaries over finished passages (Table 9/10, BH). Failed passages are counted, not summarised.
BatchSummary summarize(const std::vector<PassageResult>& results,
                       const std::vector<std::string>& label_set);

}  // namespace llmv::pipeline
