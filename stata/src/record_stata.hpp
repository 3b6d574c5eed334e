// The Stata writer of the records (llmvalidate/records.hpp): the fields that have a Stata name,
// in the record's order, as numbers (r() scalars, matrix rows):
//   double: the value (Stata turns a non-finite one into missing)   int: the value
//   bool: 1 or 0   Maybe<T>: missing (NaN) when absent, else the value's rule
// Fields without a Stata name are not written, nor fields that are not numbers (text goes to
// r() macros, written by hand).
#pragma once

#include <limits>
#include <string>
#include <type_traits>
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

struct StataWriter {
    StataRow& row;
    template <class T>
    void operator()(const Field& field, const T& value) {
        if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, Maybe<double>> ||
                      std::is_same_v<T, Maybe<bool>> || std::is_same_v<T, Maybe<int>>) {
            if (field.stata == nullptr) return;
            row.names.push_back(field.stata);
            row.values.push_back(stata_value(value));
        }
        // Other value types (text, vectors, records) carry no Stata name.
    }
};

}  // namespace detail

template <class T>
StataRow stata_row(const T& record) {
    StataRow row;
    detail::StataWriter writer{row};
    visit(record, writer);
    return row;
}

}  // namespace llmv::records
