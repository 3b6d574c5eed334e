#include "llm/synthetic_text.hpp"

#include "llmvalidate/labels.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "llm/hashed_embedder.hpp"
#include "llm/structured_output.hpp"

namespace llmv {

namespace {

// Words every label uses; kept disjoint from the label vocabularies below.
const std::vector<std::string>& shared_words() {
    static const std::vector<std::string> words = {
        "the",   "market",  "company",   "said",     "that",  "this",   "quarter", "year",
        "with",  "about",   "and",       "of",       "in",    "for",    "team",    "people",
        "city",  "policy",  "officials", "analysts", "new",   "on",     "during",  "after",
        "local", "firms",   "customers", "week",     "board", "its",    "we",      "our",
        "time",  "product", "service",   "season",   "plan",  "sector", "was",     "is"};
    return words;
}

const std::map<std::string, std::vector<std::string>>& builtin_vocabularies() {
    static const std::map<std::string, std::vector<std::string>> table = {
        {"positive",
         {"excellent", "strong",    "growth",    "gains",       "optimism",    "improved",
          "robust",    "success",   "thriving",  "bright",      "confident",   "rising",
          "profit",    "delighted", "favorable", "boost",       "upbeat",      "solid",
          "expanding", "winning",   "praise",    "encouraging", "outstanding", "recovery"}},
        {"negative",
         {"weak",         "losses",      "decline",  "pessimism", "worsened", "fragile",
          "failure",      "struggling",  "gloomy",   "worried",   "falling",  "deficit",
          "disappointed", "unfavorable", "slump",    "downbeat",  "shaky",    "shrinking",
          "losing",       "criticism",   "alarming", "dismal",    "crisis",   "layoffs"}},
        {"neutral", {"schedule",  "meeting",   "noted",   "unchanged", "steady",     "routine",
                     "scheduled", "announced", "listed",  "described", "stated",     "average",
                     "typical",   "standard",  "regular", "outlined",  "documented", "recorded",
                     "summary",   "agenda",    "update",  "review",    "overview",   "minutes"}},
        {"hawkish", {"tightening",  "inflation", "raise",    "restrictive", "hikes",    "vigilant",
                     "overheating", "pressures", "firmer",   "curb",        "elevated", "upside",
                     "hike",        "tighter",   "resolute", "persistent",  "wages",    "overshoot",
                     "normalize",   "shrink",    "balance",  "sheet",       "higher",   "rates"}},
        {"dovish",
         {"easing",       "accommodative", "cut",       "patient",  "supportive", "stimulus",
          "slack",        "downside",      "lower",     "gradual",  "cautious",   "cuts",
          "unemployment", "softening",     "purchases", "lenient",  "relief",     "looser",
          "pause",        "subdued",       "muted",     "dampened", "cushion",    "flexible"}},
    };
    return table;
}

const std::vector<std::string>& syllables() {
    static const std::vector<std::string> parts = {"ka",  "lo",  "mi",  "ren", "tas", "vor",
                                                   "zel", "pu",  "dri", "sen", "mo",  "quil",
                                                   "bar", "fen", "gos", "hul"};
    return parts;
}

std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return stable_hash(std::to_string(b), a); }

}  // namespace

SyntheticText::SyntheticText(std::uint64_t seed, std::size_t words_per_passage,
                             double label_word_share)
    : seed_(seed),
      words_per_passage_(words_per_passage == 0 ? 1 : words_per_passage),
      label_word_share_(std::clamp(label_word_share, 0.0, 1.0)) {}

std::vector<std::string> SyntheticText::vocabulary(const std::string& label) const {
    const std::string key = normalize_label(label);
    if (key.empty()) return {};
    auto found = builtin_vocabularies().find(key);
    if (found != builtin_vocabularies().end()) return found->second;
    // Pseudo-words derived from the label's name: different labels, different words.
    std::vector<std::string> words;
    std::set<std::string> seen;
    for (std::uint64_t j = 0; words.size() < 24 && j < 1000; ++j) {
        std::uint64_t h = stable_hash(key, j);
        std::string word;
        const int parts = 2 + static_cast<int>(h % 2);
        for (int k = 0; k < parts; ++k) {
            h = mix(h, static_cast<std::uint64_t>(k));
            word += syllables()[h % syllables().size()];
        }
        if (seen.insert(word).second) words.push_back(word);
    }
    return words;
}

std::vector<std::string> SyntheticText::passages(const std::string& label, std::size_t n,
                                                 std::uint64_t variant) const {
    const auto label_words = vocabulary(label);
    const auto& common = shared_words();
    const std::uint64_t base =
        mix(mix(stable_hash(normalize_label(label), seed_), variant), 0x5eed);
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (std::uint64_t index = 0; out.size() < n; ++index) {
        std::string passage;
        std::uint64_t state = mix(base, index);
        for (std::size_t position = 0; position < words_per_passage_; ++position) {
            state = mix(state, position);
            const double u = static_cast<double>(state >> 11) * (1.0 / 9007199254740992.0);
            const std::uint64_t pick = mix(state, 77);
            const std::string& word = (!label_words.empty() && u < label_word_share_)
                                          ? label_words[pick % label_words.size()]
                                          : common[pick % common.size()];
            passage += (position == 0 ? "" : " ") + word;
        }
        passage[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(passage[0])));
        passage += ".";
        if (seen.insert(passage).second) out.push_back(passage);
    }
    return out;
}

std::string SyntheticText::annotate(const std::string& text,
                                    const std::vector<std::string>& label_set) const {
    if (label_set.empty()) return "";
    const auto words = HashedEmbedder::words(text);
    std::size_t best = 0, best_count = 0;
    for (std::size_t i = 0; i < label_set.size(); ++i) {
        const auto vocabulary_words = vocabulary(label_set[i]);
        const std::set<std::string> vocabulary_set(vocabulary_words.begin(),
                                                   vocabulary_words.end());
        std::size_t count = 0;
        for (const auto& word : words) count += vocabulary_set.count(word);
        if (count > best_count) {
            best = i;
            best_count = count;
        }
    }
    return label_set[best];
}

}  // namespace llmv
