// A run's sink and outcome in R's terms (glue_run.hpp).
#include "glue_run.hpp"

#include <string>
#include <vector>

#include "glue_convert.hpp"
#include "glue_results.hpp"

namespace glue {

namespace pipeline = llmv::pipeline;

pipeline::RunSink r_run_sink(std::atomic<bool>& cancel, SEXP progress_) {
    pipeline::RunSink sink;
    sink.cancel = &cancel;
    // Each warning of the run as an R warning of class llmvalidate_warning_<kind>
    // (run_warning() in R), as it arises: before the first call (no cache, a model retiring
    // soon, a size that cannot decide), and a refused feature's switch. An error one
    // becomes (options(warn = 2)) stops the run, before anything is sent.
    const Rcpp::Environment package = Rcpp::Environment::namespace_env("llmvalidate");
    const Rcpp::Function run_warning = package["run_warning"];
    sink.on_warning = [run_warning](const pipeline::RunWarning& warning) {
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

Rcpp::RObject outcome_to_r(const pipeline::RunOutcome& outcome) {
    const std::string status = pipeline::status_name(outcome.status);
    if (outcome.estimate) {
        const pipeline::DryRunReport& report = *outcome.estimate;
        return Rcpp::List::create(
            Rcpp::Named("status") = status,
            Rcpp::Named("passages") = static_cast<double>(report.passages),
            Rcpp::Named("providers") = report.providers,
            Rcpp::Named("calls") = counts_to_r(report.calls),
            Rcpp::Named("cached_calls") = static_cast<double>(report.cached_calls),
            Rcpp::Named("to_make") = Rcpp::NumericVector::create(
                Rcpp::Named("chat_calls") = static_cast<double>(report.chat_calls_to_make),
                Rcpp::Named("shared_calls") = static_cast<double>(report.calls.shared),
                Rcpp::Named("texts_to_embed") = static_cast<double>(report.texts_to_embed),
                Rcpp::Named("cached_texts") = static_cast<double>(report.cached_embedded_texts),
                Rcpp::Named("shared_texts") = static_cast<double>(report.shared_embedded_texts)),
            Rcpp::Named("estimated_input_tokens") =
                static_cast<double>(report.estimated_input_tokens),
            Rcpp::Named("estimated_output_tokens") =
                static_cast<double>(report.estimated_output_tokens),
            Rcpp::Named("estimated_embedding_tokens") =
                static_cast<double>(report.estimated_embedding_tokens),
            Rcpp::Named("cost") = cost_to_r(report.cost), Rcpp::Named("note") = report.note,
            Rcpp::Named("warnings") = Rcpp::wrap(report.warnings));
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
        Rcpp::Named("setting_changes") = changes);
}

Rcpp::RObject generations_to_r(const pipeline::Generations& generations) {
    const std::size_t rows = generations.rows.size();
    Rcpp::CharacterVector id(rows), kind(rows), label(rows), text(rows), answer(rows), model(rows),
        prompt_hash(rows);
    Rcpp::IntegerVector draw(rows);
    for (std::size_t i = 0; i < rows; ++i) {
        const pipeline::GenerationRow& row = generations.rows[i];
        id[i] = row.passage_id;
        kind[i] = row.kind;
        label[i] = row.label.empty() ? Rcpp::String(NA_STRING) : Rcpp::String(row.label);
        draw[i] = row.draw + 1;
        text[i] = row.text;
        answer[i] = row.answer.empty() ? Rcpp::String(NA_STRING) : Rcpp::String(row.answer);
        model[i] = row.model;
        prompt_hash[i] = row.prompt_hash;
    }
    Rcpp::CharacterVector failed_id(generations.failed.size());
    Rcpp::CharacterVector failed_message(generations.failed.size());
    for (std::size_t i = 0; i < generations.failed.size(); ++i) {
        failed_id[i] = generations.failed[i].id;
        failed_message[i] = generations.failed[i].error_message;
    }
    return Rcpp::List::create(
        Rcpp::Named("rows") = Rcpp::List::create(
            Rcpp::Named("id") = id, Rcpp::Named("kind") = kind, Rcpp::Named("label") = label,
            Rcpp::Named("draw") = draw, Rcpp::Named("text") = text,
            Rcpp::Named("backtranslated") = answer, Rcpp::Named("model") = model,
            Rcpp::Named("prompt_hash") = prompt_hash),
        Rcpp::Named("failed_id") = failed_id, Rcpp::Named("failed_message") = failed_message,
        Rcpp::Named("synthetic") = generations.synthetic);
}

}  // namespace glue
