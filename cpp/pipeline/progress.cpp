// Progress and summaries (progress.hpp).
#include "pipeline/progress.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

namespace llmv::pipeline {

double now_seconds() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

void ProgressReporter::report(bool final_call, std::size_t admitted) {
    if (!callbacks_.on_progress) return;
    Progress& progress = tally_.progress;
    const double now = now_seconds();
    if (!final_call && now - last_progress_ < callbacks_.progress_interval_seconds) return;
    last_progress_ = now;
    progress.elapsed_seconds = now - start_time_;
    std::int64_t total = progress.calls_total;
    if (progress.passages_total > 0 && admitted > 0 && admitted < progress.passages_total) {
        total = static_cast<std::int64_t>(static_cast<double>(total) *
                                          static_cast<double>(progress.passages_total) /
                                          static_cast<double>(admitted));
    }
    if (progress.calls_done > 0 && total > progress.calls_done) {
        progress.eta_seconds = progress.elapsed_seconds / static_cast<double>(progress.calls_done) *
                               static_cast<double>(total - progress.calls_done);
    } else {
        progress.eta_seconds = final_call ? 0 : -1;
    }
    Progress shown = progress;
    shown.calls_total = std::max(total, progress.calls_done);
    callbacks_.on_progress(shown);
}

void ProgressReporter::record(const PassageResult& result, const std::string& text) {
    ++tally_.progress.passages_done;
    CompactResult compact;
    compact.index = result.index;
    compact.id = result.id;
    compact.ok = result.ok;
    compact.label = result.label;
    compact.verdict = result.verdict;
    compact.human_label = result.human_label;
    if (result.ok && result.verdict == stats::Verdict::valid && !result.human_label.empty() &&
        result.label != result.human_label)
        compact.text = text;
    compact.p_value =
        result.ok ? result.tests.validation.p_value : std::numeric_limits<double>::quiet_NaN();
    compact_.push_back(std::move(compact));
}

BatchSummary ProgressReporter::summary(const std::vector<std::string>& labels) {
    std::sort(compact_.begin(), compact_.end(),
              [](const CompactResult& a, const CompactResult& b) { return a.index < b.index; });
    BatchSummary summary;
    stats::PassageSummaryInput input;
    bool any_human = false;
    for (const CompactResult& compact : compact_) {
        if (compact.ok && !compact.human_label.empty()) any_human = true;
    }
    for (CompactResult& compact : compact_) {
        ++summary.n_passages;
        if (!compact.ok) {
            ++summary.n_failed;
            continue;
        }
        summary.ids.push_back(std::move(compact.id));
        summary.p_values.push_back(compact.p_value);
        input.llm_label.push_back(std::move(compact.label));
        input.verdict.push_back(compact.verdict);
        if (any_human) input.human_label.push_back(std::move(compact.human_label));
        if (any_human) input.text.push_back(std::move(compact.text));
        switch (compact.verdict) {
            case stats::Verdict::valid:
                ++summary.n_valid;
                break;
            case stats::Verdict::invalid:
                ++summary.n_invalid;
                break;
            case stats::Verdict::inconclusive:
                ++summary.n_inconclusive;
                break;
        }
    }
    compact_.clear();
    compact_.shrink_to_fit();
    summary.p_bh = stats::benjamini_hochberg(summary.p_values);
    input.id = summary.ids;  // Table 11 names its passages
    if (!input.llm_label.empty()) summary.summary = stats::summarize_passages(input, labels);
    return summary;
}

}  // namespace llmv::pipeline
