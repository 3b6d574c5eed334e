// A Stata of our own for the plugin: an in-memory dataset behind a complete ST_plugin table,
// so that the built llmvalidate.plugin can be dlopen()ed and called exactly as Stata would.
//
// Semantics follow the plugin documentation: variables are addressed by their position in
// the varlist of the call (1-based), observations by their position in the dataset; SF_ifobs
// answers the if condition; SF_in1/SF_in2 the in range; locals are macros whose name starts
// with "_"; matrices must exist with their size before the plugin stores into them;
// SF_sstore/SF_sdata refuse strL variables (SF_strldata reads them); `.` is 2^1023 and .a-.z
// lie above it. Faults can be injected: the n-th data store fails; Break is pressed after the
// n-th poll.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "llmv_stplugin.h"

namespace host {

double missing();                      // `.`
double extended_missing(char letter);  // .a ... .z

enum class Kind { numeric, str, strl };

struct Variable {
    std::string name;
    Kind kind = Kind::numeric;
    int width = 0;  // str#
    std::vector<double> numbers;
    std::vector<std::string> strings;
    bool operator==(const Variable& other) const;
};

struct Matrix {
    int rows = 0;
    int cols = 0;
    std::vector<double> values;
    double at(int row, int col) const {  // 1-based
        return values[static_cast<std::size_t>((row - 1) * cols + (col - 1))];
    }
};

class Stata {
  public:
    Stata();
    ~Stata();
    Stata(const Stata&) = delete;
    Stata& operator=(const Stata&) = delete;

    // --- the dataset ---
    int nobs = 0;
    std::vector<Variable> data;
    void clear();
    int add_numeric(const std::string& name, const std::vector<double>& values);
    int add_string(const std::string& name, const std::vector<std::string>& values, bool strl);
    int add_new(const std::string& name, const std::string& type);  // all missing / empty
    int find(const std::string& name) const;                        // -1 when absent
    void drop(const std::string& name);
    void rename(const std::string& from, const std::string& to);
    Variable& var(const std::string& name);

    // --- one plugin call's view: `plugin call h varlist if in, args` ---
    std::vector<int> varlist;       // indices into data
    std::vector<bool> if_mask;      // empty: every observation
    int in_first = 1, in_last = 0;  // 0: nobs
    void select_all();
    void set_varlist(const std::vector<std::string>& names);

    // --- macros, scalars, matrices, output ---
    std::map<std::string, std::string> macros;  // locals as "_name", globals as "name"
    std::map<std::string, double> scalars;
    std::map<std::string, Matrix> matrices;
    std::string output;  // SF_display
    std::string errors;      // SF_error, as Stata shows it (SMCL's {c -(} and {c )-} decoded)
    std::string errors_raw;  // SF_error, as the plugin sent it
    void set_local(const std::string& name, const std::string& value) {
        macros["_" + name] = value;
    }
    std::string local(const std::string& name) const;
    void create_matrix(const std::string& name, int rows, int cols);

    // --- limits ---
    // run_like_ado leaves out a matrix of more rows, as the ado does when Stata cannot make it
    // (past its matrix limit); 0: no limit.
    int max_matrix_rows = 0;

    // --- faults ---
    int fail_store_at = 0;  // the n-th data store (SF_vstore/SF_sstore) returns rc 909; 0: never
    int store_calls = 0;
    int break_after_polls = -1;  // Break is pressed at the n-th SF_poll; -1: never
    int polls = 0;
    int stop_flag = 0;
    std::vector<std::string> unexpected;  // SPI functions the plugin should never call

    // --- the plugin ---
    ST_plugin table{};
    void load(const std::string& path);
    int pginit_result = 0;
    int call(const std::vector<std::string>& words);

  private:
    void* handle_ = nullptr;
    ST_retcode (*stata_call_)(int, char**) = nullptr;
};

// The one instance the C callbacks reach (the plugin has no context pointer).
Stata& current();

// Mimics llmvalidate.ado around a computing subcommand: runs it, creates the announced
// matrices and new variables (as temporary names), runs `store`, and on success renames the
// variables to <prefix><suffix> and collects r() into the returned value.
struct RunResult {
    int rc = 0;
    int store_rc = 0;
    std::map<std::string, double> scalars;
    std::map<std::string, std::string> macros;
    std::map<std::string, Matrix> matrices;
    std::map<std::string, std::vector<std::string>> matrix_rownames;
    std::map<std::string, std::vector<std::string>> matrix_roweqs;  // empty: no row equations
    std::map<std::string, std::vector<std::string>> matrix_colnames;
};
RunResult run_like_ado(Stata& stata, const std::vector<std::string>& varlist,
                       const std::vector<std::string>& words, const std::string& prefix);

std::vector<std::string> split_list(const std::string& list);

}  // namespace host
