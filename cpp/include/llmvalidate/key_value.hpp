// Typed key=value words: the one reader behind the Stata plugin's words (alpha=0.05) and the
// CLI's NAME=VALUE lists and whole-number options. It returns std::nullopt rather than
// throwing, so that each front end keeps its own message (the settings table, settings.hpp,
// has the messages for settings).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace llmv::key_value {

// "key=value" at its first '=': nullopt without one, or with an empty key. The value may be
// empty or hold further '='.
std::optional<std::pair<std::string, std::string>> split(const std::string& word);

// The whole text as a finite decimal number (strtod): nullopt when empty, when anything
// follows the number, or when it overflows.
std::optional<double> real(const std::string& text);
// The whole text as a base-10 int (strtol, so a sign and leading spaces are allowed): nullopt
// when empty, when anything follows the number, or outside int's range.
std::optional<int> integer(const std::string& text);
// Decimal digits only (no sign, no spaces), at most 2^64 - 1: nullopt otherwise.
std::optional<std::uint64_t> whole_number(const std::string& text);

}  // namespace llmv::key_value
