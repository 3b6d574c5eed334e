// The one label normaliser: the pipeline's answer parsing, the task's duplicate check, the
// statistics' label counts, R and Stata all compare labels through it, so an answer that
// counts as a label in one place counts as that label everywhere.
#include "llmvalidate/labels.hpp"

#include <cctype>

namespace llmv {

namespace {

bool is_edge_junk(const std::string& text, std::size_t at, std::size_t& width) {
    const unsigned char c = static_cast<unsigned char>(text[at]);
    if (std::isspace(c) || std::ispunct(c)) {
        width = 1;
        return true;
    }
    // Typographic quotes and guillemets in UTF-8: “ ” ‘ ’ « ».
    if (c == 0xE2 && at + 2 < text.size() + 0 && static_cast<unsigned char>(text[at + 1]) == 0x80) {
        const unsigned char third = static_cast<unsigned char>(text[at + 2]);
        if (third == 0x9C || third == 0x9D || third == 0x98 || third == 0x99) {
            width = 3;
            return true;
        }
    }
    if (c == 0xC2 && at + 1 < text.size()) {
        const unsigned char second = static_cast<unsigned char>(text[at + 1]);
        if (second == 0xAB || second == 0xBB) {
            width = 2;
            return true;
        }
    }
    return false;
}

}  // namespace

std::string normalize_label(const std::string& label) {
    // Drop junk at both ends (ASCII punctuation, white space, typographic quotes).
    std::size_t begin = 0, end = label.size(), width = 0;
    while (begin < end && is_edge_junk(label, begin, width)) begin += width;
    while (end > begin) {
        std::size_t at = end - 1;
        // Step back over a multi-byte sequence to its lead byte.
        while (at > begin && (static_cast<unsigned char>(label[at]) & 0xC0) == 0x80) --at;
        if (!is_edge_junk(label, at, width) || at + width != end) break;
        end = at;
    }
    std::string out;
    bool pending_space = false;
    for (std::size_t i = begin; i < end; ++i) {
        const unsigned char c = static_cast<unsigned char>(label[i]);
        if (std::isspace(c) || c == '_' || c == '-') {
            pending_space = true;
            continue;
        }
        if (pending_space && !out.empty()) out += ' ';
        pending_space = false;
        out += static_cast<char>(c < 0x80 ? std::tolower(c) : c);
    }
    return out;
}

}  // namespace llmv
