// The statistics of ../shared/METHOD.md. Eigen only: no I/O, no JSON, no R, no Stata.
//
// Embeddings are matrices with one text per row (n x d). Every function normalises its
// inputs to unit L2 norm itself, so callers may pass raw embeddings.
//
// Reproducibility contract: the similarity blocks a test uses are computed by one routine
// (`SimilarityBlocks`) with shapes fixed by the label pools, never by the caller. So a test
// run on its own (R's validation_test(), Stata's `llmvalidate test`) and the same test run
// inside a full validation give bit-identical numbers.
#pragma once

#include <Eigen/Dense>

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "llmvalidate/labels.hpp"
#include "llmvalidate/rng.hpp"

namespace llmv::stats {

using MatrixRef = Eigen::Ref<const Eigen::MatrixXd>;
using VectorRef = Eigen::Ref<const Eigen::VectorXd>;

// Unit-norm rows. Throws llmv::Error (code invalid_embedding) naming `argument` and the row
// (1-based) on a zero row, NaN or Inf; (code pool_too_small) is the caller's job.
Eigen::MatrixXd normalize_rows(const MatrixRef& embeddings, const std::string& argument);

// Quantile of type 7 (R's default, pandas' default): linear interpolation between order
// statistics at h = (n - 1) p.
double quantile_type7(std::vector<double> values, double probability);

// The p-value of a test that rejects when the type-7 α-quantile of `values` exceeds
// `statistic` (the paper's validation test): the largest level at which it does not reject,
// so that it rejects at α exactly when this is below α (0: it rejects at every level; 1: at
// none). Found by bisection on the same comparison, so rounding cannot make the two disagree.
double type7_rejection_level(std::vector<double> values, double statistic);

// The ⌊α(n+1)⌋-th smallest value (1-based), or -infinity when ⌊α(n+1)⌋ = 0. With rank
// p-values p = (1 + #{null <= s}) / (n + 1), "p <= α" is exactly "s < this value", so the
// critical value and the p-value never disagree.
double rank_critical_value(std::vector<double> null_values, double alpha);

// "p <= alpha" with a relative tolerance of 1e-12, so that p = 1/20 at α = 0.05 rejects.
bool p_at_most(double p_value, double alpha);

// Two statistics closer than this (absolute; every statistic is a mean of cosines, so lies in
// [-1, 1]) are ties. Texts with identical embeddings give statistics that are equal in exact
// arithmetic but may differ in the last bits, because they are summed in different orders;
// counting them as ties keeps rank p-values exact (never anti-conservative) and identical on
// every platform.
inline constexpr double tie_tolerance = 1e-10;

// #{v in null_values : v <= statistic + tie_tolerance}: the count in every rank p-value.
int count_at_most(const Eigen::VectorXd& null_values, double statistic);

// The smallest number of null draws (pool size M of the exact test, permutations R, reference
// texts B of the paper's tests) with which a test can reach its decision at level α: its
// smallest attainable p-value 1/(size + 1) must be at most α, i.e. size + 1 >= 1/α (19 at
// α = 0.05). Uses p_at_most(), so the boundary case 1/20 at α = 0.05 counts as deciding.
int smallest_deciding_size(double alpha);

// The long loops of the tests (each block of permutations) look at the calling thread's
// interrupt flag, set by an InterruptScope (the pipeline's cancel flag: Ctrl-C, SIGTERM, R's
// interrupt, Stata's Break), and stop with llmv::Error(code::cancelled) once it is true.
class InterruptScope {
  public:
    explicit InterruptScope(const std::atomic<bool>* flag);
    ~InterruptScope();
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

  private:
    const std::atomic<bool>* previous_;
};
void check_interrupt();

// The sentence fragment every front end shows when a size is too small (verdicts, dry run,
// power): "<test phrase> at α = 0.05 with M = 10 <unit>: its smallest attainable p-value,
// 1/(M + 1) = 0.09091, exceeds α; M >= 19 is needed (M + 1 >= 1/α)".
std::string cannot_decide_reason(const std::string& test_phrase, const std::string& symbol,
                                 const std::string& unit, int size, double alpha);

// Every rank test below satisfies: reject (or pass) <=> p_at_most(p_value, alpha)
// <=> statistic + tie_tolerance < critical_value.
// `can_decide` is false when the test has no power at α with its size (see
// smallest_deciding_size()); its "not rejected" (or "fails to separate") is then no evidence,
// and decide_verdict() returns inconclusive.
struct ValidationResult {
    std::string method;         // "exact" or "paper"
    double statistic = 0;       // τ = mean cos(y, pool)
    double critical_value = 0;  // see the method
    double p_value = 0;
    bool reject = false;  // validity rejected
    int m = 0;            // pool size (N for the paper method)
    int b = 0;            // reference draws (paper method), 0 for exact
    double alpha = 0.05;
    Eigen::VectorXd null_distribution;  // exact: T(s_j); paper: τ̃_b
    bool can_decide = true;             // M (exact) or B (paper) >= smallest_deciding_size(α)
    int smallest_deciding_size = 0;     // of M (exact) or B (paper) at this α
};

struct SeparationResult {
    std::string label;          // γ
    std::string method;         // "permutation" or "paper"
    double statistic = 0;       // ξ(β, γ)
    double critical_value = 0;  // permutation: rank critical value; paper: (1-α) type-7 quantile
    double p_value = 0;         // paper: NaN (the reference reports none)
    bool pass = false;          // separation holds
    int m_beta = 0;
    int m_gamma = 0;
    int permutations = 0;  // R, the permutations (permutation method); 0 for paper
    int b = 0;             // B, the reference texts (paper method); 0 for permutation
    double alpha = 0.05;
    Eigen::VectorXd null_distribution;  // ξ_perm or ξ̄_b
    bool can_decide = true;             // R (permutation) or B (paper) is large enough at α
    int smallest_deciding_size = 0;     // of R (permutation) or B (paper) at this α
};

// The fragment for a result whose can_decide is false ("" when it can decide).
std::string cannot_decide_reason(const ValidationResult& result);
std::string cannot_decide_reason(const SeparationResult& result);

struct BacktranslationResult {
    bool run = false;   // false when no backtranslation labels were given
    std::string label;  // β
    int m = 0;
    int correct = 0;
    double accuracy = 0;
    double lower_bound = 0;  // exact one-sided Clopper-Pearson bound at level 1 - α
    double alpha = 0.05;
    std::vector<std::pair<std::string, int>> counts;  // every label of S (in S's order, zeros
                                                      // included), then any other answers
    std::string rule;                                 // "point" or "bound"
    double threshold = 0.9;
    bool pass = false;
};

// Labels compare through llmv::normalize_label (labels.hpp), as everywhere else.
using llmv::normalize_label;

// Lower bound of the exact one-sided (1 - α) Clopper-Pearson interval; 0 when successes = 0.
double clopper_pearson_lower(int successes, int trials, double alpha);

// --- Similarity blocks: one Gram matrix per validation, computed block by block -------------
// Rows of every pool are normalised once; block (a, b) = P_a P_bᵀ is computed once, on first
// use, by one GEMM of fixed shape (M_a x d)(d x M_b); block (b, a) is its transpose. The
// passage is pool "" of one row.
//
// Every statistic of METHOD.md is a mean of cosines, i.e. a dot product of pool sums
// (mean_ij cos(a_i, b_j) = (Σ_i a_i)·(Σ_j b_j) / (M_a M_b)). The tests therefore use `sum()`,
// O(M d) instead of O(M² d) per block, and never depend on which blocks a caller computed
// before: a test's numbers depend only on the pools it is given (in their row order).
class SimilarityBlocks {
  public:
    // Adding a name twice replaces the pool (and forgets its blocks and sum). Every pool must
    // have the dimension of the first one (code dimension_mismatch, naming both arguments).
    void add(const std::string& name, const MatrixRef& embeddings, const std::string& argument);
    bool has(const std::string& name) const;
    const Eigen::MatrixXd& pool(const std::string& name) const;  // normalised rows
    const Eigen::MatrixXd& block(const std::string& a, const std::string& b);
    // Σ of the normalised rows, accumulated row by row in pool order (no reassociation, so the
    // same bits with any SIMD width).
    const Eigen::VectorXd& sum(const std::string& name);
    const std::string& argument(const std::string& name) const;  // as given to add()
    int dimension() const;

  private:
    std::map<std::string, Eigen::MatrixXd> pools_;
    std::map<std::string, std::string> arguments_;
    std::map<std::string, Eigen::VectorXd> sums_;
    std::map<std::pair<std::string, std::string>, Eigen::MatrixXd> blocks_;
    std::string first_argument_;
};

// --- The tests on their own (what R's *_test() functions and `llmvalidate test` call) --------
ValidationResult validation_exact(SimilarityBlocks& blocks, const std::string& passage,
                                  const std::string& pool, double alpha);
ValidationResult validation_paper(SimilarityBlocks& blocks, const std::string& passage,
                                  const std::string& pool, const std::string& reference,
                                  double alpha);
SeparationResult separation_permutation(SimilarityBlocks& blocks, const std::string& pool_beta,
                                        const std::string& pool_gamma, double alpha,
                                        int permutations, Rng& rng);
SeparationResult separation_paper(SimilarityBlocks& blocks, const std::string& pool_beta,
                                  const std::string& pool_gamma, const std::string& reference_gamma,
                                  double alpha);
BacktranslationResult backtranslation(const std::string& target,
                                      const std::vector<std::string>& labels_back,
                                      const std::vector<std::string>& label_set, double threshold,
                                      const std::string& rule, double alpha);

// --- A whole validation ---------------------------------------------------------------------
struct TestOptions {
    double alpha = 0.05;
    double threshold = 0.9;
    std::uint64_t seed = 1;
    int permutations = 999;
    std::string validation_method = "exact";        // registry: validation_methods()
    std::string separation_method = "permutation";  // registry: separation_methods()
    std::string backtranslation_rule = "point";     // "point" | "bound"
};

// The settings table's names of TestOptions' fields (llmvalidate/settings.hpp: get, set, check;
// the `test` JSON format, R's tests on embeddings and every front end reach them through it).
template <typename Options, typename Visit>
void visit_test_options(Options& options, Visit&& visit) {
    visit("alpha", options.alpha);
    visit("threshold", options.threshold);
    visit("validation_method", options.validation_method);
    visit("separation_method", options.separation_method);
    visit("backtranslation_rule", options.backtranslation_rule);
    visit("permutations", options.permutations);
    visit("seed", options.seed);
}
template <typename Visit>
void visit_settings(TestOptions& options, Visit&& visit) {
    visit_test_options(options, visit);
}
template <typename Visit>
void visit_settings(const TestOptions& options, Visit&& visit) {
    visit_test_options(options, visit);
}

struct TestInput {
    std::string label;                                                // β̂
    std::vector<std::string> labels;                                  // S
    Eigen::VectorXd passage;                                          // e(y)
    std::map<std::string, Eigen::MatrixXd> pools;                     // label -> rows of embeddings
    std::map<std::string, std::vector<std::string>> backtranslation;  // label -> f⁻¹ answers
    std::map<std::string, Eigen::MatrixXd> paper_reference;           // label -> B extra embeddings
    TestOptions options;
};

enum class Verdict { valid, invalid, inconclusive };
const char* verdict_name(Verdict verdict);

struct TestOutput {
    ValidationResult validation;
    std::vector<SeparationResult> separation;  // one per other label with a pool, in S's order
    // The other labels of S without a pool, whose separation was not tested (S's order): the
    // verdict is then inconclusive, naming them.
    std::vector<std::string> separation_untested;
    BacktranslationResult backtranslation;                     // of β̂
    std::vector<BacktranslationResult> backtranslation_other;  // other labels given, S's order
    Verdict verdict = Verdict::inconclusive;
    std::string verdict_reason;  // one sentence: why this verdict
    std::uint64_t seed = 1;
};

// Checks every field (names the field, the value received, what is allowed) and runs every
// test from one SimilarityBlocks. Permutations draw from Rng(options.seed), separation tests
// in S's order.
TestOutput run_tests(const TestInput& input);

// `untested`: labels of S other than β̂ whose separation could not be tested (no pool texts);
// any makes the verdict inconclusive.
Verdict decide_verdict(const ValidationResult& validation,
                       const std::vector<SeparationResult>& separation,
                       const BacktranslationResult& backtranslation, std::string* reason,
                       const std::vector<std::string>& untested = {});

// --- Method registries: adding a method is one file plus its entry in stats/registry.cpp ------
// Inside run_tests() a method gets the SimilarityBlocks holding every pool (named as in
// cpp/stats/internal.hpp) and a TestInput whose labels are spelled as in `labels`; its
// `pools` and `paper_reference` only mark which labels have one (the rows are in the blocks).
using ValidationMethod = std::function<ValidationResult(SimilarityBlocks&, const TestInput&)>;
// A separation method returns one result per γ in `gammas`, in that order; its randomness
// comes from Rng(input.options.seed), the same start for every γ.
using SeparationMethod = std::function<std::vector<SeparationResult>(
    SimilarityBlocks&, const TestInput&, const std::vector<std::string>& gammas)>;
const std::map<std::string, ValidationMethod>& validation_methods();
const std::map<std::string, SeparationMethod>& separation_methods();

// What the front ends show of a method, declared with it in the registry (stats/registry.cpp):
// R's choices and its tests' `parameter` read these (llmv_test_methods()), not a list of names.
// `draws`: what its null distribution is drawn from, with the symbol front ends print: the pool
// texts M (exact validation), R permutations (the permutation test: `permutations`, the seed),
// B reference texts (the paper's tests: `b`).
enum class NullDraws { pool, permutations, reference };
const char* null_draws_symbol(NullDraws draws);  // "M", "R", "B"
struct MethodInfo {
    std::string test;   // "validation" or "separation"
    std::string name;   // the setting's choice (validation_method, separation_method)
    std::string title;  // a few words: "exact rank test"
    std::string doc;    // one sentence
    NullDraws draws = NullDraws::pool;
};
// Every registered method: validation first, then separation, each in the order registered.
const std::vector<MethodInfo>& test_methods();
// The method `name` of `test` ("validation" or "separation"); nullptr when none is registered.
const MethodInfo* find_method(const std::string& test, const std::string& name);
// Whether the options' separation method draws permutations (then `permutations`, R, is used),
// and whether either method draws reference texts (then B is).
struct TestOptions;
bool draws_permutations(const TestOptions& options);
bool draws_reference(const TestOptions& options);
// A method added at run time (a test's throwaway method; a binding's own): its info and its
// function; the same name again replaces it. remove_method() takes it out again.
void register_validation_method(const MethodInfo& info, ValidationMethod method);
void register_separation_method(const MethodInfo& info, SeparationMethod method);
void remove_method(const std::string& test, const std::string& name);

// --- Many passages (Section 5) ----------------------------------------------------------------
struct PassageSummaryInput {
    std::vector<std::string> llm_label;
    std::vector<Verdict> verdict;
    std::vector<std::string> human_label;  // empty when not given
    std::vector<std::string> id;           // names Table 11's rows; empty: positions from 1
    // The passages' texts, for Table 11's sentences: empty, or one per passage (a caller that
    // keeps memory bounded may leave all but the rows that can enter Table 11 empty).
    std::vector<std::string> text;
};

struct ShareRow {
    std::string label;  // "" for the overall row
    int n = 0;          // passages whose prerequisites pass
    int n_valid = 0;
    double share_valid = 0;
    int n_human_agree = 0;   // when human labels are given
    double share_human = 0;  // NaN when not given
};

struct CrossCell {
    std::string llm_label;
    std::string human_label;
    int n = 0;
    int n_valid = 0;
    double share_valid = 0;  // NaN when n = 0
};

// A row of Table 11: a passage whose LLM label differs from its human label and whose
// annotation is nevertheless valid.
struct Disagreement {
    std::string id;
    std::string llm_label;
    std::string human_label;
    std::string text;  // the passage, as the paper's Table 11 shows it ("" when not given)
};

struct PassageSummary {
    std::vector<ShareRow> table9;       // overall first, then by LLM label
    std::vector<CrossCell> table10;     // LLM label x human label, prerequisites passing only
    std::vector<Disagreement> table11;  // in input order; empty without human labels
    int n_total = 0;
    int n_inconclusive = 0;
};

PassageSummary summarize_passages(const PassageSummaryInput& input,
                                  const std::vector<std::string>& label_set);

// Benjamini-Hochberg adjusted p-values (R's p.adjust(method = "BH")); NaN stays NaN.
std::vector<double> benjamini_hochberg(const std::vector<double>& p_values);

}  // namespace llmv::stats
