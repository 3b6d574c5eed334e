// Helpers every host test file needs (the Catch2 host only; the Windows transcript has its own
// set-up): loading the plugin, a fresh temporary path, bit-for-bit comparison of doubles.
#pragma once

#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fake_stata.hpp"

namespace host {

inline void load_plugin(Stata& stata) {
    stata.load(LLMV_PLUGIN_PATH);
    REQUIRE(stata.pginit_result == 3);
}

// A path that no file holds yet, ending in `stem` (".sqlite", ".csv", ...).
inline std::string temporary_path(const std::string& stem) {
    char path[] = "/tmp/llmv_stata_XXXXXX";
    const int fd = mkstemp(path);
    close(fd);
    std::remove(path);
    return std::string(path) + stem;
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace host
