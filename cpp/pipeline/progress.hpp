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

class ProgressReporter {
  public:
    ProgressReporter(const BatchCallbacks& callbacks, Tally& tally)
        : callbacks_(callbacks), tally_(tally) {}
    void start() { start_time_ = now_seconds(); }
    // Calls on_progress at most every progress_interval_seconds (always when final_call), with
    // calls_total scaled from the `admitted` passages to the whole input when its size is known.
    void report(bool final_call, std::size_t admitted);
    // A finished passage: counted, and the few fields of it the summary needs kept.
    // `text`: the passage, kept only when it can enter Table 11 (a valid label that differs
    // from the human one), so memory stays bounded by the disagreements.
    void record(const PassageResult& result, const std::string& text);
    // The summaries from the fields kept per passage (not whole PassageResults: a 20,000-row
    // batch must not hold 20,000 results at the end either).
    BatchSummary summary(const std::vector<std::string>& labels);

  private:
    struct CompactResult {
        std::size_t index = 0;
        std::string id;
        bool ok = false;
        std::string label;
        stats::Verdict verdict = stats::Verdict::inconclusive;
        std::string human_label;
        std::string text;  // Table 11 candidates only
        double p_value = 0;
    };

    const BatchCallbacks& callbacks_;
    Tally& tally_;
    std::vector<CompactResult> compact_;
    double start_time_ = 0;
    double last_progress_ = -1e300;
};

}  // namespace llmv::pipeline
