// A deterministic text embedder: a hashed bag of words projected to d dimensions and
// L2-normalised. Texts that share words get a positive cosine. Used by the fake provider
// server (tests/fake_server/) and by the `simulated` provider, so that both give the same
// vectors for the same text. Not a language model: documented as synthetic wherever used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llmv {

class HashedEmbedder {
  public:
    explicit HashedEmbedder(std::size_t dimensions = 64, std::uint64_t seed = 0);
    std::size_t dimensions() const { return dimensions_; }
    // Lower-cased alphanumeric words (UTF-8 bytes >= 0x80 count as letters), each word
    // contributes a pseudo-random Gaussian-like direction fixed by (seed, word). The result has
    // unit length; an empty text embeds like the word "<empty>".
    std::vector<double> embed(const std::string& text) const;
    // The words `embed` uses, exposed for tests and for the text generator.
    static std::vector<std::string> words(const std::string& text);

  private:
    std::size_t dimensions_;
    std::uint64_t seed_;
};

// 64-bit FNV-1a followed by a SplitMix64 finaliser: stable across platforms and runs.
std::uint64_t stable_hash(const std::string& text, std::uint64_t seed = 0);

}  // namespace llmv
