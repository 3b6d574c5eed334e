// Reading embedding vectors out of answers (internal to cpp/llm/).
//
// Every vector is float32 once read (docs/transport-and-cache.md, "Embeddings"): a JSON number
// is rounded to the nearest float32, a base64 answer is float32 already. The cache stores
// exactly these numbers, so the statistics see the same values on the first run and on every
// re-run from the cache.
#pragma once

#include <nlohmann/json.hpp>

#include <cfloat>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/float32.hpp"

namespace llmv::detail {

// `encoding_format: "base64"`: a base64 string of little-endian float32 numbers; nullopt when
// it is anything else, empty, or not finite.
inline std::optional<std::vector<double>> read_base64_vector(const std::string& text) {
    const auto bytes = base64_decode(text);
    if (!bytes || bytes->empty()) return std::nullopt;
    const auto floats = from_float32_bytes(bytes->data(), bytes->size());
    if (!floats) return std::nullopt;
    for (float number : *floats) {
        if (!std::isfinite(number)) return std::nullopt;
    }
    return to_double(*floats);
}

// A JSON array of finite numbers within float32's range, each rounded to float32; nullopt when
// it is anything else or empty.
inline std::optional<std::vector<double>> read_vector(const nlohmann::json& value) {
    if (!value.is_array() || value.empty()) return std::nullopt;
    std::vector<double> out;
    out.reserve(value.size());
    for (const auto& element : value) {
        if (!element.is_number()) return std::nullopt;
        const double number = element.get<double>();
        if (!std::isfinite(number) || std::fabs(number) > FLT_MAX) return std::nullopt;
        out.push_back(static_cast<double>(static_cast<float>(number)));
    }
    return out;
}

}  // namespace llmv::detail
