// Reproducible row samples and row filters (sample.hpp).
#include "llmvalidate/sample.hpp"

#include <algorithm>
#include <numeric>

#include "llmvalidate/error.hpp"
#include "llmvalidate/rng.hpp"
#include "llmvalidate/text.hpp"

namespace llmv {

using text::split;

std::vector<std::size_t> sample_rows(std::size_t population, std::size_t n, std::uint64_t seed,
                                     const std::string& argument) {
    if (n > population) {
        throw_invalid(code::invalid_argument, argument, std::to_string(n),
                      population == 1 ? std::string("at most the 1 row there is to draw from")
                                      : "at most the " + std::to_string(population) +
                                            " rows there are to draw from");
    }
    std::vector<std::size_t> positions(population);
    std::iota(positions.begin(), positions.end(), std::size_t{0});
    Rng rng(seed);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t j = i + static_cast<std::size_t>(rng.bounded(population - i));
        std::swap(positions[i], positions[j]);
    }
    positions.resize(n);
    std::sort(positions.begin(), positions.end());
    return positions;
}

RowFilter RowFilter::parse(const std::string& text, const std::string& argument) {
    RowFilter filter;
    for (const std::string& condition : split(text, ';')) {
        if (text::trim(condition).empty()) continue;
        const auto equals = condition.find('=');
        const std::string column =
            equals == std::string::npos ? "" : text::trim(condition.substr(0, equals));
        if (column.empty()) {
            throw_invalid(code::invalid_argument, argument, "\"" + condition + "\"",
                          "conditions COLUMN=VALUE (several values: VALUE|VALUE; several "
                          "conditions: separated by ';'), e.g. agreement=50|66");
        }
        std::set<std::string> values;
        for (const std::string& value : split(condition.substr(equals + 1), '|'))
            values.insert(text::trim(value));
        filter.conditions_.emplace_back(column, std::move(values));
    }
    return filter;
}

std::vector<std::string> RowFilter::columns() const {
    std::vector<std::string> names;
    for (const auto& condition : conditions_) names.push_back(condition.first);
    return names;
}

bool RowFilter::matches(const std::function<std::string(const std::string&)>& value_of) const {
    for (const auto& [column, values] : conditions_) {
        if (!values.count(text::trim(value_of(column)))) return false;
    }
    return true;
}

}  // namespace llmv
