// The statistical tests on embeddings R brings: stand-alone, all of a validation, the
// summaries, and the label normaliser.
#include "glue_calls.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "glue_convert.hpp"
#include "glue_results.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/labels.hpp"
#include "llmvalidate/standalone.hpp"
#include "llmvalidate/stats.hpp"

using namespace glue;

extern "C" {

SEXP llmv_validation_test(SEXP passage_, SEXP pool_, SEXP alpha_, SEXP method_, SEXP reference_) {
    BEGIN_RCPP
    const Rcpp::NumericVector passage(passage_);
    const Rcpp::NumericMatrix pool(pool_);
    const double alpha = Rcpp::as<double>(alpha_);
    const std::string method = Rcpp::as<std::string>(method_);
    return guarded([&]() -> Rcpp::RObject {
        check_r_setting("alpha", alpha);
        const stats::ValidationTestMethod chosen = stats::validation_test_method(method);
        const MatrixMap reference =
            as_reference(reference_, chosen == stats::ValidationTestMethod::paper);
        return validation_to_r(
            stats::validation_test(as_vector(passage), as_matrix(pool), alpha, chosen, reference));
    });
    END_RCPP
}

SEXP llmv_separation_test(SEXP pool_a_, SEXP pool_b_, SEXP alpha_, SEXP method_, SEXP permutations_,
                          SEXP reference_, SEXP seed_) {
    BEGIN_RCPP
    const Rcpp::NumericMatrix pool_a(pool_a_);
    const Rcpp::NumericMatrix pool_b(pool_b_);
    const double alpha = Rcpp::as<double>(alpha_);
    const std::string method = Rcpp::as<std::string>(method_);
    const int permutations = Rcpp::as<int>(permutations_);
    const double seed = Rcpp::as<double>(seed_);
    return guarded([&]() -> Rcpp::RObject {
        check_r_setting("alpha", alpha);
        const stats::SeparationTestMethod chosen = stats::separation_test_method(method);
        if (chosen == stats::SeparationTestMethod::permutation)
            check_r_setting("permutations", permutations);
        const MatrixMap reference =
            as_reference(reference_, chosen == stats::SeparationTestMethod::paper);
        // The paper method draws nothing; its seed (NA from R) is never read.
        const std::uint64_t draws_seed =
            chosen == stats::SeparationTestMethod::permutation ? as_seed(seed) : 0;
        // R's interrupt stops the permutations (through R_ToplevelExec: no frame is skipped).
        const llmv::ScopedInterruptCheck interrupt_check([] { return interrupt_pending(); });
        return separation_to_r(stats::separation_test(as_matrix(pool_a), as_matrix(pool_b), alpha,
                                                      chosen, permutations, draws_seed, reference));
    });
    END_RCPP
}

SEXP llmv_backtranslation_test(SEXP target_, SEXP labels_back_, SEXP labels_, SEXP threshold_,
                               SEXP rule_, SEXP alpha_) {
    BEGIN_RCPP
    const std::string target = Rcpp::as<std::string>(target_);
    const auto labels_back = Rcpp::as<std::vector<std::string>>(labels_back_);
    const auto labels = Rcpp::as<std::vector<std::string>>(labels_);
    const double threshold = Rcpp::as<double>(threshold_);
    const std::string rule = Rcpp::as<std::string>(rule_);
    const double alpha = Rcpp::as<double>(alpha_);
    return guarded([&]() -> Rcpp::RObject {
        check_r_setting("alpha", alpha);
        check_r_setting("threshold", threshold);
        return backtranslation_to_r(
            stats::backtranslation(target, labels_back, labels, threshold, rule, alpha));
    });
    END_RCPP
}

// A whole validation from embeddings: what `llmvalidate test` runs. `settings`: the statistics
// settings by engine name (R checked them), set through the settings table.
SEXP llmv_run_tests(SEXP label_, SEXP labels_, SEXP passage_, SEXP pools_, SEXP backtranslation_,
                    SEXP paper_reference_, SEXP settings_) {
    BEGIN_RCPP
    const Rcpp::NumericVector passage(passage_);
    const Rcpp::List pools(pools_);
    const Rcpp::List backtranslation(backtranslation_);
    const Rcpp::List paper_reference(paper_reference_);
    stats::TestInput input;
    input.label = Rcpp::as<std::string>(label_);
    input.labels = Rcpp::as<std::vector<std::string>>(labels_);
    input.passage = as_vector(passage);
    input.pools = as_matrices(pools);
    input.paper_reference = as_matrices(paper_reference);
    if (backtranslation.size() > 0) {
        const auto names = as_strings(backtranslation.names());
        for (R_xlen_t i = 0; i < backtranslation.size(); ++i) {
            input.backtranslation[names[i]] = as_strings(backtranslation[i]);
        }
    }
    const Rcpp::List settings_list(settings_);
    return guarded([&]() -> Rcpp::RObject {
        set_settings(input.options, settings_list);
        const llmv::ScopedInterruptCheck interrupt_check([] { return interrupt_pending(); });
        return test_output_to_r(input.label, input.options, stats::run_tests(input));
    });
    END_RCPP
}

SEXP llmv_summarize_passages(SEXP llm_label_, SEXP verdict_, SEXP human_label_, SEXP labels_,
                             SEXP ids_) {
    BEGIN_RCPP
    stats::PassageSummaryInput input;
    input.llm_label = Rcpp::as<std::vector<std::string>>(llm_label_);
    input.id = Rcpp::as<std::vector<std::string>>(ids_);
    input.human_label = Rcpp::as<std::vector<std::string>>(human_label_);
    const auto verdicts = Rcpp::as<std::vector<std::string>>(verdict_);
    const auto labels = Rcpp::as<std::vector<std::string>>(labels_);
    return guarded([&]() -> Rcpp::RObject {
        for (const auto& value : verdicts) {
            if (value == "valid") {
                input.verdict.push_back(stats::Verdict::valid);
            } else if (value == "invalid") {
                input.verdict.push_back(stats::Verdict::invalid);
            } else if (value == "inconclusive") {
                input.verdict.push_back(stats::Verdict::inconclusive);
            } else {
                llmv::throw_invalid(llmv::code::invalid_argument, "verdict", "\"" + value + "\"",
                                    "one of \"valid\", \"invalid\", \"inconclusive\"");
            }
        }
        return summary_to_r(stats::summarize_passages(input, labels));
    });
    END_RCPP
}

SEXP llmv_benjamini_hochberg(SEXP p_values_) {
    BEGIN_RCPP
    const auto p_values = Rcpp::as<std::vector<double>>(p_values_);
    return guarded([&]() -> Rcpp::RObject {
        const std::vector<double> adjusted = stats::benjamini_hochberg(p_values);
        return Rcpp::NumericVector(adjusted.begin(), adjusted.end());
    });
    END_RCPP
}

// The one label normaliser (labels.hpp), for R's own comparisons.
SEXP llmv_normalize_labels(SEXP labels_) {
    BEGIN_RCPP
    const std::vector<std::string> labels = Rcpp::as<std::vector<std::string>>(labels_);
    return guarded([&]() -> Rcpp::RObject {
        std::vector<std::string> out;
        for (const std::string& label : labels) out.push_back(llmv::normalize_label(label));
        return Rcpp::wrap(out);
    });
    END_RCPP
}

}  // extern "C"
