// The pipeline from R: a run (or its dry run), the audit trail read back from the cache, the
// power analysis, the size warnings and the row sample.
#include "glue_calls.hpp"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "glue_convert.hpp"
#include "glue_results.hpp"
#include "glue_run.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/report.hpp"
#include "llmvalidate/sample.hpp"

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
        // Every wait of the engine (batch polls, back-off) checks R's interrupt at least once a
        // second, through R_ToplevelExec (interrupt_pending()): no C++ frame is skipped.
        const llmv::ScopedInterruptCheck interrupt_check([] { return interrupt_pending(); });
        std::vector<pipeline::RunWarning> warnings;  // for the run document
        const pipeline::RunSink sink = r_run_sink(cancel, progress_, &warnings);
        return outcome_to_r(pipeline::run(config, passages, sink), config, passages, warnings);
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
        return generations_to_r(pipeline::read_generations(config, passages));
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
