// The R binding of the engine: one thin function per entry point, doing conversions only.
// Values are checked by the engine (and argument types by the R wrappers). No C++ exception
// crosses into R: llmv::Error comes back as a value of class "llmvalidate_engine_error"
// carrying the engine's stable code, which R turns into a classed condition (R/errors.R);
// anything else is caught by BEGIN_RCPP/END_RCPP.
//
// Registration is written by hand rather than by Rcpp::compileAttributes(), whose
// RcppExports.cpp would include RcppEigen.h (LinkingTo) and with it RcppEigen's own Eigen
// glue, which does not build against the system Eigen 3.4 that configure may select.
//
// The conversions between R values and the engine's, shared by the files of the glue, and
// guarded(), which turns an engine error into a value R reads.
#pragma once

#include <Rcpp.h>
#include <Rinternals.h>

#include <Eigen/Dense>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/stats.hpp"
#include "llmvalidate/task.hpp"

namespace glue {

namespace stats = llmv::stats;
namespace settings = llmv::settings;
namespace pipeline = llmv::pipeline;
using MatrixMap = Eigen::Map<const Eigen::MatrixXd>;

MatrixMap as_matrix(const Rcpp::NumericMatrix& x);
Eigen::Map<const Eigen::VectorXd> as_vector(const Rcpp::NumericVector& x);
// The reference texts of a paper method; any other method reads none (R passes NULL).
MatrixMap as_reference(SEXP reference, bool read);
Rcpp::NumericVector as_r(const Eigen::VectorXd& x);
// R passes seeds as doubles holding whole numbers in [0, 2^53] (checked in R).
std::uint64_t as_seed(double seed);
std::vector<std::string> as_strings(const Rcpp::CharacterVector& x);
std::map<std::string, Eigen::MatrixXd> as_matrices(const Rcpp::List& list);

// An engine error as the value R reads (class "llmvalidate_engine_error"; R/errors.R): its
// message in R's terms (the settings table's R spellings), and what it carries: the setting
// (the engine's name and R's), the value received and what is allowed, for the condition.
Rcpp::RObject engine_error(const llmv::Error& error);
Rcpp::RObject engine_error(const std::string& code, const std::string& message);

template <typename Body>
Rcpp::RObject guarded(Body body) {
    try {
        return body();
    } catch (const llmv::Error& error) {
        return engine_error(error);
    } catch (const std::exception& error) {
        return engine_error(llmv::code::internal, error.what());
    }
}

// The settings table's check of one number, with R's spelling of its name.
void check_r_setting(const std::string& name, double value);

// Settings by engine name from an R list (numbers, logicals, strings), each checked by the
// settings table (its messages name R's spelling) and set in `holder` (stats::TestOptions,
// pipeline::ValidationConfig) through it: a setting added to the table needs no line here.
template <typename Holder>
void set_settings(Holder& holder, const Rcpp::List& given) {
    if (given.size() == 0) return;
    const std::vector<std::string> names = Rcpp::as<std::vector<std::string>>(given.names());
    for (R_xlen_t i = 0; i < given.size(); ++i) {
        const settings::Setting& setting = settings::setting(names[static_cast<std::size_t>(i)]);
        settings::Value value;
        if (setting.kind == settings::Kind::choice || setting.kind == settings::Kind::seed ||
            setting.kind == settings::Kind::text)
            value.text = Rcpp::as<std::string>(given[i]);
        else
            value.number = Rcpp::as<double>(given[i]);
        settings::check_value(setting, value, settings::FrontEnd::r);
        settings::set(holder, setting, value);
    }
}

template <typename T>
T list_get(const Rcpp::List& list, const char* name, T fallback) {
    if (!list.containsElementNamed(name)) return fallback;
    SEXP value = list[name];
    if (Rf_isNull(value)) return fallback;
    return Rcpp::as<T>(value);
}

// The configuration list built by R/llm_validate.R (names as in pipeline::ValidationConfig).
pipeline::ValidationConfig as_config(const Rcpp::List& list);

Rcpp::CharacterVector named_strings(const std::map<std::string, std::string>& values);
// A named character vector as a map (NULL: empty).
std::map<std::string, std::string> as_string_map(SEXP x);
// Element i of a list of named character vectors (NULL elements: empty).
std::map<std::string, std::string> strings_at(const Rcpp::List& list, R_xlen_t i);

// Whether R has an interrupt (Ctrl-C) pending; never jumps.
bool interrupt_pending();

// The passages of a run: text, ids and human labels (character vectors), and the optional
// list columns of per-passage simulation templates (by task name) and variables.
std::vector<pipeline::PassageInput> as_passages(const pipeline::ValidationConfig& config,
                                                SEXP text_, SEXP id_, SEXP human_label_,
                                                SEXP templates_, SEXP variables_);

}  // namespace glue
