// Embedding request limits and packing (embedding_limits.hpp).
#include "llm/embedding_limits.hpp"

#include <algorithm>

namespace llmv {

namespace {

// 1234567 -> "1,234,567": the caps as the vendors write them.
std::string with_commas(std::size_t number) {
    std::string digits = std::to_string(number);
    for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3)
        digits.insert(static_cast<std::size_t>(at), ",");
    return digits;
}

std::size_t utf8_characters(const std::string& text) {
    // Every byte but the continuation bytes (10xxxxxx) starts a character.
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

}  // namespace

std::size_t embedding_tokens_upper_bound(const std::string& text) { return text.size(); }

std::optional<std::string> embedding_input_refusal(const EmbeddingLimits& limits,
                                                   const std::string& model,
                                                   const std::string& text) {
    const std::string source = limits.source.empty() ? "" : " (" + limits.source + ")";
    const std::size_t tokens = embedding_tokens_upper_bound(text);
    // Within the summed cap as well: a text alone over it could never be sent.
    std::size_t cap = limits.max_input_tokens;
    if (limits.max_request_tokens > 0 && (cap == 0 || limits.max_request_tokens < cap))
        cap = limits.max_request_tokens;
    if (cap > 0 && tokens > cap) {
        return "its text is " + with_commas(tokens) + " bytes of UTF-8, so up to " +
               with_commas(tokens) + " tokens (a text never has more tokens than bytes), and " +
               model + " takes at most " + with_commas(cap) + " tokens a text" + source;
    }
    if (limits.max_input_characters > 0) {
        const std::size_t characters = utf8_characters(text);
        if (characters > limits.max_input_characters) {
            return "its text is " + with_commas(characters) + " characters, and " + model +
                   " takes at most " + with_commas(limits.max_input_characters) +
                   " characters a text" + source;
        }
    }
    return std::nullopt;
}

bool EmbeddingRequestPacker::fits(const std::string& text) const {
    if (inputs_ == 0) return true;
    if (limits_.max_inputs > 0 && inputs_ + 1 > limits_.max_inputs) return false;
    return limits_.max_request_tokens == 0 ||
           tokens_ + embedding_tokens_upper_bound(text) <= limits_.max_request_tokens;
}

void EmbeddingRequestPacker::add(const std::string& text) {
    ++inputs_;
    tokens_ += embedding_tokens_upper_bound(text);
}

}  // namespace llmv
