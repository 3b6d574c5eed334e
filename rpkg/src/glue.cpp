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
#include <Rinternals.h>

#include <Eigen/Dense>

#include <atomic>
#include <fstream>
#include <iterator>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/labels.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/sample.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/standalone.hpp"
#include "llmvalidate/stats.hpp"
#include "llmvalidate/task.hpp"

namespace {

namespace stats = llmv::stats;
namespace settings = llmv::settings;
using MatrixMap = Eigen::Map<const Eigen::MatrixXd>;

MatrixMap as_matrix(const Rcpp::NumericMatrix& x) {
    return MatrixMap(x.begin(), x.nrow(), x.ncol());
}

Eigen::Map<const Eigen::VectorXd> as_vector(const Rcpp::NumericVector& x) {
    return Eigen::Map<const Eigen::VectorXd>(x.begin(), x.size());
}

// The reference texts of a paper method; any other method reads none (R passes NULL).
MatrixMap as_reference(SEXP reference, bool read) {
    if (!read) return MatrixMap(nullptr, 0, 0);
    return as_matrix(Rcpp::NumericMatrix(reference));
}

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

// The settings table's check of one number, with R's spelling of its name.
void check_r_setting(const std::string& name, double value) {
    const settings::Setting& setting = settings::setting(name);
    settings::check_value(setting, settings::Value{true, value, {}}, settings::FrontEnd::r);
}

Rcpp::List validation_to_r(const stats::ValidationResult& result) {
    return Rcpp::List::create(Rcpp::Named("method") = result.method,
                              Rcpp::Named("statistic") = result.statistic,
                              Rcpp::Named("critical_value") = result.critical_value,
                              Rcpp::Named("p_value") = result.p_value,
                              Rcpp::Named("reject") = result.reject, Rcpp::Named("m") = result.m,
                              Rcpp::Named("b") = result.b, Rcpp::Named("alpha") = result.alpha,
                              Rcpp::Named("null_distribution") = as_r(result.null_distribution),
                              Rcpp::Named("can_decide") = result.can_decide,
                              Rcpp::Named("cannot_decide_reason") =
                                  stats::cannot_decide_reason(result));
}

Rcpp::List separation_to_r(const stats::SeparationResult& result) {
    return Rcpp::List::create(
        Rcpp::Named("label") = result.label, Rcpp::Named("method") = result.method,
        Rcpp::Named("statistic") = result.statistic,
        Rcpp::Named("critical_value") = result.critical_value,
        Rcpp::Named("p_value") = result.p_value, Rcpp::Named("pass") = result.pass,
        Rcpp::Named("m_beta") = result.m_beta, Rcpp::Named("m_gamma") = result.m_gamma,
        Rcpp::Named("permutations") = result.permutations, Rcpp::Named("alpha") = result.alpha,
        Rcpp::Named("null_distribution") = as_r(result.null_distribution),
        Rcpp::Named("can_decide") = result.can_decide,
        Rcpp::Named("cannot_decide_reason") = stats::cannot_decide_reason(result));
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

Rcpp::List test_output_to_r(const stats::TestOutput& output) {
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
}


// --- The pipeline ----------------------------------------------------------------------------
namespace pipeline = llmv::pipeline;

template <typename T>
T list_get(const Rcpp::List& list, const char* name, T fallback) {
    if (!list.containsElementNamed(name)) return fallback;
    SEXP value = list[name];
    if (Rf_isNull(value)) return fallback;
    return Rcpp::as<T>(value);
}

// The configuration list built by R/llm_validate.R (names as in pipeline::ValidationConfig).
pipeline::ValidationConfig as_config(const Rcpp::List& list) {
    pipeline::ValidationConfig config;
    config.task_path = list_get<std::string>(list, "task_path", "");
    config.task_source = list_get<std::string>(list, "task_source", "");
    config.provider = list_get<std::string>(list, "provider", config.provider);
    config.model = list_get<std::string>(list, "model", "");
    config.base_url = list_get<std::string>(list, "base_url", "");
    config.api_key = list_get<std::string>(list, "api_key", "");
    config.embedding_provider = list_get<std::string>(list, "embedding_provider", "");
    config.embedding_model = list_get<std::string>(list, "embedding_model", "");
    config.embedding_base_url = list_get<std::string>(list, "embedding_base_url", "");
    config.m = list_get<int>(list, "m", config.m);
    config.n = list_get<int>(list, "n", config.n);
    config.annotation_repeats = list_get<int>(list, "repeats", config.annotation_repeats);
    config.tests.alpha = list_get<double>(list, "alpha", config.tests.alpha);
    config.tests.threshold = list_get<double>(list, "threshold", config.tests.threshold);
    config.tests.validation_method =
        list_get<std::string>(list, "validation_method", config.tests.validation_method);
    config.tests.separation_method =
        list_get<std::string>(list, "separation_method", config.tests.separation_method);
    config.tests.backtranslation_rule =
        list_get<std::string>(list, "backtranslation_rule", config.tests.backtranslation_rule);
    config.tests.permutations = list_get<int>(list, "permutations", config.tests.permutations);
    config.tests.seed = static_cast<std::uint64_t>(
        list_get<double>(list, "seed", static_cast<double>(config.tests.seed)));
    config.cache_path = list_get<std::string>(list, "cache_path", "");
    config.concurrency = list_get<int>(list, "concurrency", config.concurrency);
    config.temperature = list_get<double>(list, "temperature", config.temperature);
    config.structured_output =
        list_get<std::string>(list, "structured_output", config.structured_output);
    // Settings R offers through `...`, set through the table (its units: timeout in seconds).
    for (const char* name : {"timeout", "drain"}) {
        if (list.containsElementNamed(name) && !Rf_isNull(list[name]))
            settings::setting(name).set(config, settings::Value{true, Rcpp::as<double>(list[name]), {}});
    }
    config.input_encoding = list_get<std::string>(list, "input_encoding", config.input_encoding);
    config.dry_run = list_get<bool>(list, "dry_run", false);
    config.price_table = list_get<std::string>(list, "price_table", "");
    config.max_transport_retries =
        list_get<int>(list, "max_retries", config.max_transport_retries);
    if (list.containsElementNamed("variables") && !Rf_isNull(list["variables"])) {
        const Rcpp::CharacterVector variables(list["variables"]);
        if (variables.size() > 0) {
            const auto names = as_strings(variables.names());
            for (R_xlen_t i = 0; i < variables.size(); ++i) {
                config.variables[names[i]] = Rcpp::as<std::string>(variables[i]);
            }
        }
    }
    if (list.containsElementNamed("options") && !Rf_isNull(list["options"])) {
        const Rcpp::List options(list["options"]);
        if (options.size() > 0) {
            const auto names = as_strings(options.names());
            for (R_xlen_t i = 0; i < options.size(); ++i) {
                config.provider_options[names[i]] = Rcpp::as<std::string>(options[i]);
            }
        }
    }
    if (list.containsElementNamed("simulated") && !Rf_isNull(list["simulated"])) {
        const Rcpp::List dgp(list["simulated"]);
        auto& sim = config.simulated;
        sim.follow_probability = list_get<double>(dgp, "follow_probability", sim.follow_probability);
        sim.label_signal = list_get<double>(dgp, "label_signal", sim.label_signal);
        sim.annotator_accuracy = list_get<double>(dgp, "annotator_accuracy", sim.annotator_accuracy);
        sim.unparseable_probability =
            list_get<double>(dgp, "unparseable_probability", sim.unparseable_probability);
        sim.words = list_get<int>(dgp, "words", sim.words);
        sim.seed = static_cast<std::uint64_t>(list_get<double>(dgp, "seed", 0));
    }
    return config;
}

Rcpp::NumericVector counts_to_r(const pipeline::CallCounts& calls) {
    Rcpp::NumericVector out = Rcpp::NumericVector::create(
        Rcpp::Named("chat_calls") = calls.chat_calls,
        Rcpp::Named("annotation_calls") = calls.annotation_calls,
        Rcpp::Named("simulation_calls") = calls.simulation_calls,
        Rcpp::Named("backtranslation_calls") = calls.backtranslation_calls,
        Rcpp::Named("embedding_requests") = calls.embedding_requests,
        Rcpp::Named("embedded_texts") = calls.embedded_texts,
        Rcpp::Named("cache_hits") = calls.cache_hits,
        Rcpp::Named("shared") = calls.shared,
        Rcpp::Named("parse_retries") = calls.parse_retries,
        Rcpp::Named("transport_retries") = calls.transport_retries,
        Rcpp::Named("input_tokens") = calls.input_tokens,
        Rcpp::Named("output_tokens") = calls.output_tokens);
    return out;
}

Rcpp::List passage_to_r(const pipeline::PassageResult& result) {
    return Rcpp::List::create(
        Rcpp::Named("id") = result.id, Rcpp::Named("ok") = result.ok,
        Rcpp::Named("error_code") = result.error_code,
        Rcpp::Named("error_message") = result.error_message,
        Rcpp::Named("label") = result.label,
        Rcpp::Named("annotations") = result.annotations,
        Rcpp::Named("labels") = result.label_set,
        Rcpp::Named("tests") = result.ok ? Rcpp::RObject(test_output_to_r(result.tests))
                                         : Rcpp::RObject(R_NilValue),
        Rcpp::Named("verdict") = result.verdict_name, Rcpp::Named("task") = result.task_name,
        Rcpp::Named("provider") = result.provider, Rcpp::Named("model") = result.model,
        Rcpp::Named("embedding_provider") = result.embedding_provider,
        Rcpp::Named("embedding_model") = result.embedding_model,
        Rcpp::Named("synthetic") = result.synthetic,
        Rcpp::Named("seed") = static_cast<double>(result.seed),
        Rcpp::Named("calls") = counts_to_r(result.calls));
}

Rcpp::CharacterVector named_strings(const std::map<std::string, std::string>& values) {
    Rcpp::CharacterVector out(values.size());
    Rcpp::CharacterVector names(values.size());
    R_xlen_t i = 0;
    for (const auto& [name, value] : values) {
        names[i] = name;
        out[i++] = value;
    }
    out.names() = names;
    return out;
}

// The task of a configuration: llm_task()'s TOML (task_source) or a file (task_path).
llmv::Task config_task(const pipeline::ValidationConfig& config) {
    return config.task_source.empty() ? llmv::load_task(config.task_path)
                                      : llmv::Task::from_string(config.task_source, "built by llm_task()");
}

// A named character vector as a map (NULL: empty).
std::map<std::string, std::string> as_string_map(SEXP x) {
    std::map<std::string, std::string> out;
    if (Rf_isNull(x) || Rf_length(x) == 0) return out;
    const Rcpp::CharacterVector values(x);
    const auto names = as_strings(values.names());
    for (R_xlen_t j = 0; j < values.size(); ++j) out[names[j]] = Rcpp::as<std::string>(values[j]);
    return out;
}

// An llm_task object's fields (R/task.R), from a checked task and its TOML text.
Rcpp::List task_to_r(const llmv::Task& task, const std::string& toml) {
    Rcpp::List label_instructions;
    for (const auto& [name, values] : task.label_variables()) label_instructions.push_back(named_strings(values), name);
    return Rcpp::List::create(
        Rcpp::Named("name") = task.name(), Rcpp::Named("title") = task.title(),
        Rcpp::Named("description") = task.description(), Rcpp::Named("source") = task.source(),
        Rcpp::Named("labels") = task.labels(),
        Rcpp::Named("annotation") = task.annotation_template(),
        Rcpp::Named("annotation_format") = task.annotation_answer_format(),
        Rcpp::Named("simulation") = task.simulation_template(),
        Rcpp::Named("simulation_format") = task.simulation_answer_format(),
        Rcpp::Named("label_case") = task.simulation_label_case(),
        Rcpp::Named("label_instructions") = label_instructions,
        Rcpp::Named("variables") = named_strings(task.default_variables()),
        Rcpp::Named("required") = task.required_variables(),
        Rcpp::Named("variable_descriptions") = named_strings(task.variable_descriptions()),
        Rcpp::Named("toml") = toml);
}

// Element i of a list of named character vectors (NULL elements: empty).
std::map<std::string, std::string> strings_at(const Rcpp::List& list, R_xlen_t i) {
    std::map<std::string, std::string> out;
    SEXP element = list[i];
    if (Rf_isNull(element) || Rf_length(element) == 0) return out;
    const Rcpp::CharacterVector values(element);
    const auto names = as_strings(values.names());
    for (R_xlen_t j = 0; j < values.size(); ++j) {
        out[names[j]] = Rcpp::as<std::string>(values[j]);
    }
    return out;
}

// R_CheckUserInterrupt() longjmps; run it under R_ToplevelExec so that it cannot jump
// through the engine's C++ frames: a FALSE return means an interrupt was pending.
void check_interrupt_body(void*) { R_CheckUserInterrupt(); }
bool interrupt_pending() { return R_ToplevelExec(check_interrupt_body, nullptr) == FALSE; }

// The passages of a run: text, ids and human labels (character vectors), and the optional
// list columns of per-passage simulation templates (by task name) and variables.
std::vector<pipeline::PassageInput> as_passages(const pipeline::ValidationConfig& config,
                                                SEXP text_, SEXP id_, SEXP human_label_,
                                                SEXP templates_, SEXP variables_) {
    const auto text = as_strings(Rcpp::CharacterVector(text_));
    const auto ids = as_strings(Rcpp::CharacterVector(id_));
    const auto human = as_strings(Rcpp::CharacterVector(human_label_));
    std::vector<pipeline::PassageInput> passages(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        passages[i].id = ids[i];
        passages[i].text = text[i];
        passages[i].human_label = human[i];
    }
    if (Rf_isNull(templates_) && Rf_isNull(variables_)) return passages;
    // Per-passage templates or variables: the engine keeps what the task uses.
    const llmv::Task task = config_task(config);
    for (std::size_t i = 0; i < passages.size(); ++i) {
        const auto index = static_cast<R_xlen_t>(i);
        llmv::TaskPassage passage;
        passage.id = passages[i].id;
        passage.text = passages[i].text;
        if (!Rf_isNull(templates_))
            passage.simulation_templates = strings_at(Rcpp::List(templates_), index);
        if (!Rf_isNull(variables_)) passage.variables = strings_at(Rcpp::List(variables_), index);
        const std::string human_label = passages[i].human_label;
        passages[i] = llmv::passage_input(task, passage);
        passages[i].human_label = human_label;
    }
    return passages;
}

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
    input.passage = as_vector(passage);
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
        return test_output_to_r(stats::run_tests(input));
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

// A passages file (prompts/passages/section4.toml): one list per field, one element a passage.
SEXP llmv_load_passages(SEXP path_) {
    BEGIN_RCPP
    const std::string path = Rcpp::as<std::string>(path_);
    return guarded([&]() -> Rcpp::RObject {
        const std::vector<llmv::TaskPassage> passages = llmv::load_passages(path);
        const R_xlen_t count = static_cast<R_xlen_t>(passages.size());
        Rcpp::CharacterVector id(count), title(count), source(count), text(count);
        Rcpp::List variables(count), simulation(count);
        for (R_xlen_t i = 0; i < count; ++i) {
            const llmv::TaskPassage& passage = passages[static_cast<std::size_t>(i)];
            id[i] = passage.id;
            title[i] = passage.title;
            source[i] = passage.source;
            text[i] = passage.text;
            variables[i] = named_strings(passage.variables);
            simulation[i] = named_strings(passage.simulation_templates);
        }
        return Rcpp::List::create(Rcpp::Named("id") = id, Rcpp::Named("title") = title,
                                  Rcpp::Named("source") = source, Rcpp::Named("text") = text,
                                  Rcpp::Named("variables") = variables,
                                  Rcpp::Named("simulation") = simulation);
    });
    END_RCPP
}

// A cost estimate (pricing.hpp): its lines as columns (R makes the tibble), the totals, the
// table's path and its note.
Rcpp::List cost_to_r(const llmv::CostEstimate& cost) {
    const R_xlen_t count = static_cast<R_xlen_t>(cost.lines.size());
    Rcpp::CharacterVector role(count), provider(count), model(count), checked(count);
    Rcpp::NumericVector input(count), cached(count), output(count), dollars(count), batch(count);
    Rcpp::LogicalVector priced(count), batch_available(count);
    for (R_xlen_t i = 0; i < count; ++i) {
        const llmv::CostLine& line = cost.lines[static_cast<std::size_t>(i)];
        role[i] = line.role;
        provider[i] = line.provider;
        model[i] = line.model;
        input[i] = static_cast<double>(line.input_tokens);
        cached[i] = static_cast<double>(line.cached_input_tokens);
        output[i] = static_cast<double>(line.output_tokens);
        priced[i] = line.priced;
        dollars[i] = line.priced ? line.dollars : NA_REAL;
        batch[i] = line.priced ? line.batch_dollars : NA_REAL;
        batch_available[i] = line.batch_available;
        checked[i] = line.checked;
    }
    return Rcpp::List::create(
        Rcpp::Named("lines") = Rcpp::List::create(
            Rcpp::Named("role") = role, Rcpp::Named("provider") = provider,
            Rcpp::Named("model") = model, Rcpp::Named("input_tokens") = input,
            Rcpp::Named("cached_input_tokens") = cached, Rcpp::Named("output_tokens") = output,
            Rcpp::Named("priced") = priced, Rcpp::Named("dollars") = dollars,
            Rcpp::Named("batch_dollars") = batch, Rcpp::Named("batch_available") = batch_available,
            Rcpp::Named("prices_checked") = checked),
        Rcpp::Named("dollars") = cost.dollars, Rcpp::Named("batch_dollars") = cost.batch_dollars,
        Rcpp::Named("complete") = cost.complete, Rcpp::Named("table") = cost.table,
        Rcpp::Named("note") = cost.note);
}

// config: list (as_config); text, id, human_label: character vectors; templates, variables:
// NULL or lists (one element a passage) of named character vectors: simulation templates by
// task name (the task's own is used, as `llmvalidate run --passages` does) and placeholder
// values (those the task accepts are used); progress: NULL or an R function(done, total)
// (called on the calling thread, errors ignored).
SEXP llmv_pipeline_run(SEXP config_, SEXP text_, SEXP id_, SEXP human_label_, SEXP templates_,
                       SEXP variables_, SEXP progress_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    return guarded([&]() -> Rcpp::RObject {
        const pipeline::ValidationConfig config = as_config(config_list);
        const std::vector<pipeline::PassageInput> passages =
            as_passages(config, text_, id_, human_label_, templates_, variables_);
        if (config.dry_run) {
            const pipeline::DryRunReport report = pipeline::dry_run(config, passages);
            return Rcpp::List::create(
                Rcpp::Named("passages") = static_cast<double>(report.passages),
                Rcpp::Named("providers") = report.providers,
                Rcpp::Named("calls") = counts_to_r(report.calls),
                Rcpp::Named("cached_calls") = static_cast<double>(report.cached_calls),
                Rcpp::Named("estimated_input_tokens") =
                    static_cast<double>(report.estimated_input_tokens),
                Rcpp::Named("estimated_output_tokens") =
                    static_cast<double>(report.estimated_output_tokens),
                Rcpp::Named("estimated_embedding_tokens") =
                    static_cast<double>(report.estimated_embedding_tokens),
                Rcpp::Named("cost") = cost_to_r(report.cost),
                Rcpp::Named("note") = report.note,
                Rcpp::Named("warnings") = Rcpp::wrap(report.warnings));
        }
        std::atomic<bool> cancel{false};
        pipeline::BatchCallbacks callbacks;
        callbacks.cancel = &cancel;
        const bool has_progress = !Rf_isNull(progress_);
        callbacks.on_progress = [&](const pipeline::Progress& progress) {
            if (interrupt_pending()) cancel = true;
            if (!has_progress || cancel) return;
            try {
                Rcpp::Function update(progress_);
                update(static_cast<double>(progress.calls_done),
                       static_cast<double>(progress.calls_total));
            } catch (const Rcpp::internal::InterruptedException&) {
                // Ctrl-C while the progress bar's R code ran: Rcpp caught the interrupt.
                cancel = true;
            } catch (...) {
                // A failing progress bar must not lose the run.
            }
        };
        pipeline::BatchResult batch;
        if (list_get<bool>(config_list, "batch_api", false)) {
            // Provider batches, one per phase; resumable from the cache (batch_run.cpp).
            pipeline::BatchApiOptions options;
            options.poll_interval_seconds = list_get<double>(config_list, "poll_interval", 30.0);
            options.on_status = [](const std::string& line) {
                Rcpp::Rcout << "Batch API: " << line << "\n";
            };
            batch = pipeline::validate_with_batch_api(config, passages, callbacks, options);
        } else {
            batch = pipeline::validate_batch(config, passages, callbacks);
        }
        Rcpp::List results(batch.passages.size());
        for (std::size_t i = 0; i < batch.passages.size(); ++i) {
            results[i] = passage_to_r(batch.passages[i]);
        }
        return Rcpp::List::create(Rcpp::Named("passages") = results,
                                  Rcpp::Named("calls") = counts_to_r(batch.calls),
                                  Rcpp::Named("cancelled") = batch.cancelled || cancel.load(),
                                  Rcpp::Named("synthetic") = batch.synthetic,
                                  Rcpp::Named("unwritten_file") = batch.unwritten_file,
                                  Rcpp::Named("unwritten_answers") =
                                      static_cast<double>(batch.unwritten_answers),
                                  Rcpp::Named("cost") = cost_to_r(batch.cost));
    });
    END_RCPP
}

// The audit trail of a run, read back from its cache (no call): arguments as for
// llmv_pipeline_run. Columns of the rows, and the passages the cache could not serve.
SEXP llmv_generations(SEXP config_, SEXP text_, SEXP id_, SEXP templates_, SEXP variables_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    return guarded([&]() -> Rcpp::RObject {
        const pipeline::ValidationConfig config = as_config(config_list);
        const Rcpp::CharacterVector no_human(Rf_length(text_));
        const std::vector<pipeline::PassageInput> passages =
            as_passages(config, text_, id_, no_human, templates_, variables_);
        const pipeline::Generations generations = pipeline::read_generations(config, passages);
        const std::size_t rows = generations.rows.size();
        Rcpp::CharacterVector id(rows), kind(rows), label(rows), text(rows), answer(rows),
            model(rows), prompt_hash(rows);
        Rcpp::IntegerVector draw(rows);
        for (std::size_t i = 0; i < rows; ++i) {
            const pipeline::GenerationRow& row = generations.rows[i];
            id[i] = row.passage_id;
            kind[i] = row.kind;
            label[i] = row.label.empty() ? Rcpp::String(NA_STRING) : Rcpp::String(row.label);
            draw[i] = row.draw + 1;
            text[i] = row.text;
            answer[i] = row.answer.empty() ? Rcpp::String(NA_STRING) : Rcpp::String(row.answer);
            model[i] = row.model;
            prompt_hash[i] = row.prompt_hash;
        }
        Rcpp::CharacterVector failed_id(generations.failed.size());
        Rcpp::CharacterVector failed_message(generations.failed.size());
        for (std::size_t i = 0; i < generations.failed.size(); ++i) {
            failed_id[i] = generations.failed[i].id;
            failed_message[i] = generations.failed[i].error_message;
        }
        return Rcpp::List::create(
            Rcpp::Named("rows") = Rcpp::List::create(
                Rcpp::Named("id") = id, Rcpp::Named("kind") = kind, Rcpp::Named("label") = label,
                Rcpp::Named("draw") = draw, Rcpp::Named("text") = text,
                Rcpp::Named("backtranslated") = answer, Rcpp::Named("model") = model,
                Rcpp::Named("prompt_hash") = prompt_hash),
            Rcpp::Named("failed_id") = failed_id, Rcpp::Named("failed_message") = failed_message,
            Rcpp::Named("synthetic") = generations.synthetic);
    });
    END_RCPP
}

// Power analysis with the simulated provider: config as for llmv_pipeline_run.
SEXP llmv_power(SEXP config_, SEXP true_label_, SEXP replications_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    const std::string true_label = Rcpp::as<std::string>(true_label_);
    const int replications = Rcpp::as<int>(replications_);
    return guarded([&]() -> Rcpp::RObject {
        pipeline::PowerConfig power;
        power.validation = as_config(config_list);
        power.true_label = true_label;
        power.replications = replications;
        std::atomic<bool> cancel{false};
        pipeline::BatchCallbacks callbacks;
        callbacks.cancel = &cancel;
        callbacks.on_progress = [&](const pipeline::Progress&) {
            if (interrupt_pending()) cancel = true;
        };
        const pipeline::PowerResult result = pipeline::estimate_power(power, callbacks);
        return Rcpp::List::create(
            Rcpp::Named("replications") = result.replications,
            Rcpp::Named("share_annotation_correct") = result.share_annotation_correct,
            Rcpp::Named("share_validation_not_rejected") = result.share_validation_not_rejected,
            Rcpp::Named("share_backtranslation_pass") = result.share_backtranslation_pass,
            Rcpp::Named("share_separation_all_pass") = result.share_separation_all_pass,
            Rcpp::Named("share_valid") = result.share_valid,
            Rcpp::Named("share_invalid") = result.share_invalid,
            Rcpp::Named("share_inconclusive") = result.share_inconclusive,
            Rcpp::Named("share_valid_given_correct") = result.share_valid_given_correct,
            Rcpp::Named("share_invalid_given_wrong") = result.share_invalid_given_wrong,
            Rcpp::Named("n_correct") = result.n_correct, Rcpp::Named("n_wrong") = result.n_wrong,
            Rcpp::Named("monte_carlo_se") = result.monte_carlo_se,
            Rcpp::Named("cancelled") = cancel.load());
    });
    END_RCPP
}

// The tests of a configuration that cannot decide at its α and size (pipeline::size_warnings).
SEXP llmv_size_warnings(SEXP config_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    return guarded([&]() -> Rcpp::RObject {
        return Rcpp::wrap(pipeline::size_warnings(as_config(config_list)));
    });
    END_RCPP
}

// The engine's provider resolution (auto, default models, each key to its own vendor) and
// the warning of a paid run without a cache: R applies them before any call.
SEXP llmv_resolve_providers(SEXP config_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    return guarded([&]() -> Rcpp::RObject {
        const pipeline::ValidationConfig config = as_config(config_list);
        pipeline::ResolvedProviders resolved;
        try {
            resolved = pipeline::resolve_providers(config);
        } catch (const llmv::Error& error) {
            throw pipeline::in_front_end_terms(error, settings::FrontEnd::r);  // R's arguments
        }
        return Rcpp::List::create(
            Rcpp::Named("provider") = resolved.chat_provider,
            Rcpp::Named("model") = resolved.chat_model,
            Rcpp::Named("base_url") = resolved.chat.base_url,
            Rcpp::Named("embedding_provider") = resolved.embedding_provider,
            Rcpp::Named("embedding_model") = resolved.embedding_model,
            Rcpp::Named("synthetic") = resolved.synthetic_chat,
            Rcpp::Named("description") = resolved.description(),
            Rcpp::Named("cache_warning") = pipeline::cache_warning(config));
    });
    END_RCPP
}

// The engine's table of provider defaults (resolution.hpp), one element per column.
SEXP llmv_provider_defaults() {
    BEGIN_RCPP
    return guarded([&]() -> Rcpp::RObject {
        std::vector<std::string> kind, provider, model, embedding_family, credential;
        for (const pipeline::ProviderDefaults& row : pipeline::provider_defaults()) {
            kind.push_back(row.kind);
            provider.push_back(row.provider);
            model.push_back(row.model);
            embedding_family.push_back(row.embedding_family);
            credential.push_back(row.credential);
        }
        return Rcpp::List::create(Rcpp::Named("kind") = kind, Rcpp::Named("provider") = provider,
                                  Rcpp::Named("model") = model,
                                  Rcpp::Named("embedding_provider") = embedding_family,
                                  Rcpp::Named("credential") = credential);
    });
    END_RCPP
}

// The engine's presets (settings.hpp): name -> named character vector of setting values.
SEXP llmv_presets() {
    BEGIN_RCPP
    return guarded([&]() -> Rcpp::RObject {
        Rcpp::List out;
        for (const settings::Preset& preset : settings::presets()) {
            Rcpp::CharacterVector values;
            std::vector<std::string> names;
            for (const auto& [name, value] : preset.values) {
                values.push_back(value);
                names.push_back(name);
            }
            values.attr("names") = names;
            out[preset.name] = values;
        }
        return out;
    });
    END_RCPP
}

// The engine's reproducible row sample (sample.hpp): 1-based positions, increasing.
SEXP llmv_sample_rows(SEXP population_, SEXP n_, SEXP seed_) {
    BEGIN_RCPP
    const double population = Rcpp::as<double>(population_);
    const double n = Rcpp::as<double>(n_);
    const double seed = Rcpp::as<double>(seed_);
    return guarded([&]() -> Rcpp::RObject {
        const auto rows = llmv::sample_rows(static_cast<std::size_t>(population),
                                            static_cast<std::size_t>(n),
                                            static_cast<std::uint64_t>(seed), "n");
        Rcpp::NumericVector out(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) out[i] = static_cast<double>(rows[i] + 1);
        return out;
    });
    END_RCPP
}

// Adds a side file's answers (BatchResult::unwritten_file) to a cache; returns how many.
SEXP llmv_cache_import(SEXP cache_, SEXP side_file_) {
    BEGIN_RCPP
    const std::string cache_path = Rcpp::as<std::string>(cache_);
    const std::string side_file = Rcpp::as<std::string>(side_file_);
    return guarded([&]() -> Rcpp::RObject {
        pipeline::prepare_cache_directory(cache_path);
        llmv::Cache cache(cache_path);
        return Rcpp::wrap(static_cast<double>(cache.import_side_file(side_file)));
    });
    END_RCPP
}

SEXP llmv_default_cache_path() {
    BEGIN_RCPP
    return guarded([&]() -> Rcpp::RObject { return Rcpp::wrap(pipeline::default_cache_path()); });
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

// The settings table (llmvalidate/settings.hpp), one element per column, for R's argument
// checks and the parity test against formals().
SEXP llmv_settings() {
    BEGIN_RCPP
    return guarded([&]() -> Rcpp::RObject {
        std::vector<std::string> name, cli, r, stata, kind, default_value, choices, allowed, doc, group;
        std::vector<double> low, high;
        std::vector<int> low_open, high_open, optional, statistics;
        const char* kinds[] = {"integer", "number", "choice", "seed", "flag"};
        for (const settings::Setting& setting : settings::table()) {
            name.push_back(setting.name);
            cli.push_back(setting.cli);
            r.push_back(setting.r);
            stata.push_back(setting.stata);
            kind.push_back(kinds[static_cast<int>(setting.kind)]);
            default_value.push_back(settings::default_text(setting));
            std::string joined;
            for (const std::string& choice : setting.choices) joined += (joined.empty() ? "" : ",") + choice;
            choices.push_back(joined);
            allowed.push_back(settings::allowed(setting));
            doc.push_back(setting.doc);
            low.push_back(setting.low);
            high.push_back(setting.high);
            low_open.push_back(setting.low_open);
            high_open.push_back(setting.high_open);
            optional.push_back(setting.optional);
            statistics.push_back(setting.statistics);
            group.push_back(setting.group == settings::Group::simulated ? "simulated" : "validation");
        }
        return Rcpp::List::create(
            Rcpp::Named("name") = name, Rcpp::Named("cli") = cli, Rcpp::Named("r") = r,
            Rcpp::Named("stata") = stata, Rcpp::Named("kind") = kind,
            Rcpp::Named("default") = default_value, Rcpp::Named("low") = low,
            Rcpp::Named("high") = high, Rcpp::Named("low_open") = Rcpp::LogicalVector(low_open.begin(), low_open.end()),
            Rcpp::Named("high_open") = Rcpp::LogicalVector(high_open.begin(), high_open.end()),
            Rcpp::Named("optional") = Rcpp::LogicalVector(optional.begin(), optional.end()),
            Rcpp::Named("statistics") = Rcpp::LogicalVector(statistics.begin(), statistics.end()),
            Rcpp::Named("choices") = choices, Rcpp::Named("allowed") = allowed,
            Rcpp::Named("doc") = doc, Rcpp::Named("group") = group);
    });
    END_RCPP
}

// The category of an engine error code (llmv::error_category): R's condition class.
SEXP llmv_error_category(SEXP code_) {
    BEGIN_RCPP
    const std::string error_code = Rcpp::as<std::string>(code_);
    return Rcpp::wrap(std::string(llmv::category_name(llmv::error_category(error_code))));
    END_RCPP
}

// llm_task(): the parts (names as in R), checked by the engine's task parser; an error names
// the R argument of the field at fault.
SEXP llmv_task_build(SEXP parts_) {
    BEGIN_RCPP
    const Rcpp::List parts(parts_);
    return guarded([&]() -> Rcpp::RObject {
        llmv::TaskSpec spec;
        // Absent and NULL parts alike are unset.
        const auto part = [&](const char* name) -> SEXP {
            return parts.containsElementNamed(name) ? SEXP(parts[name]) : R_NilValue;
        };
        spec.name = list_get<std::string>(parts, "name", "custom");
        spec.title = list_get<std::string>(parts, "title", "");
        spec.description = list_get<std::string>(parts, "description", "");
        spec.source = list_get<std::string>(parts, "source", "");
        if (!Rf_isNull(part("labels"))) spec.labels = as_strings(Rcpp::CharacterVector(part("labels")));
        spec.annotation = list_get<std::string>(parts, "annotation", "");
        spec.simulation = list_get<std::string>(parts, "simulation", "");
        if (!Rf_isNull(part("annotation_format")))
            spec.annotation_format = Rcpp::as<std::string>(part("annotation_format"));
        if (!Rf_isNull(part("simulation_format")))
            spec.simulation_format = Rcpp::as<std::string>(part("simulation_format"));
        spec.label_case = list_get<std::string>(parts, "label_case", "");
        spec.variables = as_string_map(part("variables"));
        spec.variable_descriptions = as_string_map(part("variable_descriptions"));
        if (Rf_length(part("required")) > 0)
            spec.required_variables = as_strings(Rcpp::CharacterVector(part("required")));
        if (Rf_length(part("label_instructions")) > 0) {
            const Rcpp::List per_label(part("label_instructions"));
            const auto names = as_strings(per_label.names());
            for (R_xlen_t i = 0; i < per_label.size(); ++i) spec.label_variables[names[i]] = as_string_map(per_label[i]);
        }
        const std::map<std::string, std::string> argument_names = {
            {"name", "`name`"}, {"labels", "`labels`"},
            {"annotation.template", "`annotation`"}, {"annotation.answer_format", "`annotation_format`"},
            {"simulation.template", "`simulation`"}, {"simulation.answer_format", "`simulation_format`"},
            {"simulation.label_case", "`label_case`"}, {"label_variables", "`label_instructions`"},
            {"variables", "`variables`"}, {"required_variables", "`required`"},
            {"variable_descriptions", "`variable_descriptions`"},
        };
        try {
            const llmv::Task task = llmv::task_from_spec(spec, "built by llm_task()", argument_names);
            return task_to_r(task, llmv::task_toml(spec));
        } catch (const llmv::Error& error) {
            // The task file's advice, in llm_task()'s terms.
            std::string message = error.what();
            const std::string file_terms = "declare it under [variables] with a default or in required_variables";
            const auto at = message.find(file_terms);
            if (at != std::string::npos)
                message.replace(at, file_terms.size(), "declare it in `variables` (with a default) or in `required`");
            throw llmv::Error(error.code(), message);
        }
    });
    END_RCPP
}

// A shipped task (name or alias, in `prompts_dir`) or a task file, with its TOML text.
SEXP llmv_task_read(SEXP name_, SEXP prompts_dir_) {
    BEGIN_RCPP
    const std::string name = Rcpp::as<std::string>(name_);
    const std::string prompts_dir = Rcpp::as<std::string>(prompts_dir_);
    return guarded([&]() -> Rcpp::RObject {
        const bool is_path = name.find('/') != std::string::npos ||
                             (name.size() > 5 && name.compare(name.size() - 5, 5, ".toml") == 0);
        const std::string path = is_path ? name : llmv::shipped_task_file(name, prompts_dir);
        std::ifstream in(path, std::ios::binary);
        if (!in) llmv::throw_invalid(llmv::code::task_invalid, "task", "\"" + name + "\"", "a task file that exists");
        const std::string toml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        Rcpp::List out = task_to_r(llmv::Task::from_string(toml, path), toml);
        out["file"] = path;
        return out;
    });
    END_RCPP
}

// Every variable the task requires has a value in config$variables (the engine's message).
SEXP llmv_task_check_variables(SEXP config_) {
    BEGIN_RCPP
    const Rcpp::List list(config_);
    return guarded([&]() -> Rcpp::RObject {
        const pipeline::ValidationConfig config = as_config(list);
        const llmv::Task task = config_task(config);
        task.render_annotation("", config.variables);  // throws when a required one is missing
        return R_NilValue;
    });
    END_RCPP
}

// "clarity, detailed_sentiment (or sentiment5), ...": the shipped tasks for messages.
SEXP llmv_describe_tasks(SEXP prompts_dir_) {
    BEGIN_RCPP
    const std::string prompts_dir = Rcpp::as<std::string>(prompts_dir_);
    return guarded([&]() -> Rcpp::RObject { return Rcpp::wrap(llmv::describe_tasks(prompts_dir)); });
    END_RCPP
}

// A shipped task's file from its canonical name or an alias, in `prompts_dir`.
SEXP llmv_task_file(SEXP name_, SEXP prompts_dir_) {
    BEGIN_RCPP
    const std::string name = Rcpp::as<std::string>(name_);
    const std::string prompts_dir = Rcpp::as<std::string>(prompts_dir_);
    return guarded([&]() -> Rcpp::RObject {
        const std::string path = prompts_dir + "/" + llmv::canonical_task_name(name) + ".toml";
        if (name.find('/') != std::string::npos || !std::ifstream(path).good())
            llmv::throw_invalid(llmv::code::task_invalid, "task", "\"" + name + "\"",
                                "a task file that exists or a shipped task: " +
                                    llmv::describe_tasks(prompts_dir));
        return Rcpp::wrap(path);
    });
    END_RCPP
}

static const R_CallMethodDef call_methods[] = {
    {"llmv_settings", reinterpret_cast<DL_FUNC>(&llmv_settings), 0},
    {"llmv_error_category", reinterpret_cast<DL_FUNC>(&llmv_error_category), 1},
    {"llmv_task_file", reinterpret_cast<DL_FUNC>(&llmv_task_file), 2},
    {"llmv_task_build", reinterpret_cast<DL_FUNC>(&llmv_task_build), 1},
    {"llmv_describe_tasks", reinterpret_cast<DL_FUNC>(&llmv_describe_tasks), 1},
    {"llmv_task_read", reinterpret_cast<DL_FUNC>(&llmv_task_read), 2},
    {"llmv_task_check_variables", reinterpret_cast<DL_FUNC>(&llmv_task_check_variables), 1},
    {"llmv_validation_test", reinterpret_cast<DL_FUNC>(&llmv_validation_test), 5},
    {"llmv_separation_test", reinterpret_cast<DL_FUNC>(&llmv_separation_test), 7},
    {"llmv_backtranslation_test", reinterpret_cast<DL_FUNC>(&llmv_backtranslation_test), 6},
    {"llmv_run_tests", reinterpret_cast<DL_FUNC>(&llmv_run_tests), 13},
    {"llmv_summarize_passages", reinterpret_cast<DL_FUNC>(&llmv_summarize_passages), 4},
    {"llmv_benjamini_hochberg", reinterpret_cast<DL_FUNC>(&llmv_benjamini_hochberg), 1},
    {"llmv_pipeline_run", reinterpret_cast<DL_FUNC>(&llmv_pipeline_run), 7},
    {"llmv_generations", reinterpret_cast<DL_FUNC>(&llmv_generations), 5},
    {"llmv_load_passages", reinterpret_cast<DL_FUNC>(&llmv_load_passages), 1},
    {"llmv_power", reinterpret_cast<DL_FUNC>(&llmv_power), 3},
    {"llmv_size_warnings", reinterpret_cast<DL_FUNC>(&llmv_size_warnings), 1},
    {"llmv_resolve_providers", reinterpret_cast<DL_FUNC>(&llmv_resolve_providers), 1},
    {"llmv_default_cache_path", reinterpret_cast<DL_FUNC>(&llmv_default_cache_path), 0},
    {"llmv_provider_defaults", reinterpret_cast<DL_FUNC>(&llmv_provider_defaults), 0},
    {"llmv_presets", reinterpret_cast<DL_FUNC>(&llmv_presets), 0},
    {"llmv_sample_rows", reinterpret_cast<DL_FUNC>(&llmv_sample_rows), 3},
    {"llmv_cache_import", reinterpret_cast<DL_FUNC>(&llmv_cache_import), 2},
    {"llmv_normalize_labels", reinterpret_cast<DL_FUNC>(&llmv_normalize_labels), 1},
    {nullptr, nullptr, 0}};

void R_init_llmvalidate(DllInfo* dll) {
    R_registerRoutines(dll, nullptr, call_methods, nullptr, nullptr);
    R_useDynamicSymbols(dll, FALSE);
}

}  // extern "C"
