// A thin C++ face on the SPI function table (spi/llmv_stplugin.h). Every SPI call that returns a
// code is checked; a failure throws StataFailure carrying Stata's own return code, so that the
// entry point (plugin.cpp) can hand it back to Stata unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "llmv_stplugin.h"

namespace llmv::stata {

// A Stata return code with its message: what stata_call() returns. Thrown by plugin code for
// conditions it detects itself (no observations, a bad variable) and by Api on a failing call.
class StataFailure : public std::runtime_error {
  public:
    StataFailure(int return_code, const std::string& message)
        : std::runtime_error(message), rc_(return_code) {}
    int rc() const noexcept { return rc_; }

  private:
    int rc_;
};

// Raised when the user pressed Break (Stata's rc 1).
class BreakRequested : public std::runtime_error {
  public:
    BreakRequested() : std::runtime_error("--Break--") {}
};

// The table handed to pginit(); null until then.
ST_plugin* table();
void set_table(ST_plugin* plugin_table);

class Api {
  public:
    Api();  // throws StataFailure when pginit() has not run

    // Output. display() takes SMCL; text() escapes braces so data shows as it is.
    void display(const std::string& smcl);
    void text(const std::string& plain);
    void error(const std::string& plain);
    static std::string escape_smcl(const std::string& plain);

    // Lets Stata update its output and notice Break; true when Break was pressed.
    bool poll();
    // poll(), then throws BreakRequested when Break was pressed.
    void check_break();

    // The data. Variables are 1-based positions in the plugin call's varlist, observations
    // 1-based positions in the dataset.
    int observations() const;
    int variables() const;  // in the varlist
    int in_first() const;
    int in_last() const;
    bool selected(int obs) const;  // satisfies the if condition
    bool is_string(int var) const;
    bool is_strl(int var) const;
    double missing_value() const;
    bool is_missing(double value) const;
    double number(int var, int obs) const;
    std::string string(int var, int obs) const;  // str# or strL
    void store(int var, int obs, double value);
    void store_string(int var, int obs, const std::string& value);

    // Results. Locals are named without their leading underscore.
    std::optional<std::string> local(const std::string& name) const;
    void set_local(const std::string& name, const std::string& value);
    void set_scalar(const std::string& name, double value);
    int matrix_rows(const std::string& name) const;  // 0 when there is no such matrix
    int matrix_cols(const std::string& name) const;
    void matrix_store(const std::string& name, int row, int col, double value);
    double matrix_element(const std::string& name, int row, int col) const;  // 1-based

  private:
    ST_plugin* t_;
};

}  // namespace llmv::stata
