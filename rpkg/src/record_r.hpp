// The R writer of the records (llmvalidate/records.hpp): a named list, one element per field
// (every field: R has them all), by one rule per value type.
//   double: numeric   int: integer   bool: logical   std::string: character
//   Seed: numeric (a double)   Counts: a named integer vector   Eigen::VectorXd: numeric
//   Maybe<T>: the value as it is (R makes no test object from a test that did not run)
//   std::vector<std::string>: character   a record: a named list   a vector of records: a list
// R's own names (`p.value`, `critical.value`) are made from these by the R code (R/tests.R).
#pragma once

#include <Rcpp.h>

#include <Eigen/Dense>

#include <string>
#include <type_traits>
#include <vector>

#include "llmvalidate/records.hpp"

namespace llmv::records {

template <class T>
Rcpp::List to_r(const T& record);

namespace detail {

template <class T>
struct is_r_vector : std::false_type {};
template <class T>
struct is_r_vector<std::vector<T>> : std::true_type {};

template <class T>
Rcpp::RObject r_value(const T& value) {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string> ||
                  std::is_same_v<T, std::vector<std::string>>) {
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
    } else if constexpr (is_r_vector<T>::value) {
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
    return r_value(value.value);
}

struct RWriter {
    std::vector<Rcpp::RObject> values;
    std::vector<std::string> names;
    template <class T>
    void operator()(const Field& field, const T& value) {
        names.push_back(field.name);
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

}  // namespace llmv::records
