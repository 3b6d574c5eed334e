// Many passages (Section 5): Tables 9 and 10, Benjamini-Hochberg adjusted p-values.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {
namespace {
constexpr double not_available = std::numeric_limits<double>::quiet_NaN();

// Labels in S's order, then labels outside S in order of first appearance; index by
// normalised label.
struct LabelOrder {
    std::vector<std::string> names;
    std::vector<std::string> keys;

    std::size_t index(const std::string& label) {
        const std::string key = normalize_label(label);
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return i;
        keys.push_back(key);
        names.push_back(label);
        return keys.size() - 1;
    }
};

double share(int part, int whole) {
    return whole > 0 ? static_cast<double>(part) / whole : not_available;
}
}  // namespace

PassageSummary summarize_passages(const PassageSummaryInput& input,
                                  const std::vector<std::string>& label_set) {
    const std::size_t n = input.llm_label.size();
    if (input.verdict.size() != n)
        throw_invalid(code::invalid_argument, "verdict",
                      std::to_string(input.verdict.size()) + " verdicts",
                      "one verdict per passage (" + std::to_string(n) + " LLM labels)");
    const bool with_human = !input.human_label.empty();
    if (with_human && input.human_label.size() != n)
        throw_invalid(code::invalid_argument, "human_label",
                      std::to_string(input.human_label.size()) + " labels",
                      "one human label per passage (" + std::to_string(n) + ") or none");

    LabelOrder llm_order;
    for (const std::string& label : label_set) llm_order.index(label);
    LabelOrder human_order = llm_order;
    std::vector<std::size_t> llm_index(n), human_index(n);
    for (std::size_t i = 0; i < n; ++i) {
        llm_index[i] = llm_order.index(input.llm_label[i]);
        if (with_human) human_index[i] = human_order.index(input.human_label[i]);
    }

    PassageSummary summary;
    summary.n_total = static_cast<int>(n);
    const std::size_t rows = llm_order.names.size();
    std::vector<ShareRow> by_label(rows + 1);
    by_label[0].label = "";
    for (std::size_t r = 0; r < rows; ++r) by_label[r + 1].label = llm_order.names[r];
    const std::size_t columns = human_order.names.size();
    std::vector<CrossCell> cells(with_human ? rows * columns : 0);
    for (std::size_t r = 0; r < rows && with_human; ++r)
        for (std::size_t c = 0; c < columns; ++c) {
            cells[r * columns + c].llm_label = llm_order.names[r];
            cells[r * columns + c].human_label = human_order.names[c];
        }

    for (std::size_t i = 0; i < n; ++i) {
        if (input.verdict[i] == Verdict::inconclusive) {
            ++summary.n_inconclusive;
            continue;  // Tables 9 and 10 exclude passages whose prerequisites fail
        }
        const int valid = input.verdict[i] == Verdict::valid ? 1 : 0;
        const int agree = with_human && llm_index[i] == human_index[i] ? 1 : 0;
        for (ShareRow* row : {&by_label[0], &by_label[llm_index[i] + 1]}) {
            ++row->n;
            row->n_valid += valid;
            row->n_human_agree += agree;
        }
        if (with_human) {
            CrossCell& cell = cells[llm_index[i] * columns + human_index[i]];
            ++cell.n;
            cell.n_valid += valid;
            if (valid && !agree)
                summary.table11.push_back(
                    {i < input.id.size() ? input.id[i] : std::to_string(i + 1),
                     llm_order.names[llm_index[i]], human_order.names[human_index[i]],
                     i < input.text.size() ? input.text[i] : std::string()});
        }
    }
    for (ShareRow& row : by_label) {
        row.share_valid = share(row.n_valid, row.n);
        row.share_human = with_human ? share(row.n_human_agree, row.n) : not_available;
    }
    for (CrossCell& cell : cells) cell.share_valid = share(cell.n_valid, cell.n);
    summary.table9 = std::move(by_label);
    summary.table10 = std::move(cells);
    return summary;
}

std::vector<double> benjamini_hochberg(const std::vector<double>& p_values) {
    std::vector<std::size_t> present;  // indices of non-NaN p-values
    for (std::size_t i = 0; i < p_values.size(); ++i) {
        const double p = p_values[i];
        if (std::isnan(p)) continue;
        if (!(p >= 0 && p <= 1))
            throw_invalid(code::invalid_argument, "p_values",
                          detail::format_number(p) + " at position " + std::to_string(i + 1),
                          "p-values between 0 and 1 (or NaN for a missing one)");
        present.push_back(i);
    }
    std::vector<double> adjusted(p_values.size(), not_available);
    const double m = static_cast<double>(present.size());
    // As R's p.adjust(method = "BH"): order decreasing (ties keep their order), then
    // cummin(m / i * p), capped at 1.
    std::stable_sort(present.begin(), present.end(),
                     [&](std::size_t a, std::size_t b) { return p_values[a] > p_values[b]; });
    double running = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < present.size(); ++k) {
        const double rank = m - static_cast<double>(k);  // i = m, m-1, ..., 1
        running = std::min(running, m / rank * p_values[present[k]]);
        adjusted[present[k]] = std::min(1.0, running);
    }
    return adjusted;
}

}  // namespace llmv::stats
