// A test-only record for rpkg/tests/testthat/test-records.R: a result with one field of each
// kind and one more, `added`, as a new output field would be, through the R writer of the
// records (record_r.hpp), as tests/pipeline/test_records.cpp sends the same probe through the
// JSON, CSV and Stata writers.
#include <Rcpp.h>

#include <string>
#include <vector>

#include "llmvalidate/record_probe.hpp"
#include "record_r.hpp"

using llmv::records::probe::ProbeResult;
using llmv::records::probe::ProbeRow;
using llmv::records::probe::ProbeTable;

extern "C" SEXP llmv_record_probe() {
    BEGIN_RCPP
    return llmv::records::to_r(ProbeResult{});
    END_RCPP
}

// A failed passage through the record passage_to_r() writes (glue_results.cpp).
extern "C" SEXP llmv_record_probe_passage() {
    BEGIN_RCPP
    llmv::pipeline::PassageResult failed;
    failed.id = "p1";
    failed.error_code = "llmv.input.invalid_argument";
    failed.error_message = "only white space";
    failed.verdict_name = "error";
    return llmv::records::to_r(failed);
    END_RCPP
}

// The probe table with `rows` rows (labels "", "b", ...), written as columns.
extern "C" SEXP llmv_record_probe_table(SEXP rows) {
    BEGIN_RCPP
    ProbeTable table;
    for (int i = 0; i < Rcpp::as<int>(rows); ++i) {
        ProbeRow row;
        row.label = i == 0 ? "" : std::string(1, static_cast<char>('a' + i));
        row.n = i;
        table.rows.push_back(row);
    }
    return llmv::records::to_r(table);
    END_RCPP
}
