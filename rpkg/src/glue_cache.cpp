// The response cache from R: its default path, and the import of a side file of answers.
#include "glue_calls.hpp"

#include <string>

#include "glue_convert.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/resolution.hpp"

using namespace glue;

extern "C" {

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

}  // extern "C"
