// The files, and regions of files, written from the engine's tables (settings, providers): what
// each should hold. `llmv_generate --write` writes them (cmake --build build --target
// generate-docs); the ctest "generated files are current" fails when one differs.
//
// A region is the lines strictly between a line holding `BEGIN GENERATED <name>` (the name
// ending at a space, a colon, `*/` or `}`) and the next line holding `END GENERATED`; the rest
// of such a file is written by hand.
#pragma once

#include <string>
#include <vector>

namespace llmv::generate {

struct GeneratedFile {
    std::string path;  // relative to the source tree
    std::string text;  // what the file should hold
};

// Every generated file as it should be, read from (and its regions placed into) the files of
// the source tree at `source_dir`. Throws std::runtime_error when a file or region is missing.
std::vector<GeneratedFile> generated_files(const std::string& source_dir);

// Helpers of the generators (generated_*.cpp).
std::string read_file(const std::string& source_dir, const std::string& relative);
// `text` with the lines of region `name` replaced by `lines`; throws when it is not there.
std::string with_region(const std::string& text, const std::string& name, const std::string& lines);
// The text after `BEGIN GENERATED <name>` on its marker line (up to its end), e.g. the formals
// an R region lists; throws when the region is not there.
std::string region_marker(const std::string& text, const std::string& name);

// The generators, each of the files it owns (applied in turn to a file two of them share).
std::string settings_markdown();
std::string settings_doc_r();
std::string stata_ado(std::string ado);
std::string stata_help(std::string help);
std::string test_format(std::string markdown);
std::string providers_markdown(std::string markdown);
std::string stata_help_providers(std::string help);
std::string r_formals(std::string source);

}  // namespace llmv::generate
