// The JSON writer of the records (llmvalidate/records.hpp): one rule per value type.
//   double: the number, null when not finite   int, bool, string: as they are
//   Seed: a number up to 2^53, else a string    Counts: an object label -> count
//   Maybe<T>: null ({} for Counts) when the test did not run
//   Eigen::VectorXd: an array of numbers (null when not finite)
//   a record: an object; a std::vector of records, a Table: an array of objects
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "llmvalidate/records.hpp"

namespace llmv::records {

struct JsonWriteOptions {
    bool bulk = false;  // write the bulk fields (null distributions)
};

inline nlohmann::ordered_json json_number(double value) {
    if (std::isfinite(value)) return value;
    return nullptr;
}

template <class T>
nlohmann::ordered_json to_json(const T& record, const JsonWriteOptions& options = {});

namespace detail {

template <class T>
nlohmann::ordered_json json_value(const T& value, const JsonWriteOptions& options) {
    using nlohmann::ordered_json;
    if constexpr (std::is_same_v<T, double>) {
        return json_number(value);
    } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string> ||
                         std::is_same_v<T, std::vector<std::string>> ||
                         std::is_same_v<T, std::map<std::string, std::string>> ||
                         std::is_same_v<T, std::map<std::string, std::vector<std::string>>>) {
        return value;
    } else if constexpr (std::is_same_v<T, Seed>) {
        if (value.value <= (std::uint64_t{1} << 53)) return value.value;
        return std::to_string(value.value);
    } else if constexpr (std::is_same_v<T, Counts>) {
        ordered_json object = ordered_json::object();
        for (const auto& [label, count] : value) object[label] = count;
        return object;
    } else if constexpr (std::is_same_v<T, Eigen::VectorXd>) {
        ordered_json array = ordered_json::array();
        for (Eigen::Index i = 0; i < value.size(); ++i) array.push_back(json_number(value(i)));
        return array;
    } else if constexpr (is_vector<T>::value) {
        ordered_json array = ordered_json::array();  // a vector of records
        for (const auto& item : value) array.push_back(to_json(item, options));
        return array;
    } else if constexpr (is_table<T>::value) {
        ordered_json array = ordered_json::array();  // rows, as a vector of records
        for (const auto& row : value.rows) array.push_back(to_json(row, options));
        return array;
    } else if constexpr (is_record<T>::value) {
        return to_json(value, options);
    } else {
        static_assert(is_record<T>::value, "no JSON rule for this value type");
        return nullptr;
    }
}

template <class T>
nlohmann::ordered_json json_value(const Maybe<T>& value, const JsonWriteOptions& options) {
    if (value.present) return json_value(value.value, options);
    if constexpr (std::is_same_v<T, Counts>) return nlohmann::ordered_json::object();
    return nullptr;
}

struct JsonWriter {
    nlohmann::ordered_json& out;
    const JsonWriteOptions& options;
    template <class T>
    void operator()(const Field& field, const T& value) {
        if (!field.json || (field.bulk && !options.bulk)) return;
        out[field.name] = json_value(value, options);
    }
    template <class T>
    void operator()(const Field& field, const KeyIf<T>& value) {
        if (value.present) (*this)(field, value.value);
    }
};

}  // namespace detail

template <class T>
nlohmann::ordered_json to_json(const T& record, const JsonWriteOptions& options) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    detail::JsonWriter writer{out, options};
    visit(record, writer);
    return out;
}

}  // namespace llmv::records
