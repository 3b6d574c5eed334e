// A run's sink and outcome in R's terms (glue_run.hpp).
#include "glue_run.hpp"

#include <string>
#include <vector>

#include "glue_convert.hpp"
#include "glue_results.hpp"
#include "llmvalidate/record_lists.hpp"
#include "llmvalidate/report.hpp"
#include "record_r.hpp"

namespace glue {

namespace pipeline = llmv::pipeline;

pipeline::RunSink r_run_sink(std::atomic<bool>& cancel, SEXP progress_,
                             std::vector<pipeline::RunWarning>* warnings) {
    pipeline::RunSink sink;
    sink.cancel = &cancel;
    // Each warning of the run as an R warning of class llmvalidate_warning_<kind>
    // (run_warning() in R), as it arises: before the first call (no cache, a model retiring
    // soon, a size that cannot decide), and a refused feature's switch. An error one
    // becomes (options(warn = 2)) stops the run, before anything is sent.
    const Rcpp::Environment package = Rcpp::Environment::namespace_env("llmvalidate");
    const Rcpp::Function run_warning = package["run_warning"];
    sink.on_warning = [run_warning, warnings](const pipeline::RunWarning& warning) {
        if (warnings) warnings->push_back(warning);
        run_warning(warning.kind, warning.text);
    };
    const bool has_progress = !Rf_isNull(progress_);
    sink.on_progress = [&cancel, has_progress, progress_](const pipeline::Progress& progress) {
        if (interrupt_pending()) cancel = true;
        if (!has_progress || cancel) return;
        try {
            Rcpp::Function update(progress_);
            update(static_cast<double>(progress.calls_done),
                   static_cast<double>(progress.calls_total),
                   static_cast<double>(progress.cache_hits));
        } catch (const Rcpp::internal::InterruptedException&) {
            // Ctrl-C while the progress bar's R code ran: Rcpp caught the interrupt.
            cancel = true;
        } catch (...) {
            // A failing progress bar must not lose the run.
        }
    };
    // The batch API's lines through cli (R's batch_status()): a classed message that
    // suppressMessages() silences and knitr keeps out of the document's output.
    const Rcpp::Function batch_status = package["batch_status"];
    sink.on_status = [batch_status](const std::string& line) {
        try {
            batch_status(line);
        } catch (...) {
            // A failing message must not lose the batches.
        }
    };
    return sink;
}

Rcpp::RObject outcome_to_r(const pipeline::RunOutcome& outcome,
                           const pipeline::ValidationConfig& config,
                           const std::vector<pipeline::PassageInput>& passages,
                           const std::vector<pipeline::RunWarning>& warnings) {
    const std::string status = pipeline::status_name(outcome.status);
    if (outcome.estimate) {
        // The report's one field list (record_lists.hpp), its status and its cost.
        const pipeline::DryRunReport& report = *outcome.estimate;
        Rcpp::List estimate = llmv::records::to_r(report);
        estimate["status"] = status;
        estimate["cost"] = cost_to_r(report.cost);
        return estimate;
    }
    if (outcome.status == pipeline::RunStatus::waiting) {
        // wait = FALSE: the batches are out; the handle (JSON) collects them later.
        return Rcpp::List::create(
            Rcpp::Named("status") = status,
            Rcpp::Named("submitted") = Rcpp::wrap(outcome.batch_report->submitted),
            Rcpp::Named("batch_requests") =
                static_cast<double>(outcome.batch_report->batch_requests),
            Rcpp::Named("handle") = pipeline::pending_to_json(*outcome.pending));
    }
    const pipeline::BatchResult& batch = outcome.result;
    Rcpp::List results(batch.passages.size());
    for (std::size_t i = 0; i < batch.passages.size(); ++i) {
        results[i] = passage_to_r(batch.passages[i]);
    }
    // The settings the run switched after a refusal (engine name -> value used).
    std::vector<std::string> change_names, change_values;
    for (const pipeline::SettingChange& change : batch.setting_changes) {
        change_names.push_back(change.setting);
        change_values.push_back(change.to);
    }
    Rcpp::CharacterVector changes = Rcpp::wrap(change_values);
    changes.attr("names") = Rcpp::wrap(change_names);
    // The run document (llmvalidate/report.hpp) that llm_report() renders: the same as the
    // CLI's --run-json for the same run.
    llmv::report::RunContext context;
    context.synthetic = batch.synthetic;
    context.warnings = warnings;
    for (const auto& passage : passages)
        if (!passage.human_label.empty()) context.human_label_column = "human";
    llmv::report::RunDocument document(config, context);
    llmv::report::ColumnInfo info;
    for (const auto& passage : passages) info.texts.push_back(passage.text);
    document.begin_column(config, std::move(info));
    for (const auto& passage : batch.passages) document.add_passage(passage);
    document.end_column(outcome);
    // The failure policy's facts (pipeline::run): R's errors and warnings render them.
    const pipeline::PassageFailure* first =
        outcome.first_failure ? &*outcome.first_failure : nullptr;
    return Rcpp::List::create(
        Rcpp::Named("status") = status, Rcpp::Named("passages") = results,
        Rcpp::Named("calls") = counts_to_r(batch.calls),
        Rcpp::Named("failed") = static_cast<double>(outcome.failed),
        Rcpp::Named("same_cause") = outcome.same_cause,
        Rcpp::Named("first_error_code") = first ? first->code : "",
        Rcpp::Named("first_error_message") = first ? first->message : "",
        Rcpp::Named("cancelled") = outcome.status == pipeline::RunStatus::cancelled,
        Rcpp::Named("synthetic") = batch.synthetic,
        Rcpp::Named("unwritten_file") = batch.unwritten_file,
        Rcpp::Named("unwritten_answers") = static_cast<double>(batch.unwritten_answers),
        Rcpp::Named("unwritten_reason") = batch.unwritten_reason,
        Rcpp::Named("cache_stopped") = batch.cache_stopped,
        Rcpp::Named("cost") = cost_to_r(batch.cost),
        Rcpp::Named("warnings") = Rcpp::wrap(batch.warnings),
        Rcpp::Named("setting_changes") = changes,
        Rcpp::Named("run_document") = document.text());
}

Rcpp::RObject generations_to_r(const pipeline::Generations& generations) {
    Rcpp::CharacterVector failed_id(generations.failed.size());
    Rcpp::CharacterVector failed_message(generations.failed.size());
    for (std::size_t i = 0; i < generations.failed.size(); ++i) {
        failed_id[i] = generations.failed[i].id;
        failed_message[i] = generations.failed[i].error_message;
    }
    return Rcpp::List::create(
        // The rows' columns from their one field list (record_lists.hpp).
        Rcpp::Named("rows") = llmv::records::to_r_columns(generations.rows),
        Rcpp::Named("failed_id") = failed_id, Rcpp::Named("failed_message") = failed_message,
        Rcpp::Named("synthetic") = generations.synthetic);
}

}  // namespace glue
