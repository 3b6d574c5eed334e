// The text reports of the pipeline commands: one passage, Table 1, the Table 9/10 summary,
// the dry run, the cost and the call counts.
#pragma once

#include <string>
#include <vector>

#include "llmvalidate/pipeline.hpp"

namespace llmv::cli {

std::string format_passage_report(const pipeline::PassageResult& result);
std::string format_table1(const std::vector<pipeline::PassageResult>& results,
                          const std::vector<std::string>& titles);
std::string format_summary(const pipeline::BatchSummary& summary);
std::string format_dry_run(const pipeline::DryRunReport& report);
// The dollars of a dry run or a run, one line per model (pricing.hpp).
std::string format_cost(const CostEstimate& cost, const std::string& title);
std::string format_counts(const pipeline::CallCounts& counts);

}  // namespace llmv::cli
