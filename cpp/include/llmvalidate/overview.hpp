// The overview of several runs over the same passages, as the paper's Table 7 (one column per
// task) and Table 8 (one column per chat model): one row per passage, each cell the passage's
// label and verdict. The CLI (`run` with several tasks or --models) and Stata (`llmvalidate
// overview`) print it in this one layout; R's llm_overview() returns the same cells as a data
// frame.
#pragma once

#include <string>
#include <vector>

namespace llmv::pipeline {

struct OverviewColumn {
    std::string header;              // the task, the model, or the user's name for the run
    std::vector<std::string> cells;  // one per passage, in the passages' order (overview_cell)
};

// "Positive (valid)"; "error [code]" for a passage that was not validated ("error" when the
// code is not known, as in Stata's variables).
std::string overview_cell(bool ok, const std::string& label, const std::string& verdict,
                          const std::string& error_code = "");

// The table, headed "Overview: label (verdict) of each passage, by <by>" (by: "task (Table 7)",
// "model (Table 8)", ...). `passages` names the rows; a column shorter than it leaves the
// remaining cells blank.
std::string format_overview(const std::string& by, const std::vector<std::string>& passages,
                            const std::vector<OverviewColumn>& columns);

}  // namespace llmv::pipeline
