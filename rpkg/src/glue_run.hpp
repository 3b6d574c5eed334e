// A run's sink and outcome in R's terms, shared by llmv_pipeline_run (glue_pipeline.cpp) and
// the pending batch's collection (glue_pending.cpp).
#pragma once

#include <Rcpp.h>

#include <atomic>
#include <vector>

#include "llmvalidate/pipeline.hpp"

namespace glue {

// Progress to the R function `progress` (NULL: none), warnings to run_warning(), the batch API's
// lines to batch_status(), R's interrupt to `cancel`. The caller keeps an
// llmv::ScopedInterruptCheck alive while the run goes.
// `warnings`: when given, every warning is kept there too (for the run document).
llmv::pipeline::RunSink r_run_sink(std::atomic<bool>& cancel, SEXP progress,
                                   std::vector<llmv::pipeline::RunWarning>* warnings = nullptr);

// The outcome as llm_validate() reads it: the dry run's report, a waiting run's handle (JSON),
// or the rows, totals and the failure policy's facts, with the run document
// (llmvalidate/report.hpp) that llm_report() renders.
Rcpp::RObject outcome_to_r(const llmv::pipeline::RunOutcome& outcome,
                           const llmv::pipeline::ValidationConfig& config,
                           const std::vector<llmv::pipeline::PassageInput>& passages,
                           const std::vector<llmv::pipeline::RunWarning>& warnings);

// The audit trail read back from the cache (llm_generations()): its rows' columns, the passages
// the cache could not serve.
Rcpp::RObject generations_to_r(const llmv::pipeline::Generations& generations);

}  // namespace glue
