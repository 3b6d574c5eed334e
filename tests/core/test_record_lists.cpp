// One field list per output (issue 40, item 5): the generation rows, the dry run's report, the
// provider defaults and the statistics' methods are written by each front end from their list
// (llmvalidate/record_lists.hpp). Each test counts the struct's fields (an aggregate's members,
// counted by brace initialisation) against the list, so that a field added to the struct and
// to no list fails here, and compares the CSV header, the JSON keys, R's names and Stata's
// names with the list.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "llmvalidate/models.hpp"
#include "llmvalidate/record_csv.hpp"
#include "llmvalidate/record_json.hpp"
#include "llmvalidate/record_lists.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/stats.hpp"

#include "../../stata/src/record_stata.hpp"

using namespace llmv;

namespace {

// The number of members of an aggregate: the most initialisers T{...} takes.
struct AnyField {
    template <class T>
    operator T() const;
};

template <class T, class... A>
constexpr auto braces(int) -> decltype(T{std::declval<A>()...}, true) {
    return true;
}
template <class T, class... A>
constexpr bool braces(...) {
    return false;
}
template <class T, class... A>
constexpr std::size_t member_count() {
    if constexpr (sizeof...(A) > 40) {
        return 0;
    } else if constexpr (braces<T, A..., AnyField>(0)) {
        return member_count<T, A..., AnyField>();
    } else {
        return sizeof...(A);
    }
}

// A list's fields as each front end sees them.
struct Seen {
    std::vector<std::string> names;   // canonical (JSON, CSV)
    std::vector<std::string> r;       // R's element names
    std::vector<std::string> stata;   // Stata's names
    std::vector<std::string> nested;  // fields whose value is a record of its own
    std::size_t stata_only = 0;
    template <class T>
    void operator()(const records::Field& field, const T&) {
        names.push_back(field.name);
        if (field.r) r.push_back(field.in_r());
        if (field.stata != nullptr) stata.push_back(field.stata);
        if (!field.json && !field.r) ++stata_only;
        if constexpr (records::is_record<T>::value) nested.push_back(field.name);
    }
};

template <class T>
Seen seen(const T& record) {
    Seen fields;
    visit(record, fields);
    return fields;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("generation rows: one list for the CSV, the JSON lines, R and Stata's saving()",
          "[records]") {
    pipeline::GenerationRow row;
    row.index = 2;
    row.passage_id = "p3";
    row.kind = "annotation";
    row.draw = 0;
    row.text = "Revenue grew, \"strongly\".";
    row.answer = "Positive";
    row.model = "m";
    row.prompt_hash = "abc";
    const Seen fields = seen(row);
    // Every member of the struct is a field of the list.
    CHECK(member_count<pipeline::GenerationRow>() == fields.names.size());
    const Names columns{"index", "id",     "kind",  "label",      "draw",
                        "text",  "answer", "model", "prompt_hash"};
    CHECK(records::csv_header(row) == columns);
    CHECK(pipeline::generations_csv_header() == pipeline::csv_line(columns));
    // The JSON line's keys are the CSV's columns, in order; index and draw count from 1.
    const auto json = records::to_json(row);
    Names keys;
    for (const auto& item : json.items()) keys.push_back(item.key());
    CHECK(keys == columns);
    CHECK(json["index"] == 3);
    CHECK(json["draw"] == 1);
    CHECK(pipeline::generation_csv_line(row) ==
          "3,p3,annotation,,1,\"Revenue grew, \"\"strongly\"\".\",Positive,m,abc");
    // R: no index (its rows are the passages it gave), the answer called `backtranslated`.
    CHECK(fields.r ==
          Names{"id", "kind", "label", "draw", "text", "backtranslated", "model", "prompt_hash"});
}

TEST_CASE("the dry run's report: one list for R's llm_dry_run and Stata's r()", "[records]") {
    pipeline::DryRunReport report;
    report.passages = 5;
    report.calls.chat_calls = 40;
    report.calls.embedded_texts = 101;
    report.chat_calls_to_make = 30;
    report.estimated_input_tokens = 1234;
    report.note = "a note";
    const Seen fields = seen(report);
    const Seen to_make = seen(pipeline::DryRunToMake{report});
    // Every member is in the list: the report's own fields (less the Stata-only copies of two
    // counts of `calls`, and `to_make`, a view), the four of to_make that are the report's own
    // (shared_calls is calls.shared) and the cost, which has writers of its own.
    CHECK(member_count<pipeline::DryRunReport>() == (fields.names.size() - fields.stata_only - 1) +
                                                        (to_make.names.size() - 1) +
                                                        pipeline::dry_run_fields_elsewhere);
    CHECK(fields.r == Names{"passages", "providers", "calls", "cached_calls", "to_make",
                            "estimated_input_tokens", "estimated_output_tokens",
                            "estimated_reasoning_tokens", "estimated_embedding_tokens", "note",
                            "warnings"});
    CHECK(to_make.r ==
          Names{"chat_calls", "shared_calls", "texts_to_embed", "cached_texts", "shared_texts"});
    CHECK(fields.stata == Names{"N", "calls", "cached_calls", "embedded_texts", "input_tokens",
                                "output_tokens", "reasoning_tokens", "embedding_tokens", "note"});
    // Stata's values are the report's.
    const records::StataSingle single = records::stata_single(records::stata_cells(report));
    std::map<std::string, double> scalars(single.scalars.begin(), single.scalars.end());
    CHECK(scalars.at("N") == 5);
    CHECK(scalars.at("calls") == 40);
    CHECK(scalars.at("embedded_texts") == 101);
    CHECK(scalars.at("input_tokens") == 1234);
    REQUIRE(single.macros.size() == 1);
    CHECK(single.macros[0] == std::make_pair(std::string("note"), std::string("a note")));
}

TEST_CASE("provider defaults: one list for R's llm_provider_defaults()", "[records]") {
    const pipeline::ProviderDefaults& row = pipeline::provider_defaults().front();
    const Seen fields = seen(row);
    // A member is in the list or one of the engine's own facts, counted in the header.
    CHECK(member_count<pipeline::ProviderDefaults>() ==
          fields.names.size() + pipeline::provider_defaults_engine_fields);
    CHECK(fields.r == Names{"kind", "provider", "model", "embedding_provider", "credential",
                            "checked", "source", "key_variables", "auto_rank", "batch_api"});
}

TEST_CASE("test methods: the registry's list is what R reads", "[records][stats]") {
    const Seen fields = seen(stats::test_methods().front());
    CHECK(member_count<stats::MethodInfo>() == fields.names.size());
    CHECK(fields.r == Names{"test", "name", "title", "doc", "draws"});
    std::set<std::string> draws;
    for (const stats::MethodInfo& method : stats::test_methods())
        draws.insert(method.test + ":" + method.name + ":" +
                     stats::null_draws_symbol(method.draws));
    CHECK(draws == std::set<std::string>{"validation:exact:M", "validation:paper:B",
                                         "separation:permutation:R", "separation:paper:B"});
}

TEST_CASE("permutations means R alone: B of the paper's tests is b", "[records][stats]") {
    stats::TestOptions options;
    options.permutations = 99;
    stats::TestOutput output;
    output.validation.method = "paper";
    output.validation.b = 20;
    stats::SeparationResult separation;
    separation.method = "paper";
    separation.b = 20;
    output.separation.push_back(separation);
    const std::string label = "Positive";

    options.validation_method = "paper";
    options.separation_method = "paper";
    auto json = records::to_json(records::TestReport{label, options, output});
    CHECK(json["permutations"] == 0);  // no permutation was drawn
    CHECK(json["b"] == 20);
    CHECK(json["separation"][0]["permutations"] == 0);
    CHECK(json["separation"][0]["b"] == 20);

    options.validation_method = "exact";
    options.separation_method = "permutation";
    output.validation = {};
    output.separation[0].method = "permutation";
    output.separation[0].permutations = 99;
    output.separation[0].b = 0;
    json = records::to_json(records::TestReport{label, options, output});
    CHECK(json["permutations"] == 99);
    CHECK(json["b"] == 0);
    CHECK(json["separation"][0]["permutations"] == 99);
    // Stata's separation row: reps (R) and B, apart.
    const records::StataRow row = records::stata_row(output.separation[0]);
    CHECK(std::count(row.names.begin(), row.names.end(), "reps") == 1);
    CHECK(std::count(row.names.begin(), row.names.end(), "B") == 1);
}

TEST_CASE("model lists: one list for the CLI's JSON, R's tibble and Stata's r(catalogue)",
          "[records]") {
    pipeline::ListedModel model;
    model.id = "claude-x";
    model.kind = "inference profile";
    model.lifecycle = "deprecated";
    model.retires = "2026-12-07";
    model.default_for = "chat";
    model.priced = true;
    const Seen fields = seen(model);
    CHECK(member_count<pipeline::ListedModel>() == fields.names.size() - fields.stata_only);
    CHECK(fields.r == Names{"id", "name", "kind", "status", "lifecycle", "retires", "replacement",
                            "lifecycle_source", "default_for", "priced"});
    Names keys;
    const auto written = records::to_json(model);
    for (const auto& item : written.items()) keys.push_back(item.key());
    CHECK(keys == fields.r);
    const records::StataRow row = records::stata_row(model);
    CHECK(row.names == Names{"default", "priced", "profile", "lifecycle", "retires"});
    CHECK(row.values == std::vector<double>{1, 1, 1, 1, 24447});  // 07dec2026 is 24447 in %td
    CHECK(pipeline::stata_day("1959-12-31").value == -1);
    CHECK_FALSE(pipeline::stata_day("").present);
}
