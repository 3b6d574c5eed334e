// The `simulated` provider: a synthetic data-generating process (docs/simulated.md) that
// stands in for the chat model and the embedding model without any network. It answers the
// pipeline's three kinds of request with the same JSON an LLM would write, so that the answers
// go through the same parsing, counting and retry paths as a real provider's.
//
// It lives in the pipeline rather than in the provider registry because its answers depend on
// structured facts (the requested label, the label set, the passage's topic) that a wire-level
// ChatRequest does not carry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llm/hashed_embedder.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llm/synthetic_text.hpp"

namespace llmv::pipeline {

inline constexpr const char* simulated_provider_name = "simulated";
inline constexpr const char* simulated_model_name = "simulated-dgp-1";
inline constexpr const char* hashed_embedding_name = "hashed";
inline constexpr const char* hashed_embedding_model = "hashed-bow-64";

class SimulatedModel {
public:
    SimulatedModel(const SimulatedDgp& dgp, std::vector<std::string> label_set);

    // {"passages": [...]} with `count` texts for `label`; `topic` supplies the topic words
    // (normally the passage y). `draw_seed` fixes every random choice of this call.
    std::string generate(const std::string& label, int count, const std::string& topic,
                         std::uint64_t draw_seed) const;
    // {"label": "..."}, or with probability unparseable_probability a sentence that is not JSON.
    std::string annotate(const std::string& text, std::uint64_t draw_seed) const;
    // The label whose lexicon `text` uses most (ties: the earlier label of S; none: the
    // default label), before the confusion matrix is applied.
    std::string latent_label(const std::string& text) const;
    std::string default_label() const;
    // One generated text of `label` (latent label drawn with follow_probability).
    std::string one_text(const std::string& label, const std::string& topic, std::uint64_t seed,
                         std::string* latent = nullptr) const;

    const std::vector<std::vector<double>>& confusion() const { return confusion_; }
    const std::vector<std::string>& label_set() const { return labels_; }

private:
    SimulatedDgp dgp_;
    std::vector<std::string> labels_;
    std::vector<std::vector<std::string>> lexicons_;  // per label
    std::vector<std::vector<double>> confusion_;
    SyntheticText vocabulary_source_;
};

// Content words of a topic text (lower case, at least three letters, no lexicon words); a
// fixed list of neutral business words when the text has fewer than five.
std::vector<std::string> topic_words(const std::string& topic,
                                     const std::vector<std::vector<std::string>>& lexicons);

// The embedder the fake server uses (64 dimensions, seed 0).
const HashedEmbedder& shared_embedder();

}  // namespace llmv::pipeline
