// A deterministic, label-aware text generator: passages for a label lean on that label's
// vocabulary, so that the hashed embedder puts passages of one label close together and an
// annotator that counts vocabulary words gets the label back. Shared by the fake provider
// server and the `simulated` provider. A synthetic data-generating process, not an LLM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llmv {

class SyntheticText {
  public:
    // `label_word_share`: the share of a passage's words drawn from the label's vocabulary
    // (the rest from a vocabulary shared by every label).
    explicit SyntheticText(std::uint64_t seed = 0, std::size_t words_per_passage = 24,
                           double label_word_share = 0.5);

    // n passages for `label`; `variant` (a request counter, a seed) selects a different set.
    // Passages within one call are distinct.
    std::vector<std::string> passages(const std::string& label, std::size_t n,
                                      std::uint64_t variant) const;
    // The element of `label_set` whose vocabulary `text` uses most; ties go to the earlier
    // label. Labels are compared after llmv::normalize_label.
    std::string annotate(const std::string& text, const std::vector<std::string>& label_set) const;
    // The label's words: a built-in list for common sentiment/stance labels (positive,
    // negative, neutral, ...), otherwise pseudo-words derived from the label's name.
    std::vector<std::string> vocabulary(const std::string& label) const;

  private:
    std::uint64_t seed_;
    std::size_t words_per_passage_;
    double label_word_share_;
};

}  // namespace llmv
