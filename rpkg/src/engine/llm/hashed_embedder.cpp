// Integer arithmetic and sums of uniforms only (no libm), so every platform gives the same
// vectors bit for bit.
#include "llm/hashed_embedder.hpp"

#include <cmath>

namespace llmv {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

// In [0, 1), from the top 53 bits.
double unit(std::uint64_t bits) {
    return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace

std::uint64_t stable_hash(const std::string& text, std::uint64_t seed) {
    std::uint64_t hash = 0xcbf29ce484222325ULL ^ splitmix64(seed);
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 0x100000001b3ULL;
    }
    return splitmix64(hash);
}

HashedEmbedder::HashedEmbedder(std::size_t dimensions, std::uint64_t seed)
    : dimensions_(dimensions == 0 ? 1 : dimensions), seed_(seed) {}

std::vector<std::string> HashedEmbedder::words(const std::string& text) {
    std::vector<std::string> out;
    std::string word;
    for (unsigned char c : text) {
        const bool letter = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80;
        if (c >= 'A' && c <= 'Z') {
            word += static_cast<char>(c - 'A' + 'a');
        } else if (letter) {
            word += static_cast<char>(c);
        } else if (!word.empty()) {
            out.push_back(word);
            word.clear();
        }
    }
    if (!word.empty()) out.push_back(word);
    return out;
}

std::vector<double> HashedEmbedder::embed(const std::string& text) const {
    std::vector<double> vector(dimensions_, 0.0);
    auto tokens = words(text);
    if (tokens.empty()) tokens.push_back("<empty>");
    for (const auto& token : tokens) {
        std::uint64_t state = stable_hash(token, seed_);
        for (std::size_t i = 0; i < dimensions_; ++i) {
            // Sum of three uniforms, centred: a bell-shaped coordinate of a random direction.
            double value = -1.5;
            for (int k = 0; k < 3; ++k) {
                state = splitmix64(state);
                value += unit(state);
            }
            vector[i] += value;
        }
    }
    double norm = 0;
    for (double value : vector) norm += value * value;
    norm = std::sqrt(norm);
    if (norm > 0) {
        for (double& value : vector) value /= norm;
    } else {
        vector[0] = 1.0;
    }
    return vector;
}

}  // namespace llmv
