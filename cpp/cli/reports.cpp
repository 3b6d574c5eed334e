#include "reports.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace llmv::cli {

namespace {

std::string fixed(double value, int digits = 3) {
    if (std::isnan(value)) return "NA";
    if (std::isinf(value)) return value < 0 ? "-Inf" : "Inf";
    std::ostringstream out;
    out << std::fixed << std::setprecision(digits) << value;
    return out.str();
}

// A share as the paper prints accuracies: whole percent ("99%"), one decimal when not whole.
std::string percent(double share) {
    if (std::isnan(share)) return "NA";
    const double value = share * 100;
    return fixed(value, std::fabs(value - std::round(value)) < 1e-9 ? 0 : 1) + "%";
}

std::string pad(std::string text, std::size_t width) {
    if (text.size() < width) text.resize(width, ' ');
    return text;
}

const char* pass_word(bool pass) { return pass ? "pass" : "FAIL"; }

}  // namespace

std::string format_counts(const pipeline::CallCounts& counts) {
    std::ostringstream out;
    // The kinds count every draw, whether the cache or the provider answered it, so they are
    // not a breakdown of the calls made.
    out << counts.chat_calls
        << " chat calls made; draws by kind, cached or not: " << counts.annotation_calls
        << " annotation, " << counts.simulation_calls << " simulation, "
        << counts.backtranslation_calls << " backtranslation; " << counts.embedded_texts
        << " texts embedded, " << counts.cache_hits << " cache hits, " << counts.transport_retries
        << " transport retries, " << counts.parse_retries << " parse retries ("
        << counts.unparseable << " unparseable, " << counts.out_of_set
        << " outside the label set), " << counts.input_tokens << " input and "
        << counts.output_tokens << " output tokens";
    return out.str();
}

std::string format_passage_report(const pipeline::PassageResult& result) {
    std::ostringstream out;
    out << "Passage " << result.id << ": ";
    if (!result.ok) {
        out << "ERROR [" << result.error_code << "] " << result.error_message << "\n";
        return out.str();
    }
    const stats::TestOutput& tests = result.tests;
    out << "label " << result.label;
    if (result.repeats > 1)
        out << " (stability " << fixed(result.annotation_stability, 2) << " over " << result.repeats
            << " annotations)";
    out << " -> verdict " << result.verdict_name << "\n";
    out << "  " << tests.verdict_reason << "\n";
    const auto& bt = tests.backtranslation;
    out << "  Backtranslation (" << bt.label << "): accuracy " << fixed(bt.accuracy) << " ("
        << bt.correct << "/" << bt.m << "), lower bound " << fixed(bt.lower_bound) << ", rule "
        << bt.rule << " >= " << fixed(bt.threshold, 2) << ": " << pass_word(bt.pass) << "\n";
    for (const auto& separation : tests.separation) {
        out << "  Separation " << result.label << " vs " << separation.label << " ("
            << separation.method << "): xi " << fixed(separation.statistic) << ", critical value "
            << fixed(separation.critical_value) << ", p " << fixed(separation.p_value) << ": "
            << pass_word(separation.pass) << "\n";
    }
    const auto& validation = tests.validation;
    out << "  Validation (" << validation.method << ", M = " << validation.m << "): tau "
        << fixed(validation.statistic) << ", critical value " << fixed(validation.critical_value)
        << ", p " << fixed(validation.p_value) << ": "
        << (validation.reject ? "validity rejected" : "not rejected") << "\n";
    out << "  Calls: " << format_counts(result.calls) << "\n";
    return out.str();
}

std::string format_table1(const std::vector<pipeline::PassageResult>& results,
                          const std::vector<std::string>& titles) {
    std::ostringstream out;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const pipeline::PassageResult& result = results[i];
        const std::string title = i < titles.size() && !titles[i].empty() ? titles[i] : result.id;
        out << "Panel (" << static_cast<char>('a' + static_cast<int>(i % 26)) << ") " << title
            << "\n";
        if (!result.ok) {
            out << "  ERROR [" << result.error_code << "] " << result.error_message << "\n\n";
            continue;
        }
        const stats::TestOutput& tests = result.tests;
        // The label column fits the task's longest label ("Focusing On The Present").
        std::size_t label_width = 12;
        for (const std::string& label : result.label_set)
            label_width = std::max(label_width, label.size() + 2);
        out << "  " << pad("Test", 28) << pad("Label", label_width) << pad("Statistic", 12)
            << pad("Critical", 12) << pad("p-value", 10) << "Outcome\n";
        out << "  " << pad("Annotation", 28) << pad(result.label, label_width) << pad("", 12)
            << pad("", 12) << pad("", 10)
            << (result.repeats > 1 ? "stability " + fixed(result.annotation_stability, 2)
                                   : std::string(""))
            << "\n";
        const auto& bt = tests.backtranslation;
        // As the paper's tables: accuracy and threshold in percent, statistics and critical
        // values to 3 decimals (its verdicts turn on the third, e.g. 0.621 against 0.620).
        out << "  " << pad("Backtranslation accuracy", 28) << pad(bt.label, label_width)
            << pad(percent(bt.accuracy), 12) << pad(percent(bt.threshold), 12) << pad("", 10)
            << (bt.pass ? "pass" : "FAIL") << "\n";
        for (const auto& separation : tests.separation) {
            out << "  " << pad("Separation", 28) << pad(separation.label, label_width)
                << pad(fixed(separation.statistic), 12) << pad(fixed(separation.critical_value), 12)
                << pad(fixed(separation.p_value), 10) << (separation.pass ? "pass" : "FAIL")
                << "\n";
        }
        const auto& validation = tests.validation;
        out << "  " << pad("Validation", 28) << pad(result.label, label_width)
            << pad(fixed(validation.statistic), 12) << pad(fixed(validation.critical_value), 12)
            << pad(fixed(validation.p_value), 10)
            << (validation.reject ? "rejected" : "not rejected") << "\n";
        out << "  Verdict: " << result.verdict_name << " (" << tests.verdict_reason << ")\n\n";
    }
    return out.str();
}

namespace {

// Tables 9 and 10 print shares as the paper does: percent with two decimals ("82.14%").
std::string percent2(double share) {
    return std::isnan(share) ? "NA" : fixed(share * 100, 2) + "%";
}

// Table 10 as the paper lays it out: LLM labels down, human labels across, each cell the
// number of passages with the share valid in parentheses, totals last.
void format_table10(std::ostream& out, const std::vector<stats::CrossCell>& cells) {
    std::vector<std::string> rows, columns;
    for (const auto& cell : cells) {
        if (std::find(rows.begin(), rows.end(), cell.llm_label) == rows.end())
            rows.push_back(cell.llm_label);
        if (std::find(columns.begin(), columns.end(), cell.human_label) == columns.end())
            columns.push_back(cell.human_label);
    }
    std::size_t width = 16;
    for (const auto& name : columns) width = std::max(width, name.size() + 2);
    out << "LLM label x human label: passages (share valid) (Table 10):\n";
    out << "  " << pad("LLM \\ human", 16);
    for (const auto& name : columns) out << pad(name, width);
    out << "Total\n";
    std::vector<int> column_totals(columns.size(), 0);
    int total = 0;
    for (const auto& row : rows) {
        out << "  " << pad(row, 16);
        int row_total = 0;
        for (std::size_t c = 0; c < columns.size(); ++c) {
            for (const auto& cell : cells) {
                if (cell.llm_label != row || cell.human_label != columns[c]) continue;
                out << pad(cell.n == 0
                               ? "0"
                               : std::to_string(cell.n) + " (" + percent2(cell.share_valid) + ")",
                           width);
                row_total += cell.n;
                column_totals[c] += cell.n;
            }
        }
        total += row_total;
        out << row_total << "\n";
    }
    out << "  " << pad("Total", 16);
    for (int n : column_totals) out << pad(std::to_string(n), width);
    out << total << "\n";
}

}  // namespace

std::string format_summary(const pipeline::BatchSummary& summary) {
    std::ostringstream out;
    out << "Passages: " << summary.n_passages << " (" << summary.n_valid << " valid, "
        << summary.n_invalid << " invalid, " << summary.n_inconclusive << " inconclusive, "
        << summary.n_failed << " failed)\n";
    if (summary.summary.table9.empty()) return out.str();
    const bool human = !summary.summary.table10.empty();
    out << "Share valid among passages whose prerequisites pass (Table 9):\n";
    out << "  " << pad("LLM label", 16) << pad("n", 8) << pad("valid", 8) << pad("share", 10)
        << (human ? "share agreeing with human" : "") << "\n";
    for (const auto& row : summary.summary.table9) {
        out << "  " << pad(row.label.empty() ? "All" : row.label, 16)
            << pad(std::to_string(row.n), 8) << pad(std::to_string(row.n_valid), 8)
            << pad(percent2(row.share_valid), 10) << (human ? percent2(row.share_human) : "")
            << "\n";
    }
    if (human) {
        format_table10(out, summary.summary.table10);
        out << "Disagreements with the human label that pass (Table 11): "
            << summary.summary.table11.size() << "\n";
        if (!summary.summary.table11.empty())
            out << "  " << pad("id", 10) << pad("LLM label", 14) << pad("human label", 14)
                << "passage\n";
        for (const auto& row : summary.summary.table11)
            out << "  " << pad(row.id, 10) << pad(row.llm_label, 14) << pad(row.human_label, 14)
                << (row.text.empty() ? "" : "\"" + row.text + "\"") << "\n";
    }
    return out.str();
}

std::string format_cost(const CostEstimate& cost, const std::string& title) {
    std::ostringstream out;
    // A run says which price it paid; an estimate (the dry run) gives both.
    const bool batch = cost.paid_through == "batch";
    std::string prices;
    if (cost.paid_through.empty()) {
        prices = format_dollars(cost.dollars) + " with the synchronous APIs, " +
                 format_dollars(cost.batch_dollars) + " with the batch API";
    } else {
        prices = format_dollars(cost.paid_dollars()) + " paid through the " +
                 (batch ? "batch API" : "synchronous APIs");
        // The other price, where a model has one (a batch discount in the table).
        const bool discount =
            std::any_of(cost.lines.begin(), cost.lines.end(),
                        [](const CostLine& line) { return line.batch_available; });
        if (discount)
            prices += std::string(" (the ") + (batch ? "synchronous APIs: " : "batch API: ") +
                      format_dollars(batch ? cost.dollars : cost.batch_dollars) + ")";
    }
    // A total without a model's price is no total: say so rather than print a partial sum.
    if (cost.complete) {
        out << title << ": " << prices << "\n";
    } else {
        out << title << ": unknown, not every model is priced (the priced models: " << prices
            << ")\n";
    }
    for (const CostLine& line : cost.lines) {
        out << "    " << line.role << " " << line.provider << " " << line.model << ": "
            << line.input_tokens << " input";
        if (line.cached_input_tokens > 0)
            out << " + " << line.cached_input_tokens << " cached input";
        if (line.cache_write_input_tokens > 0)
            out << " + " << line.cache_write_input_tokens << " written to the prompt cache";
        if (line.role == "chat") out << ", " << line.output_tokens << " output";
        out << " tokens, ";
        if (!line.priced) {
            out << "no price";
            if (!line.nearest.empty()) out << " (did you mean " << line.nearest << "?)";
            out << "\n";
            continue;
        }
        // The route paid first (the synchronous one for an estimate), the other beside it.
        out << format_dollars(cost.paid_dollars(line));
        if (line.batch_available)
            out << (batch ? " (synchronous " : " (batch ")
                << format_dollars(batch ? line.dollars : line.batch_dollars) << ")";
        if (!line.checked.empty()) out << ", prices of " << line.checked;
        out << "\n";
    }
    if (!cost.table.empty()) out << "    prices from " << cost.table << "\n";
    if (!cost.note.empty()) out << "    " << cost.note << "\n";
    return out.str();
}

std::string format_dry_run(const pipeline::DryRunReport& report) {
    std::ostringstream out;
    out << "Dry run: no call made.\n"
        << "  passages:              " << report.passages << "\n"
        << "  chat calls:            " << report.calls.chat_calls << " ("
        << report.calls.annotation_calls << " annotation, " << report.calls.simulation_calls
        << " simulation, " << report.calls.backtranslation_calls << " backtranslation)\n"
        << "  embedded texts:        " << report.calls.embedded_texts << "\n"
        << "  shared across passages: " << report.calls.shared << " chat calls, "
        << report.shared_embedded_texts << " texts\n"
        << "  already in the cache:  " << report.cached_calls << " chat calls, "
        << report.cached_embedded_texts << " texts\n"
        << "  to be made:            " << report.chat_calls_to_make << " chat calls, "
        << report.texts_to_embed << " texts to embed\n"
        << "  input tokens (est.):   " << report.estimated_input_tokens << "\n"
        << "  output tokens (est.):  " << report.estimated_output_tokens << "\n"
        << "  embedding tokens (est.): " << report.estimated_embedding_tokens << "\n"
        << format_cost(report.cost, "  price of the calls to be made (est.)");
    // (Its warnings reach standard error through the run's sink, as a run's do.)
    out << report.note << "\n";
    return out.str();
}

}  // namespace llmv::cli
