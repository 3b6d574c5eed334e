// The pipeline from R: a run (or its dry run), the audit trail read back from the cache, the
// power analysis, the size warnings and the row sample.
#include "glue_calls.hpp"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "glue_convert.hpp"
#include "glue_results.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/record_lists.hpp"
#include "llmvalidate/report.hpp"
#include "llmvalidate/sample.hpp"
#include "record_r.hpp"

using namespace glue;

extern "C" {

// config: list (as_config); text, id, human_label: character vectors; templates, variables:
// NULL or lists (one element a passage) of named character vectors: simulation templates by
// task name (the task's own is used, as `llmvalidate run --passages` does) and placeholder
// values (those the task accepts are used); progress: NULL or an R function(done, total)
// (called on the calling thread, errors ignored).
SEXP llmv_pipeline_run(SEXP config_, SEXP text_, SEXP id_, SEXP human_label_, SEXP templates_,
                       SEXP variables_, SEXP progress_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    return guarded([&]() -> Rcpp::RObject {
        const pipeline::ValidationConfig config = as_config(config_list);
        const std::vector<pipeline::PassageInput> passages =
            as_passages(config, text_, id_, human_label_, templates_, variables_);
        std::atomic<bool> cancel{false};
        pipeline::RunSink sink;
        sink.cancel = &cancel;
        // Every wait of the engine (batch polls, back-off) checks R's interrupt at least once a
        // second, through R_ToplevelExec (interrupt_pending()): no C++ frame is skipped.
        const llmv::ScopedInterruptCheck interrupt_check([] { return interrupt_pending(); });
        // Each warning of the run as an R warning of class llmvalidate_warning_<kind>
        // (run_warning() in R), as it arises: before the first call (no cache, a model retiring
        // soon, a size that cannot decide), and a refused feature's switch. An error one
        // becomes (options(warn = 2)) stops the run, before anything is sent.
        const Rcpp::Environment package = Rcpp::Environment::namespace_env("llmvalidate");
        const Rcpp::Function run_warning = package["run_warning"];
        std::vector<pipeline::RunWarning> warnings;  // for the run document
        sink.on_warning = [run_warning, &warnings](const pipeline::RunWarning& warning) {
            warnings.push_back(warning);
            run_warning(warning.kind, warning.text);
        };
        const bool has_progress = !Rf_isNull(progress_);
        sink.on_progress = [&](const pipeline::Progress& progress) {
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
        const pipeline::RunOutcome outcome = pipeline::run(config, passages, sink);
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
            // wait = FALSE: the batches are out; the same call collects them later.
            return Rcpp::List::create(
                Rcpp::Named("status") = status,
                Rcpp::Named("submitted") = Rcpp::wrap(outcome.batch_report->submitted),
                Rcpp::Named("batch_requests") =
                    static_cast<double>(outcome.batch_report->batch_requests));
        }
        const pipeline::BatchResult& batch = outcome.result;
        Rcpp::List results(batch.passages.size());
        for (std::size_t i = 0; i < batch.passages.size(); ++i) {
            results[i] = passage_to_r(batch.passages[i]);
        }
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
            Rcpp::Named("setting_changes") = changes,
            Rcpp::Named("run_document") = document.text());
    });
    END_RCPP
}

// text: a run document (the `run_document` of a run, or a --run-json file's text); the report's
// HTML (llmvalidate/report.hpp), the same bytes as the CLI's.
SEXP llmv_render_report(SEXP text_) {
    BEGIN_RCPP
    return guarded([&]() -> Rcpp::RObject {
        const std::string text = Rcpp::as<std::string>(text_);
        return Rcpp::wrap(
            llmv::report::render_html(llmv::report::parse_document(text, "the run document")));
    });
    END_RCPP
}

// The audit trail of a run, read back from its cache (no call): arguments as for
// llmv_pipeline_run. Columns of the rows, and the passages the cache could not serve.
SEXP llmv_generations(SEXP config_, SEXP text_, SEXP id_, SEXP templates_, SEXP variables_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    return guarded([&]() -> Rcpp::RObject {
        const pipeline::ValidationConfig config = as_config(config_list);
        const Rcpp::CharacterVector no_human(Rf_length(text_));
        const std::vector<pipeline::PassageInput> passages =
            as_passages(config, text_, id_, no_human, templates_, variables_);
        const pipeline::Generations generations = pipeline::read_generations(config, passages);
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
    });
    END_RCPP
}

// Power analysis with the simulated provider: config as for llmv_pipeline_run.
SEXP llmv_power(SEXP config_, SEXP true_label_, SEXP replications_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    const std::string true_label = Rcpp::as<std::string>(true_label_);
    const int replications = Rcpp::as<int>(replications_);
    return guarded([&]() -> Rcpp::RObject {
        pipeline::PowerConfig power;
        power.validation = as_config(config_list);
        power.true_label = true_label;
        power.replications = replications;
        std::atomic<bool> cancel{false};
        pipeline::BatchCallbacks callbacks;
        callbacks.cancel = &cancel;
        callbacks.on_progress = [&](const pipeline::Progress&) {
            if (interrupt_pending()) cancel = true;
        };
        const pipeline::PowerResult result = pipeline::estimate_power(power, callbacks);
        return Rcpp::List::create(
            Rcpp::Named("replications") = result.replications,
            Rcpp::Named("share_annotation_correct") = result.share_annotation_correct,
            Rcpp::Named("share_validation_not_rejected") = result.share_validation_not_rejected,
            Rcpp::Named("share_backtranslation_pass") = result.share_backtranslation_pass,
            Rcpp::Named("share_separation_all_pass") = result.share_separation_all_pass,
            Rcpp::Named("share_valid") = result.share_valid,
            Rcpp::Named("share_invalid") = result.share_invalid,
            Rcpp::Named("share_inconclusive") = result.share_inconclusive,
            Rcpp::Named("share_valid_given_correct") = result.share_valid_given_correct,
            Rcpp::Named("share_invalid_given_wrong") = result.share_invalid_given_wrong,
            Rcpp::Named("n_correct") = result.n_correct, Rcpp::Named("n_wrong") = result.n_wrong,
            Rcpp::Named("monte_carlo_se") = result.monte_carlo_se,
            Rcpp::Named("cancelled") = cancel.load());
    });
    END_RCPP
}

// The tests of a configuration that cannot decide at its α and size (pipeline::size_warnings).
SEXP llmv_size_warnings(SEXP config_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    return guarded([&]() -> Rcpp::RObject {
        return Rcpp::wrap(pipeline::size_warnings(as_config(config_list)));
    });
    END_RCPP
}

// The seed of a sample when none is given (sample.hpp), which llm_sample()'s default repeats.
SEXP llmv_default_sample_seed() {
    BEGIN_RCPP
    return Rcpp::wrap(static_cast<double>(llmv::default_sample_seed));
    END_RCPP
}

// The engine's reproducible row sample (sample.hpp): 1-based positions, increasing.
SEXP llmv_sample_rows(SEXP population_, SEXP n_, SEXP seed_) {
    BEGIN_RCPP
    const double population = Rcpp::as<double>(population_);
    const double n = Rcpp::as<double>(n_);
    const double seed = Rcpp::as<double>(seed_);
    return guarded([&]() -> Rcpp::RObject {
        const auto rows =
            llmv::sample_rows(static_cast<std::size_t>(population), static_cast<std::size_t>(n),
                              static_cast<std::uint64_t>(seed), "n");
        Rcpp::NumericVector out(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) out[i] = static_cast<double>(rows[i] + 1);
        return out;
    });
    END_RCPP
}

}  // extern "C"
