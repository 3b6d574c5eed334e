// Probe records for the writers' tests (tests/pipeline/test_records.cpp through the JSON, CSV and
// Stata writers, rpkg/tests/testthat/test-records.R through the R writer via
// rpkg/src/record_probe.cpp): one field of each kind, and one more, `added`, as a new output
// field would be. Declared once so that both sides test the same record.
#pragma once

#include <string>
#include <vector>

#include "llmvalidate/records.hpp"

namespace llmv::records::probe {

// A result with one field of each kind, and `added`.
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

// A table's row, as Table 9's: a field R has and the JSON not (`label`), one the other way
// round (`row_name`), and `added`.
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

}  // namespace llmv::records::probe
