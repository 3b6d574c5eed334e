// SHA-256 (FIPS 180-4), our own small implementation: the cache keys need a stable hash and
// the engine links no crypto library.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace llmv {

class Sha256 {
  public:
    Sha256();
    void update(const void* data, std::size_t size);
    void update(const std::string& text) { update(text.data(), text.size()); }
    std::array<std::uint8_t, 32> digest();  // finishes; the object is then spent
    std::string hex_digest();

  private:
    void compress(const std::uint8_t* block);
    std::uint32_t state_[8];
    std::uint8_t buffer_[64];
    std::size_t buffered_ = 0;
    std::uint64_t total_bytes_ = 0;
};

// Lower-case hex SHA-256 of `text`.
std::string sha256_hex(const std::string& text);

}  // namespace llmv
