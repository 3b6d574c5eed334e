// One field list per result that the front ends write. `visit(result, visitor)` calls
// `visitor(field, value)` for each field of the result, in a fixed order; the writers of the
// JSON (`llmvalidate test`, the `tests` of a JSON line), the R lists (rpkg/src) and the Stata
// results (stata/src) are generic over it, so a field added here appears in each of them.
//
// Names. A field carries its canonical name (the JSON key and the R list element; R's own
// spellings such as `p.value` are made by the R code, by name, from these) and, when Stata
// shows it, its Stata name: Stata's names are short words of their own (`tau`, `crit`, `p`),
// not derivable by a rule, so the record holds them. The order is the JSON's; R reads its
// elements by name and Stata takes the fields that have a Stata name, in this order.
//
// Where a field is written: R every field with `r` set; JSON and CSV every field with `json`
// set (a few fields R has had longer than the JSON format are kept out of it, so the format
// does not change, and a few JSON fields are not in R's lists); a `bulk` field (a null
// distribution) is in the JSON only when asked for (`--null-distributions`), in R always.
// Where R's list has an order of its own (the calls), a field appears twice, once `json_only`
// and once `r_only`, at each one's place: still one list.
//
// Values: numbers, bool, std::string, std::vector<std::string>, maps of strings, Seed, Counts,
// Eigen::VectorXd, Maybe<T>, KeyIf<T>, another record (a nested object / list), a std::vector
// of records (an array / unnamed list) or a Table of records (an array / R's columns).
//
// The CSV of `batch` is a record of its own (PassageRow): its columns are flat and in an order
// of their own (the method before the statistic, the counts after the pass), which the JSON
// line's nesting cannot give; its header and its cells come from that one list.
//
// Stata's per-passage results (a row of r(results), a single passage's r() scalars and macros,
// the generate() variables) are a record of their own too (PassageBrief): one list for the three,
// with the Stata names, the variables' types and labels, and the derived fields (the largest
// separation p-value, the verdict's code).
//
// Adding an output field: one line in the visit() of its result; each writer has one rule per
// value type (e.g. JSON writes a non-finite double as null, Stata as a missing value).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/stats.hpp"

namespace llmv::records {

// A generate() variable of Stata's per-passage results (PassageBrief): <prefix><name>, of `type`
// ("double", "byte"; nullptr for text: str# as wide as its longest value), with its variable
// label and the value label the ado defines (or ""). `order` places it among the variables,
// which come in an order of their own (the label and the verdict first).
struct StataVariable {
    const char* name = nullptr;  // nullptr: no variable
    const char* type = nullptr;
    const char* label = "";
    const char* value_label = "";
    int order = 0;
};

struct Field {
    std::string name;             // canonical: the JSON key, the R list element, the CSV column
    const char* stata = nullptr;  // Stata's name (r() scalar, matrix column); nullptr: not in Stata
    bool json = true;             // false: R only (not in the JSON nor the CSV: formats fixed)
    bool bulk = false;            // large: in the JSON only when asked for, in R always
    bool r = true;                // false: JSON and CSV only (not an element of R's list)
    // Read by Stata's per-passage results (PassageBrief) only: a number with a Stata name is a
    // column of r(results) unless `column` is false; for a single passage it is an r() scalar
    // (text: a macro) named `single` when given, else `stata`; `variable`: its generate() one.
    bool column = true;
    const char* single = nullptr;
    StataVariable variable = {};
    // R only: the element's name when R spells it otherwise (nullptr: `name`), and whether an
    // empty string is NA in R (a generation row's label and answer).
    const char* r_name = nullptr;
    bool empty_is_na = false;

    const char* in_r() const { return r_name != nullptr ? r_name : name.c_str(); }
    Field r_as(const char* spelling) const {
        Field field = *this;
        field.r_name = spelling;
        return field;
    }
    Field na_when_empty() const {
        Field field = *this;
        field.empty_is_na = true;
        return field;
    }

    Field not_a_column() const {
        Field field = *this;
        field.column = false;
        return field;
    }
    Field single_as(const char* name_for_one) const {
        Field field = *this;
        field.single = name_for_one;
        return field;
    }
    Field generate(StataVariable generated) const {
        Field field = *this;
        field.variable = generated;
        return field;
    }
};

// The seed: JSON writes a number up to 2^53 and a string of digits above; R a double.
struct Seed {
    std::uint64_t value;
};

// Label -> count, in order: JSON an object, R a named integer vector.
using Counts = std::vector<std::pair<std::string, int>>;

// A value that may be absent (a test that did not run, a passage that failed): JSON writes
// null (an empty object for Counts), CSV an empty cell, Stata a missing value; R gets `value` as
// it is (R builds no test object from a test that did not run).
template <class T>
struct Maybe {
    T value;
    bool present;
};

// A field whose key the JSON writes only when `present` (a JSON line's error_code); R gets the
// value either way, or NULL when absent with `r_null` (the tests of a failed passage).
template <class T>
struct KeyIf {
    const T& value;
    bool present;
    bool r_null = false;
};

// Stata's per-passage results (PassageBrief, below) show these fields flat: hence the generate()
// variables and M and B, which are r() scalars of a single passage but no columns of r(results).
template <class Visitor>
void visit(const stats::ValidationResult& x, Visitor& v) {
    v(Field{"statistic", "tau"}.generate(
          {"tau", "double", "llmvalidate: validation statistic tau", "", 3}),
      x.statistic);
    v(Field{"critical_value", "crit"}.generate(
          {"crit", "double", "llmvalidate: critical value of tau", "", 4}),
      x.critical_value);
    v(Field{"p_value", "p"}.generate(
          {"p", "double", "llmvalidate: p-value of the validation test", "", 5}),
      x.p_value);
    v(Field{"reject", "reject"}, x.reject);
    v(Field{"method"}, x.method);
    v(Field{"m", "M"}.not_a_column(), x.m);
    v(Field{"b", "B"}.not_a_column(), x.b);
    v(Field{"alpha"}, x.alpha);
    v(Field{"null_distribution", nullptr, true, true}, x.null_distribution);
    v(Field{"can_decide", nullptr, false}, x.can_decide);
    v(Field{"cannot_decide_reason", nullptr, false}, stats::cannot_decide_reason(x));
}

template <class Visitor>
void visit(const stats::SeparationResult& x, Visitor& v) {
    v(Field{"label"}, x.label);
    v(Field{"statistic", "xi"}, x.statistic);
    v(Field{"critical_value", "crit"}, x.critical_value);
    v(Field{"p_value", "p"}, x.p_value);
    v(Field{"pass", "pass"}, x.pass);
    v(Field{"method"}, x.method);
    v(Field{"m_beta", "M_beta"}, x.m_beta);
    v(Field{"m_gamma", "M_gamma"}, x.m_gamma);
    v(Field{"permutations", "reps"}, x.permutations);  // R; 0 for the paper method
    v(Field{"b", "B"}, x.b);                           // B; 0 for the permutation method
    v(Field{"alpha"}, x.alpha);
    v(Field{"null_distribution", nullptr, true, true}, x.null_distribution);
    v(Field{"can_decide", nullptr, false}, x.can_decide);
    v(Field{"cannot_decide_reason", nullptr, false}, stats::cannot_decide_reason(x));
}

// A backtranslation that did not run carries the options' rule, threshold and α and its label
// (stats::run_tests fills them), so those are written either way.
template <class Visitor>
void visit(const stats::BacktranslationResult& x, Visitor& v) {
    v(Field{"accuracy", "accuracy"}, Maybe<double>{x.accuracy, x.run});
    v(Field{"lower_bound", "lower_bound"}, Maybe<double>{x.lower_bound, x.run});
    v(Field{"counts"}, Maybe<Counts>{x.counts, x.run});
    v(Field{"pass", "pass"}, Maybe<bool>{x.pass, x.run});
    v(Field{"rule"}, x.rule);
    v(Field{"threshold"}, x.threshold);
    v(Field{"run"}, x.run);
    v(Field{"label"}, x.label);
    v(Field{"m", "M"}, x.m);
    v(Field{"correct", "correct"}, x.correct);
    v(Field{"alpha"}, x.alpha);
}

// The result of the tests on one passage with the settings they ran with: the document of
// `llmvalidate test`, the `tests` of a JSON line, the list R builds an llm_validation from.
struct TestReport {
    const std::string& label;  // the passage's label, as given
    const stats::TestOptions& options;
    const stats::TestOutput& output;
};

// A backtranslation that did not run, with what the options say (a result made outside
// stats::run_tests may leave them empty).
inline stats::BacktranslationResult shown_backtranslation(
    const stats::BacktranslationResult& result, const stats::TestOptions& options,
    const std::string& label) {
    stats::BacktranslationResult shown = result;
    if (!shown.run) {
        shown.rule = options.backtranslation_rule;
        shown.threshold = options.threshold;
        shown.alpha = options.alpha;
    }
    if (shown.label.empty()) shown.label = label;
    return shown;
}

// `permutations` means R, the permutations of the permutation test, alone: 0 when the separation
// method draws none (the paper's; stats::test_methods() says). B, the reference texts, is `b`.
inline int permutations_used(const stats::TestOptions& options) {
    return stats::draws_permutations(options) ? options.permutations : 0;
}

// B of the paper's tests that ran (the validation test's, else a separation test's); 0 when
// neither is the paper's.
inline int reference_draws(const stats::TestOutput& output) {
    if (output.validation.b > 0) return output.validation.b;
    for (const auto& test : output.separation)
        if (test.b > 0) return test.b;
    return 0;
}

template <class Visitor>
void visit(const TestReport& x, Visitor& v) {
    const stats::TestOutput& out = x.output;
    v(Field{"verdict"}, std::string(stats::verdict_name(out.verdict)));
    v(Field{"verdict_reason"}, out.verdict_reason);
    v(Field{"label"}, x.label);
    v(Field{"validation"}, out.validation);
    v(Field{"separation"}, out.separation);
    v(Field{"backtranslation"}, shown_backtranslation(out.backtranslation, x.options, x.label));
    std::vector<stats::BacktranslationResult> others;
    for (const stats::BacktranslationResult& other : out.backtranslation_other)
        others.push_back(shown_backtranslation(other, x.options, other.label));
    v(Field{"backtranslation_other"}, others);
    v(Field{"alpha"}, x.options.alpha);
    v(Field{"threshold"}, x.options.threshold);
    // R only when the permutation test ran; B, the reference texts of the paper's tests, apart.
    v(Field{"permutations"}, permutations_used(x.options));
    v(Field{"b"}, reference_draws(out));
    v(Field{"seed"}, Seed{out.seed});
}

// ---- Stata's per-passage results (stata/src/test_results.cpp) ----------------------------------
// One passage's tests as `llmvalidate` and `llmvalidate test` store them: its fields with a Stata
// name (see Field) make a row of r(results) after obs, and, for a single passage, its r()
// scalars and macros; with generate(), the fields with a variable are the variables. The
// validation test's fields come from its own record (above), flat; the rest are derived here.
struct PassageBrief {
    const std::string& label;  // β̂
    const stats::TestOutput& output;
};

// The verdict's code in r(results)[., "verdict"], r(verdict_code) and <prefix>verdict (value
// label llmv_verdict): 1 valid, 2 invalid, 3 inconclusive.
inline int stata_verdict_code(stats::Verdict verdict) {
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

// The weakest separation: every separation test passes exactly when this is <= alpha. NaN
// without separation tests, or when one has no p-value (the paper's method).
inline double max_separation_p(const stats::TestOutput& output) {
    if (output.separation.empty()) return std::numeric_limits<double>::quiet_NaN();
    double worst = -1;
    for (const auto& test : output.separation) {
        if (!std::isfinite(test.p_value)) return std::numeric_limits<double>::quiet_NaN();
        worst = std::max(worst, test.p_value);
    }
    return worst;
}

inline bool separation_all_pass(const stats::TestOutput& output) {
    for (const auto& test : output.separation)
        if (!test.pass) return false;
    return true;
}

template <class Visitor>
void visit(const PassageBrief& x, Visitor& v) {
    const stats::TestOutput& out = x.output;
    const stats::BacktranslationResult& bt = out.backtranslation;
    visit(out.validation, v);  // tau crit p reject, and M B for a single passage
    v(Field{"backtranslation_accuracy", "accuracy"}.generate(
          {"bt_acc", "double", "llmvalidate: backtranslation accuracy", "", 6}),
      Maybe<double>{bt.accuracy, bt.run});
    v(Field{"backtranslation_lower_bound", "acc_lb"}, Maybe<double>{bt.lower_bound, bt.run});
    v(Field{"backtranslation_pass", "bt_pass"}, Maybe<bool>{bt.pass, bt.run});
    v(Field{"separation_max_p_value", "sep_p"}.generate(
          {"sep_p", "double", "llmvalidate: largest separation p-value", "", 7}),
      max_separation_p(out));
    v(Field{"separation_pass", "sep_pass"},
      Maybe<bool>{separation_all_pass(out), !out.separation.empty()});
    v(Field{"verdict_code", "verdict"}
          .single_as("verdict_code")
          .generate({"verdict", "byte", "llmvalidate: verdict", "llmv_verdict", 2}),
      stata_verdict_code(out.verdict));
    v(Field{"verdict", "verdict"}, std::string(stats::verdict_name(out.verdict)));
    v(Field{"verdict_reason", "reason"}, out.verdict_reason);
    v(Field{"label", "label"}.generate({"label", nullptr, "llmvalidate: the LLM's label", "", 1}),
      x.label);
}

// The options a passage's tests ran with, from its provenance fields.
inline stats::TestOptions test_options_of(const pipeline::PassageResult& result) {
    stats::TestOptions options;
    options.alpha = result.alpha;
    options.threshold = result.threshold;
    options.seed = result.seed;
    options.permutations = result.permutations;
    options.validation_method = result.validation_method;
    options.separation_method = result.separation_method;
    options.backtranslation_rule = result.backtranslation_rule;
    return options;
}

inline Field r_only(std::string name) {
    Field field{std::move(name)};
    field.json = false;
    return field;
}

inline Field json_only(std::string name) {
    Field field{std::move(name)};
    field.r = false;
    return field;
}

// The calls of a passage or a run: the JSON line's object and the CSV's columns, and R's named
// numeric vector (r_numbers below), which has embedding_requests and no unparseable /
// out_of_set, and parse_retries before transport_retries.
template <class Visitor>
void visit(const pipeline::CallCounts& c, Visitor& v) {
    v(Field{"chat_calls"}, c.chat_calls);
    v(Field{"annotation_calls"}, c.annotation_calls);
    v(Field{"simulation_calls"}, c.simulation_calls);
    v(Field{"backtranslation_calls"}, c.backtranslation_calls);
    v(r_only("embedding_requests"), c.embedding_requests);
    v(Field{"embedded_texts"}, c.embedded_texts);
    v(Field{"cache_hits"}, c.cache_hits);
    v(Field{"shared"}, c.shared);
    v(json_only("transport_retries"), c.transport_retries);  // R: after parse_retries
    v(Field{"parse_retries"}, c.parse_retries);
    v(r_only("transport_retries"), c.transport_retries);
    v(json_only("unparseable"), c.unparseable);
    v(json_only("out_of_set"), c.out_of_set);
    v(Field{"input_tokens"}, c.input_tokens);
    v(Field{"output_tokens"}, c.output_tokens);
}

// One passage of `run --json` / `batch --format jsonl`: a JSON line; and the list R builds a
// passage's llm_validation from (R reads it by name: its order is not seen).
template <class Visitor>
void visit(const pipeline::PassageResult& x, Visitor& v) {
    v(json_only("index"), x.index + 1);
    v(Field{"id"}, x.id);
    v(json_only("status"), std::string(x.ok ? "ok" : "error"));
    v(r_only("ok"), x.ok);
    v(Field{"error_code"}, KeyIf<std::string>{x.error_code, !x.ok});
    v(Field{"error_message"}, KeyIf<std::string>{x.error_message, !x.ok});
    v(Field{"label"}, x.label);
    v(Field{"verdict"}, x.verdict_name);
    v(json_only("human_label"), x.human_label);
    v(Field{"annotations"}, x.annotations);
    v(r_only("labels"), x.label_set);
    v(json_only("annotation_stability"), x.annotation_stability);
    const stats::TestOptions options = test_options_of(x);
    const TestReport tests{x.label, options, x.tests};
    v(Field{"tests"}, KeyIf<TestReport>{tests, x.ok, true});
    v(json_only("M"), x.m);
    v(json_only("n"), x.n);
    v(json_only("R"), x.repeats);
    v(Field{"provider"}, x.provider);
    v(Field{"model"}, x.model);
    v(Field{"embedding_provider"}, x.embedding_provider);
    v(Field{"embedding_model"}, x.embedding_model);
    v(Field{"synthetic"}, x.synthetic);
    v(Field{"task"}, x.task_name);
    v(json_only("prompt_hashes"), x.prompt_hashes);
    v(Field{"seed"}, Seed{x.seed});
    v(Field{"calls"}, x.calls);
    v(json_only("pool_texts"),
      KeyIf<std::map<std::string, std::vector<std::string>>>{x.pool_texts, !x.pool_texts.empty()});
    v(json_only("backtranslation_answers"),
      KeyIf<std::map<std::string, std::vector<std::string>>>{x.backtranslation_answers,
                                                             !x.backtranslation_answers.empty()});
}

// One passage of `batch`'s CSV: flat columns, a group of four per label of the label set
// (`labels`: the run's, so that every row has the same columns). Cells of a failed passage's
// results are empty (Maybe).
struct PassageRow {
    const pipeline::PassageResult& result;
    const std::vector<std::string>& labels;
};

template <class Visitor>
void visit(const PassageRow& row, Visitor& v) {
    const pipeline::PassageResult& x = row.result;
    const stats::TestOutput& tests = x.tests;
    const bool ok = x.ok;
    std::string annotations;
    for (const auto& answer : x.annotations)
        annotations += (annotations.empty() ? "" : "|") + answer;
    std::string counts;
    for (const auto& [label, count] : tests.backtranslation.counts)
        counts += (counts.empty() ? "" : "|") + label + ":" + std::to_string(count);
    v(Field{"index"}, x.index + 1);
    v(Field{"id"}, x.id);
    v(Field{"status"}, std::string(ok ? "ok" : "error"));
    v(Field{"error_code"}, x.error_code);
    v(Field{"error_message"}, x.error_message);
    v(Field{"label"}, x.label);
    v(Field{"verdict"}, x.verdict_name);
    v(Field{"verdict_reason"}, Maybe<std::string>{tests.verdict_reason, ok});
    v(Field{"human_label"}, x.human_label);
    v(Field{"annotation_stability"}, Maybe<double>{x.annotation_stability, ok});
    v(Field{"annotations"}, annotations);
    v(Field{"validation_method"}, x.validation_method);
    v(Field{"validation_statistic"}, Maybe<double>{tests.validation.statistic, ok});
    v(Field{"validation_critical_value"}, Maybe<double>{tests.validation.critical_value, ok});
    v(Field{"validation_p_value"}, Maybe<double>{tests.validation.p_value, ok});
    v(Field{"validation_reject"}, Maybe<bool>{tests.validation.reject, ok});
    v(Field{"backtranslation_accuracy"}, Maybe<double>{tests.backtranslation.accuracy, ok});
    v(Field{"backtranslation_correct"}, Maybe<int>{tests.backtranslation.correct, ok});
    v(Field{"backtranslation_m"}, Maybe<int>{tests.backtranslation.m, ok});
    v(Field{"backtranslation_lower_bound"}, Maybe<double>{tests.backtranslation.lower_bound, ok});
    v(Field{"backtranslation_pass"}, Maybe<bool>{tests.backtranslation.pass, ok});
    v(Field{"backtranslation_counts"}, counts);
    for (const std::string& label : row.labels) {
        const stats::SeparationResult* found = nullptr;
        for (const auto& separation : tests.separation)
            if (separation.label == label) found = &separation;
        const bool shown = ok && found != nullptr;
        const stats::SeparationResult none;
        const stats::SeparationResult& s = found ? *found : none;
        v(Field{"separation_" + label + "_statistic"}, Maybe<double>{s.statistic, shown});
        v(Field{"separation_" + label + "_critical_value"}, Maybe<double>{s.critical_value, shown});
        v(Field{"separation_" + label + "_p_value"}, Maybe<double>{s.p_value, shown});
        v(Field{"separation_" + label + "_pass"}, Maybe<bool>{s.pass, shown});
    }
    v(Field{"separation_method"}, x.separation_method);
    v(Field{"M"}, x.m);
    v(Field{"n"}, x.n);
    v(Field{"R"}, x.repeats);
    v(Field{"permutations"}, x.permutations);
    v(Field{"b"}, x.b);
    v(Field{"alpha"}, x.alpha);
    v(Field{"threshold"}, x.threshold);
    v(Field{"backtranslation_rule"}, x.backtranslation_rule);
    v(Field{"seed"}, x.seed);
    v(Field{"provider"}, x.provider);
    v(Field{"model"}, x.model);
    v(Field{"embedding_provider"}, x.embedding_provider);
    v(Field{"embedding_model"}, x.embedding_model);
    v(Field{"synthetic"}, x.synthetic);
    v(Field{"task"}, x.task_name);
    const auto hash = x.prompt_hashes.find("annotation");
    v(Field{"prompt_hash_annotation"},
      hash == x.prompt_hashes.end() ? std::string() : hash->second);
    visit(x.calls, v);  // the calls' columns, unprefixed
}

// ---- The results of many passages: Tables 9 and 10 of the paper (R's llm_validation_summary,
// Stata's table9 / table10 matrices, `batch --summary`), and `batch --summary`'s document. ----

// Records R writes as a named numeric vector (every field a number), not as a list.
template <class T>
struct r_numbers : std::false_type {};
template <>
struct r_numbers<pipeline::CallCounts> : std::true_type {};

// Rows of one record as a table: JSON an array of objects, R a list of columns (what
// as.data.frame() takes), each column of its field's type.
template <class T>
struct Table {
    const std::vector<T>& rows;
};

// A row of Table 9: passages whose prerequisites pass, by LLM label ("" / "All": overall).
template <class Visitor>
void visit(const stats::ShareRow& x, Visitor& v) {
    v(r_only("label"), x.label);  // R names the overall row itself
    v(json_only("llm_label"), std::string(x.label.empty() ? "All" : x.label));
    v(Field{"n", "n"}, x.n);
    v(Field{"n_valid", "n_valid"}, x.n_valid);
    v(Field{"share_valid", "share_valid"}, x.share_valid);
    v(Field{"n_human_agree", "n_human_agree"}, x.n_human_agree);
    v(Field{"share_human", "share_human"}, x.share_human);
}

// A cell of Table 10: LLM label x human label.
template <class Visitor>
void visit(const stats::CrossCell& x, Visitor& v) {
    v(Field{"llm_label"}, x.llm_label);
    v(Field{"human_label"}, x.human_label);
    v(Field{"n", "n"}, x.n);
    v(Field{"n_valid", "n_valid"}, x.n_valid);
    v(Field{"share_valid", "share_valid"}, x.share_valid);
}

// A row of Table 11: a disagreement with the human label that passes.
template <class Visitor>
void visit(const stats::Disagreement& x, Visitor& v) {
    v(Field{"id"}, x.id);
    v(Field{"llm_label"}, x.llm_label);
    v(Field{"human_label"}, x.human_label);
    v(Field{"text"}, x.text);
}

// R's summary of passages (llm_validation_summary()).
template <class Visitor>
void visit(const stats::PassageSummary& x, Visitor& v) {
    v(Field{"table9"}, Table<stats::ShareRow>{x.table9});
    v(Field{"table10"}, Table<stats::CrossCell>{x.table10});
    v(Field{"table11"}, Table<stats::Disagreement>{x.table11});
    v(Field{"n_total"}, x.n_total);
    v(Field{"n_inconclusive"}, x.n_inconclusive);
}

// A passage's validation p-value and its Benjamini-Hochberg adjustment.
struct AdjustedP {
    const std::string& id;
    double p_value;
    double p_bh;
};

template <class Visitor>
void visit(const AdjustedP& x, Visitor& v) {
    v(Field{"id"}, x.id);
    v(Field{"validation_p_value"}, x.p_value);
    v(Field{"p_bh"}, x.p_bh);
}

// `batch --summary`'s document (the command adds `synthetic` and `banner`).
template <class Visitor>
void visit(const pipeline::BatchSummary& x, Visitor& v) {
    v(Field{"passages"}, x.n_passages);
    v(Field{"failed"}, x.n_failed);
    v(Field{"valid"}, x.n_valid);
    v(Field{"invalid"}, x.n_invalid);
    v(Field{"inconclusive"}, x.n_inconclusive);
    v(Field{"table9"}, Table<stats::ShareRow>{x.summary.table9});
    v(Field{"table10"}, Table<stats::CrossCell>{x.summary.table10});
    v(Field{"table11"}, Table<stats::Disagreement>{x.summary.table11});
    std::vector<AdjustedP> adjusted;
    for (std::size_t i = 0; i < x.ids.size(); ++i)
        adjusted.push_back(AdjustedP{x.ids[i], x.p_values[i], x.p_bh[i]});
    v(Field{"benjamini_hochberg"}, adjusted);
}

// A vector of values (of records: an array / a list) and a Table: the writers' rules for them.
template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_table : std::false_type {};
template <class T>
struct is_table<Table<T>> : std::true_type {};

// Whether `visit(T, Visitor)` exists: the writers recurse into nested records with it.
template <class T, class = void>
struct is_record : std::false_type {};
struct DetectVisitor {
    template <class V>
    void operator()(const Field&, const V&) {}
};
template <class T>
struct is_record<
    T, std::void_t<decltype(visit(std::declval<const T&>(), std::declval<DetectVisitor&>()))>>
    : std::true_type {};

}  // namespace llmv::records
