// Embedding vectors as float32: the precision OpenAI-compatible servers compute and send in, the
// form the cache stores them in (4 bytes a number, little-endian), and base64 of those bytes
// as `encoding_format: "base64"` answers carry them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace llmv {

// The vector's numbers as little-endian IEEE float32 bytes, and back. from_float32_bytes():
// nullopt when the size is not a multiple of 4.
std::string float32_bytes(const std::vector<float>& vector);
std::optional<std::vector<float>> from_float32_bytes(const char* data, std::size_t size);

// Standard base64 (RFC 4648, with padding); decode accepts missing padding and returns nullopt
// for any other character.
std::string base64_encode(const std::string& bytes);
std::optional<std::string> base64_decode(const std::string& text);

// Each number rounded to the nearest float32 (what the statistics see of an embedding), and
// widened back for the statistics.
std::vector<float> to_float32(const std::vector<double>& vector);
std::vector<double> to_double(const std::vector<float>& vector);

}  // namespace llmv
