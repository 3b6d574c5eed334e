// The Stata writer of the records (llmvalidate/records.hpp): the fields that have a Stata name,
// in the record's order, as numbers (r() scalars, matrix rows):
//   double: the value (Stata turns a non-finite one into missing)   int: the value
//   bool: 1 or 0   Maybe<T>: missing (NaN) when absent, else the value's rule
// Fields without a Stata name are not written, nor, in a row, fields that are not numbers.
// stata_cells() gives text too (r() macros, string variables), each value with its Field: Stata's
// per-passage results (records::PassageBrief) are read from it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "llmvalidate/records.hpp"

namespace llmv::records {

struct StataRow {
    std::vector<std::string> names;
    std::vector<double> values;
};

namespace detail {

template <class T>
double stata_value(const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
        return value ? 1.0 : 0.0;
    } else {
        static_assert(std::is_arithmetic_v<T>, "a field with a Stata name must be a number");
        return static_cast<double>(value);
    }
}

template <class T>
double stata_value(const Maybe<T>& value) {
    return value.present ? stata_value(value.value) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace detail

// Every field with a Stata name, in the record's order: a number by the rules above or text as
// it is, with its Field (which, in Stata's per-passage results, says where it goes).
struct StataCell {
    Field field;
    bool text = false;
    double number = std::numeric_limits<double>::quiet_NaN();
    std::string string;
};
using StataCells = std::vector<StataCell>;

namespace detail {

struct StataCellWriter {
    StataCells& cells;
    template <class T>
    void operator()(const Field& field, const T& value) {
        if (field.stata == nullptr) return;
        if constexpr (std::is_same_v<T, std::string>) {
            cells.push_back({field, true, std::numeric_limits<double>::quiet_NaN(), value});
        } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, Maybe<double>> ||
                             std::is_same_v<T, Maybe<bool>> || std::is_same_v<T, Maybe<int>>) {
            cells.push_back({field, false, stata_value(value), {}});
        }
        // Other value types (vectors, records) carry no Stata name.
    }
};

}  // namespace detail

template <class T>
StataCells stata_cells(const T& record) {
    StataCells cells;
    detail::StataCellWriter writer{cells};
    visit(record, writer);
    return cells;
}

namespace detail {

// The numbers of `cells` by their Stata names; `columns_only`: r(results)'s columns alone.
inline StataRow numbers(const StataCells& cells, bool columns_only) {
    StataRow row;
    for (const StataCell& cell : cells) {
        if (cell.text || (columns_only && !cell.field.column)) continue;
        row.names.push_back(cell.field.stata);
        row.values.push_back(cell.number);
    }
    return row;
}

}  // namespace detail

// The numbers with a Stata name (r() scalars, a matrix row); text is left out.
template <class T>
StataRow stata_row(const T& record) {
    return detail::numbers(stata_cells(record), false);
}

// r(results): the numbers that are columns, in the record's order.
inline StataRow stata_columns(const StataCells& cells) { return detail::numbers(cells, true); }

// A single passage's r(): scalars (numbers) and macros (text), named `single` or else `stata`.
struct StataSingle {
    std::vector<std::pair<std::string, double>> scalars;
    std::vector<std::pair<std::string, std::string>> macros;
};

inline StataSingle stata_single(const StataCells& cells) {
    StataSingle single;
    for (const StataCell& cell : cells) {
        const std::string name =
            cell.field.single != nullptr ? cell.field.single : cell.field.stata;
        if (cell.text)
            single.macros.emplace_back(name, cell.string);
        else
            single.scalars.emplace_back(name, cell.number);
    }
    return single;
}

// generate(): the cells with a variable, in the variables' order.
inline std::vector<std::size_t> stata_variables(const StataCells& cells) {
    std::vector<std::size_t> chosen;
    for (std::size_t i = 0; i < cells.size(); ++i)
        if (cells[i].field.variable.name != nullptr) chosen.push_back(i);
    std::stable_sort(chosen.begin(), chosen.end(), [&](std::size_t a, std::size_t b) {
        return cells[a].field.variable.order < cells[b].field.variable.order;
    });
    return chosen;
}

}  // namespace llmv::records
