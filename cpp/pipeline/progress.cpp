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

SummaryRow summary_row(const PassageResult& result, const std::string& text) {
    SummaryRow row;
    row.index = result.index;
    row.id = result.id;
    row.ok = result.ok;
    row.label = result.label;
    row.verdict = result.verdict;
    row.human_label = result.human_label;
    if (result.ok && result.verdict == stats::Verdict::valid && !result.human_label.empty() &&
        result.label != result.human_label)
        row.text = text;
    row.p_value =
        result.ok ? result.tests.validation.p_value : std::numeric_limits<double>::quiet_NaN();
    return row;
}

BatchSummary summarize_rows(std::vector<SummaryRow>& rows, const std::vector<std::string>& labels) {
    BatchSummary summary;
    stats::PassageSummaryInput input;
    bool any_human = false;
    for (const SummaryRow& row : rows) {
        if (row.ok && !row.human_label.empty()) any_human = true;
    }
    for (SummaryRow& row : rows) {
        ++summary.n_passages;
        if (!row.ok) {
            ++summary.n_failed;
            continue;
        }
        summary.ids.push_back(std::move(row.id));
        summary.p_values.push_back(row.p_value);
        input.llm_label.push_back(std::move(row.label));
        input.verdict.push_back(row.verdict);
        if (any_human) input.human_label.push_back(std::move(row.human_label));
        if (any_human) input.text.push_back(std::move(row.text));
        switch (row.verdict) {
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
    summary.p_bh = stats::benjamini_hochberg(summary.p_values);
    input.id = summary.ids;  // Table 11 names its passages
    if (!input.llm_label.empty()) summary.summary = stats::summarize_passages(input, labels);
    return summary;
}

void ProgressReporter::record(const PassageResult& result, const std::string& text) {
    ++tally_.progress.passages_done;
    compact_.push_back(summary_row(result, text));
}

BatchSummary ProgressReporter::summary(const std::vector<std::string>& labels) {
    // Passages finish in any order; the summaries list them in input order.
    std::sort(compact_.begin(), compact_.end(),
              [](const SummaryRow& a, const SummaryRow& b) { return a.index < b.index; });
    BatchSummary summary = summarize_rows(compact_, labels);
    compact_.clear();
    compact_.shrink_to_fit();
    return summary;
}

}  // namespace llmv::pipeline
