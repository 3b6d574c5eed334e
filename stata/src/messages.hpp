// Engine errors in Stata's words. The engine names its inputs in its JSON vocabulary
// (`pools.Neutral`, row 5, `passage`); a Stata user knows observations, variables and options.
// The translation reads what the error carries (its code and subject: the setting, row,
// column, value received and what is allowed; llmvalidate/error.hpp) and the settings
// table's Stata spellings (settings::message), never the sentence itself.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"

namespace llmv::stata {

// The observations behind one of the engine's inputs of `llmvalidate test`, in the order the
// engine numbers its rows, and how to name one of them and all of them.
struct RowSource {
    std::string what;   // "a pool text of label Neutral"
    std::string group;  // "the pool of label Neutral (passage() 0)"
    std::vector<int> observations;
};

// The context of one passage of `llmvalidate test`: the rows behind each engine field
// ("passage", "pools.<label>", "paper_reference.<label>") and the embedding variables.
struct TestContext {
    int passage_observation = 0;
    std::string passage_label;
    std::map<std::string, RowSource> fields;
    std::vector<std::string> embedding_variables;
};

// The message for an error of the statistics on one passage of `llmvalidate test`: names the
// observation (`observation 25 (a pool text of label Neutral)`), not the engine's row.
std::string test_error_message(const Error& error, const TestContext& context);

// The message of a passage of `llmvalidate varname` that failed (the engine's message for the
// passage with id `id`, the observation): the engine's fields for the texts the LLM generated
// said in words (`pools.Neutral` row 5 -> the texts generated for label Neutral, text 5), a
// task variable Stata cannot give explained; the caller puts "observation N: " in front.
std::string validate_passage_message(const pipeline::PassageResult& passage);

// An error and the return code Stata gets for it.
struct StataMessage {
    int rc = 0;
    std::string text;
};

// A human() label outside the task's label set (the engine's unknown_label error for "human
// label of passage N") in Stata's terms: the option and the observation, rc 459 (the data),
// not the engine's rc for a bad argument; nullopt for any other error.
std::optional<StataMessage> human_label_message(const Error& error);

// Any engine error as Stata shows it: a message "`field` must be ..." about a configuration
// field the user set through an option names the option instead (`embedding_provider` ->
// `embedding()`, `simulated.follow_probability` -> `follow()`); other messages are unchanged.
// Only for the codes of bad input (the usage and invalid-input categories, provider_config).
std::string in_stata_options(const Error& error);

}  // namespace llmv::stata
