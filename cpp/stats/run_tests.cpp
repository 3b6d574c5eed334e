// One whole validation from embeddings: checks every field, then runs every test from one
// SimilarityBlocks; each separation test draws from its own Rng(seed).
#include <cmath>

#include "llmvalidate/error.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {
namespace {
using detail::format_number;

std::string quoted_list(const std::vector<std::string>& labels) {
    std::string text;
    for (const std::string& label : labels) text += (text.empty() ? "'" : ", '") + label + "'";
    return text;
}

void check_options(const TestOptions& options) {
    settings::check(options);  // the ranges of the settings table, as every front end has them
}

// Matches labels of S case- and white-space-insensitively, returning S's spelling.
class LabelSet {
  public:
    explicit LabelSet(const std::vector<std::string>& labels) : labels_(labels) {
        if (labels.size() < 2)
            throw_invalid(code::invalid_argument, "labels",
                          labels.empty() ? "no labels" : "one label (" + quoted_list(labels) + ")",
                          "at least 2 distinct labels (separation needs a second label)");
        for (const std::string& label : labels) {
            const std::string key = normalize_label(label);
            if (key.empty())
                throw_invalid(code::invalid_argument, "labels", "an empty label",
                              "non-empty labels");
            for (std::size_t i = 0; i < keys_.size(); ++i)
                if (keys_[i] == key)
                    throw_invalid(code::invalid_argument, "labels",
                                  "'" + labels_[i] + "' and '" + label + "'",
                                  "distinct labels (compared ignoring case and white space)");
            keys_.push_back(key);
        }
    }

    // S's spelling of `label`, or an error naming `field`.
    const std::string& resolve(const std::string& label, const std::string& field) const {
        const std::string key = normalize_label(label);
        for (std::size_t i = 0; i < keys_.size(); ++i)
            if (keys_[i] == key) return labels_[i];
        throw_invalid(code::unknown_label, field, "'" + label + "'",
                      "a label of `labels` (" + quoted_list(labels_) + ")");
    }

    const std::vector<std::string>& labels() const { return labels_; }

  private:
    std::vector<std::string> labels_;
    std::vector<std::string> keys_;
};

// Re-keys a label -> value map by S's spelling, rejecting unknown and repeated labels.
template <typename Value>
std::map<std::string, std::pair<std::string, const Value*>> by_label(
    const std::map<std::string, Value>& values, const LabelSet& labels, const std::string& field) {
    std::map<std::string, std::pair<std::string, const Value*>> result;  // label -> (key, value)
    for (const auto& [key, value] : values) {
        const std::string& label = labels.resolve(key, field);
        const auto [it, inserted] = result.emplace(label, std::make_pair(key, &value));
        if (!inserted)
            throw_invalid(code::invalid_argument, field,
                          "both '" + it->second.first + "' and '" + key + "'",
                          "one entry per label (labels compare ignoring case and white space)");
    }
    return result;
}

}  // namespace

TestOutput run_tests(const TestInput& input) {
    const TestOptions& options = input.options;
    check_options(options);
    const LabelSet label_set(input.labels);

    // A canonical copy: every label in S's spelling, so methods need no matching of their own.
    TestInput canonical;
    canonical.options = options;
    canonical.labels = input.labels;
    canonical.label = label_set.resolve(input.label, "label");

    SimilarityBlocks blocks;
    blocks.add(detail::passage_pool, input.passage.transpose(), "passage");

    const auto pools = by_label(input.pools, label_set, "pools");
    if (!pools.count(canonical.label))
        throw_invalid(
            code::invalid_argument, "pools",
            pools.empty() ? std::string("no pools")
                          : "pools for " +
                                [&] {
                                    std::vector<std::string> keys;
                                    for (const auto& entry : pools)
                                        keys.push_back(entry.second.first);
                                    return quoted_list(keys);
                                }(),
            "a pool for the label '" + canonical.label + "' (the validation test needs it)");
    for (const std::string& label : input.labels) {  // S's order: deterministic error messages
        const auto it = pools.find(label);
        if (it == pools.end()) continue;
        const std::string field = "pools." + it->second.first;
        const Eigen::MatrixXd& rows = *it->second.second;
        if (rows.rows() < 2)
            throw_invalid(code::pool_too_small, field,
                          std::to_string(rows.rows()) + (rows.rows() == 1 ? " text" : " texts"),
                          "at least 2 texts");
        blocks.add(detail::label_pool(label), rows, field);
        canonical.pools[label];  // marks the pool as present; blocks hold the rows
    }

    const auto answers = by_label(input.backtranslation, label_set, "backtranslation");
    for (const auto& [label, entry] : answers) {
        const std::string field = "backtranslation." + entry.first;
        const std::vector<std::string>& labels_back = *entry.second;
        if (labels_back.empty())
            throw_invalid(code::invalid_argument, field, "no labels",
                          "the labels the LLM gave the pool's texts, in pool order");
        const auto pool = pools.find(label);
        if (pool != pools.end() &&
            static_cast<Eigen::Index>(labels_back.size()) != pool->second.second->rows())
            throw_invalid(code::invalid_argument, field,
                          std::to_string(labels_back.size()) + " labels",
                          "one label per text of `pools." + pool->second.first + "` (" +
                              std::to_string(pool->second.second->rows()) + " texts)");
    }

    const auto references = by_label(input.paper_reference, label_set, "paper_reference");
    std::vector<std::string> needed;
    // The labels whose reference texts the methods draw (the registry's NullDraws::reference).
    const auto draws_b = [](const char* test, const std::string& name) {
        const MethodInfo* method = find_method(test, name);
        return method != nullptr && method->draws == NullDraws::reference;
    };
    if (draws_b("validation", options.validation_method)) needed.push_back(canonical.label);
    if (draws_b("separation", options.separation_method))
        for (const std::string& label : input.labels)
            if (label != canonical.label && pools.count(label)) needed.push_back(label);
    for (const std::string& label : needed)
        if (!references.count(label))
            throw_invalid(code::invalid_argument, "paper_reference",
                          references.empty() ? std::string("no reference texts")
                                             : "no reference texts for '" + label + "'",
                          "the B reference embeddings of every label the paper methods use (" +
                              quoted_list(needed) + ")");
    for (const std::string& label : input.labels) {
        const auto it = references.find(label);
        if (it == references.end()) continue;
        const std::string field = "paper_reference." + it->second.first;
        const Eigen::MatrixXd& rows = *it->second.second;
        if (rows.rows() < 2)
            throw_invalid(code::pool_too_small, field,
                          std::to_string(rows.rows()) + (rows.rows() == 1 ? " text" : " texts"),
                          "at least 2 texts (100 in the paper)");
        blocks.add(detail::reference_pool(label), rows, field);
        canonical.paper_reference[label];
    }

    TestOutput output;
    output.seed = options.seed;
    output.validation = validation_methods().at(options.validation_method)(blocks, canonical);

    std::vector<std::string> gammas;
    for (const std::string& gamma : input.labels) {
        if (gamma == canonical.label) continue;
        // A label of S without pool texts has no separation test: the verdict may not pass it
        // by omission (issue 42: an `if` that left two labels of four without rows gave
        // "valid" on two separation tests).
        (pools.count(gamma) ? gammas : output.separation_untested).push_back(gamma);
    }
    if (!gammas.empty())
        output.separation =
            separation_methods().at(options.separation_method)(blocks, canonical, gammas);

    const auto own = answers.find(canonical.label);
    if (own != answers.end()) {
        output.backtranslation =
            backtranslation(canonical.label, *own->second.second, input.labels, options.threshold,
                            options.backtranslation_rule, options.alpha);
    } else {
        output.backtranslation.run = false;
        output.backtranslation.label = canonical.label;
        output.backtranslation.alpha = options.alpha;
        output.backtranslation.rule = options.backtranslation_rule;
        output.backtranslation.threshold = options.threshold;
    }
    for (const std::string& label : input.labels) {
        const auto it = answers.find(label);
        if (label == canonical.label || it == answers.end()) continue;
        output.backtranslation_other.push_back(
            backtranslation(label, *it->second.second, input.labels, options.threshold,
                            options.backtranslation_rule, options.alpha));
    }

    output.verdict = decide_verdict(output.validation, output.separation, output.backtranslation,
                                    &output.verdict_reason, output.separation_untested);
    return output;
}

}  // namespace llmv::stats
