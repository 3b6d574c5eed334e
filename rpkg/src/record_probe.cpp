// A test-only record for rpkg/tests/testthat/test-records.R: a result with one field of each
// kind and one more, `added`, as a new output field would be, through the R writer of the
// records (record_r.hpp), as tests/pipeline/test_records.cpp sends the same probe through the
// JSON, CSV and Stata writers.
#include <Rcpp.h>

#include <string>

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

}  // namespace

extern "C" SEXP llmv_record_probe() {
    BEGIN_RCPP
    return llmv::records::to_r(ProbeResult{});
    END_RCPP
}
