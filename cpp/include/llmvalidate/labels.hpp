#pragma once
// Label comparison, one rule for the whole project (METHOD.md: labels match ignoring case and
// white space; answers also lose quotes and punctuation at their ends).
#include <string>

namespace llmv {

// Lower case (ASCII), punctuation, white space and typographic quotes dropped at both ends,
// inner runs of white space, '_' and '-' folded to one space. "  Very-Positive. " -> "very positive".
std::string normalize_label(const std::string& label);

}  // namespace llmv
