// The CSV writer of the records (llmvalidate/records.hpp): the header is the fields' names, a
// row the fields' cells, one rule per value type:
//   double: the shortest text that reads back to the same double (NA, Inf, -Inf)
//   bool: true / false   whole numbers: their digits   std::string: as it is
//   Maybe<T>: an empty cell when absent
// Quoting is pipeline::csv_line's. R-only fields (`json` unset) are not columns.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "llmvalidate/records.hpp"

namespace llmv::records {

// Every number exactly: the shortest of %.15g, %.16g, %.17g that reads back to the same double.
inline std::string csv_number(double value) {
    if (std::isnan(value)) return "NA";
    if (std::isinf(value)) return value < 0 ? "-Inf" : "Inf";
    char buffer[40];
    for (int precision = 15; precision <= 17; ++precision) {
        std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
        if (std::strtod(buffer, nullptr) == value) break;
    }
    return buffer;
}

namespace detail {

template <class T>
std::string csv_cell(const T& value) {
    if constexpr (std::is_same_v<T, double>) {
        return csv_number(value);
    } else if constexpr (std::is_same_v<T, bool>) {
        return value ? "true" : "false";
    } else if constexpr (std::is_integral_v<T>) {
        return std::to_string(value);
    } else {
        static_assert(std::is_same_v<T, std::string>, "no CSV rule for this value type");
        return value;
    }
}

template <class T>
std::string csv_cell(const Maybe<T>& value) {
    return value.present ? csv_cell(value.value) : std::string();
}

struct CsvHeader {
    std::vector<std::string>& names;
    template <class T>
    void operator()(const Field& field, const T&) {
        if (field.json) names.push_back(field.name);
    }
};

struct CsvCells {
    std::vector<std::string>& cells;
    template <class T>
    void operator()(const Field& field, const T& value) {
        if (field.json) cells.push_back(csv_cell(value));
    }
};

}  // namespace detail

template <class T>
std::vector<std::string> csv_header(const T& record) {
    std::vector<std::string> names;
    detail::CsvHeader writer{names};
    visit(record, writer);
    return names;
}

template <class T>
std::vector<std::string> csv_cells(const T& record) {
    std::vector<std::string> cells;
    detail::CsvCells writer{cells};
    visit(record, writer);
    return cells;
}

}  // namespace llmv::records
