// The engine's generator: known outputs, the bounded draw, the shuffle.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "llmvalidate/rng.hpp"

namespace {
// An independent transcription of the published algorithms (SplitMix64, xoshiro256**,
// Blackman & Vigna), written here from the papers' definitions, not from rng.cpp.
struct ReferenceGenerator {
    std::uint64_t s[4];

    static std::uint64_t splitmix(std::uint64_t& state) {
        state += 0x9E3779B97F4A7C15ULL;
        std::uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    static std::uint64_t rotate_left(std::uint64_t x, unsigned k) {
        return (x << k) | (x >> (64u - k));
    }
    explicit ReferenceGenerator(std::uint64_t seed) {
        std::uint64_t state = seed;
        for (int i = 0; i < 4; ++i) s[i] = splitmix(state);
    }
    std::uint64_t next() {
        const std::uint64_t out = rotate_left(s[1] * 5, 7) * 9;
        const std::uint64_t shifted = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= shifted;
        s[3] = rotate_left(s[3], 45);
        return out;
    }
    // Rejection: accept x >= 2^64 mod n (computed as (2^64 - n) mod n), return x mod n.
    std::uint64_t bounded(std::uint64_t n) {
        const std::uint64_t reject_below = (~n + 1) % n;
        std::uint64_t x;
        do x = next();
        while (x < reject_below);
        return x % n;
    }
};
}  // namespace

TEST_CASE("SplitMix64 matches its published test vector") {
    // Seed 1234567: 6457827717110365317, 3203168211198807973, 9817491932198370423,
    // 4593380528125082431, 16408922859458223821 (the common SplitMix64 reference values).
    std::uint64_t state = 1234567;
    CHECK(ReferenceGenerator::splitmix(state) == 6457827717110365317ULL);
    CHECK(ReferenceGenerator::splitmix(state) == 3203168211198807973ULL);
    CHECK(ReferenceGenerator::splitmix(state) == 9817491932198370423ULL);
    CHECK(ReferenceGenerator::splitmix(state) == 4593380528125082431ULL);
    CHECK(ReferenceGenerator::splitmix(state) == 16408922859458223821ULL);
}

TEST_CASE("Rng: first output from the published SplitMix64 state") {
    // Seeded with 1234567, the state's second word is 3203168211198807973, so the first
    // xoshiro256** output is rotl(3203168211198807973 * 5, 7) * 9 (mod 2^64).
    const std::uint64_t s1 = 3203168211198807973ULL;
    const std::uint64_t x = s1 * 5;
    const std::uint64_t expected = ((x << 7) | (x >> 57)) * 9;
    llmv::Rng rng(1234567);
    CHECK(rng.next() == expected);
}

TEST_CASE("Rng: xoshiro256 star-star outputs equal the reference transcription") {
    for (std::uint64_t seed : {0ULL, 1ULL, 42ULL, 0xFFFFFFFFFFFFFFFFULL}) {
        llmv::Rng rng(seed);
        ReferenceGenerator reference(seed);
        for (int i = 0; i < 1000; ++i) REQUIRE(rng.next() == reference.next());
    }
}

TEST_CASE("Rng: uniform() is below 1 and made of the top 53 bits") {
    llmv::Rng rng(5);
    ReferenceGenerator reference(5);
    for (int i = 0; i < 1000; ++i) {
        const double u = rng.uniform();
        CHECK(u == std::ldexp(static_cast<double>(reference.next() >> 11), -53));
        CHECK(u >= 0);
        CHECK(u < 1);
    }
}

TEST_CASE("Rng: bounded() follows the rejection rule and stays in range without bias") {
    for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 7ULL, 1000ULL, (1ULL << 63) + 1, ~0ULL}) {
        llmv::Rng rng(9);
        ReferenceGenerator reference(9);
        for (int i = 0; i < 200; ++i) {
            const std::uint64_t value = rng.bounded(n);
            CHECK(value < n);
            CHECK(value == reference.bounded(n));
        }
    }
    // With n = 2^63 + 1 almost half of all 64-bit words are rejected: the rule must be used
    // (a plain x % n would give values below 2^63 - 1 twice as often).
    {
        llmv::Rng rng(10);
        const std::uint64_t n = (1ULL << 63) + 1;
        int low = 0;
        for (int i = 0; i < 4000; ++i) low += rng.bounded(n) < (1ULL << 62) ? 1 : 0;
        CHECK(std::abs(low / 4000.0 - 0.5) < 0.04);
    }
    // Chi-square over 7 cells, 70,000 draws: 6 degrees of freedom, 99.9% point 22.46.
    llmv::Rng rng(11);
    std::vector<int> counts(7, 0);
    for (int i = 0; i < 70000; ++i) ++counts[static_cast<std::size_t>(rng.bounded(7))];
    double chi_square = 0;
    for (int c : counts) chi_square += (c - 10000.0) * (c - 10000.0) / 10000.0;
    CHECK(chi_square < 22.46);
}

TEST_CASE("Rng: shuffle is Fisher-Yates from the back and gives a permutation") {
    std::vector<int> values(50);
    std::iota(values.begin(), values.end(), 0);
    llmv::Rng rng(12);
    rng.shuffle(values);
    std::vector<int> expected(50);
    std::iota(expected.begin(), expected.end(), 0);
    ReferenceGenerator reference(12);
    for (std::size_t i = expected.size() - 1; i >= 1; --i)
        std::swap(expected[i], expected[reference.bounded(i + 1)]);
    CHECK(values == expected);
    std::vector<int> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < 50; ++i) CHECK(sorted[static_cast<std::size_t>(i)] == i);

    // Every one of the 6 orders of 3 items about equally often (each 1/6).
    std::vector<int> tally(6, 0);
    for (int r = 0; r < 6000; ++r) {
        std::vector<int> three{0, 1, 2};
        rng.shuffle(three);
        ++tally[static_cast<std::size_t>(three[0] * 2 + (three[1] > three[2] ? 1 : 0))];
    }
    for (int t : tally) CHECK(std::abs(t - 1000) < 130);

    std::vector<int> empty, one{7};
    rng.shuffle(empty);
    rng.shuffle(one);
    CHECK(one == std::vector<int>{7});
}
