// pipeline::run (llmvalidate/run.hpp): the one place that chooses a run's route, says what
// comes before the first call, and classifies how the run ended.
#include "llmvalidate/run.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "pipeline/batches_out.hpp"
#include "pipeline/side_files.hpp"

namespace llmv::pipeline {

const char* status_name(RunStatus status) {
    switch (status) {
        case RunStatus::estimated:
            return "estimated";
        case RunStatus::waiting:
            return "waiting";
        case RunStatus::cancelled:
            return "cancelled";
        case RunStatus::failed:
            return "failed";
        case RunStatus::partial:
            return "partial";
        case RunStatus::complete:
            return "complete";
    }
    return "complete";
}

namespace {

// The failure policy's facts, gathered row by row so that a streamed run (rows not kept) is
// classified as one whose rows are kept.
class FailureTally {
  public:
    void add(const PassageResult& row) {
        ++passages_;
        if (row.ok || row.error_code == code::cancelled) return;
        ++failed_;
        if (!first_ || row.index < first_->index) {
            if (first_ && first_->code != row.error_code) mixed_ = true;
            first_ =
                PassageFailure{row.index, row.id, row.error_code, row.error_message, row.error};
        } else if (row.error_code != first_->code) {
            mixed_ = true;
        }
    }
    void fill(RunOutcome& outcome) const {
        outcome.passages = passages_;
        outcome.failed = failed_;
        outcome.first_failure = first_;
        outcome.same_cause = first_.has_value() && !mixed_;
    }

  private:
    std::size_t passages_ = 0;
    std::size_t failed_ = 0;
    bool mixed_ = false;
    std::optional<PassageFailure> first_;
};

void warn(const RunSink& sink, const char* kind, const std::string& text) {
    if (sink.on_warning && !text.empty()) sink.on_warning({kind, text});
}

// The answers an earlier run paid for but could not write to this cache (its side files) go in
// before anything is asked, on every route, and the run says so: else a plain re-run after a
// locked cache and a Ctrl-C pays for them again (issue 41). Its warnings are of kind
// "side_file": added (how many, how many new, from where), or not yet and why.
void import_leftovers(const ValidationConfig& config, const RunSink& sink) {
    for (const SideFileImport& import :
         import_side_files(config.cache_path, config.cache_busy_timeout_ms, sink.cancel)) {
        if (import.error.empty()) {
            warn(sink, "side_file",
                 "added " + std::to_string(import.answers) + " answers (" +
                     std::to_string(import.added) + " new) to the cache " + config.cache_path +
                     " from " + import.path +
                     ", where an earlier run left what it could not write; none is paid for "
                     "again, and the file is removed");
        } else {
            warn(sink, "side_file",
                 "the side file " + import.path + " holds answers an earlier run could not write "
                 "to the cache " + config.cache_path + ", and it could not be added now (" +
                 import.error + "); its answers are asked again unless it is imported first");
        }
    }
}

// This run's batches out are collected through the batch API, not paid for again.
void refuse_batches_out(const ValidationConfig& config, const std::vector<PassageInput>& rows) {
    const std::vector<std::string> ids = batches_out_of_run(config, rows);
    if (ids.empty()) return;
    std::string listed;
    for (const std::string& id : ids) listed += (listed.empty() ? "" : ", ") + id;
    ErrorSubject subject;
    subject.setting = "batch_api";
    subject.received = subject.received_value = "false";
    subject.allowed = "true while this run's provider batches are out (" + listed +
                      ", in the cache " + config.cache_path +
                      "): through the batch API the same run collects their answers, paid for "
                      "already, and asks only for what is missing";
    throw Error(code::invalid_argument, std::move(subject));
}

// Only a batch can be collected later: waiting for nothing is a setting out of its range.
void check_route(const ValidationConfig& config) {
    if (config.wait || config.batch_api) return;
    ErrorSubject subject;
    subject.setting = "wait";
    subject.received = subject.received_value = "false";
    subject.allowed =
        "true unless the run goes through the batch API: only provider batches can be "
        "collected later";
    throw Error(code::invalid_argument, std::move(subject));
}

RunOutcome estimate(const ValidationConfig& config, const std::vector<PassageInput>& rows,
                    const RunSink& sink) {
    RunOutcome outcome;
    outcome.status = RunStatus::estimated;
    // A row the reader could not read costs nothing: named, and left out of the count.
    std::vector<PassageInput> readable;
    bool skipped = false;
    for (const PassageInput& row : rows) {
        if (row.input_error.empty()) continue;
        skipped = true;
        warn(sink, "row_skipped", row.input_error + " (not counted)");
    }
    if (skipped)
        for (const PassageInput& row : rows)
            if (row.input_error.empty()) readable.push_back(row);
    outcome.estimate = dry_run(config, skipped ? readable : rows);
    // The report's warnings, by kind: the cache's was said before the route was chosen.
    const std::vector<std::string> sizes = size_warnings(config);
    const std::string no_cache = cache_warning(config);
    for (const std::string& text : outcome.estimate->warnings) {
        if (text == no_cache) continue;
        const bool size = std::find(sizes.begin(), sizes.end(), text) != sizes.end();
        warn(sink, size ? "cannot_decide" : "model_retiring", text);
    }
    return outcome;
}

RunOutcome run_route(const ValidationConfig& config, const std::vector<PassageInput>* given,
                     const PassageSource* source, const RunSink& sink, const RunOptions& options) {
    check_config(config);
    check_route(config);
    std::vector<PassageInput> read;
    const auto all_rows = [&]() -> const std::vector<PassageInput>& {
        if (given) return *given;
        PassageInput row;
        while ((*source)(row)) read.push_back(std::move(row));
        return read;
    };
    // Before anything is paid for (the dry run says it too: it is what the run would do). A
    // batch-API run without a cache is refused instead (validate_with_batch_api).
    if (!config.batch_api || config.dry_run) warn(sink, "no_cache", cache_warning(config));
    if (config.dry_run) return estimate(config, all_rows(), sink);
    import_leftovers(config, sink);

    // Provider batches of this very run still out in the cache (a batch-API run interrupted,
    // or with `wait` off): a synchronous run would pay for their answers again. Only when the
    // cache holds some are the rows read first, to tell this run's from another's.
    const std::vector<PassageInput>* rows_read = given;
    if (!config.batch_api && cache_has_batches_out(config)) {
        rows_read = &all_rows();
        refuse_batches_out(config, *rows_read);
    }

    FailureTally tally;
    BatchCallbacks callbacks = sink;
    callbacks.on_passage = [&tally, &sink](const PassageResult& row) {
        tally.add(row);
        if (sink.on_passage) sink.on_passage(row);
    };
    RunOutcome outcome;
    if (config.batch_api) {
        BatchApiOptions batch = options.batch_limits;
        batch.submit_only = !config.wait;
        batch.on_status = sink.on_status;
        BatchApiReport report;
        const std::vector<PassageInput>& rows = all_rows();
        outcome.result =
            validate_with_batch_api(config, rows, callbacks, batch, &report, options.keep_results);
        outcome.batch_report = report;
        if (report.waiting) {
            outcome.status = RunStatus::waiting;
            outcome.pending = pending_batch(config, rows);
            return outcome;
        }
    } else if (rows_read) {
        outcome.result = validate_batch(config, *rows_read, callbacks, options.keep_results);
    } else {
        outcome.result = validate_stream(config, *source, callbacks, options.keep_results);
    }
    tally.fill(outcome);
    if (sink.cancel && sink.cancel->load()) outcome.result.cancelled = true;
    if (outcome.result.cancelled)
        outcome.status = RunStatus::cancelled;
    else if (outcome.failed > 0 && outcome.failed == outcome.passages)
        outcome.status = RunStatus::failed;
    else if (outcome.failed > 0)
        outcome.status = RunStatus::partial;
    else
        outcome.status = RunStatus::complete;
    return outcome;
}

}  // namespace

RunOutcome run(const ValidationConfig& config, const std::vector<PassageInput>& passages,
               const RunSink& sink, const RunOptions& options) {
    return run_route(config, &passages, nullptr, sink, options);
}

RunOutcome run(const ValidationConfig& config, const PassageSource& source, const RunSink& sink,
               const RunOptions& options) {
    return run_route(config, nullptr, &source, sink, options);
}

RunOutcome collect(PendingBatch handle, bool wait, const RunSink& sink, const RunOptions& options) {
    handle.config.dry_run = false;
    handle.config.batch_api = true;
    handle.config.wait = wait;
    return run_route(handle.config, &handle.passages, nullptr, sink, options);
}

}  // namespace llmv::pipeline
