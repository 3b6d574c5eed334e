// One field list per output besides the tests' results (records.hpp, whose Field, Table and
// writers these use): the generation rows (the audit trail), the dry run's report, the
// table of provider defaults and the statistics' methods. The model list's is beside its struct
// (models.hpp). Each front end writes them by walking these lists: the CSV and JSON lines of
// --save-generations and Stata's saving() (record_csv.hpp, record_json.hpp), R's columns and lists
// (rpkg/src/ record_r.hpp), Stata's r() of a dry run (stata/src/record_stata.hpp). A field added
// here appears in each; tests/core/test_record_lists.cpp fails for a field of the struct that is in
// no list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llmvalidate/dry_run.hpp"
#include "llmvalidate/generations.hpp"
#include "llmvalidate/provider_defaults.hpp"
#include "llmvalidate/records.hpp"

namespace llmv::records {

// A field Stata alone shows (an r() scalar or macro named `stata`), for a value that the other
// front ends read inside a nested record.
inline Field stata_only(std::string name, const char* stata) {
    Field field{std::move(name), stata};
    field.json = false;
    field.r = false;
    return field;
}

}  // namespace llmv::records

namespace llmv::pipeline {

// A row of the audit trail: the CSV columns and JSON keys of --save-generations and Stata's
// saving(), R's columns of llm_generations(). The passage's index and the draw count from 1;
// R has no index (its rows are the passages it was given) and calls the answer
// `backtranslated`, NA when empty, as the label of an annotation.
template <class Visitor>
void visit(const GenerationRow& x, Visitor& v) {
    v(records::json_only("index"), x.index + 1);
    v(records::Field{"id"}, x.passage_id);
    v(records::Field{"kind"}, x.kind);
    v(records::Field{"label"}.na_when_empty(), x.label);
    v(records::Field{"draw"}, x.draw + 1);
    v(records::Field{"text"}, x.text);
    v(records::Field{"answer"}.r_as("backtranslated").na_when_empty(), x.answer);
    v(records::Field{"model"}, x.model);
    v(records::Field{"prompt_hash"}, x.prompt_hash);
}

// What the dry run says would still be made (R's named vector `to_make`).
struct DryRunToMake {
    const DryRunReport& report;
};

template <class Visitor>
void visit(const DryRunToMake& x, Visitor& v) {
    v(records::Field{"chat_calls"}, x.report.chat_calls_to_make);
    v(records::Field{"shared_calls"}, x.report.calls.shared);
    v(records::Field{"texts_to_embed"}, x.report.texts_to_embed);
    v(records::Field{"cached_texts"}, x.report.cached_embedded_texts);
    v(records::Field{"shared_texts"}, x.report.shared_embedded_texts);
}

// The dry run's report: R's llm_dry_run (before R adds its own elements), Stata's r() of
// `llmvalidate ..., dryrun`. Its cost (`cost`: a table of its own, priced per model) is
// written by each front end's cost writer (R's cost_to_r(), Stata's r(dollars), the CLI's
// format_cost()); the CLI's text report is a message, in its own words.
template <class Visitor>
void visit(const DryRunReport& x, Visitor& v) {
    v(records::Field{"passages", "N"}, x.passages);
    v(records::Field{"providers"}, x.providers);
    v(records::Field{"calls"}, x.calls);
    v(records::stata_only("chat_calls", "calls"), x.calls.chat_calls);
    v(records::Field{"cached_calls", "cached_calls"}, x.cached_calls);
    v(records::stata_only("embedded_texts", "embedded_texts"), x.calls.embedded_texts);
    v(records::Field{"to_make"}, DryRunToMake{x});
    v(records::Field{"estimated_input_tokens", "input_tokens"}, x.estimated_input_tokens);
    v(records::Field{"estimated_output_tokens", "output_tokens"}, x.estimated_output_tokens);
    v(records::Field{"estimated_reasoning_tokens", "reasoning_tokens"},
      x.estimated_reasoning_tokens);
    v(records::Field{"estimated_embedding_tokens", "embedding_tokens"},
      x.estimated_embedding_tokens);
    v(records::Field{"note", "note"}, x.note);
    v(records::Field{"warnings"}, x.warnings);
}

// The fields of DryRunReport that its list above does not carry: `cost` (its own writers).
inline constexpr std::size_t dry_run_fields_elsewhere = 1;

// A row of the provider defaults (resolution.hpp): R's llm_provider_defaults() columns. The
// engine's own facts of a row (how `auto` picks it, the vendor's host, the batch-API refusal,
// the model-list vendor, the rule of a configuration's default model) are no output.
template <class Visitor>
void visit(const ProviderDefaults& x, Visitor& v) {
    v(records::Field{"kind"}, x.kind);
    v(records::Field{"provider"}, x.provider);
    v(records::Field{"model"}, x.model);
    v(records::Field{"embedding_family"}.r_as("embedding_provider"), x.embedding_family);
    v(records::Field{"credential"}, x.credential);
    v(records::Field{"checked"}, x.checked);
    v(records::Field{"source"}, x.source);
    v(records::Field{"key_variables"}, x.key_variables);
    v(records::Field{"auto_rank"}, x.auto_rank);
    v(records::Field{"batch_api"}, x.batch_api);
}

// ProviderDefaults' fields that are the engine's own (see above): auto_variables, auto_label,
// default_model_for, free_local, serves_own_base_url, vendor_host, fallback_variable,
// no_batch_api, list_vendor, list_host, key_domains (the hosts the vendor's key may reach).
inline constexpr std::size_t provider_defaults_engine_fields = 11;

}  // namespace llmv::pipeline

namespace llmv::stats {

// A test method of the registry (stats.hpp, stats/registry.cpp): R's table of methods
// (llmv_test_methods()), which its choices and its tests' `parameter` read.
template <class Visitor>
void visit(const MethodInfo& x, Visitor& v) {
    v(records::Field{"test"}, x.test);
    v(records::Field{"name"}, x.name);
    v(records::Field{"title"}, x.title);
    v(records::Field{"doc"}, x.doc);
    v(records::Field{"draws"}, std::string(null_draws_symbol(x.draws)));
}

}  // namespace llmv::stats

namespace llmv::records {
template <>
struct r_numbers<pipeline::DryRunToMake> : std::true_type {};
}  // namespace llmv::records
