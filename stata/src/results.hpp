// Compute first, store last. A subcommand computes everything into a Results value and stores
// nothing; the ado-file then learns from announce() which matrices and variables to create
// (Stata lets a plugin store only into matrices and variables that exist, with their final
// size), creates them, and calls the plugin again with `store`, which writes them all.
//
// Variables are written last and with a rollback: if Stata refuses one store, every value
// already written is put back, so the dataset is as it was. (The ado-file also writes into
// temporary variables that it renames only on success: two independent guards.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stata_api.hpp"

namespace llmv::stata {

struct ResultMatrix {
    std::string key;  // r(key)
    int rows = 0;
    int cols = 0;
    std::vector<double> values;  // row-major; NaN and +-inf become Stata missing
    std::vector<std::string> row_names;
    std::vector<std::string> col_names;
    // Row equations (Stata's roweq), one per row, or empty for none: r(table11) names a row
    // LLM label:human label.
    std::vector<std::string> row_equations;
};

struct ResultVariable {
    std::string suffix;                // the new variable is <prefix><suffix>
    std::string type;                  // "double", "byte" or "str#"
    std::string label;                 // variable label
    std::string value_label;           // name of a value label the ado defines, or ""
    std::vector<int> observations;     // 1-based
    std::vector<double> numbers;       // numeric variables
    std::vector<std::string> strings;  // string variables
};

struct Results {
    std::uint64_t token = 0;
    std::vector<std::pair<std::string, double>> scalars;      // r(name), numeric
    std::vector<std::pair<std::string, std::string>> macros;  // r(name), text
    std::vector<ResultMatrix> matrices;
    std::vector<ResultVariable> variables;  // empty unless generate() was given

    void scalar(const std::string& name, double value) { scalars.emplace_back(name, value); }
    void macro(const std::string& name, const std::string& value) {
        macros.emplace_back(name, value);
    }
};

// Keeps `results` for the store call and tells the ado, in locals, what to create:
//   llmv_token; llmv_matrices (keys, in order) and for the i-th matrix llmv_m<i>_rows, _cols,
//   _rn (row names), _cn (column names); llmv_vars (suffixes, in order) and for the i-th
//   variable llmv_v<i>_type, _label, _vlab (value label).
void announce(Api& api, Results results);

// `store token=<t> scalars=<prefix> mat_<key>=<name>...`: the varlist holds the new variables
// in the order announced. Writes scalars <prefix>_<name>, locals llmv_r_<name>, the lists
// llmv_scalars and llmv_macros, the matrices, then the variables.
int store_pending(Api& api, int argc, char* argv[]);

// Drops whatever announce() kept (after an error in between).
void forget_pending();

// Stata missing for non-finite values.
double stata_number(const Api& api, double value);

}  // namespace llmv::stata
