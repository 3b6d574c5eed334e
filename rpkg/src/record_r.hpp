// The R writer of the records (llmvalidate/records.hpp): a named list, one element per field
// with `r` set, by one rule per value type.
//   double: numeric   int: integer   bool: logical   std::string: character
//   Seed: numeric (a double)   Counts: a named integer vector   Eigen::VectorXd: numeric
//   Maybe<T>: the value as it is (R makes no test object from a test that did not run)
//   KeyIf<T>: the value, or NULL when absent with `r_null`
//   std::vector<std::string>: character   a record: a named list   a vector of records: a list
//   maps of strings: a named character vector / a named list of them
//   a record with r_numbers: a named numeric vector (the calls)
//   Table<T>: a named list of columns, one per field, each a vector of its type (a list column
//   for std::vector<std::string>; an absent Maybe<T> is NA there)
// Names: a field's `in_r()` (its R spelling where it has one); a field with `empty_is_na` is NA
// for an empty string.
// R's own names (`p.value`, `critical.value`) are made from these by the R code (R/tests.R).
#pragma once

#include <Rcpp.h>

#include <Eigen/Dense>

#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "llmvalidate/records.hpp"

namespace llmv::records {

template <class T>
Rcpp::List to_r(const T& record);
template <class T>
Rcpp::NumericVector to_r_numbers(const T& record);

namespace detail {

// A table's columns: the first row (or a default one, for no rows) makes the typed columns,
// each row then sets its element of each.
struct RColumns {
    R_xlen_t rows;
    bool typing = true;
    R_xlen_t row = 0;
    std::size_t column = 0;
    std::vector<Rcpp::RObject> columns;
    std::vector<std::string> names;
    template <class T>
    void operator()(const Field& field, const T& value) {
        if (!field.r) return;
        if (typing) {
            names.push_back(field.in_r());
            columns.push_back(make_column<T>());
            return;
        }
        set<T>(columns[column++], value, field.empty_is_na);
    }
    // A value that may be absent: NA in its column when absent.
    template <class T>
    void operator()(const Field& field, const Maybe<T>& value) {
        if (!field.r) return;
        if (typing) {
            names.push_back(field.in_r());
            columns.push_back(make_column<T>());
            return;
        }
        if (value.present)
            set<T>(columns[column], value.value, field.empty_is_na);
        else
            set_na<T>(columns[column]);
        ++column;
    }
    template <class T>
    void set_na(Rcpp::RObject& target) const {
        if constexpr (std::is_same_v<T, bool>) {
            Rcpp::LogicalVector column(target);
            column[row] = NA_LOGICAL;
        } else if constexpr (std::is_integral_v<T>) {
            Rcpp::IntegerVector column(target);
            column[row] = NA_INTEGER;
        } else if constexpr (std::is_floating_point_v<T>) {
            Rcpp::NumericVector column(target);
            column[row] = NA_REAL;
        } else if constexpr (std::is_same_v<T, std::string>) {
            Rcpp::CharacterVector column(target);
            column[row] = NA_STRING;
        }
    }
    template <class T>
    Rcpp::RObject make_column() const {
        if constexpr (std::is_same_v<T, bool>) {
            return Rcpp::LogicalVector(rows);
        } else if constexpr (std::is_integral_v<T>) {
            return Rcpp::IntegerVector(rows);
        } else if constexpr (std::is_floating_point_v<T>) {
            return Rcpp::NumericVector(rows);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            return Rcpp::List(rows);  // a list column: one character vector per row
        } else {
            static_assert(std::is_same_v<T, std::string>, "no R column rule for this value type");
            return Rcpp::CharacterVector(rows);
        }
    }
    // The Rcpp vector made from the column shares its memory: this sets the column's element.
    template <class T>
    void set(Rcpp::RObject& target, const T& value, bool empty_is_na) const {
        (void)empty_is_na;  // text only
        if constexpr (std::is_same_v<T, bool>) {
            Rcpp::LogicalVector column(target);
            column[row] = value;
        } else if constexpr (std::is_integral_v<T>) {
            Rcpp::IntegerVector column(target);
            column[row] = value;
        } else if constexpr (std::is_floating_point_v<T>) {
            Rcpp::NumericVector column(target);
            column[row] = value;
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            Rcpp::List column(target);
            column[row] = Rcpp::wrap(value);
        } else {
            Rcpp::CharacterVector column(target);
            if (empty_is_na && value.empty())
                column[row] = NA_STRING;
            else
                column[row] = value;
        }
    }
};

template <class T>
Rcpp::List table_to_r(const Table<T>& table) {
    RColumns writer{static_cast<R_xlen_t>(table.rows.size())};
    visit(table.rows.empty() ? T{} : table.rows.front(), writer);
    writer.typing = false;
    for (const T& row : table.rows) {
        writer.column = 0;
        visit(row, writer);
        ++writer.row;
    }
    Rcpp::List list(writer.columns.size());
    for (std::size_t i = 0; i < writer.columns.size(); ++i) list[i] = writer.columns[i];
    list.names() = Rcpp::wrap(writer.names);
    return list;
}

struct RNumbers {
    std::vector<double> values;
    std::vector<std::string> names;
    template <class T>
    void operator()(const Field& field, const T& value) {
        static_assert(std::is_arithmetic_v<T>, "an r_numbers record has only numbers");
        if (!field.r) return;
        names.push_back(field.in_r());
        values.push_back(static_cast<double>(value));
    }
};

template <class T>
Rcpp::RObject r_value(const T& value) {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string> ||
                  std::is_same_v<T, std::vector<std::string>> ||
                  std::is_same_v<T, std::map<std::string, std::string>> ||
                  std::is_same_v<T, std::map<std::string, std::vector<std::string>>>) {
        return Rcpp::wrap(value);
    } else if constexpr (std::is_same_v<T, Seed>) {
        return Rcpp::wrap(static_cast<double>(value.value));
    } else if constexpr (std::is_same_v<T, Counts>) {
        Rcpp::IntegerVector counts(value.size());
        Rcpp::CharacterVector names(value.size());
        for (std::size_t i = 0; i < value.size(); ++i) {
            names[i] = value[i].first;
            counts[i] = value[i].second;
        }
        counts.names() = names;
        return counts;
    } else if constexpr (std::is_same_v<T, Eigen::VectorXd>) {
        return Rcpp::NumericVector(value.data(), value.data() + value.size());
    } else if constexpr (r_numbers<T>::value) {
        return to_r_numbers(value);
    } else if constexpr (is_table<T>::value) {
        return table_to_r(value);
    } else if constexpr (is_vector<T>::value) {
        Rcpp::List list(value.size());  // a vector of records
        for (std::size_t i = 0; i < value.size(); ++i) list[i] = to_r(value[i]);
        return list;
    } else {
        static_assert(is_record<T>::value, "no R rule for this value type");
        return to_r(value);
    }
}

template <class T>
Rcpp::RObject r_value(const Maybe<T>& value) {
    return r_value(value.value);
}

template <class T>
Rcpp::RObject r_value(const KeyIf<T>& value) {
    if (value.r_null && !value.present) return R_NilValue;
    return r_value(value.value);
}

struct RWriter {
    std::vector<Rcpp::RObject> values;
    std::vector<std::string> names;
    template <class T>
    void operator()(const Field& field, const T& value) {
        if (!field.r) return;
        names.push_back(field.in_r());
        if constexpr (std::is_same_v<T, std::string>) {
            if (field.empty_is_na && value.empty()) {
                values.push_back(Rcpp::CharacterVector::create(NA_STRING));
                return;
            }
        }
        values.push_back(r_value(value));
    }
};

}  // namespace detail

template <class T>
Rcpp::List to_r(const T& record) {
    detail::RWriter writer;
    visit(record, writer);
    Rcpp::List list(writer.values.size());
    for (std::size_t i = 0; i < writer.values.size(); ++i) list[i] = writer.values[i];
    list.names() = Rcpp::wrap(writer.names);
    return list;
}

// Rows of one record as R's columns (what as.data.frame() takes).
template <class T>
Rcpp::List to_r_columns(const std::vector<T>& rows) {
    return detail::table_to_r(Table<T>{rows});
}

template <class T>
Rcpp::NumericVector to_r_numbers(const T& record) {
    detail::RNumbers writer;
    visit(record, writer);
    Rcpp::NumericVector vector(writer.values.begin(), writer.values.end());
    vector.names() = Rcpp::wrap(writer.names);
    return vector;
}

}  // namespace llmv::records
