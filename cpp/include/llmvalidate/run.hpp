// One run, decided in the engine: the entry point every front end calls.
//
// run() takes the resolved settings and the passages, and chooses the route from the settings
// alone: the dry run (ValidationConfig::dry_run: nothing is called), the vendor's batch API
// (batch_api, and with wait = false a submission that returns at once) or synchronous
// requests. It says what a user should know before the first call (no cache, a model
// retiring, a size that cannot decide) as typed warnings, streams progress, rows (in input
// order) and batch status to the sink, applies the failure policy and returns one outcome.
// A front end parses its inputs, supplies a sink and renders the outcome; it never branches on
// the route itself.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "llmvalidate/batch_api.hpp"
#include "llmvalidate/dry_run.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pending.hpp"
#include "llmvalidate/validate.hpp"
#include "llmvalidate/validation_config.hpp"

namespace llmv::pipeline {

// Where a run's events go. The callbacks of BatchCallbacks (progress, each row as it is done,
// in input order; warnings as they arise; the cancellation flag), and the batch API's status
// lines (one per phase and state). Warnings' kinds (RunWarning::kind):
//   "no_cache"        a run that pays for answers and keeps them nowhere (before the first call)
//   "model_retiring"  a model retiring within 60 days (before the first call)
//   "cannot_decide"   a test that cannot decide at this alpha and size (before the first call,
//                     and in the dry run)
//   "fallback"        a refused feature the run switched from, once
//   "row_skipped"     the dry run: a row that could not be read, left out of the count
struct RunSink : BatchCallbacks {
    std::function<void(const std::string&)> on_status;
};

// What the engine may be told besides the settings: whether the rows are kept in the outcome
// (false: only streamed to the sink, for corpora larger than memory), and the batch API's caps
// (tests split small runs with them; run() sets their submit_only and on_status itself).
struct RunOptions {
    bool keep_results = true;
    BatchApiOptions batch_limits = {};
};

// How the run ended, in the order a front end reports it.
enum class RunStatus {
    estimated,  // the dry run: nothing was called; RunOutcome::estimate
    waiting,    // wait = false: provider batches are still out; RunOutcome::pending is the
                // handle that collect() goes on from (running the same again does too)
    cancelled,  // interrupted: the rows done are complete, a re-run resumes from the cache
    failed,     // every passage failed (RunOutcome::first_failure says why)
    partial,    // some passages failed, the others have verdicts
    complete,   // every passage has a verdict
};
const char* status_name(RunStatus status);

// The first failed passage (lowest input position), as a front end names it.
struct PassageFailure {
    std::size_t index = 0;
    std::string id;
    std::string code;
    std::string message;                 // the engine's words (PassageResult::error_message)
    std::shared_ptr<const Error> error;  // its fields, for a front end's own spelling
};

struct RunOutcome {
    RunStatus status = RunStatus::complete;
    std::optional<DryRunReport> estimate;        // the dry run's counts and cost
    BatchResult result;                          // rows (keep_results), totals, cost, side file
    std::optional<BatchApiReport> batch_report;  // the batch API's traffic, when it was the route
    std::size_t passages = 0;                    // rows finished (a failed row counts)
    std::size_t failed = 0;                      // of which failed, cancellations apart
    std::optional<PassageFailure> first_failure;
    bool same_cause = false;  // every failure has first_failure's code
    // waiting: the pending batch's handle (llmvalidate/pending.hpp), for save_pending() and
    // collect().
    std::optional<PendingBatch> pending;
};

// Throws llmv::Error for a bad setting or input before any call (as check_config and the
// route's own checks do); a passage that fails is a row of the outcome, never an exception.
RunOutcome run(const ValidationConfig& config, const std::vector<PassageInput>& passages,
               const RunSink& sink, const RunOptions& options = {});
// The same, reading the passages from `source` as the run goes (the synchronous route holds
// only the passages in flight; the dry run and the batch API read every row first).
RunOutcome run(const ValidationConfig& config, const PassageSource& source, const RunSink& sink,
               const RunOptions& options = {});

// Goes on with a pending batch-API run from its handle (RunOutcome::pending, or a file read
// with load_pending()): the same run again through the batch API, polling the batches out once
// (`wait` false: a waiting outcome with a fresh handle while one is still out) or until they
// are done. Nothing is submitted twice (the cache's batch ledger), and a run whose answers are
// all in the cache reads them free. The keys are read as for any run (the handle holds none):
// a front end that was given one sets it in `handle.config` first, as it sets messages_for.
RunOutcome collect(PendingBatch handle, bool wait, const RunSink& sink,
                   const RunOptions& options = {});

}  // namespace llmv::pipeline
