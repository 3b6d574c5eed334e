// The engine's one random number generator. Its output is fixed by the algorithms below,
// not by the standard library, so a seed gives bit-identical draws with any compiler on
// any OS (std::uniform_int_distribution and std::shuffle are implementation-defined).
//
//   state:    xoshiro256** (Blackman & Vigna, 2018), 256 bits.
//   seeding:  the four state words are four successive outputs of SplitMix64 started at
//             the 64-bit seed.
//   bounded:  uniform integer in [0, n) by rejection: with t = (2^64 - n) mod n, draw x
//             until x >= t, return x mod n (unbiased; the OpenBSD arc4random_uniform rule).
//   uniform:  double in [0, 1) from the top 53 bits: (x >> 11) * 2^-53.
//   shuffle:  Fisher-Yates from the back: for i = n-1 down to 1, swap a[i] with a[j],
//             j = bounded(i + 1).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace llmv {

class Rng {
public:
    explicit Rng(std::uint64_t seed);

    std::uint64_t next();
    std::uint64_t bounded(std::uint64_t n);  // n >= 1
    double uniform();

    template <typename T>
    void shuffle(std::vector<T>& values) {
        for (std::size_t i = values.size(); i > 1; --i) {
            const std::size_t j = static_cast<std::size_t>(bounded(i));
            std::swap(values[i - 1], values[j]);
        }
    }

private:
    std::uint64_t state_[4];
};

}  // namespace llmv
