// Batch-API runs (batch_api.hpp, validate_with_batch_api). Each pass runs the pipeline over
// every passage without sending anything (run_engine with DeferredCalls): the answers the
// provider batches gave are consumed and cached as synchronous ones, and the requests still
// missing are collected. Those are submitted as the next provider batches (split at the
// vendors' caps), or, when only a few retries remain, sent synchronously; the pass is repeated
// until nothing is missing, and the last run reads every answer from the cache.
//
// Nothing is paid twice:
//   - Before a batch is created its intent (the uploaded file, the custom ids, the phase) is
//     recorded in the cache file; the batch's id is recorded as soon as the provider gives it.
//     A run stopped between the two (kill -9 right after "created") finds the batch again on
//     resume through the vendor's list endpoint (OpenAI: its input file and metadata;
//     Anthropic: its size and creation time, then its results' custom ids) and reads it back
//     instead of submitting again.
//   - A batch's results are read until whole: a download cut short is read again. Each line
//     is checked against the custom ids submitted; a line still missing from a whole file is
//     asked again alone, once (a second time is an error, not a loop).
//   - Every wait (polls, re-reads, the transport's back-off) looks at the front end's
//     interrupt check (llmvalidate/interrupt.hpp); after an interrupt no batch is submitted,
//     and the run ends with llmv.cancelled; the same command resumes.
#include "pipeline/batch_runner.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/resolution.hpp"
#include "pipeline/debug_env.hpp"

namespace llmv::pipeline {

using nlohmann::json;

namespace {

// The bytes of one provider batch the run builds (its lines and the upload or request body are
// held in memory while it is submitted): below the vendors' caps (200 MB, 256 MB), so that a
// run's memory does not grow with the corpus. A larger corpus makes more batches, submitted
// together: the same round trips.
constexpr std::size_t held_batch_bytes = 8'000'000;

}  // namespace

BatchRunner::BatchRunner(const ValidationConfig& config, const std::vector<PassageInput>& passages,
                         const BatchCallbacks& callbacks, const BatchApiOptions& options,
                         BatchApiReport& report)
    : config_(config),
      passages_(passages),
      callbacks_(callbacks),
      options_(options),
      report_(report) {
    if (config_.cache_path.empty() || config_.cache_path == ":memory:") {
        throw_invalid(code::invalid_argument, "cache",
                      config_.cache_path.empty() ? "none" : config_.cache_path,
                      "a cache file: a batch-API run keeps its batches' ids and answers there, "
                      "and resumes from them");
    }
    const ResolvedProviders resolved = resolve_providers(config_);
    if (resolved.synthetic_chat || !has_batch_api(resolved.chat_provider)) {
        // Why the others have none, as their specs say.
        std::string why;
        for (const ProviderDefaults& row : provider_defaults()) {
            if (row.kind == "chat" && !row.no_batch_api.empty()) why += row.no_batch_api + "; ";
        }
        throw_invalid(
            code::invalid_argument, "batch_api", "the chat provider " + resolved.chat_provider,
            "used only with a chat provider that has a batch API: " + batch_api_provider_names() +
                " (" + why + "the simulated provider needs none)");
    }
    // The run's own providers (open_providers(), as the scheduler and the dry run).
    providers_ = open_providers(config_, resolved, {}, "");
    chat_ = providers_.chat.get();
    embedder_ = providers_.embedder.get();
    chat_model_ = providers_.resolved.chat_model;
    if (embedder_) embedding_model_ = providers_.resolved.embedding_model;
    prepare_cache_directory(config_.cache_path);
    registry_cache_ = std::make_unique<Cache>(config_.cache_path, config_.cache_busy_timeout_ms);
    registry_ = std::make_unique<BatchLedger>(*registry_cache_);
    // The phase's staged answers and pending requests: a file of the run's own beside the
    // cache, so that the cache keeps only answers (nothing in it is needed by a later run).
    // Files a killed run left (its work file, its downloads) go first; a run still going
    // on this cache keeps its own (the process id in the name).
    remove_files_of_ended_runs(config_.cache_path, {".batch-work-", ".download-"});
    work_path_ = config_.cache_path + ".batch-work-" + run_token_;
    work_cache_ = std::make_unique<Cache>(work_path_, config_.cache_busy_timeout_ms);
    work_ = std::make_unique<BatchLedger>(*work_cache_);
}

BatchRunner::~BatchRunner() {
    work_.reset();
    work_cache_.reset();
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::remove((work_path_ + suffix).c_str());
}

BatchResult BatchRunner::run(bool keep_results) {
    warn_before_first_call(config_, providers_, callbacks_);  // before the first batch
    try {
        return run_phases(keep_results);
    } catch (const Error& error) {
        // A failure (not an interrupt, which should end at once) still gives the rows of
        // the passages whose answers are all in the cache, as a synchronous run writes
        // each passage when it is done.
        if (error.code() != code::cancelled) write_finished_rows();
        throw;
    }
}

BatchResult BatchRunner::run_phases(bool keep_results) {
    load_missing_before();
    // The work file is the run's own; emptied here all the same (a pass may start again).
    work_->clear_batch_staged();
    work_->clear_batch_pending();
    for (int pass = 1; pass <= 1000; ++pass) {
        check_cancel("before the provider batches were read back");
        resolve_intents();
        const bool waiting = read_back_submitted();
        if (waiting) {  // submit_only: a batch is still out
            report_.waiting = true;
            return BatchResult();
        }
        DeferredCalls deferred = deferred_calls();
        ++report_.phases;
        const BatchResult pass_result = run_pass(deferred);
        flush_pending();
        // Interrupted while the answers were cached: the batches stay "submitted", and a
        // resume reads them again (no request is sent again).
        check_cancel("while the batches' answers were cached");
        for (const auto& [model, usage] : pass_result.usage) usage_[model] += usage;
        for (const auto& [id, request] : fetched_)
            registry_->set_provider_batch_state(id, "done", request);
        fetched_.clear();
        work_->clear_batch_staged();
        const std::uint64_t chat_missing = work_->count_batch_pending("chat");
        const std::uint64_t texts_missing = work_->count_batch_pending("embedding");
        if (chat_missing == 0 && texts_missing == 0) break;
        debug_kill_point("between_phases");
        check_cancel("before the next provider batch was submitted");
        status("phase " + std::to_string(report_.phases) + ": " + std::to_string(chat_missing) +
               (chat_missing == 1 ? " chat request and " : " chat requests and ") +
               std::to_string(texts_missing) +
               (texts_missing == 1 ? " text to embed" : " texts to embed"));
        if (only_few_retries(chat_missing, texts_missing)) {
            send_synchronously();
            work_->clear_batch_pending();
            continue;
        }
        submit();
        work_->clear_batch_pending();
        if (options_.submit_only) {
            report_.waiting = true;
            status(
                "submitted; a re-run with the same settings and cache collects the answers and "
                "goes on");
            return BatchResult();
        }
    }
    // Everything is in the cache: the run reads it (no call).
    BatchResult result = validate_batch(config_, passages_, callbacks_, keep_results);
    // What the batches' answers counted, priced (cost.batch_dollars is what was paid).
    for (const auto& [model, usage] : usage_) result.usage[model] += usage;
    const ResolvedProviders& resolved = providers_.resolved;
    const auto table = price_table_for(config_.price_table);
    result.cost =
        cost_of_usage(result.usage, table.get(), resolved.chat_provider, resolved.chat_model,
                      resolved.embedding_provider, resolved.embedding_model);
    result.cost.paid_through = "batch";
    return result;
}

void BatchRunner::write_finished_rows() {
    if (!callbacks_.on_passage) return;
    std::size_t written = 0;
    BatchCallbacks rows;
    rows.cancel = callbacks_.cancel;
    rows.on_passage = [&](const PassageResult& result) {
        ++written;
        callbacks_.on_passage(result);
    };
    try {
        DeferredCalls deferred;
        run_pass(deferred, rows);
    } catch (const std::exception&) {
        // The run's own failure is the one to report; these rows are a courtesy.
    }
    status("the run failed: the " + std::to_string(written) + " of " +
           std::to_string(passages_.size()) +
           " passages whose answers were all received are written; a re-run with the same "
           "settings and cache resumes the others");
}

void BatchRunner::check_cancel(const std::string& when) const {
    if (!cancelled()) return;
    throw Error(code::cancelled, "cancelled " + when +
                                     "; every answer received is in the cache, and the same "
                                     "command resumes without submitting anything twice");
}

void BatchRunner::status(const std::string& line) {
    if (options_.on_status) options_.on_status(line);
}

BatchCaps BatchRunner::caps_for(const BatchApi& api) const {
    BatchCaps caps = api.caps();
    const DebugBatchCaps debug = debug_batch_caps();
    const auto lower = [](std::size_t& cap, std::size_t wanted) {
        if (wanted > 0 && (cap == 0 || wanted < cap)) cap = wanted;
    };
    lower(caps.bytes, held_batch_bytes);
    lower(caps.requests, options_.max_requests_per_batch);
    lower(caps.requests, debug.requests);
    lower(caps.embedding_inputs, options_.max_embedding_inputs_per_batch);
    lower(caps.embedding_inputs, debug.embedding_inputs);
    lower(caps.bytes, options_.max_bytes_per_batch);
    lower(caps.bytes, debug.bytes);
    return caps;
}

BatchResult BatchRunner::run_pass(DeferredCalls& deferred, const BatchCallbacks& callbacks) {
    std::size_t next = 0;
    const PassageSource source = [&](PassageInput& out) {
        if (next >= passages_.size()) return false;
        out = passages_[next++];
        return true;
    };
    return run_engine(config_, source, callbacks, false, passages_.size(), &deferred);
}

BatchResult validate_with_batch_api(const ValidationConfig& config,
                                    const std::vector<PassageInput>& passages,
                                    const BatchCallbacks& callbacks, const BatchApiOptions& options,
                                    BatchApiReport* report, bool keep_results) {
    check_config(config);
    for (std::size_t i = 0; i < passages.size(); ++i) check_passage_text(passages[i], i);
    BatchApiReport local;
    BatchRunner runner(config, passages, callbacks, options, report ? *report : local);
    return runner.run(keep_results);
}

}  // namespace llmv::pipeline
