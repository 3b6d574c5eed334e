// Reading embedding vectors out of JSON (internal to cpp/llm/).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace llmv::detail {

// A JSON array of numbers as a vector; nullopt when it is anything else or empty.
inline std::optional<std::vector<double>> read_vector(const nlohmann::json& value) {
    if (!value.is_array() || value.empty()) return std::nullopt;
    std::vector<double> out;
    out.reserve(value.size());
    for (const auto& element : value) {
        if (!element.is_number()) return std::nullopt;
        out.push_back(element.get<double>());
    }
    return out;
}

}  // namespace llmv::detail
