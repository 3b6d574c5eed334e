// What one embeddings request may carry, as the vendor declares it (EmbeddingProvider::limits()),
// and the rule that packs texts into requests within it. Tokens are estimated before sending,
// from above: a text of B bytes of UTF-8 is at most B tokens, because the vendors' tokenizers
// (byte-level BPE, and SentencePiece with byte fallback) never give a token less than one byte.
// No tokenizer is needed, and a request packed by this bound is within the vendor's token cap
// whatever the text. For ordinary English (about 4 bytes a token) the bound is about 4 times the
// count: requests are smaller than they could be, never over.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace llmv {

struct EmbeddingLimits {
    std::size_t max_inputs = 1;            // texts a request
    std::size_t max_request_tokens = 0;    // summed over a request's texts; 0: no cap
    std::size_t max_input_tokens = 0;      // one text; 0: no cap
    std::size_t max_input_characters = 0;  // one text, in Unicode characters; 0: no cap
    std::string source;                    // where the vendor states them
};

// The upper bound on a text's tokens: its UTF-8 bytes.
std::size_t embedding_tokens_upper_bound(const std::string& text);

// Why `text` cannot be embedded under `limits` ("its text is 9,000 bytes of UTF-8, so up to
// 9,000 tokens; text-embedding-3-small takes at most 8,192 tokens a text (source)"), or nullopt
// when it can.
std::optional<std::string> embedding_input_refusal(const EmbeddingLimits& limits,
                                                   const std::string& model,
                                                   const std::string& text);

// Texts gathered into one request: fits() says whether one more keeps the request within the
// caps on texts and summed tokens (always true for the first text: a text over a cap on its
// own is refused before, by embedding_input_refusal()).
class EmbeddingRequestPacker {
  public:
    explicit EmbeddingRequestPacker(EmbeddingLimits limits) : limits_(std::move(limits)) {}
    bool fits(const std::string& text) const;
    void add(const std::string& text);
    void clear() { inputs_ = tokens_ = 0; }
    std::size_t inputs() const { return inputs_; }
    std::size_t estimated_tokens() const { return tokens_; }
    const EmbeddingLimits& limits() const { return limits_; }

  private:
    EmbeddingLimits limits_;
    std::size_t inputs_ = 0;
    std::size_t tokens_ = 0;
};

}  // namespace llmv
