// A run's counters, its progress callbacks and its summary (private to cpp/pipeline/).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "llmvalidate/pipeline.hpp"

namespace llmv::pipeline {

// Seconds on a steady clock.
double now_seconds();

// What the run has done so far: the progress shown, and the calls of the whole run.
struct Tally {
    Progress progress;
    CallCounts totals;
};

// The few fields of a finished passage that the summaries need (not whole PassageResults: a
// 20,000-row batch must not hold 20,000 results at its end).
struct SummaryRow {
    std::size_t index = 0;
    std::string id;
    bool ok = false;
    std::string label;
    stats::Verdict verdict = stats::Verdict::inconclusive;
    std::string human_label;
    std::string text;  // kept only when the row can enter Table 11 (a valid label that differs
                       // from the human one), so memory stays bounded by the disagreements
    double p_value = 0;
};
SummaryRow summary_row(const PassageResult& result, const std::string& text);

// Tables 9-11, the counts by verdict and the Benjamini-Hochberg p-values of `rows`, in the
// order given (their strings are moved out).
BatchSummary summarize_rows(std::vector<SummaryRow>& rows, const std::vector<std::string>& labels);

class ProgressReporter {
  public:
    ProgressReporter(const BatchCallbacks& callbacks, Tally& tally)
        : callbacks_(callbacks), tally_(tally) {}
    void start() { start_time_ = now_seconds(); }
    // Calls on_progress at most every progress_interval_seconds (always when final_call), with
    // calls_total scaled from the `admitted` passages to the whole input when its size is known.
    void report(bool final_call, std::size_t admitted);
    // A finished passage (its text: `input.text`): counted, and its SummaryRow kept.
    void record(const PassageResult& result, const std::string& text);
    // The summaries from the rows kept.
    BatchSummary summary(const std::vector<std::string>& labels);

  private:
    const BatchCallbacks& callbacks_;
    Tally& tally_;
    std::vector<SummaryRow> compact_;
    double start_time_ = 0;
    double last_progress_ = -1e300;
};

}  // namespace llmv::pipeline
