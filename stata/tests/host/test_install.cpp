// `net install llmvalidate, from(<folder>)`, as far as a test without Stata can show it: the
// folder the build filled for readers (the repository's stata/, or build/stata/net when the
// plugin is not copied into the sources) is installed the way net install reads it (the .pkg's
// `f` files and the `g LINUX64` files copied into an empty ado folder), and the installed
// plugin is loaded and answers `version`.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fake_stata.hpp"

using namespace host;

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void copy_file(const std::string& from, const std::string& to) {
    std::ifstream in(from, std::ios::binary);
    INFO("the .pkg names " << from);
    REQUIRE(in.good());
    std::ofstream out(to, std::ios::binary);
    out << in.rdbuf();
    REQUIRE(out.good());
}

bool exists(const std::string& path) {
    struct stat info;
    return ::stat(path.c_str(), &info) == 0;
}

std::vector<std::string> words_of(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string word; in >> word;) words.push_back(word);
    return words;
}

}  // namespace

TEST_CASE("net install from the folder the build filled: every file is there and the plugin loads",
          "[install]") {
    const std::string folder = LLMV_NET_FOLDER;
    INFO("net install folder " << folder);
    REQUIRE(read_text(folder + "/stata.toc").find("\np llmvalidate ") != std::string::npos);

    char temporary[] = "/tmp/llmv_ado_XXXXXX";
    REQUIRE(mkdtemp(temporary) != nullptr);
    const std::string ado = temporary;
    char current[] = "/tmp/llmv_get_XXXXXX";  // the current folder, where net get copies
    REQUIRE(mkdtemp(current) != nullptr);
    std::vector<std::string> installed, ancillary;
    // Stata's rule: an `f` file goes onto the ado-path only when its suffix is one Stata
    // installs (.ado, .sthlp, .plugin, ...); any other `f` file is ancillary (net get copies it
    // into the current folder). `F` files always go onto the ado-path.
    const std::set<std::string> installable = {".ado",  ".class", ".sthlp", ".key",    ".mnu",
                                               ".dlg",  ".idlg",  ".jar",   ".mata",   ".mlib",
                                               ".mo",   ".plugin", ".py",   ".scheme", ".stbcal",
                                               ".style"};
    std::istringstream pkg(read_text(folder + "/llmvalidate.pkg"));
    for (std::string line; std::getline(pkg, line);) {
        const auto words = words_of(line);
        if (words.size() >= 2 && (words[0] == "f" || words[0] == "F")) {
            const auto dot = words[1].rfind('.');
            const std::string suffix = dot == std::string::npos ? "" : words[1].substr(dot);
            if (words[0] == "F" || installable.count(suffix)) {
                copy_file(folder + "/" + words[1], ado + "/" + words[1]);
                installed.push_back(words[1]);
            } else {
                copy_file(folder + "/" + words[1], std::string(current) + "/" + words[1]);
                ancillary.push_back(words[1]);
            }
        } else if (words.size() >= 3 && words[0] == "g" && words[1] == "LINUX64") {
            const std::string& target = words.size() >= 4 ? words[3] : words[2];
            copy_file(folder + "/" + words[2], ado + "/" + target);
            installed.push_back(target);
        }
    }
    // The shipped tasks land on the ado-path too, where the ado-file's findfile looks for
    // task(simple_sentiment) (test_tasks.cpp checks every task of the catalog).
    for (const char* needed :
         {"llmvalidate.ado", "estadd_llmvalidate.ado", "llmvalidate.sthlp", "llmvalidate.plugin",
          "simple_sentiment.toml", "detailed_sentiment.toml"}) {
        INFO(needed);
        REQUIRE(exists(ado + "/" + needed));
    }

    // The plugin the ado-file loads is the one installed, and it is a plugin of this build.
    std::smatch match;
    const std::string command = read_text(ado + "/llmvalidate.ado");
    REQUIRE(std::regex_search(command, match, std::regex(R"(plugin\s+using\(\"([^\"]+)\"\))")));
    const std::string plugin = ado + "/" + match[1].str();
    REQUIRE(exists(plugin));
    {
        Stata stata;
        stata.load(plugin);
        REQUIRE(stata.pginit_result == 3);
        REQUIRE(stata.call({"version", "quiet=1"}) == 0);
        REQUIRE(stata.local("llmv_version") == LLMV_VERSION);
        REQUIRE(stata.local("llmv_spi") == "3.0");
        REQUIRE(stata.output.empty());
    }
    // The example datasets are ancillary: net get puts them in the current folder.
    for (const std::string data : {"llmv_phrasebank.dta", "llmv_section4.csv"}) {
        CHECK(exists(std::string(current) + "/" + data));
        CHECK_FALSE(exists(ado + "/" + data));
    }
    for (const auto& name : installed) std::remove((ado + "/" + name).c_str());
    for (const auto& name : ancillary) std::remove((std::string(current) + "/" + name).c_str());
    REQUIRE(rmdir(ado.c_str()) == 0);
    REQUIRE(rmdir(current) == 0);
}
