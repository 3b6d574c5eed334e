// Annotation backtranslation (eq. 3): accuracy, label counts, Clopper-Pearson lower bound.
#include <boost/math/special_functions/beta.hpp>

#include <cmath>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {
namespace {
constexpr double threshold_tolerance = 1e-12;  // 9/10 passes threshold 0.9 however it was typed
}

double clopper_pearson_lower(int successes, int trials, double alpha) {
    if (trials < 1)
        throw_invalid(code::invalid_argument, "trials", std::to_string(trials), "at least 1");
    if (successes < 0 || successes > trials)
        throw_invalid(code::invalid_argument, "successes", std::to_string(successes),
                      "a count between 0 and trials (" + std::to_string(trials) + ")");
    if (!(alpha > 0 && alpha < 1))
        throw_invalid(code::invalid_argument, "alpha", detail::format_number(alpha),
                      "a number strictly between 0 and 1");
    if (successes == 0) return 0;
    if (successes == trials) return std::pow(alpha, 1.0 / trials);  // closed form
    // The lower bound L solves P(X >= x | L) = α, i.e. L = the α-quantile of Beta(x, n - x + 1).
    return boost::math::ibeta_inv(static_cast<double>(successes),
                                  static_cast<double>(trials - successes + 1), alpha);
}

BacktranslationResult backtranslation(const std::string& target,
                                      const std::vector<std::string>& labels_back,
                                      const std::vector<std::string>& label_set, double threshold,
                                      const std::string& rule, double alpha) {
    if (labels_back.empty())
        throw_invalid(code::invalid_argument, "backtranslation", "no labels",
                      "the labels the LLM gave the pool's texts (at least one)");
    if (rule != "point" && rule != "bound")
        throw_invalid(code::invalid_argument, "backtranslation_rule", "'" + rule + "'",
                      "one of point, bound");
    if (!(threshold >= 0 && threshold <= 1))
        throw_invalid(code::invalid_argument, "threshold", detail::format_number(threshold),
                      "a number in [0, 1]");

    // The target must be a label of S: otherwise the accuracy is 0 by construction, which
    // would read as a failed annotation rather than a mistyped label.
    const std::string wanted = normalize_label(target);
    bool known = false;
    std::string names;
    for (const std::string& label : label_set) {
        known = known || normalize_label(label) == wanted;
        names += (names.empty() ? "'" : ", '") + label + "'";
    }
    if (!known)
        throw_invalid(code::unknown_label, "target", "'" + target + "'",
                      "a label of `labels` (" + names + ")");

    BacktranslationResult result;
    result.run = true;
    result.label = target;
    result.m = static_cast<int>(labels_back.size());
    result.alpha = alpha;
    result.rule = rule;
    result.threshold = threshold;

    std::vector<std::string> keys;  // normalised, parallel to result.counts
    for (const std::string& label : label_set) {
        keys.push_back(normalize_label(label));
        result.counts.emplace_back(label, 0);
    }
    for (const std::string& answer : labels_back) {
        const std::string key = normalize_label(answer);
        if (key == wanted) ++result.correct;
        std::size_t slot = 0;
        while (slot < keys.size() && keys[slot] != key) ++slot;
        if (slot == keys.size()) {  // an answer outside S, counted under its first spelling
            keys.push_back(key);
            result.counts.emplace_back(answer, 0);
        }
        ++result.counts[slot].second;
    }
    result.accuracy = static_cast<double>(result.correct) / result.m;
    result.lower_bound = clopper_pearson_lower(result.correct, result.m, alpha);
    const double tested = rule == "point" ? result.accuracy : result.lower_bound;
    result.pass = tested >= threshold - threshold_tolerance;
    return result;
}

}  // namespace llmv::stats
