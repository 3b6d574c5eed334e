#include "test_results.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "arguments.hpp"
#include "record_stata.hpp"

namespace llmv::stata {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double flag(bool value) { return value ? 1.0 : 0.0; }

// The weakest separation: every separation test passes exactly when this is <= alpha.
double max_separation_p(const stats::TestOutput& output) {
    if (output.separation.empty()) return kNaN;
    double worst = -1;
    for (const auto& test : output.separation) {
        if (!std::isfinite(test.p_value)) return kNaN;  // the paper's method has no p-value
        worst = std::max(worst, test.p_value);
    }
    return worst;
}

double separation_all_pass(const stats::TestOutput& output) {
    if (output.separation.empty()) return kNaN;
    for (const auto& test : output.separation)
        if (!test.pass) return 0.0;
    return 1.0;
}

void add_single_passage(Results& results, const Outcome& outcome) {
    const auto& out = *outcome.output;
    const auto& bt = out.backtranslation;
    // The validation test's fields with a Stata name (records.hpp): tau, crit, p, reject, M, B.
    const records::StataRow validation = records::stata_row(out.validation);
    for (std::size_t i = 0; i < validation.names.size(); ++i)
        results.scalar(validation.names[i], validation.values[i]);
    results.scalar("accuracy", bt.run ? bt.accuracy : kNaN);
    results.scalar("acc_lb", bt.run ? bt.lower_bound : kNaN);
    results.scalar("bt_pass", bt.run ? flag(bt.pass) : kNaN);
    results.scalar("sep_p", max_separation_p(out));
    results.scalar("sep_pass", separation_all_pass(out));
    results.scalar("verdict_code", verdict_code(out.verdict));
    results.macro("verdict", stats::verdict_name(out.verdict));
    results.macro("reason", out.verdict_reason);
    results.macro("label", outcome.label);

    if (!out.separation.empty()) {
        // One row per separation test, its fields with a Stata name (records.hpp): xi, crit, p,
        // pass, M_beta, M_gamma, reps.
        ResultMatrix separation;
        separation.key = "separation";
        for (const auto& test : out.separation) {
            records::StataRow row = records::stata_row(test);
            separation.col_names = std::move(row.names);
            separation.row_names.push_back(test.label);
            separation.values.insert(separation.values.end(), row.values.begin(), row.values.end());
        }
        separation.cols = static_cast<int>(separation.col_names.size());
        separation.rows = static_cast<int>(out.separation.size());
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
    auto add = [&](const stats::BacktranslationResult& result) {
        records::StataRow row = records::stata_row(result);
        by_label.col_names = std::move(row.names);
        by_label.row_names.push_back(result.label);
        by_label.values.insert(by_label.values.end(), row.values.begin(), row.values.end());
    };
    add(bt);
    for (const auto& other : out.backtranslation_other) add(other);
    by_label.cols = static_cast<int>(by_label.col_names.size());
    by_label.rows = static_cast<int>(by_label.row_names.size());
    results.matrices.push_back(by_label);
}

}  // namespace

int verdict_code(stats::Verdict verdict) {
    switch (verdict) {
        case stats::Verdict::valid:
            return 1;
        case stats::Verdict::invalid:
            return 2;
        case stats::Verdict::inconclusive:
            return 3;
    }
    return 3;
}

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
    results.scalar("permutations", options.permutations);
    results.scalar("K", static_cast<double>(labels.size()));
    results.macro("seed", std::to_string(options.seed));
    results.macro("labels", join_stata_list(labels));
    results.macro("vmethod", options.validation_method);
    results.macro("smethod", options.separation_method);
    results.macro("rule", options.backtranslation_rule);

    ResultMatrix table;
    table.key = "results";
    table.col_names = {"obs",    "tau",     "crit",  "p",        "reject", "accuracy",
                       "acc_lb", "bt_pass", "sep_p", "sep_pass", "verdict"};
    table.rows = n;
    table.cols = static_cast<int>(table.col_names.size());
    for (const auto& outcome : outcomes) {
        table.row_names.push_back("obs" + std::to_string(outcome.obs));
        std::vector<double> row(table.col_names.size(), kNaN);
        row[0] = outcome.obs;
        if (outcome.output != nullptr) {
            const auto& out = *outcome.output;
            const bool bt_run = out.backtranslation.run;
            row = {static_cast<double>(outcome.obs),
                   out.validation.statistic,
                   out.validation.critical_value,
                   out.validation.p_value,
                   flag(out.validation.reject),
                   bt_run ? out.backtranslation.accuracy : kNaN,
                   bt_run ? out.backtranslation.lower_bound : kNaN,
                   bt_run ? flag(out.backtranslation.pass) : kNaN,
                   max_separation_p(out),
                   separation_all_pass(out),
                   static_cast<double>(verdict_code(out.verdict))};
        }
        table.values.insert(table.values.end(), row.begin(), row.end());
    }
    results.matrices.push_back(table);

    if (n == 1 && outcomes.front().output != nullptr) add_single_passage(results, outcomes.front());

    if (!generate) return;
    if (label_variable) {
        ResultVariable variable;
        variable.suffix = "label";
        variable.label = "llmvalidate: the LLM's label";
        std::size_t width = 1;
        for (const auto& outcome : outcomes) {
            if (outcome.output == nullptr) continue;
            variable.observations.push_back(outcome.obs);
            variable.strings.push_back(outcome.label);
            width = std::max(width, outcome.label.size());
        }
        variable.type = "str" + std::to_string(std::min<std::size_t>(width, 2045));
        results.variables.push_back(std::move(variable));
    }
    auto numeric = [&](const std::string& suffix, const std::string& type, const std::string& label,
                       const std::string& value_label, auto value_of) {
        ResultVariable variable;
        variable.suffix = suffix;
        variable.type = type;
        variable.label = label;
        variable.value_label = value_label;
        for (const auto& outcome : outcomes) {
            if (outcome.output == nullptr) continue;  // stays missing
            variable.observations.push_back(outcome.obs);
            variable.numbers.push_back(value_of(*outcome.output));
        }
        results.variables.push_back(std::move(variable));
    };
    numeric("verdict", "byte", "llmvalidate: verdict", "llmv_verdict",
            [](const stats::TestOutput& o) { return double(verdict_code(o.verdict)); });
    numeric("tau", "double", "llmvalidate: validation statistic tau", "",
            [](const stats::TestOutput& o) { return o.validation.statistic; });
    numeric("crit", "double", "llmvalidate: critical value of tau", "",
            [](const stats::TestOutput& o) { return o.validation.critical_value; });
    numeric("p", "double", "llmvalidate: p-value of the validation test", "",
            [](const stats::TestOutput& o) { return o.validation.p_value; });
    numeric("bt_acc", "double", "llmvalidate: backtranslation accuracy", "",
            [](const stats::TestOutput& o) {
                return o.backtranslation.run ? o.backtranslation.accuracy : kNaN;
            });
    numeric("sep_p", "double", "llmvalidate: largest separation p-value", "",
            [](const stats::TestOutput& o) { return max_separation_p(o); });
}

}  // namespace llmv::stata
