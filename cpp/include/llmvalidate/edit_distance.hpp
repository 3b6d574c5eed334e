// Levenshtein distance, for "did you mean" hints in error messages.
#pragma once

#include <cstddef>
#include <string>

namespace llmv {

enum class LetterCase { exact, ignored };

// Insertions, deletions and substitutions (each costs 1) that turn `a` into `b`; with
// LetterCase::ignored, ASCII letters that differ only in case count as equal.
std::size_t edit_distance(const std::string& a, const std::string& b,
                          LetterCase letter_case = LetterCase::exact);

}  // namespace llmv
