// The verdict (Table 7's three marks) and the sentence that explains it.
#include <string>

#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {

const char* verdict_name(Verdict verdict) {
    switch (verdict) {
        case Verdict::valid:
            return "valid";
        case Verdict::invalid:
            return "invalid";
        case Verdict::inconclusive:
            return "inconclusive";
    }
    return "inconclusive";
}

using detail::format_number;

std::string cannot_decide_reason(const std::string& test_phrase, const std::string& symbol,
                                 const std::string& unit, int size, double alpha) {
    return test_phrase + " at α = " + format_number(alpha) + " with " + symbol + " = " +
           std::to_string(size) + (unit.empty() ? "" : " " + unit) +
           ": its smallest attainable p-value, 1/(" + symbol +
           " + 1) = " + format_number(1.0 / (static_cast<double>(size) + 1.0)) + ", exceeds α; " +
           symbol + " >= " + std::to_string(smallest_deciding_size(alpha)) + " is needed (" +
           symbol + " + 1 >= 1/α)";
}

std::string cannot_decide_reason(const ValidationResult& result) {
    if (result.can_decide) return "";
    if (result.method == "paper")
        return cannot_decide_reason("the paper's validation test cannot decide", "B",
                                    "reference texts", result.b, result.alpha);
    return cannot_decide_reason("the exact validation test cannot reject", "M", "pool texts",
                                result.m, result.alpha);
}

std::string cannot_decide_reason(const SeparationResult& result) {
    if (result.can_decide) return "";
    if (result.method == "paper")
        return cannot_decide_reason(
            "the paper's separation test from '" + result.label + "' cannot decide", "B",
            "reference texts", result.b, result.alpha);
    return cannot_decide_reason("the separation test from '" + result.label + "' cannot pass", "R",
                                "permutations", result.permutations, result.alpha);
}

namespace {

std::string separation_failure(const SeparationResult& result) {
    std::string text = "separation from '" + result.label + "' failed (";
    if (result.method == "paper")
        text += "ξ = " + format_number(result.statistic) + " exceeds the critical value " +
                format_number(result.critical_value);
    else
        text += "p = " + format_number(result.p_value) + " > α = " + format_number(result.alpha);
    return text + ")";
}
}  // namespace

Verdict decide_verdict(const ValidationResult& validation,
                       const std::vector<SeparationResult>& separation,
                       const BacktranslationResult& backtranslation, std::string* reason,
                       const std::vector<std::string>& untested) {
    std::vector<std::string> problems;
    // A test without power first: its "not rejected" is no evidence whatever else holds.
    if (!validation.can_decide) problems.push_back(cannot_decide_reason(validation));
    if (!backtranslation.run) {
        problems.push_back("backtranslation not run, so the backtranslation prerequisite for '" +
                           backtranslation.label + "' is untested");
    } else if (!backtranslation.pass) {
        problems.push_back("backtranslation of '" + backtranslation.label + "' failed (" +
                           (backtranslation.rule == "bound"
                                ? "lower bound " + format_number(backtranslation.lower_bound)
                                : "accuracy " + format_number(backtranslation.accuracy)) +
                           " < threshold " + format_number(backtranslation.threshold) + ")");
    }
    if (!untested.empty()) {
        std::string labels;
        for (std::size_t i = 0; i < untested.size(); ++i)
            labels += std::string(i == 0                     ? ""
                                  : i + 1 == untested.size() ? " and "
                                                             : ", ") +
                      "'" + untested[i] + "'";
        problems.push_back("no pool texts for " + labels + ", so separation from " +
                           (untested.size() == 1 ? "it" : "them") + " was not tested");
    } else if (separation.empty()) {
        problems.push_back("no other label has a pool, so separation could not be tested");
    }
    for (const SeparationResult& result : separation) {
        if (!result.can_decide)
            problems.push_back(cannot_decide_reason(result));
        else if (!result.pass)
            problems.push_back(separation_failure(result));
    }

    Verdict verdict;
    std::string sentence;
    if (!problems.empty()) {
        verdict = Verdict::inconclusive;
        sentence = "Inconclusive: ";
        for (std::size_t i = 0; i < problems.size(); ++i) sentence += (i ? "; " : "") + problems[i];
        sentence += ".";
    } else {
        const std::string numbers = "τ = " + format_number(validation.statistic) +
                                    ", critical value " + format_number(validation.critical_value) +
                                    ", p = " + format_number(validation.p_value);
        if (validation.reject) {
            verdict = Verdict::invalid;
            sentence = "Invalid: the prerequisites pass and the validation test rejects (" +
                       numbers + ").";
        } else {
            verdict = Verdict::valid;
            sentence = "Valid: the prerequisites pass and the validation test does not reject (" +
                       numbers + ").";
        }
    }
    if (reason) *reason = sentence;
    return verdict;
}

}  // namespace llmv::stats
