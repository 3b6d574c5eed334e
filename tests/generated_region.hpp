// Files, and regions of files, that the tests write from the engine's tables: a test computes
// the expected text, LLMV_UPDATE_DOCS=1 writes it, and otherwise the test fails on any drift.
// A region is the lines strictly between a line holding `BEGIN GENERATED <name>` (the name
// ending at a space, a colon, `*/` or `}`) and the next line holding `END GENERATED`; the rest
// of such a file is written by hand.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace llmv::test {

inline std::string read_source_file(const std::string& relative) {
    std::ifstream in(std::string(LLMV_SOURCE_DIR) + "/" + relative);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// `text` with the lines of region `name` replaced by `lines`; the region must be there.
inline std::string with_region(const std::string& text, const std::string& name,
                               const std::string& lines) {
    std::smatch marker;
    INFO("region " << name);
    REQUIRE(std::regex_search(text, marker, std::regex("BEGIN GENERATED " + name + "[ :*}]")));
    const std::size_t begin = static_cast<std::size_t>(marker.position(0));
    const std::size_t first = text.find('\n', begin) + 1;
    const std::size_t end_marker = text.find("END GENERATED", first);
    REQUIRE(end_marker != std::string::npos);
    const std::size_t last = text.rfind('\n', end_marker) + 1;
    return text.substr(0, first) + lines + text.substr(last);
}

// Checks the file `relative` (under the source tree) against `expected`; LLMV_UPDATE_DOCS=1
// rewrites it first.
inline void check_generated(const std::string& relative, const std::string& expected) {
    if (const char* update = std::getenv("LLMV_UPDATE_DOCS"); update && *update == '1') {
        std::ofstream(std::string(LLMV_SOURCE_DIR) + "/" + relative) << expected;
    }
    const std::string actual = read_source_file(relative);
    INFO(relative << " should be:\n" << expected);
    CHECK(actual == expected);
}

}  // namespace llmv::test
