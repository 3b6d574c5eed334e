// The records (llmvalidate/records.hpp) and their generic writers: a field added to a record's
// visit() appears in the JSON (the JSON lines are to_json of a record too), the CSV and the
// Stata rows, and one added to Stata's per-passage record (PassageBrief) in r(results), a single
// passage's r() and the generate() variables; rpkg/tests/testthat/test-records.R checks the R
// writer on the same probe (rpkg/src/record_probe.cpp). The real records write what the front ends
// expect (the golden outputs, tests/cli/test_golden.cpp, check them byte for byte).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "../../stata/src/record_stata.hpp"
#include "llmvalidate/record_csv.hpp"
#include "llmvalidate/record_json.hpp"
#include "llmvalidate/record_probe.hpp"
#include "llmvalidate/records.hpp"

namespace probe {

using llmv::records::probe::ProbeResult;
using llmv::records::probe::ProbeRow;
using llmv::records::probe::ProbeTable;

using llmv::records::Field;
using llmv::records::Maybe;

// Stata's per-passage results (as records::PassageBrief): a column with a variable, a number for
// a single passage only, a number named otherwise for one passage, text with a variable, and
// one more, `added`, with a variable of its own, as a new per-passage field would be.
struct ProbeBrief {
    double statistic = 0.25;
    int m = 7;
    int code = 2;
    std::string label = "Positive";
    double added = 1.5;
};

template <class Visitor>
void visit(const ProbeBrief& x, Visitor& v) {
    v(Field{"statistic", "stat"}.generate({"stat", "double", "the statistic", "", 2}), x.statistic);
    v(Field{"m", "M"}.not_a_column(), x.m);
    v(Field{"code", "code"}.single_as("code_one").generate({"code", "byte", "a code", "codes", 1}),
      x.code);
    v(Field{"method"}, std::string("exact"));  // no Stata name: not in Stata
    v(Field{"label", "label"}.generate({"label", nullptr, "the label", "", 0}), x.label);
    v(Field{"added", "added"}.generate({"added", "double", "the added field", "", 3}), x.added);
}

// A record holding records: nested objects and arrays.
struct ProbeReport {
    ProbeResult one;
    std::vector<ProbeResult> many = {ProbeResult{}, ProbeResult{}};
};

template <class Visitor>
void visit(const ProbeReport& x, Visitor& v) {
    v(Field{"one"}, x.one);
    v(Field{"many"}, x.many);
}

}  // namespace probe

using llmv::records::stata_row;
using llmv::records::to_json;

TEST_CASE("records: a field added to a record appears in the JSON and in Stata's row",
          "[records]") {
    const probe::ProbeResult result;
    const nlohmann::ordered_json json = to_json(result);
    CHECK(json.dump() ==
          R"({"statistic":0.25,"m":7,"pass":true,"method":"exact","accuracy":null,"added":1.5})");

    const llmv::records::StataRow row = stata_row(result);
    CHECK(row.names == std::vector<std::string>{"stat", "M", "pass", "accuracy", "added"});
    REQUIRE(row.values.size() == 5);
    CHECK(row.values[0] == 0.25);
    CHECK(row.values[1] == 7.0);
    CHECK(row.values[2] == 1.0);
    CHECK(std::isnan(row.values[3]));  // the test did not run: missing
    CHECK(row.values[4] == 1.5);

    // Nested records: objects and arrays of objects.
    const nlohmann::ordered_json report = to_json(probe::ProbeReport{});
    CHECK(report["one"]["added"] == 1.5);
    REQUIRE(report["many"].size() == 2);
    CHECK(report["many"][1]["added"] == 1.5);
}

TEST_CASE("records: a field added to a record appears in the CSV header and row", "[records]") {
    const probe::ProbeResult result;
    CHECK(llmv::records::csv_header(result) ==
          std::vector<std::string>{"statistic", "m", "pass", "method", "accuracy", "added"});
    CHECK(llmv::records::csv_cells(result) ==
          std::vector<std::string>{"0.25", "7", "true", "exact", "", "1.5"});
}

TEST_CASE("records: the JSON rules per value type", "[records]") {
    probe::ProbeResult result;
    result.statistic = std::nan("");
    result.run = true;
    const nlohmann::ordered_json json = to_json(result);
    CHECK(json["statistic"].is_null());  // JSON has no NaN
    CHECK(json["accuracy"] == 0.5);      // the test ran
    // Seeds: a number up to 2^53, a string of digits above.
    using llmv::records::detail::json_value;
    const llmv::records::JsonWriteOptions options;
    CHECK(json_value(llmv::records::Seed{9007199254740992ULL}, options).is_number());
    CHECK(json_value(llmv::records::Seed{9007199254740993ULL}, options) == "9007199254740993");
}

TEST_CASE("records: the tests' JSON leaves R-only fields out and null distributions unless asked",
          "[records]") {
    llmv::stats::ValidationResult validation;
    validation.method = "exact";
    validation.null_distribution = Eigen::VectorXd::Constant(3, 0.5);
    const nlohmann::ordered_json plain = to_json(validation);
    CHECK_FALSE(plain.contains("can_decide"));
    CHECK_FALSE(plain.contains("cannot_decide_reason"));
    CHECK_FALSE(plain.contains("null_distribution"));
    llmv::records::JsonWriteOptions bulk;
    bulk.bulk = true;
    CHECK(to_json(validation, bulk)["null_distribution"].size() == 3);
    // Stata: the validation test's scalars, by their Stata names.
    CHECK(stata_row(validation).names ==
          std::vector<std::string>{"tau", "crit", "p", "reject", "M", "B"});
}

TEST_CASE("records: a backtranslation that did not run shows the options and null numbers",
          "[records]") {
    llmv::stats::TestOptions options;
    options.threshold = 0.8;
    options.backtranslation_rule = "bound";
    llmv::stats::TestOutput output;  // nothing run
    const std::string label = "Positive";
    const nlohmann::ordered_json json = to_json(llmv::records::TestReport{label, options, output});
    const auto& bt = json["backtranslation"];
    CHECK(bt["accuracy"].is_null());
    CHECK(bt["pass"].is_null());
    CHECK(bt["counts"] == nlohmann::ordered_json::object());
    CHECK(bt["rule"] == "bound");
    CHECK(bt["threshold"] == 0.8);
    CHECK(bt["label"] == "Positive");
    CHECK(bt["run"] == false);
}

TEST_CASE("records: a passage's JSON line and CSV row", "[records]") {
    llmv::pipeline::PassageResult failed;
    failed.id = "p1";
    failed.error_code = "llmv.input.invalid_argument";
    failed.error_message = "only white space";
    failed.verdict_name = "error";
    const nlohmann::ordered_json line = to_json(failed);
    CHECK(line["status"] == "error");
    CHECK(line["error_code"] == "llmv.input.invalid_argument");
    CHECK_FALSE(line.contains("tests"));
    CHECK_FALSE(line.contains("pool_texts"));
    CHECK_FALSE(line.contains("ok"));  // R's elements
    CHECK_FALSE(line.contains("labels"));

    llmv::pipeline::PassageResult ok = failed;
    ok.ok = true;
    ok.label = "A";
    ok.tests.separation.resize(1);
    ok.tests.separation[0].label = "B";
    ok.tests.separation[0].pass = true;
    const nlohmann::ordered_json ok_line = to_json(ok);
    CHECK_FALSE(ok_line.contains("error_code"));
    CHECK(ok_line["tests"]["separation"][0]["pass"] == true);

    const std::vector<std::string> labels = {"A", "B"};
    const auto header = llmv::records::csv_header(llmv::records::PassageRow{failed, labels});
    const auto failed_row = llmv::records::csv_cells(llmv::records::PassageRow{failed, labels});
    const auto ok_row = llmv::records::csv_cells(llmv::records::PassageRow{ok, labels});
    REQUIRE(failed_row.size() == header.size());
    REQUIRE(ok_row.size() == header.size());
    std::size_t pass_b = 0;
    for (std::size_t i = 0; i < header.size(); ++i)
        if (header[i] == "separation_B_pass") pass_b = i;
    REQUIRE(pass_b > 0);
    CHECK(failed_row[pass_b].empty());  // a failed passage has no results
    CHECK(ok_row[pass_b] == "true");
    CHECK(ok_row[pass_b - 4].empty());  // no separation test against its own label A
}

TEST_CASE("records: a field added to a table's row appears in the JSON, the CSV and Stata's row",
          "[records]") {
    probe::ProbeTable table;
    table.rows.resize(2);
    table.rows[0].label = "";
    CHECK(to_json(table).dump() ==
          R"({"rows":[{"row_name":"All","n":2,"share":0.5,"pass":true,"added":1.5},)"
          R"({"row_name":"a","n":2,"share":0.5,"pass":true,"added":1.5}]})");
    CHECK(to_json(probe::ProbeTable{}).dump() == R"({"rows":[]})");
    // R-only fields are no CSV column, JSON-only ones are.
    CHECK(llmv::records::csv_header(probe::ProbeRow{}) ==
          std::vector<std::string>{"row_name", "n", "share", "pass", "added"});
    CHECK(llmv::records::csv_cells(probe::ProbeRow{}) ==
          std::vector<std::string>{"a", "2", "0.5", "true", "1.5"});
    CHECK(stata_row(probe::ProbeRow{}).names == std::vector<std::string>{"n", "share", "added"});
}

TEST_CASE("records: the calls' JSON and CSV leave R's fields out, in their own order",
          "[records]") {
    llmv::pipeline::CallCounts calls;
    calls.embedding_requests = 5;
    calls.transport_retries = 2;
    const std::vector<std::string> expected = {
        "chat_calls",     "annotation_calls", "simulation_calls", "backtranslation_calls",
        "embedded_texts", "cache_hits",       "shared",           "transport_retries",
        "parse_retries",  "unparseable",      "out_of_set",       "input_tokens",
        "output_tokens"};
    const nlohmann::ordered_json json = to_json(calls);
    std::vector<std::string> keys;
    for (const auto& item : json.items()) keys.push_back(item.key());
    CHECK(keys == expected);
    CHECK(json["transport_retries"] == 2);
    CHECK(llmv::records::csv_header(calls) == expected);
}

TEST_CASE("records: Tables 9 and 10 and the batch summary's JSON", "[records]") {
    llmv::pipeline::BatchSummary summary;
    summary.n_passages = 3;
    summary.n_failed = 1;
    summary.n_valid = 2;
    llmv::stats::ShareRow all;
    all.n = 2;
    all.n_valid = 2;
    all.share_valid = 1.0;
    all.share_human = std::nan("");
    llmv::stats::ShareRow positive = all;
    positive.label = "Positive";
    summary.summary.table9 = {all, positive};
    llmv::stats::CrossCell cell;
    cell.llm_label = "Positive";
    cell.human_label = "Negative";
    cell.share_valid = std::nan("");
    summary.summary.table10 = {cell};
    summary.ids = {"p1"};
    summary.p_values = {0.5};
    summary.p_bh = {0.75};
    const nlohmann::ordered_json json = to_json(summary);
    CHECK(
        json.dump() ==
        R"({"passages":3,"failed":1,"valid":2,"invalid":0,"inconclusive":0,"table9":[)"
        R"({"llm_label":"All","n":2,"n_valid":2,"share_valid":1.0,"n_human_agree":0,"share_human":null},)"
        R"({"llm_label":"Positive","n":2,"n_valid":2,"share_valid":1.0,"n_human_agree":0,"share_human":null}],)"
        R"("table10":[{"llm_label":"Positive","human_label":"Negative","n":0,"n_valid":0,"share_valid":null}],)"
        R"("table11":[],)"
        R"("benjamini_hochberg":[{"id":"p1","validation_p_value":0.5,"p_bh":0.75}]})");
    // Stata's names of the tables' columns.
    CHECK(stata_row(all).names ==
          std::vector<std::string>{"n", "n_valid", "share_valid", "n_human_agree", "share_human"});
    CHECK(stata_row(cell).names == std::vector<std::string>{"n", "n_valid", "share_valid"});
}

TEST_CASE(
    "records: a field added to Stata's per-passage record appears in r(results), the "
    "single passage's r() and the variables",
    "[records]") {
    const llmv::records::StataCells cells = llmv::records::stata_cells(probe::ProbeBrief{});
    const llmv::records::StataRow columns = llmv::records::stata_columns(cells);
    CHECK(columns.names == std::vector<std::string>{"stat", "code", "added"});
    CHECK(columns.values == std::vector<double>{0.25, 2.0, 1.5});

    const llmv::records::StataSingle single = llmv::records::stata_single(cells);
    REQUIRE(single.scalars.size() == 4);
    CHECK(single.scalars[0] == std::make_pair(std::string("stat"), 0.25));
    CHECK(single.scalars[1] == std::make_pair(std::string("M"), 7.0));
    CHECK(single.scalars[2] == std::make_pair(std::string("code_one"), 2.0));
    CHECK(single.scalars[3] == std::make_pair(std::string("added"), 1.5));
    REQUIRE(single.macros.size() == 1);
    CHECK(single.macros[0] == std::make_pair(std::string("label"), std::string("Positive")));

    // The variables in their order, each with its type, labels and value.
    std::vector<std::string> names, types, labels, value_labels;
    for (const std::size_t k : llmv::records::stata_variables(cells)) {
        const llmv::records::StataVariable& variable = cells[k].field.variable;
        names.push_back(variable.name);
        types.push_back(variable.type == nullptr ? "str#" : variable.type);
        labels.push_back(variable.label);
        value_labels.push_back(variable.value_label);
    }
    CHECK(names == std::vector<std::string>{"label", "code", "stat", "added"});
    CHECK(types == std::vector<std::string>{"str#", "byte", "double", "double"});
    CHECK(labels ==
          std::vector<std::string>{"the label", "a code", "the statistic", "the added field"});
    CHECK(value_labels == std::vector<std::string>{"", "codes", "", ""});
}

TEST_CASE("records: Stata's per-passage results of the tests", "[records]") {
    llmv::stats::TestOutput output;
    output.validation.statistic = 0.5;
    output.validation.m = 20;
    output.verdict = llmv::stats::Verdict::invalid;
    output.verdict_reason = "rejected";
    output.separation.resize(2);
    output.separation[0].p_value = 0.01;
    output.separation[0].pass = true;
    output.separation[1].p_value = 0.03;
    output.separation[1].pass = true;
    const std::string label = "Negative";
    const llmv::records::StataCells cells =
        llmv::records::stata_cells(llmv::records::PassageBrief{label, output});

    const llmv::records::StataRow columns = llmv::records::stata_columns(cells);
    CHECK(columns.names == std::vector<std::string>{"tau", "crit", "p", "reject", "accuracy",
                                                    "acc_lb", "bt_pass", "sep_p", "sep_pass",
                                                    "verdict"});
    REQUIRE(columns.values.size() == 10);
    CHECK(columns.values[0] == 0.5);
    CHECK(std::isnan(columns.values[4]));  // no backtranslation: missing
    CHECK(std::isnan(columns.values[6]));
    CHECK(columns.values[7] == 0.03);  // the largest separation p-value
    CHECK(columns.values[8] == 1.0);   // every separation test passed
    CHECK(columns.values[9] == 2.0);   // invalid

    const llmv::records::StataSingle single = llmv::records::stata_single(cells);
    std::vector<std::string> scalars;
    for (const auto& entry : single.scalars) scalars.push_back(entry.first);
    CHECK(scalars == std::vector<std::string>{"tau", "crit", "p", "reject", "M", "B", "accuracy",
                                              "acc_lb", "bt_pass", "sep_p", "sep_pass",
                                              "verdict_code"});
    REQUIRE(single.macros.size() == 3);
    CHECK(single.macros[0] == std::make_pair(std::string("verdict"), std::string("invalid")));
    CHECK(single.macros[1] == std::make_pair(std::string("reason"), std::string("rejected")));
    CHECK(single.macros[2] == std::make_pair(std::string("label"), std::string("Negative")));

    std::vector<std::string> variables;
    for (const std::size_t k : llmv::records::stata_variables(cells))
        variables.push_back(cells[k].field.variable.name);
    CHECK(variables ==
          std::vector<std::string>{"label", "verdict", "tau", "crit", "p", "bt_acc", "sep_p"});

    // No separation test: both separation fields missing.
    output.separation.clear();
    const llmv::records::StataRow alone = llmv::records::stata_columns(
        llmv::records::stata_cells(llmv::records::PassageBrief{label, output}));
    CHECK(std::isnan(alone.values[7]));
    CHECK(std::isnan(alone.values[8]));
}
