#include "llmvalidate/edit_distance.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace llmv {

std::size_t edit_distance(const std::string& a, const std::string& b, LetterCase letter_case) {
    const auto fold = [letter_case](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return letter_case == LetterCase::ignored ? std::tolower(byte) : int{byte};
    };
    // One row of the dynamic-programming table at a time.
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            const bool same = fold(a[i - 1]) == fold(b[j - 1]);
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace llmv
