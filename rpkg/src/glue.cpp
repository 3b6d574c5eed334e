// The R binding of the engine: one thin function per entry point, doing conversions only.
// Values are checked by the engine (and argument types by the R wrappers). No C++ exception
// crosses into R: llmv::Error comes back as a value of class "llmvalidate_engine_error"
// carrying the engine's stable code, which R turns into a classed condition (R/errors.R);
// anything else is caught by BEGIN_RCPP/END_RCPP.
//
// Registration is written by hand rather than by Rcpp::compileAttributes(), whose
// RcppExports.cpp would include RcppEigen.h (LinkingTo) and with it RcppEigen's own Eigen
// glue, which does not build against the system Eigen 3.4 that configure may select.
#include <R_ext/Rdynload.h>
#include <Rcpp.h>

#include <Eigen/Dense>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/rng.hpp"
#include "llmvalidate/stats.hpp"

namespace {

namespace stats = llmv::stats;
using MatrixMap = Eigen::Map<const Eigen::MatrixXd>;

// Pool names inside SimilarityBlocks. The passage is "" (the engine's convention).
const char* const passage_name = "";
const char* const pool_name = "pool";
const char* const pool_a_name = "pool_a";
const char* const pool_b_name = "pool_b";
const char* const reference_name = "reference";

MatrixMap as_matrix(const Rcpp::NumericMatrix& x) {
    return MatrixMap(x.begin(), x.nrow(), x.ncol());
}

// A numeric vector as a one-row matrix (column-major with one row: contiguous).
MatrixMap as_row(const Rcpp::NumericVector& x) { return MatrixMap(x.begin(), 1, x.size()); }

Rcpp::NumericVector as_r(const Eigen::VectorXd& x) {
    return Rcpp::NumericVector(x.data(), x.data() + x.size());
}

// R passes seeds as doubles holding whole numbers in [0, 2^53] (checked in R).
std::uint64_t as_seed(double seed) { return static_cast<std::uint64_t>(seed); }

std::vector<std::string> as_strings(const Rcpp::CharacterVector& x) {
    return Rcpp::as<std::vector<std::string>>(x);
}

Rcpp::RObject engine_error(const std::string& code, const std::string& message) {
    Rcpp::List error =
        Rcpp::List::create(Rcpp::Named("code") = code, Rcpp::Named("message") = message);
    error.attr("class") = "llmvalidate_engine_error";
    return error;
}

template <typename Body>
Rcpp::RObject guarded(Body body) {
    try {
        return body();
    } catch (const llmv::Error& error) {
        return engine_error(error.code(), error.what());
    } catch (const std::exception& error) {
        return engine_error(llmv::code::internal, error.what());
    }
}

Rcpp::List validation_to_r(const stats::ValidationResult& result) {
    return Rcpp::List::create(Rcpp::Named("method") = result.method,
                              Rcpp::Named("statistic") = result.statistic,
                              Rcpp::Named("critical_value") = result.critical_value,
                              Rcpp::Named("p_value") = result.p_value,
                              Rcpp::Named("reject") = result.reject, Rcpp::Named("m") = result.m,
                              Rcpp::Named("b") = result.b, Rcpp::Named("alpha") = result.alpha,
                              Rcpp::Named("null_distribution") = as_r(result.null_distribution));
}

Rcpp::List separation_to_r(const stats::SeparationResult& result) {
    return Rcpp::List::create(
        Rcpp::Named("label") = result.label, Rcpp::Named("method") = result.method,
        Rcpp::Named("statistic") = result.statistic,
        Rcpp::Named("critical_value") = result.critical_value,
        Rcpp::Named("p_value") = result.p_value, Rcpp::Named("pass") = result.pass,
        Rcpp::Named("m_beta") = result.m_beta, Rcpp::Named("m_gamma") = result.m_gamma,
        Rcpp::Named("permutations") = result.permutations, Rcpp::Named("alpha") = result.alpha,
        Rcpp::Named("null_distribution") = as_r(result.null_distribution));
}

Rcpp::List backtranslation_to_r(const stats::BacktranslationResult& result) {
    Rcpp::IntegerVector counts(result.counts.size());
    Rcpp::CharacterVector names(result.counts.size());
    for (std::size_t i = 0; i < result.counts.size(); ++i) {
        names[i] = result.counts[i].first;
        counts[i] = result.counts[i].second;
    }
    counts.names() = names;
    return Rcpp::List::create(
        Rcpp::Named("run") = result.run, Rcpp::Named("label") = result.label,
        Rcpp::Named("m") = result.m, Rcpp::Named("correct") = result.correct,
        Rcpp::Named("accuracy") = result.accuracy, Rcpp::Named("lower_bound") = result.lower_bound,
        Rcpp::Named("alpha") = result.alpha, Rcpp::Named("counts") = counts,
        Rcpp::Named("rule") = result.rule, Rcpp::Named("threshold") = result.threshold,
        Rcpp::Named("pass") = result.pass);
}

std::map<std::string, Eigen::MatrixXd> as_matrices(const Rcpp::List& list) {
    std::map<std::string, Eigen::MatrixXd> matrices;
    if (list.size() == 0) return matrices;
    const auto names = as_strings(list.names());
    for (R_xlen_t i = 0; i < list.size(); ++i) {
        matrices[names[i]] = as_matrix(Rcpp::NumericMatrix(list[i]));
    }
    return matrices;
}

Rcpp::List summary_to_r(const stats::PassageSummary& summary) {
    const std::size_t rows9 = summary.table9.size();
    Rcpp::CharacterVector label9(rows9);
    Rcpp::IntegerVector n9(rows9), n_valid9(rows9), n_human9(rows9);
    Rcpp::NumericVector share9(rows9), share_human9(rows9);
    for (std::size_t i = 0; i < rows9; ++i) {
        const auto& row = summary.table9[i];
        label9[i] = row.label;
        n9[i] = row.n;
        n_valid9[i] = row.n_valid;
        share9[i] = row.share_valid;
        n_human9[i] = row.n_human_agree;
        share_human9[i] = row.share_human;
    }
    const std::size_t rows10 = summary.table10.size();
    Rcpp::CharacterVector llm10(rows10), human10(rows10);
    Rcpp::IntegerVector n10(rows10), n_valid10(rows10);
    Rcpp::NumericVector share10(rows10);
    for (std::size_t i = 0; i < rows10; ++i) {
        const auto& cell = summary.table10[i];
        llm10[i] = cell.llm_label;
        human10[i] = cell.human_label;
        n10[i] = cell.n;
        n_valid10[i] = cell.n_valid;
        share10[i] = cell.share_valid;
    }
    return Rcpp::List::create(
        Rcpp::Named("table9") = Rcpp::List::create(
            Rcpp::Named("label") = label9, Rcpp::Named("n") = n9, Rcpp::Named("n_valid") = n_valid9,
            Rcpp::Named("share_valid") = share9, Rcpp::Named("n_human_agree") = n_human9,
            Rcpp::Named("share_human") = share_human9),
        Rcpp::Named("table10") = Rcpp::List::create(
            Rcpp::Named("llm_label") = llm10, Rcpp::Named("human_label") = human10,
            Rcpp::Named("n") = n10, Rcpp::Named("n_valid") = n_valid10,
            Rcpp::Named("share_valid") = share10),
        Rcpp::Named("n_total") = summary.n_total,
        Rcpp::Named("n_inconclusive") = summary.n_inconclusive);
}

}  // namespace

extern "C" {

SEXP llmv_validation_test(SEXP passage_, SEXP pool_, SEXP alpha_, SEXP method_, SEXP reference_) {
    BEGIN_RCPP
    const Rcpp::NumericVector passage(passage_);
    const Rcpp::NumericMatrix pool(pool_);
    const double alpha = Rcpp::as<double>(alpha_);
    const std::string method = Rcpp::as<std::string>(method_);
    return guarded([&]() -> Rcpp::RObject {
        stats::SimilarityBlocks blocks;
        blocks.add(passage_name, as_row(passage), "passage");
        blocks.add(pool_name, as_matrix(pool), "pool");
        if (method == "paper") {
            const Rcpp::NumericMatrix reference(reference_);
            blocks.add(reference_name, as_matrix(reference), "reference");
            return validation_to_r(
                stats::validation_paper(blocks, passage_name, pool_name, reference_name, alpha));
        }
        return validation_to_r(stats::validation_exact(blocks, passage_name, pool_name, alpha));
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
        stats::SimilarityBlocks blocks;
        blocks.add(pool_a_name, as_matrix(pool_a), "pool_a");
        blocks.add(pool_b_name, as_matrix(pool_b), "pool_b");
        if (method == "paper") {
            const Rcpp::NumericMatrix reference(reference_);
            blocks.add(reference_name, as_matrix(reference), "reference");
            return separation_to_r(
                stats::separation_paper(blocks, pool_a_name, pool_b_name, reference_name, alpha));
        }
        llmv::Rng rng(as_seed(seed));
        return separation_to_r(stats::separation_permutation(blocks, pool_a_name, pool_b_name,
                                                             alpha, permutations, rng));
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
        return backtranslation_to_r(
            stats::backtranslation(target, labels_back, labels, threshold, rule, alpha));
    });
    END_RCPP
}

// A whole validation from embeddings: what `llmvalidate test` runs.
SEXP llmv_run_tests(SEXP label_, SEXP labels_, SEXP passage_, SEXP pools_, SEXP backtranslation_,
                    SEXP paper_reference_, SEXP alpha_, SEXP threshold_, SEXP seed_,
                    SEXP permutations_, SEXP validation_method_, SEXP separation_method_,
                    SEXP backtranslation_rule_) {
    BEGIN_RCPP
    const Rcpp::NumericVector passage(passage_);
    const Rcpp::List pools(pools_);
    const Rcpp::List backtranslation(backtranslation_);
    const Rcpp::List paper_reference(paper_reference_);
    stats::TestInput input;
    input.label = Rcpp::as<std::string>(label_);
    input.labels = Rcpp::as<std::vector<std::string>>(labels_);
    input.passage = Eigen::Map<const Eigen::VectorXd>(passage.begin(), passage.size());
    input.pools = as_matrices(pools);
    input.paper_reference = as_matrices(paper_reference);
    if (backtranslation.size() > 0) {
        const auto names = as_strings(backtranslation.names());
        for (R_xlen_t i = 0; i < backtranslation.size(); ++i) {
            input.backtranslation[names[i]] = as_strings(backtranslation[i]);
        }
    }
    input.options.alpha = Rcpp::as<double>(alpha_);
    input.options.threshold = Rcpp::as<double>(threshold_);
    input.options.seed = as_seed(Rcpp::as<double>(seed_));
    input.options.permutations = Rcpp::as<int>(permutations_);
    input.options.validation_method = Rcpp::as<std::string>(validation_method_);
    input.options.separation_method = Rcpp::as<std::string>(separation_method_);
    input.options.backtranslation_rule = Rcpp::as<std::string>(backtranslation_rule_);
    return guarded([&]() -> Rcpp::RObject {
        const stats::TestOutput output = stats::run_tests(input);
        Rcpp::List separation(output.separation.size());
        for (std::size_t i = 0; i < output.separation.size(); ++i) {
            separation[i] = separation_to_r(output.separation[i]);
        }
        Rcpp::List backtranslation_other(output.backtranslation_other.size());
        for (std::size_t i = 0; i < output.backtranslation_other.size(); ++i) {
            backtranslation_other[i] = backtranslation_to_r(output.backtranslation_other[i]);
        }
        return Rcpp::List::create(
            Rcpp::Named("validation") = validation_to_r(output.validation),
            Rcpp::Named("separation") = separation,
            Rcpp::Named("backtranslation") = backtranslation_to_r(output.backtranslation),
            Rcpp::Named("backtranslation_other") = backtranslation_other,
            Rcpp::Named("verdict") = std::string(stats::verdict_name(output.verdict)),
            Rcpp::Named("verdict_reason") = output.verdict_reason,
            Rcpp::Named("seed") = static_cast<double>(output.seed));
    });
    END_RCPP
}

SEXP llmv_summarize_passages(SEXP llm_label_, SEXP verdict_, SEXP human_label_, SEXP labels_) {
    BEGIN_RCPP
    stats::PassageSummaryInput input;
    input.llm_label = Rcpp::as<std::vector<std::string>>(llm_label_);
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

static const R_CallMethodDef call_methods[] = {
    {"llmv_validation_test", reinterpret_cast<DL_FUNC>(&llmv_validation_test), 5},
    {"llmv_separation_test", reinterpret_cast<DL_FUNC>(&llmv_separation_test), 7},
    {"llmv_backtranslation_test", reinterpret_cast<DL_FUNC>(&llmv_backtranslation_test), 6},
    {"llmv_run_tests", reinterpret_cast<DL_FUNC>(&llmv_run_tests), 13},
    {"llmv_summarize_passages", reinterpret_cast<DL_FUNC>(&llmv_summarize_passages), 4},
    {"llmv_benjamini_hochberg", reinterpret_cast<DL_FUNC>(&llmv_benjamini_hochberg), 1},
    {nullptr, nullptr, 0}};

void R_init_llmvalidate(DllInfo* dll) {
    R_registerRoutines(dll, nullptr, call_methods, nullptr, nullptr);
    R_useDynamicSymbols(dll, FALSE);
}

}  // extern "C"
