// The response cache from R: its default path, the import of a side file of answers, and the
// merge of other caches (a sharded job's).
#include "glue_calls.hpp"

#include <string>

#include "glue_convert.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/cache_merge.hpp"
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

// Adds every answer of the cache files `from` to `cache`, in order; a data frame of the counts
// (llmvalidate/cache_merge.hpp), a row per file.
SEXP llmv_cache_merge(SEXP cache_, SEXP from_) {
    BEGIN_RCPP
    const std::string cache_path = Rcpp::as<std::string>(cache_);
    const std::vector<std::string> from = Rcpp::as<std::vector<std::string>>(from_);
    return guarded([&]() -> Rcpp::RObject {
        pipeline::prepare_cache_directory(cache_path);
        llmv::Cache cache(cache_path);
        std::vector<std::string> files;
        std::vector<double> answers, added, same, conflicts;
        for (const std::string& file : from) {
            const llmv::CacheMergeReport report = llmv::merge_cache(cache, file, "from");
            files.push_back(report.from);
            answers.push_back(static_cast<double>(report.answers));
            added.push_back(static_cast<double>(report.added));
            same.push_back(static_cast<double>(report.same));
            conflicts.push_back(static_cast<double>(report.conflicts));
        }
        return Rcpp::DataFrame::create(
            Rcpp::Named("from") = files, Rcpp::Named("answers") = answers,
            Rcpp::Named("added") = added, Rcpp::Named("same") = same,
            Rcpp::Named("conflicts") = conflicts, Rcpp::Named("stringsAsFactors") = false);
    });
    END_RCPP
}

SEXP llmv_default_cache_path() {
    BEGIN_RCPP
    return guarded([&]() -> Rcpp::RObject { return Rcpp::wrap(pipeline::default_cache_path()); });
    END_RCPP
}

}  // extern "C"
