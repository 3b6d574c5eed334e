// What `llmvalidate varname` stores besides the per-passage results (validate_outputs.hpp):
// the generations of saving() and the paper's Section 5 summary, as the engine's summarize()
// computes it for the CLI and R.
#include "validate_outputs.hpp"

#include <cstddef>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "return_codes.hpp"
#include "stata_api.hpp"
#include "test_results.hpp"

namespace llmv::stata {

// saving(): every annotation and generated text of the run, as CSV for the ado-file to import.
void write_generations(const std::string& path, const pipeline::BatchResult& batch) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << pipeline::generations_csv_header() << "\n";
    for (const auto& passage : batch.passages)
        for (const auto& row : pipeline::generation_rows(passage))
            out << pipeline::generation_csv_line(row) << "\n";
    out.flush();
    if (!out)
        throw StataFailure(603,
                           "llmvalidate: saving(): could not write the generations to " + path);
}

// Section 5 of the paper over the passages validated: Table 9 (share valid by LLM label, and
// the share agreeing with human() when given), Table 10 (LLM label x human label, share valid
// and counts) and the Benjamini-Hochberg adjusted validation p-values, all as the engine's
// summarize() computes them for the CLI and R.
void add_passage_summary(Results& results, const pipeline::BatchSummary& summary, bool generate) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (!summary.summary.table9.empty()) {
        ResultMatrix table9;
        table9.key = "table9";
        // Columns: a Table 9 row's fields with a Stata name (records.hpp).
        for (const auto& row : summary.summary.table9)
            append_record_row(table9, row.label.empty() ? "All" : row.label, row);
        results.matrices.push_back(std::move(table9));
    }
    if (!summary.summary.table10.empty()) {
        // The engine's cells run over LLM labels (rows), then human labels (columns).
        ResultMatrix shares, counts;
        shares.key = "table10";
        counts.key = "table10_n";
        for (const auto& cell : summary.summary.table10) {
            if (shares.row_names.empty() || shares.row_names.back() != cell.llm_label)
                shares.row_names.push_back(cell.llm_label);
            if (shares.row_names.size() == 1) shares.col_names.push_back(cell.human_label);
            shares.values.push_back(cell.share_valid);
            counts.values.push_back(static_cast<double>(cell.n));
        }
        shares.rows = static_cast<int>(shares.row_names.size());
        shares.cols = static_cast<int>(shares.col_names.size());
        counts.row_names = shares.row_names;
        counts.col_names = shares.col_names;
        counts.rows = shares.rows;
        counts.cols = shares.cols;
        results.matrices.push_back(std::move(shares));
        results.matrices.push_back(std::move(counts));
    }
    // Table 11: the passages whose LLM label differs from the human label and whose annotation
    // is valid, one row each: the observation, named LLM label (row equation):human label.
    if (!summary.summary.table11.empty()) {
        ResultMatrix table11;
        table11.key = "table11";
        table11.col_names = {"obs"};
        table11.cols = 1;
        for (const auto& row : summary.summary.table11) {
            table11.row_equations.push_back(row.llm_label);
            table11.row_names.push_back(row.human_label);
            table11.values.push_back(std::stod(row.id));  // ids are observation numbers
        }
        table11.rows = static_cast<int>(table11.row_names.size());
        results.matrices.push_back(std::move(table11));
    }
    // p_bh: a column of r(results) and, with generate(), the variable <prefix>p_bh.
    std::map<int, double> adjusted;
    for (std::size_t i = 0; i < summary.ids.size() && i < summary.p_bh.size(); ++i)
        adjusted[std::stoi(summary.ids[i])] = summary.p_bh[i];
    for (auto& matrix : results.matrices) {
        if (matrix.key != "results") continue;
        std::vector<double> widened;
        for (int r = 0; r < matrix.rows; ++r) {
            const auto begin = matrix.values.begin() + static_cast<std::ptrdiff_t>(r * matrix.cols);
            widened.insert(widened.end(), begin, begin + matrix.cols);
            const auto found = adjusted.find(static_cast<int>(*begin));  // column obs
            widened.push_back(found == adjusted.end() ? nan : found->second);
        }
        matrix.values = std::move(widened);
        matrix.col_names.push_back("p_bh");
        ++matrix.cols;
    }
    if (!generate) return;
    ResultVariable variable;
    variable.suffix = "p_bh";
    variable.type = "double";
    variable.label = "llmvalidate: Benjamini-Hochberg adjusted p-value";
    for (const auto& [obs, p] : adjusted) {
        variable.observations.push_back(obs);
        variable.numbers.push_back(p);
    }
    results.variables.push_back(std::move(variable));
}

}  // namespace llmv::stata
