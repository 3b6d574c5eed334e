// Synthetic embedding data for the host tests: one Gaussian cluster per label, normalised by
// the engine. The generator is our own (SplitMix64 + Box-Muller) so the data do not depend on
// the standard library's distributions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fake_stata.hpp"

namespace host {

struct Text {
    std::string label;
    bool passage = false;
    bool reference = false;
    std::string backtranslation;
    std::vector<double> embedding;
};

struct Design {
    std::vector<std::string> labels = {"Positive", "Neutral", "Negative"};
    int m = 20;  // pool texts per label
    int dim = 6;
    double spread = 0.6;        // noise around each label's centre
    double bt_accuracy = 0.95;  // share of pool texts labelled back correctly
    std::uint64_t seed = 7;
};

// The pools of every label, then `passages` passages (label = β̂, embedding drawn from the
// cluster of `passage_truth[i]`).
std::vector<Text> make_texts(const Design& design, const std::vector<std::string>& passage_labels,
                             const std::vector<std::string>& passage_truth);

// Loads texts into the dataset: label (str# or strL), passage (0/1), bt (str), e1..e<dim>.
void load_texts(Stata& stata, const std::vector<Text>& texts, bool strl_labels = false,
                bool with_backtranslation = true);

std::vector<std::string> embedding_names(int dim);

// The JSON input of `llmvalidate test` for one passage of `texts` (pools = every non-passage
// text in order), with the same options the plugin gets.
std::string cli_input_json(const std::vector<Text>& texts, std::size_t passage_index,
                           const std::vector<std::string>& labels, std::uint64_t seed, double alpha,
                           int permutations, bool with_backtranslation);

// Runs the CLI on a JSON text; returns its standard output. Throws on a non-zero exit.
std::string run_cli_test(const std::string& json_text);

}  // namespace host
