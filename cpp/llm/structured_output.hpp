// Reading "n passages" and "one label" answers without losing texts. A real JSON parser
// (nlohmann/json) reads the first balanced JSON value in the answer, so code fences, prose
// around the JSON and quotes inside passages all survive. Nothing is coerced: an answer that
// cannot be read, or a label outside S, comes back classified with the raw text kept, for the
// pipeline to record in the cache, count and retry.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "llmvalidate/labels.hpp"  // normalize_label

namespace llmv {

enum class AnswerStatus {
    ok,
    unparseable,        // no JSON value of the expected shape in the answer
    wrong_count,        // passages parsed, but not as many as asked for (they are kept)
    label_outside_set,  // a label was read but matches no label of S
};

// "ok", "unparseable", "wrong_count", "label_outside_set".
const char* to_string(AnswerStatus status);

struct PassagesAnswer {
    AnswerStatus status = AnswerStatus::unparseable;
    std::vector<std::string> passages;  // every passage read, in order (also for wrong_count)
    std::string problem;                // why it is not ok, for logs and errors
    std::string raw;                    // the answer exactly as received
};

struct LabelAnswer {
    AnswerStatus status = AnswerStatus::unparseable;
    std::string label;      // the matching element of S, spelled as in S (when ok)
    std::string raw_label;  // the label as the model wrote it (when one was read)
    std::string problem;
    std::string raw;
};

// Accepts {"passages": [...]}, a bare array, or an object with exactly one array member;
// elements are strings or objects with a "text"/"passage" string. `expected_count` unset:
// any positive count is ok.
PassagesAnswer parse_passages_answer(const std::string& answer,
                                     std::optional<std::size_t> expected_count = std::nullopt);

// Accepts {"label": "..."} (also "answer", "category", "class", "sentiment"), a bare JSON
// string, or, when no JSON is present, an answer that is just the label (after normalising).
LabelAnswer parse_label_answer(const std::string& answer,
                               const std::vector<std::string>& label_set);

// The first balanced JSON object or array in `text` that parses (skipping code fences and
// prose), as JSON text; unset when there is none.
std::optional<std::string> find_json_value(const std::string& text);

// JSON Schemas for ChatRequest::json_schema: {"passages": [n strings]} and {"label": enum S}.
std::string passages_json_schema(std::size_t n);
std::string label_json_schema(const std::vector<std::string>& label_set);

// The sentence a request without an API structured output carries instead (appended to its
// system prompt): JSON only, valid against `schema` (JSON text). The answer is read by the
// parsers above, which dig the JSON out of prose and code fences.
std::string schema_instruction(const std::string& schema);

}  // namespace llmv
