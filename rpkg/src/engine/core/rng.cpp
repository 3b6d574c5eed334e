#include "llmvalidate/rng.hpp"

namespace llmv {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& word : state_) word = splitmix64(x);
}

std::uint64_t Rng::next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
}

std::uint64_t Rng::bounded(std::uint64_t n) {
    for (;;) {
        const std::uint64_t x = next();
        // The threshold (2^64 - n) mod n is below n, so x >= n is always accepted: the
        // division that computes the threshold is only needed when x < n (rarely).
        if (x >= n || x >= (0 - n) % n) return x % n;
    }
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

}  // namespace llmv
