// Turns the test outputs of one or many passages into the stored results of `llmvalidate`
// (r() scalars, macros, matrices and the generate() variables). Shared by `test` and
// `validate`, so both return the same names with the same meaning.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "llmvalidate/stats.hpp"
#include "record_stata.hpp"
#include "results.hpp"

namespace llmv::stata {

// One passage: `output` is null when it could not be validated (`error` says why); its
// results are then missing.
struct Outcome {
    int obs = 0;
    std::string label;  // β̂
    const stats::TestOutput* output = nullptr;
    std::string error;
};

// A row of a matrix whose rows are records (r(separation), r(backtranslation), r(table9)): the
// record's numbers with a Stata name, under the row name `row_name`; the columns are their names.
template <class Record>
void append_record_row(ResultMatrix& matrix, const std::string& row_name, const Record& record) {
    records::StataRow row = records::stata_row(record);
    matrix.col_names = std::move(row.names);
    matrix.cols = static_cast<int>(matrix.col_names.size());
    matrix.row_names.push_back(row_name);
    matrix.rows = static_cast<int>(matrix.row_names.size());
    matrix.values.insert(matrix.values.end(), row.values.begin(), row.values.end());
}

// The per-passage results (r(results), a single passage's r(), the generate() variables) come
// from each passage's record (records::PassageBrief in llmvalidate/records.hpp); the verdict
// codes are records::stata_verdict_code()'s.
void fill_results(Results& results, const std::vector<Outcome>& outcomes,
                  const stats::TestOptions& options, const std::vector<std::string>& labels,
                  bool generate, bool label_variable);

}  // namespace llmv::stata
