#include "test_results.hpp"

#include <algorithm>
#include <limits>

#include "arguments.hpp"

namespace llmv::stata {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One passage's fields as Stata shows them (records.hpp, PassageBrief).
records::StataCells passage_cells(const Outcome& outcome) {
    return records::stata_cells(records::PassageBrief{outcome.label, *outcome.output});
}

// The fields of a passage that could not be validated: the same names, every value missing.
const records::StataCells& empty_cells() {
    static const stats::TestOutput none;
    static const std::string no_label;
    static const records::StataCells cells =
        records::stata_cells(records::PassageBrief{no_label, none});
    return cells;
}

void add_single_passage(Results& results, const Outcome& outcome) {
    const auto& out = *outcome.output;
    const auto& bt = out.backtranslation;
    // The passage's record (records.hpp, PassageBrief) as r() scalars (tau, crit, p, reject, M, B,
    // accuracy, acc_lb, bt_pass, sep_p, sep_pass, verdict_code) and macros (verdict, reason,
    // label).
    const records::StataSingle single = records::stata_single(passage_cells(outcome));
    for (const auto& [name, value] : single.scalars) results.scalar(name, value);
    for (const auto& [name, value] : single.macros) results.macro(name, value);

    if (!out.separation.empty()) {
        // One row per separation test, its fields with a Stata name (records.hpp): xi, crit, p,
        // pass, M_beta, M_gamma, reps.
        ResultMatrix separation;
        separation.key = "separation";
        for (const auto& test : out.separation) append_record_row(separation, test.label, test);
        results.matrices.push_back(separation);
    }
    if (!bt.run) return;
    if (!bt.counts.empty()) {
        ResultMatrix counts;
        counts.key = "counts";
        counts.rows = 1;
        counts.row_names = {bt.label};
        for (const auto& entry : bt.counts) {
            counts.col_names.push_back(entry.first);
            counts.values.push_back(entry.second);
        }
        counts.cols = static_cast<int>(bt.counts.size());
        results.matrices.push_back(counts);
    }
    // One row per label backtranslated, its fields with a Stata name (records.hpp): accuracy,
    // lower_bound, pass, M, correct.
    ResultMatrix by_label;
    by_label.key = "backtranslation";
    append_record_row(by_label, bt.label, bt);
    for (const auto& other : out.backtranslation_other)
        append_record_row(by_label, other.label, other);
    results.matrices.push_back(by_label);
}

}  // namespace

void fill_results(Results& results, const std::vector<Outcome>& outcomes,
                  const stats::TestOptions& options, const std::vector<std::string>& labels,
                  bool generate, bool label_variable) {
    int n_valid = 0, n_invalid = 0, n_inconclusive = 0, n_failed = 0;
    for (const auto& outcome : outcomes) {
        if (outcome.output == nullptr) {
            ++n_failed;
            continue;
        }
        const auto verdict = outcome.output->verdict;
        n_valid += verdict == stats::Verdict::valid;
        n_invalid += verdict == stats::Verdict::invalid;
        n_inconclusive += verdict == stats::Verdict::inconclusive;
    }
    const int n = static_cast<int>(outcomes.size());
    results.scalar("N", n);
    results.scalar("N_valid", n_valid);
    results.scalar("N_invalid", n_invalid);
    results.scalar("N_inconclusive", n_inconclusive);
    results.scalar("N_failed", n_failed);
    results.scalar("N_succeeded", n - n_failed);
    // Table 9 of the paper: the share valid among passages whose prerequisites pass.
    results.scalar("share_valid", n_valid + n_invalid > 0
                                      ? static_cast<double>(n_valid) / (n_valid + n_invalid)
                                      : kNaN);
    results.scalar("alpha", options.alpha);
    results.scalar("threshold", options.threshold);
    // R, the permutations, only for the permutation test (missing under smethod(paper), which
    // draws none); B, the paper's reference texts, is r(B) of a single passage and a column of
    // r(separation).
    results.scalar("permutations",
                   stats::draws_permutations(options) ? options.permutations : kNaN);
    results.scalar("K", static_cast<double>(labels.size()));
    results.macro("seed", std::to_string(options.seed));
    results.macro("labels", join_stata_list(labels));
    results.macro("vmethod", options.validation_method);
    results.macro("smethod", options.separation_method);
    results.macro("rule", options.backtranslation_rule);

    // r(results): a row per passage, obs and the columns of its record (records.hpp,
    // PassageBrief): tau, crit, p, reject, accuracy, acc_lb, bt_pass, sep_p, sep_pass, verdict.
    const records::StataCells& shape = empty_cells();
    const records::StataRow columns = records::stata_columns(shape);
    ResultMatrix table;
    table.key = "results";
    table.col_names = {"obs"};
    table.col_names.insert(table.col_names.end(), columns.names.begin(), columns.names.end());
    table.rows = n;
    table.cols = static_cast<int>(table.col_names.size());
    std::vector<records::StataCells> cells(outcomes.size());  // empty: the passage failed
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        const Outcome& outcome = outcomes[i];
        table.row_names.push_back("obs" + std::to_string(outcome.obs));
        table.values.push_back(outcome.obs);
        if (outcome.output == nullptr) {
            table.values.insert(table.values.end(), columns.values.size(), kNaN);
            continue;
        }
        cells[i] = passage_cells(outcome);
        const records::StataRow row = records::stata_columns(cells[i]);
        table.values.insert(table.values.end(), row.values.begin(), row.values.end());
    }
    results.matrices.push_back(table);

    if (n == 1 && outcomes.front().output != nullptr) add_single_passage(results, outcomes.front());

    if (!generate) return;
    // The variables of the record's fields that have one, in their order (records.hpp,
    // PassageBrief): label, verdict, tau, crit, p, bt_acc, sep_p. Every passage's record has the
    // same fields, so a field is at the same place in each. The label variable only when the
    // label is the LLM's (validate): test's labels are the user's own variable.
    for (const std::size_t k : records::stata_variables(shape)) {
        const records::StataCell& slot = shape[k];
        const records::StataVariable& spec = slot.field.variable;
        if (slot.field.name == "label" && !label_variable) continue;
        ResultVariable variable;
        variable.suffix = spec.name;
        variable.label = spec.label;
        variable.value_label = spec.value_label;
        std::size_t width = 1;
        for (std::size_t i = 0; i < outcomes.size(); ++i) {
            if (outcomes[i].output == nullptr) continue;  // stays missing
            const records::StataCell& cell = cells[i][k];
            variable.observations.push_back(outcomes[i].obs);
            if (slot.text) {
                variable.strings.push_back(cell.string);
                width = std::max(width, cell.string.size());
            } else {
                variable.numbers.push_back(cell.number);
            }
        }
        variable.type =
            slot.text ? "str" + std::to_string(std::min<std::size_t>(width, 2045)) : spec.type;
        results.variables.push_back(std::move(variable));
    }
}

}  // namespace llmv::stata
