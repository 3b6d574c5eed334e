// SHA-256 against the FIPS 180-2 examples (and coreutils' sha256sum for the others).
#include <catch2/catch.hpp>

#include "core/sha256.hpp"

TEST_CASE("SHA-256 matches the published test vectors") {
    CHECK(llmv::sha256_hex("") ==
          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(llmv::sha256_hex("abc") ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(llmv::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(llmv::sha256_hex(std::string(1000000, 'a')) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("SHA-256 in pieces equals SHA-256 at once, across block boundaries") {
    std::string text;
    for (int i = 0; i < 300; ++i) text.push_back(static_cast<char>('a' + i % 26));
    const std::string whole = llmv::sha256_hex(text);
    for (std::size_t split :
         {std::size_t{0}, std::size_t{1}, std::size_t{55}, std::size_t{56}, std::size_t{63},
          std::size_t{64}, std::size_t{65}, std::size_t{128}, std::size_t{299}}) {
        llmv::Sha256 hasher;
        hasher.update(text.substr(0, split));
        hasher.update(text.substr(split));
        CHECK(hasher.hex_digest() == whole);
    }
    // 55, 56 and 64 bytes straddle the padding boundary (printf '%55s' | tr ' ' x | sha256sum).
    CHECK(llmv::sha256_hex(std::string(55, 'x')) ==
          "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
    CHECK(llmv::sha256_hex(std::string(56, 'x')) ==
          "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
    CHECK(llmv::sha256_hex(std::string(64, 'x')) ==
          "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
}
