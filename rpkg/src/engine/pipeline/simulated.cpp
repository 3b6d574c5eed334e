#include "pipeline/simulated.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "llmvalidate/error.hpp"
#include "llmvalidate/rng.hpp"
#include "llm/structured_output.hpp"

namespace llmv::pipeline {

namespace {

// Used when the topic text has too few content words of its own.
const std::vector<std::string>& fallback_topic_words() {
    static const std::vector<std::string> words = {
        "company", "market",  "quarter",  "report",   "clients",  "business", "financial",
        "results", "period",  "industry", "economic", "customers", "products", "services",
        "year",    "firm",    "sector",   "prices",   "demand",   "capital",  "operations",
        "revenue", "costs",   "investors", "policy",  "conditions", "activity", "region"};
    return words;
}

std::vector<std::vector<double>> build_confusion(const SimulatedDgp& dgp, std::size_t k) {
    if (!dgp.confusion.empty()) {
        if (dgp.confusion.size() != k) {
            throw_invalid(code::invalid_argument, "simulated.confusion",
                          std::to_string(dgp.confusion.size()) + " rows",
                          "a K x K matrix, K = " + std::to_string(k) + " labels of the task");
        }
        std::vector<std::vector<double>> rows = dgp.confusion;
        for (std::size_t a = 0; a < k; ++a) {
            if (rows[a].size() != k) {
                throw_invalid(code::invalid_argument,
                              "simulated.confusion row " + std::to_string(a + 1),
                              std::to_string(rows[a].size()) + " entries",
                              std::to_string(k) + " entries");
            }
            double sum = 0;
            for (double value : rows[a]) {
                if (!(value >= 0) || !std::isfinite(value)) {
                    throw_invalid(code::invalid_argument,
                                  "simulated.confusion row " + std::to_string(a + 1),
                                  std::to_string(value), "probabilities >= 0");
                }
                sum += value;
            }
            if (std::abs(sum - 1.0) > 1e-6) {
                throw_invalid(code::invalid_argument,
                              "simulated.confusion row " + std::to_string(a + 1),
                              "a row summing to " + std::to_string(sum), "rows summing to 1");
            }
        }
        return rows;
    }
    std::vector<std::vector<double>> rows(k, std::vector<double>(k, 0.0));
    for (std::size_t a = 0; a < k; ++a) {
        for (std::size_t b = 0; b < k; ++b) {
            if (a == b) {
                rows[a][b] = k == 1 ? 1.0 : dgp.annotator_accuracy;
            } else {
                rows[a][b] = (1.0 - dgp.annotator_accuracy) / static_cast<double>(k - 1);
            }
        }
    }
    return rows;
}

std::size_t draw_from(const std::vector<double>& probabilities, double u) {
    double cumulative = 0;
    for (std::size_t i = 0; i < probabilities.size(); ++i) {
        cumulative += probabilities[i];
        if (u < cumulative) return i;
    }
    return probabilities.size() - 1;
}

}  // namespace

const HashedEmbedder& shared_embedder() {
    static const HashedEmbedder embedder(64, 0);
    return embedder;
}

std::vector<std::string> topic_words(const std::string& topic,
                                     const std::vector<std::vector<std::string>>& lexicons) {
    std::set<std::string> lexicon_words;
    for (const auto& lexicon : lexicons) lexicon_words.insert(lexicon.begin(), lexicon.end());
    std::vector<std::string> words;
    for (const std::string& word : HashedEmbedder::words(topic)) {
        if (word.size() >= 3 && !lexicon_words.count(word)) words.push_back(word);
    }
    if (words.size() < 5) return fallback_topic_words();
    return words;
}

SimulatedModel::SimulatedModel(const SimulatedDgp& dgp, std::vector<std::string> label_set)
    : dgp_(dgp), labels_(std::move(label_set)), vocabulary_source_(0) {
    if (labels_.empty()) {
        throw_invalid(code::invalid_argument, "labels", "an empty label set", "at least one label");
    }
    if (!(dgp.follow_probability >= 0 && dgp.follow_probability <= 1)) {
        throw_invalid(code::invalid_argument, "simulated.follow_probability",
                      std::to_string(dgp.follow_probability), "a probability in [0, 1]");
    }
    if (!(dgp.label_signal >= 0 && dgp.label_signal <= 1)) {
        throw_invalid(code::invalid_argument, "simulated.label_signal",
                      std::to_string(dgp.label_signal), "a share in [0, 1]");
    }
    if (!(dgp.annotator_accuracy >= 0 && dgp.annotator_accuracy <= 1)) {
        throw_invalid(code::invalid_argument, "simulated.annotator_accuracy",
                      std::to_string(dgp.annotator_accuracy), "a probability in [0, 1]");
    }
    if (!(dgp.unparseable_probability >= 0 && dgp.unparseable_probability < 1)) {
        throw_invalid(code::invalid_argument, "simulated.unparseable_probability",
                      std::to_string(dgp.unparseable_probability), "a probability in [0, 1)");
    }
    if (dgp.words < 0 || dgp.words > 2000) {
        throw_invalid(code::invalid_argument, "simulated.words", std::to_string(dgp.words),
                      "0 (the length of y) or 1..2000");
    }
    confusion_ = build_confusion(dgp, labels_.size());
    // Lexicons must be disjoint, or the annotator could not tell labels apart by construction.
    std::set<std::string> seen;
    for (const std::string& label : labels_) {
        std::vector<std::string> lexicon;
        for (const std::string& word : vocabulary_source_.vocabulary(label)) {
            for (const std::string& piece : HashedEmbedder::words(word)) {
                if (seen.insert(piece).second) lexicon.push_back(piece);
            }
        }
        if (lexicon.empty()) lexicon.push_back("label" + std::to_string(lexicons_.size()) + "word");
        lexicons_.push_back(std::move(lexicon));
    }
}

std::string SimulatedModel::default_label() const {
    for (const char* candidate : {"neutral", "none", "other", "mixed"}) {
        for (const std::string& label : labels_) {
            if (normalize_label(label) == candidate) return label;
        }
    }
    return labels_.front();
}

std::string SimulatedModel::latent_label(const std::string& text) const {
    std::vector<int> hits(labels_.size(), 0);
    for (const std::string& word : HashedEmbedder::words(text)) {
        for (std::size_t l = 0; l < lexicons_.size(); ++l) {
            if (std::find(lexicons_[l].begin(), lexicons_[l].end(), word) != lexicons_[l].end()) {
                ++hits[l];
            }
        }
    }
    const auto best = std::max_element(hits.begin(), hits.end());
    if (*best == 0) return default_label();
    return labels_[static_cast<std::size_t>(best - hits.begin())];
}

std::string SimulatedModel::one_text(const std::string& label, const std::string& topic,
                                     std::uint64_t seed, std::string* latent) const {
    Rng rng(seed);
    const auto found = std::find(labels_.begin(), labels_.end(), label);
    if (found == labels_.end()) {
        throw_invalid(code::unknown_label, "label", label, "a label of the task");
    }
    std::size_t latent_index = static_cast<std::size_t>(found - labels_.begin());
    if (labels_.size() > 1 && rng.uniform() >= dgp_.follow_probability) {
        std::size_t other = static_cast<std::size_t>(rng.bounded(labels_.size() - 1));
        if (other >= latent_index) ++other;
        latent_index = other;
    }
    if (latent) *latent = labels_[latent_index];
    const std::vector<std::string> topic_vocabulary = topic_words(topic, lexicons_);
    int words = dgp_.words;
    if (words == 0) {
        words = std::max(20, static_cast<int>(HashedEmbedder::words(topic).size()));
    }
    const auto& lexicon = lexicons_[latent_index];
    std::string text;
    for (int w = 0; w < words; ++w) {
        const bool from_lexicon = rng.uniform() < dgp_.label_signal;
        const auto& source = from_lexicon ? lexicon : topic_vocabulary;
        const std::string& word = source[static_cast<std::size_t>(rng.bounded(source.size()))];
        if (!text.empty()) text += ' ';
        text += word;
    }
    return text + '.';
}

std::string SimulatedModel::generate(const std::string& label, int count, const std::string& topic,
                                     std::uint64_t draw_seed) const {
    nlohmann::json passages = nlohmann::json::array();
    Rng rng(draw_seed);
    for (int i = 0; i < count; ++i) passages.push_back(one_text(label, topic, rng.next()));
    return nlohmann::json{{"passages", passages}}.dump();
}

std::string SimulatedModel::annotate(const std::string& text, std::uint64_t draw_seed) const {
    Rng rng(draw_seed ^ stable_hash(text));
    const std::string latent = latent_label(text);
    const std::size_t latent_index = static_cast<std::size_t>(
        std::find(labels_.begin(), labels_.end(), latent) - labels_.begin());
    const std::size_t answer = draw_from(confusion_[latent_index], rng.uniform());
    if (rng.uniform() < dgp_.unparseable_probability) {
        return "I would rather not classify this passage.";
    }
    return nlohmann::json{{"label", labels_[answer]}}.dump();
}

}  // namespace llmv::pipeline
