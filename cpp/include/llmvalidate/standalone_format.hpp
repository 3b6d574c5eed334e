// The JSON format of `llmvalidate test` (docs/test-format.md): input JSON -> stats::TestInput,
// stats::TestOutput -> output JSON. One implementation shared by the CLI, the Stata plugin and
// the R package, so that all three read and write exactly the same format and numbers.
//
// Division of labour: this layer checks what JSON can get wrong (malformed text, a field of
// the wrong type, a missing or unknown field, a non-number inside an embedding, ragged rows);
// stats::run_tests() checks the values (ranges, labels, dimensions across pools, zero rows).
// Both throw llmv::Error with a stable code and a message naming the field, the value
// received and what is allowed.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "llmvalidate/settings.hpp"
#include "llmvalidate/stats.hpp"

namespace llmv {

struct TestJsonWriteOptions {
    bool null_distributions = false;  // add each test's null distribution (large)
    bool pretty = false;              // indent by two spaces (text output only)
};

// 1-based line and column of a 0-based byte offset; the column counts UTF-8 characters.
std::pair<std::size_t, std::size_t> json_line_column(const std::string& text,
                                                     std::size_t byte_offset);

// Parses JSON text. Malformed text throws llmv::Error (code malformed_json) whose message gives
// `source` (a file name, "standard input", ...), the line and the column.
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

// The input document -> TestInput. Throws llmv::Error (invalid_argument, invalid_embedding,
// dimension_mismatch) on type-level problems; values are checked later by run_tests().
stats::TestInput test_input_from_json(const nlohmann::json& document);

// Every statistics setting of the settings table is an optional field of the input, by its
// engine name. What its JSON value may be, as messages (and docs/test-format.md) say it: the
// table's range, or for the seed a number up to 2^53 or a string of digits.
std::string json_allowed(const settings::Setting& setting);

// A seed is a JSON integer in [0, 2^53] or a string of decimal digits in [0, 2^64 - 1].
std::uint64_t seed_from_json(const nlohmann::json& value, const std::string& field);
// The inverse: a number when the seed is at most 2^53, else a string of digits.
nlohmann::ordered_json seed_to_json(std::uint64_t seed);

// TestOutput -> the output document. Non-finite numbers (a critical value of -inf, a
// p-value of NaN) become JSON null.
nlohmann::ordered_json test_output_to_json(const stats::TestInput& input,
                                           const stats::TestOutput& output,
                                           const TestJsonWriteOptions& write_options = {});

// Doubles are written in the shortest form that reads back to the same bits.
std::string dump_json(const nlohmann::ordered_json& document, bool pretty);

// The whole of `llmvalidate test` on text: parse, check, run_tests(), write. For bindings
// that pass JSON text across (the Stata plugin); throws llmv::Error.
std::string run_tests_json(const std::string& input_text, const std::string& source,
                           const TestJsonWriteOptions& write_options = {});

}  // namespace llmv
