#include "llmvalidate/key_value.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace llmv::key_value {

std::optional<std::pair<std::string, std::string>> split(const std::string& word) {
    const auto equals = word.find('=');
    if (equals == std::string::npos || equals == 0) return std::nullopt;
    return std::make_pair(word.substr(0, equals), word.substr(equals + 1));
}

std::optional<double> real(const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(value))
        return std::nullopt;
    return value;
}

std::optional<int> integer(const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE ||
        value > std::numeric_limits<int>::max() || value < std::numeric_limits<int>::min())
        return std::nullopt;
    return static_cast<int>(value);
}

std::optional<std::uint64_t> whole_number(const std::string& text) {
    if (text.empty() || text.size() > 20) return std::nullopt;
    std::uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
        value = value * 10 + digit;
    }
    return value;
}

}  // namespace llmv::key_value
