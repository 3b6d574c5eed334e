#pragma once
// A reproducible sample of a corpus's rows (the paper's Section 5 draws 100 Financial
// PhraseBank sentences from each of two agreement levels): the same population size, n and
// seed give the same rows in the CLI (`batch --sample`), R (`llm_sample()`) and Stata.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace llmv {

// The seed of a sample when none is given: the CLI's `--sample-seed`, R's llm_sample(seed =)
// (tested against this) and Stata's `llmvalidate sample, seed()`.
inline constexpr std::uint64_t default_sample_seed = 1;

// n distinct positions of 0..population-1, in increasing order. The draw: a partial
// Fisher-Yates shuffle from the front with the engine's Rng (rng.hpp): for i = 0..n-1, swap
// position i with i + bounded(population - i); the first n are the sample. n > population is
// an error naming `argument`.
std::vector<std::size_t> sample_rows(std::size_t population, std::size_t n, std::uint64_t seed,
                                     const std::string& argument = "sample");

// Rows kept by `COLUMN=VALUE|VALUE;COLUMN=VALUE`: every condition must hold, a condition holds
// when the row's value equals one of its values (after trimming white space).
class RowFilter {
  public:
    RowFilter() = default;
    // Throws llmv.input.invalid_argument naming `argument` for text that is not of that form.
    static RowFilter parse(const std::string& text, const std::string& argument = "where");
    bool empty() const { return conditions_.empty(); }
    std::vector<std::string> columns() const;
    bool matches(const std::function<std::string(const std::string& column)>& value_of) const;

  private:
    std::vector<std::pair<std::string, std::set<std::string>>> conditions_;
};

}  // namespace llmv
