// Every command of llmvalidate.sthlp's Examples section, run in the help's order through the
// host, as a user would type them after `net install` and `net get` (issue 30):
//   - `net get llmvalidate` copies the package's ancillary files (the `f` lines of
//     llmvalidate.pkg that are not ado, help or plugin files) from the install folder into a
//     scratch folder, which becomes the working directory;
//   - `use` and `import delimited` load those files as Stata would;
//   - each `llmvalidate` line is read against the ado-file's own `syntax` statements (option
//     names, abbreviations, which take quotes as typed) and turned into the plugin calls its
//     program makes; an option the program does not declare fails the test;
//   - `matrix list`, `display`, `tabulate` and `list` check that what they would show exists.
// The commands run on the example do-file's data (`llmvalidate test`, and `regress`,
// `estimates store`, `llmvalidate` alone (the replay), `estadd` and `esttab` beside them) are
// the do-file's own commands (test_example.cpp checks the `llmvalidate test` lines and that
// every other one is a line of the do-file); `do llmv_example.do` only needs the file to be there. Any other
// line this runner does not know fails the test, so the help cannot show a command that was
// never run.
// The one change made to a line: the examples that call Anthropic's API get baseurl(),
// embbaseurl() and embmodel() pointing at the fake provider server on 127.0.0.1, and fake keys
// in the environment. The replay of the ado-file itself is ado_session.hpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ado_session.hpp"
#include "fake_server_process.hpp"
#include "fake_stata.hpp"
#include "host_test_helpers.hpp"
#include "phrasebank_dta.hpp"
#include "section4_csv.hpp"

using namespace host;

namespace {

namespace fs = std::filesystem;

std::vector<std::string> example_lines(const std::string& help) {
    const auto begin = help.find("{title:Examples}");
    const auto end = help.find("{title:", begin + 1);
    REQUIRE(begin != std::string::npos);
    const std::string section = help.substr(begin, end - begin);
    std::vector<std::string> lines;
    const std::regex command(R"(\{phang2\}\{cmd:(.*)\}\{p_end\})");
    std::istringstream in(section);
    for (std::string line; std::getline(in, line);) {
        std::smatch match;
        if (std::regex_match(line, match, command)) lines.push_back(decode_smcl(match[1].str()));
    }
    return lines;
}

// The package's ancillary files: its `f` lines that net install does not put on the ado-path.
std::vector<std::string> ancillary_files() {
    std::vector<std::string> files;
    std::istringstream pkg(
        read_whole_file(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.pkg"));
    for (std::string line; std::getline(pkg, line);) {
        if (line.rfind("f ", 0) != 0) continue;
        const std::string file = line.substr(2);
        const std::string extension = fs::path(file).extension().string();
        if (extension != ".ado" && extension != ".sthlp" && extension != ".plugin")
            files.push_back(file);
    }
    return files;
}

// Restores the working directory and the environment the examples changed.
struct Restore {
    fs::path directory = fs::current_path();
    ~Restore() {
        fs::current_path(directory);
        for (const char* name :
             {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LLMV_API_KEY", "LLMV_EMBEDDING_API_KEY",
              "LLMV_CACHE"})
            ::unsetenv(name);
    }
};

}  // namespace

TEST_CASE("every command of the help's Examples runs through the host, in the help's order",
          "[examples][help][server]") {
    const std::string help =
        read_whole_file(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.sthlp");
    const std::vector<std::string> lines = example_lines(help);
    REQUIRE(lines.size() > 20);

    Restore restore;
    Session session;
    load_plugin(session.stata);
    session.folder = fs::path(temporary_path("_examples"));
    fs::create_directories(session.folder);
    fs::current_path(session.folder);
    // The per-user cache stays untouched: the default cache is one of the test's own.
    ::setenv("LLMV_CACHE", (session.folder / "user_cache.sqlite").c_str(), 1);
    ::unsetenv("ANTHROPIC_API_KEY");
    ::unsetenv("OPENAI_API_KEY");

    std::size_t delegated = 0;
    bool on_do_file_data = false;  // after a `llmvalidate test`: its regress/estadd/esttab
    for (const std::string& line : lines) {
        INFO("help line: " << line);
        std::smatch m;
        if (line == "net get llmvalidate") {
            for (const std::string& file : ancillary_files()) {
                const fs::path source = fs::path(LLMV_NET_FOLDER) / file;
                REQUIRE(fs::exists(source));
                fs::copy_file(source, session.folder / file, fs::copy_options::overwrite_existing);
            }
        } else if (std::regex_match(line, m, std::regex(R"(do (\S+))"))) {
            REQUIRE(fs::exists(session.folder / m[1].str()));  // run by test_example.cpp
            ++delegated;
        } else if (line.rfind("llmvalidate test ", 0) == 0) {
            on_do_file_data = true;  // the do-file's data: test_example.cpp runs these lines
            ++delegated;
        } else if (on_do_file_data &&
                   (line.rfind("regress ", 0) == 0 || line.rfind("estimates store ", 0) == 0 ||
                    line.rfind("estadd ", 0) == 0 || line.rfind("esttab", 0) == 0 ||
                    line == "llmvalidate" || line == "return list" ||
                    line.rfind("matrix list ", 0) == 0 || line.rfind("tabulate ", 0) == 0)) {
            ++delegated;
        } else if (std::regex_match(line, m, std::regex(R"(use (\w+), clear)"))) {
            on_do_file_data = false;
            REQUIRE(m[1].str() == "llmv_phrasebank");
            const auto rows = read_dta((session.folder / "llmv_phrasebank.dta").string());
            Stata& stata = session.stata;
            stata.clear();
            std::vector<double> row, agreement;
            std::vector<std::string> sentence, label;
            for (const auto& r : rows) {
                row.push_back(r.row);
                sentence.push_back(r.sentence);
                label.push_back(r.label);
                agreement.push_back(r.agreement);
            }
            stata.add_numeric("row", row);
            stata.add_string("sentence", sentence, false);
            stata.add_string("label", label, false);
            stata.add_numeric("agreement", agreement);
            stata.select_all();
        } else if (line.rfind("import delimited using llmv_section4.csv", 0) == 0) {
            on_do_file_data = false;
            REQUIRE(fs::exists(session.folder / "llmv_section4.csv"));
            load_section4(session.stata);
        } else if (std::regex_match(line, m, std::regex(R"(set seed (\d+))"))) {
            session.stata_seed = std::stoull(m[1].str());
        } else if (line.rfind("llmvalidate ", 0) == 0) {
            on_do_file_data = false;
            if (line.find("provider(anthropic)") != std::string::npos && !session.server) {
                session.server = std::make_unique<FakeServerProcess>();
                ::setenv("ANTHROPIC_API_KEY", "sk-host-secret", 1);
                // ANTHROPIC_API_KEY goes to Anthropic's hosts only: the fake server the runner
                // substitutes gets the key named for a server of one's own.
                ::setenv("LLMV_API_KEY", "sk-host-secret", 1);
                ::setenv("OPENAI_API_KEY", "sk-host-secret", 1);
                // OpenAI's key goes to OpenAI's hosts only: the embedding server the runner
                // substitutes gets the key named for a server of one's own.
                ::setenv("LLMV_EMBEDDING_API_KEY", "sk-host-secret", 1);
            }
            session.run(line);
            session.ran.insert(line);
        } else if (std::regex_match(line, m, std::regex(R"(matrix list r\((\w+)\))"))) {
            REQUIRE(session.last);
            CHECK(session.last->matrices.count(m[1].str()) == 1);
        } else if (std::regex_match(line, m, std::regex(R"(display r\((\w+)\))"))) {
            REQUIRE(session.last);
            CHECK(session.last->scalars.count(m[1].str()) == 1);
        } else if (line == "return list") {
            REQUIRE(session.last);
        } else if (std::regex_match(line, m, std::regex(R"((?:tabulate|list) ([\w ]+))"))) {
            std::istringstream names(m[1].str());
            for (std::string name; names >> name;) {
                INFO("variable " << name);
                REQUIRE(session.stata.find(name) >= 0);
            }
        } else {
            FAIL("the runner does not know this line of the help");
        }
    }
    // Every llmvalidate command the help shows outside the do-file's block ran here.
    std::size_t commands = 0;
    for (const std::string& line : lines)
        if (line.rfind("llmvalidate ", 0) == 0 && line.rfind("llmvalidate test ", 0) != 0)
            ++commands;
    CHECK(session.ran.size() == commands);
    CHECK(commands >= 14);
    CHECK(delegated >= 4);
    // The example with LLM calls made them against the fake server only: the dry run none.
    REQUIRE(session.server);
    CHECK(session.server->control("/_control/counters").value("total", -1) > 0);
}
