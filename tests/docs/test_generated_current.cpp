// The files written from the engine's tables (settings, providers) are current: each one as
// tools/generate would write it. The generator is the tool, not this test, which only compares.
#include <catch2/catch.hpp>

#include "generated.hpp"

TEST_CASE("generated files are current", "[docs]") {
    for (const auto& file : llmv::generate::generated_files(LLMV_SOURCE_DIR)) {
        INFO(file.path << " is not what the engine's tables write: run `cmake --build build "
                          "--target generate-docs` (or build/tools/generate/llmv_generate "
                          "--write) and commit the result");
        CHECK(llmv::generate::read_file(LLMV_SOURCE_DIR, file.path) == file.text);
    }
}

// The check can fail: a region edited by hand is found.
TEST_CASE("a generated region edited by hand is not current", "[docs]") {
    const std::string text = "a\n# BEGIN GENERATED x: y\nold\n# END GENERATED\nb\n";
    CHECK(llmv::generate::with_region(text, "x", "new\n") ==
          "a\n# BEGIN GENERATED x: y\nnew\n# END GENERATED\nb\n");
    CHECK(llmv::generate::region_marker(text, "x") == ": y");
    CHECK_THROWS(llmv::generate::with_region(text, "z", "new\n"));
}
