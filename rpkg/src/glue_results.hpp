// The engine's results as R lists, one function per result type (R/ makes the tibbles).
#pragma once

#include <Rcpp.h>

#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/pricing.hpp"
#include "llmvalidate/stats.hpp"

namespace glue {

Rcpp::List validation_to_r(const llmv::stats::ValidationResult& result);
Rcpp::List separation_to_r(const llmv::stats::SeparationResult& result);
Rcpp::List backtranslation_to_r(const llmv::stats::BacktranslationResult& result);
// The tests of one passage with the label and the options they ran with (records::TestReport).
Rcpp::List test_output_to_r(const std::string& label, const llmv::stats::TestOptions& options,
                            const llmv::stats::TestOutput& output);
Rcpp::List summary_to_r(const llmv::stats::PassageSummary& summary);
Rcpp::NumericVector counts_to_r(const llmv::pipeline::CallCounts& calls);
Rcpp::List passage_to_r(const llmv::pipeline::PassageResult& result);
// A cost estimate (pricing.hpp): its lines as columns (R makes the tibble), the totals, the
// table's path and its note.
Rcpp::List cost_to_r(const llmv::CostEstimate& cost);

}  // namespace glue
