#include "glue_convert.hpp"

#include <R_ext/Utils.h>

namespace glue {

MatrixMap as_matrix(const Rcpp::NumericMatrix& x) {
    return MatrixMap(x.begin(), x.nrow(), x.ncol());
}

Eigen::Map<const Eigen::VectorXd> as_vector(const Rcpp::NumericVector& x) {
    return Eigen::Map<const Eigen::VectorXd>(x.begin(), x.size());
}

MatrixMap as_reference(SEXP reference, bool read) {
    if (!read) return MatrixMap(nullptr, 0, 0);
    return as_matrix(Rcpp::NumericMatrix(reference));
}

Rcpp::NumericVector as_r(const Eigen::VectorXd& x) {
    return Rcpp::NumericVector(x.data(), x.data() + x.size());
}

std::uint64_t as_seed(double seed) { return static_cast<std::uint64_t>(seed); }

std::vector<std::string> as_strings(const Rcpp::CharacterVector& x) {
    return Rcpp::as<std::vector<std::string>>(x);
}

Rcpp::RObject engine_error(const std::string& code, const std::string& message) {
    return engine_error(llmv::Error(code, message));
}

Rcpp::RObject engine_error(const llmv::Error& error) {
    const llmv::ErrorSubject& subject = error.subject();
    const std::string argument =
        error.has_subject() ? settings::spelling_of(subject, settings::FrontEnd::r) : "";
    Rcpp::List value = Rcpp::List::create(
        Rcpp::Named("code") = error.code(),
        Rcpp::Named("message") = settings::message(error, settings::FrontEnd::r),
        Rcpp::Named("setting") = subject.setting, Rcpp::Named("argument") = argument,
        Rcpp::Named("received") = subject.received, Rcpp::Named("allowed") = subject.allowed);
    value.attr("class") = "llmvalidate_engine_error";
    return value;
}

void check_r_setting(const std::string& name, double value) {
    const settings::Setting& setting = settings::setting(name);
    settings::check_value(setting, settings::Value{true, value, {}}, settings::FrontEnd::r);
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

pipeline::ValidationConfig as_config(const Rcpp::List& list) {
    pipeline::ValidationConfig config;
    config.messages_for = settings::FrontEnd::r;
    config.task_path = list_get<std::string>(list, "task_path", "");
    config.task_source = list_get<std::string>(list, "task_source", "");
    config.provider = list_get<std::string>(list, "provider", config.provider);
    config.model = list_get<std::string>(list, "model", "");
    config.base_url = list_get<std::string>(list, "base_url", "");
    config.api_key = list_get<std::string>(list, "api_key", "");
    config.embedding_provider = list_get<std::string>(list, "embedding_provider", "");
    config.embedding_model = list_get<std::string>(list, "embedding_model", "");
    config.embedding_base_url = list_get<std::string>(list, "embedding_base_url", "");
    config.embedding_api_key = list_get<std::string>(list, "embedding_api_key", "");
    config.m = list_get<int>(list, "m", config.m);
    config.n = list_get<int>(list, "n", config.n);
    config.tests.alpha = list_get<double>(list, "alpha", config.tests.alpha);
    config.tests.threshold = list_get<double>(list, "threshold", config.tests.threshold);
    config.tests.validation_method =
        list_get<std::string>(list, "validation_method", config.tests.validation_method);
    config.tests.separation_method =
        list_get<std::string>(list, "separation_method", config.tests.separation_method);
    config.tests.backtranslation_rule =
        list_get<std::string>(list, "backtranslation_rule", config.tests.backtranslation_rule);
    config.tests.seed = static_cast<std::uint64_t>(
        list_get<double>(list, "seed", static_cast<double>(config.tests.seed)));
    config.cache_path = list_get<std::string>(list, "cache_path", "");
    config.concurrency = list_get<int>(list, "concurrency", config.concurrency);
    // The route (pipeline::run reads these three).
    config.dry_run = list_get<bool>(list, "dry_run", false);
    config.batch_api = list_get<bool>(list, "batch_api", false);
    config.wait = list_get<bool>(list, "wait", true);
    config.price_table = list_get<std::string>(list, "price_table", "");
    // The table settings R takes through `...` (R checked them against the table), by the
    // engine's name: set through the table, so that a new setting needs no line here.
    if (list.containsElementNamed("settings") && !Rf_isNull(list["settings"]))
        set_settings(config, Rcpp::List(list["settings"]));
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
        sim.follow_probability =
            list_get<double>(dgp, "follow_probability", sim.follow_probability);
        sim.label_signal = list_get<double>(dgp, "label_signal", sim.label_signal);
        sim.annotator_accuracy =
            list_get<double>(dgp, "annotator_accuracy", sim.annotator_accuracy);
        sim.unparseable_probability =
            list_get<double>(dgp, "unparseable_probability", sim.unparseable_probability);
        sim.words = list_get<int>(dgp, "words", sim.words);
        sim.seed = static_cast<std::uint64_t>(list_get<double>(dgp, "seed", 0));
    }
    return config;
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

std::map<std::string, std::string> as_string_map(SEXP x) {
    std::map<std::string, std::string> out;
    if (Rf_isNull(x) || Rf_length(x) == 0) return out;
    const Rcpp::CharacterVector values(x);
    const auto names = as_strings(values.names());
    for (R_xlen_t j = 0; j < values.size(); ++j) out[names[j]] = Rcpp::as<std::string>(values[j]);
    return out;
}

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

namespace {
// R_CheckUserInterrupt() longjmps; run it under R_ToplevelExec so that it cannot jump
// through the engine's C++ frames: a FALSE return means an interrupt was pending.
void check_interrupt_body(void*) { R_CheckUserInterrupt(); }
}  // namespace

bool interrupt_pending() { return R_ToplevelExec(check_interrupt_body, nullptr) == FALSE; }

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
    std::vector<llmv::TaskPassage> own(passages.size());
    for (std::size_t i = 0; i < passages.size(); ++i) {
        const auto index = static_cast<R_xlen_t>(i);
        own[i].id = passages[i].id;
        own[i].text = passages[i].text;
        if (!Rf_isNull(templates_))
            own[i].simulation_templates = strings_at(Rcpp::List(templates_), index);
        if (!Rf_isNull(variables_)) own[i].variables = strings_at(Rcpp::List(variables_), index);
    }
    std::vector<pipeline::PassageInput> inputs =
        llmv::passage_inputs(config, own, "built by llm_task()");
    for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i].human_label = passages[i].human_label;
    return inputs;
}

}  // namespace glue
