// The list of generated files, and the region helpers.
#include "generated.hpp"

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace llmv::generate {

std::string read_file(const std::string& source_dir, const std::string& relative) {
    std::ifstream in(source_dir + "/" + relative, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + relative);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

namespace {

// The offset of region `name`'s marker, and of the first and past-the-last of its lines.
struct Region {
    std::size_t marker, first, last;
};

Region find_region(const std::string& text, const std::string& name) {
    std::smatch marker;
    if (!std::regex_search(text, marker, std::regex("BEGIN GENERATED " + name + "[ :*}\n]")))
        throw std::runtime_error("no region `BEGIN GENERATED " + name + "`");
    const auto begin = static_cast<std::size_t>(marker.position(0));
    const std::size_t first = text.find('\n', begin) + 1;
    const std::size_t end_marker = text.find("END GENERATED", first);
    if (end_marker == std::string::npos)
        throw std::runtime_error("region " + name + " has no END GENERATED");
    return {begin, first, text.rfind('\n', end_marker) + 1};
}

}  // namespace

std::string with_region(const std::string& text, const std::string& name,
                        const std::string& lines) {
    const Region region = find_region(text, name);
    return text.substr(0, region.first) + lines + text.substr(region.last);
}

std::string region_marker(const std::string& text, const std::string& name) {
    const Region region = find_region(text, name);
    const std::size_t after = region.marker + std::string("BEGIN GENERATED ").size() + name.size();
    return text.substr(after, region.first - 1 - after);
}

std::vector<GeneratedFile> generated_files(const std::string& source_dir) {
    const auto current = [&](const std::string& relative) {
        return read_file(source_dir, relative);
    };
    std::vector<GeneratedFile> files = {
        {"docs/settings.md", settings_markdown()},
        {"rpkg/R/settings-doc.R", settings_doc_r()},
        {"stata/llmvalidate.ado", stata_ado(current("stata/llmvalidate.ado"))},
        {"stata/llmvalidate.sthlp",
         stata_help_providers(stata_help(current("stata/llmvalidate.sthlp")))},
        {"docs/test-format.md", test_format(current("docs/test-format.md"))},
        {"docs/providers.md", providers_markdown(current("docs/providers.md"))},
    };
    // The R functions whose formals show settings' defaults: a region in their signature.
    for (const char* file : {"rpkg/R/tests.R", "rpkg/R/validate_embeddings.R",
                             "rpkg/R/llm_validate.R", "rpkg/R/power.R", "rpkg/R/providers.R"})
        files.push_back({file, r_formals(current(file))});
    return files;
}

}  // namespace llmv::generate
