// Which platform gets which plugin: the .pkg installs the Windows and the Linux plugin under the
// name the ado-file loads, and on macOS (no plugin distributed) the ado-file's message names
// CMake presets that exist, not a reinstall.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string source_text(const std::string& relative) {
    std::ifstream in(std::string(LLMV_SOURCE_DIR) + "/" + relative, std::ios::binary);
    INFO(relative);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The lines of the ado-file's branch that starts at the first line containing `opening`, up to
// its closing brace at the same indentation.
std::string branch(const std::string& text, const std::string& opening) {
    const std::size_t start = text.find(opening);
    REQUIRE(start != std::string::npos);
    const std::size_t line_start = text.rfind('\n', start) + 1;
    const std::string indent = text.substr(line_start, text.find_first_not_of(' ', line_start) - line_start);
    const std::size_t end = text.find("\n" + indent + "}", start);
    REQUIRE(end != std::string::npos);
    return text.substr(start, end - start);
}

}  // namespace

TEST_CASE("the .pkg installs the Windows and the Linux plugin as the file the ado-file loads",
          "[install][platforms]") {
    const std::string ado = source_text("stata/llmvalidate.ado");
    std::smatch loaded;
    REQUIRE(std::regex_search(ado, loaded, std::regex(R"(plugin\s+using\(\"([^\"]+)\"\))")));
    std::istringstream pkg(source_text("stata/llmvalidate.pkg"));
    std::set<std::string> platforms;
    for (std::string line; std::getline(pkg, line);) {
        std::istringstream words(line);
        std::string kind, platform, file, installed;
        words >> kind >> platform >> file >> installed;
        if (kind != "g") continue;
        INFO(line);
        REQUIRE((installed.empty() ? file : installed) == loaded[1].str());
        platforms.insert(platform);
    }
    REQUIRE(platforms == std::set<std::string>{"LINUX64", "WIN64A"});
}

TEST_CASE("on macOS the ado-file names the platform and CMake presets that exist, not a reinstall",
          "[install][platforms]") {
    const std::string mac = branch(source_text("stata/llmvalidate.ado"), "\"MacOSX\"");
    INFO(mac);
    REQUIRE(mac.find("macOS") != std::string::npos);
    REQUIRE(mac.find("exit 601") != std::string::npos);
    REQUIRE(mac.find("reinstall") == std::string::npos);

    const auto presets = nlohmann::json::parse(source_text("CMakePresets.json"));
    std::set<std::string> configure, build;
    for (const auto& preset : presets.at("configurePresets"))
        configure.insert(preset.at("name").get<std::string>());
    for (const auto& preset : presets.at("buildPresets"))
        build.insert(preset.at("name").get<std::string>());
    const std::regex named(R"(\{bf:(macos-[a-z0-9_]+)\})");
    std::vector<std::string> names;
    for (auto it = std::sregex_iterator(mac.begin(), mac.end(), named); it != std::sregex_iterator();
         ++it)
        names.push_back((*it)[1].str());
    REQUIRE(names.size() >= 2);
    for (const auto& name : names) {
        INFO("preset " << name);
        REQUIRE(configure.count(name) == 1);
        REQUIRE(build.count(name) == 1);
    }
}
