// A test-only record for rpkg/tests/testthat/test-records.R: a result with one field of each
// kind and one more, `added`, as a new output field would be, through the R writer of the
// records (record_r.hpp), as tests/pipeline/test_records.cpp sends the same probe through the
// JSON, CSV and Stata writers.
#include <Rcpp.h>

#include <string>
#include <vector>

#include "record_r.hpp"

namespace {

using llmv::records::Field;
using llmv::records::Maybe;

struct ProbeResult {
    double statistic = 0.25;
    int m = 7;
    bool pass = true;
    std::string method = "exact";
    double accuracy = 0.5;
    bool run = false;
    double added = 1.5;
};

template <class Visitor>
void visit(const ProbeResult& x, Visitor& v) {
    v(Field{"statistic", "stat"}, x.statistic);
    v(Field{"m", "M"}, x.m);
    v(Field{"pass", "pass"}, x.pass);
    v(Field{"method"}, x.method);
    v(Field{"accuracy", "accuracy"}, Maybe<double>{x.accuracy, x.run});
    v(Field{"added", "added"}, x.added);
}

// A table's row, as Table 9's: a field R has and the JSON not, one the other way round, and
// `added`; tests/pipeline/test_records.cpp has the same.
struct ProbeRow {
    std::string label = "a";
    int n = 2;
    double share = 0.5;
    bool pass = true;
    double added = 1.5;
};

template <class Visitor>
void visit(const ProbeRow& x, Visitor& v) {
    v(llmv::records::r_only("label"), x.label);
    v(llmv::records::json_only("row_name"), x.label.empty() ? std::string("All") : x.label);
    v(Field{"n", "n"}, x.n);
    v(Field{"share", "share"}, x.share);
    v(Field{"pass"}, x.pass);
    v(Field{"added", "added"}, x.added);
}

struct ProbeTable {
    std::vector<ProbeRow> rows;
};

template <class Visitor>
void visit(const ProbeTable& x, Visitor& v) {
    v(Field{"rows"}, llmv::records::Table<ProbeRow>{x.rows});
}

}  // namespace

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
