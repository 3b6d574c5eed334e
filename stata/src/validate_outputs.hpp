// What `llmvalidate varname` stores besides the per-passage results: the generations of
// saving() and the paper's Section 5 summary (Tables 9 to 11, the Benjamini-Hochberg p-values).
#pragma once

#include <string>
#include <vector>

#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/run.hpp"
#include "results.hpp"

namespace llmv::stata {

// saving(): every annotation and generated text of the run, as CSV for the ado-file to import.
void write_generations(const std::string& path, const pipeline::BatchResult& batch);

// The run document (llmvalidate/report.hpp) that `llmvalidate report` renders
// (command_report.cpp).
void write_run_document(const std::string& path, const pipeline::ValidationConfig& config,
                        const std::vector<pipeline::PassageInput>& inputs,
                        const pipeline::RunOutcome& outcome,
                        const std::vector<pipeline::RunWarning>& warnings);

// Section 5 of the paper over the passages validated: r(table9), r(table10), r(table10_n),
// r(table11), the p_bh column of r(results) and, with generate(), the variable <prefix>p_bh.
void add_passage_summary(Results& results, const pipeline::BatchSummary& summary, bool generate);

}  // namespace llmv::stata
