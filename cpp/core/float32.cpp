// float32 vectors, their bytes and base64 (float32.hpp).
#include "core/float32.hpp"

#include <cstdint>
#include <cstring>

namespace llmv {

namespace {

bool little_endian() {
    const std::uint32_t one = 1;
    unsigned char first = 0;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

void swap_bytes(char* data, std::size_t size) {
    for (std::size_t i = 0; i + 4 <= size; i += 4) {
        std::swap(data[i], data[i + 3]);
        std::swap(data[i + 1], data[i + 2]);
    }
}

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sextet(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

}  // namespace

std::string float32_bytes(const std::vector<float>& vector) {
    std::string bytes(vector.size() * 4, '\0');
    if (!vector.empty()) std::memcpy(&bytes[0], vector.data(), bytes.size());
    if (!little_endian()) swap_bytes(&bytes[0], bytes.size());
    return bytes;
}

std::optional<std::vector<float>> from_float32_bytes(const char* data, std::size_t size) {
    if (size % 4 != 0) return std::nullopt;
    std::vector<float> vector(size / 4);
    if (size) std::memcpy(vector.data(), data, size);
    if (!little_endian() && size) swap_bytes(reinterpret_cast<char*>(vector.data()), size);
    return vector;
}

std::string base64_encode(const std::string& bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t group =
            static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
            static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8 |
            static_cast<unsigned char>(bytes[i + 2]);
        out += alphabet[group >> 18 & 63];
        out += alphabet[group >> 12 & 63];
        out += alphabet[group >> 6 & 63];
        out += alphabet[group & 63];
    }
    const std::size_t rest = bytes.size() - i;
    if (rest) {
        std::uint32_t group = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i]))
                              << 16;
        if (rest == 2)
            group |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        out += alphabet[group >> 18 & 63];
        out += alphabet[group >> 12 & 63];
        out += rest == 2 ? alphabet[group >> 6 & 63] : '=';
        out += '=';
    }
    return out;
}

std::optional<std::string> base64_decode(const std::string& text) {
    std::size_t length = text.size();
    while (length > 0 && text[length - 1] == '=' && text.size() - length < 2) --length;
    if (length % 4 == 1) return std::nullopt;
    std::string out;
    out.reserve(length / 4 * 3 + 2);
    std::uint32_t group = 0;
    int bits = 0;
    for (std::size_t i = 0; i < length; ++i) {
        const int value = sextet(static_cast<unsigned char>(text[i]));
        if (value < 0) return std::nullopt;
        group = group << 6 | static_cast<std::uint32_t>(value);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>(group >> bits & 0xFF);
        }
    }
    return out;
}

std::vector<float> to_float32(const std::vector<double>& vector) {
    return std::vector<float>(vector.begin(), vector.end());
}

std::vector<double> to_double(const std::vector<float>& vector) {
    return std::vector<double>(vector.begin(), vector.end());
}

}  // namespace llmv
