// Parity of the front ends with the engine's settings table (issue 10): each test walks the
// whole table, so a front end (or the documentation) that drifts from it fails here.
//   - CLI: `llmvalidate run --help` shows every setting the CLI offers with the table's range
//     and default;
//   - Stata: the `syntax` line of `llmvalidate varname` declares every setting Stata offers,
//     as a string without a default (the table's holds: the ado passes a setting only when
//     given);
// The files written from the table (docs/settings.md, the ado's and help's regions, ...) are
// checked by tests/docs/ (tools/generate writes them). R's parity test is
// rpkg/tests/testthat/test-settings.R.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli/cli_runner.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/validation_config.hpp"

using namespace llmv;

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The ado-file as Stata reads it: its /* */ comments (the GENERATED markers) dropped.
std::string read_ado() {
    return std::regex_replace(read_text(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.ado"),
                              std::regex(R"(/\*[^*]*\*/)"), "");
}

std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// The `syntax` statement of `program define <name>` in an ado-file, continuation lines joined.
std::string syntax_of(const std::string& ado, const std::string& program) {
    const std::size_t start = ado.find("program define " + program);
    REQUIRE(start != std::string::npos);
    const std::size_t syntax = ado.find("syntax ", start);
    REQUIRE(syntax != std::string::npos);
    std::string joined;
    std::size_t position = syntax;
    while (true) {
        const std::size_t end = ado.find('\n', position);
        std::string line = ado.substr(position, end - position);
        const std::size_t continuation = line.find("///");
        joined += line.substr(0, continuation) + " ";
        if (continuation == std::string::npos || end == std::string::npos) break;
        position = end + 1;
    }
    return joined;
}

}  // namespace

TEST_CASE("CLI: --help shows every setting of the table with its range and default",
          "[settings][parity][cli]") {
    const cli_test::CliResult help = cli_test::run_cli({"run", "--help"});
    REQUIRE(help.exit_code == 0);
    // --help wraps long lines: compare with white space collapsed.
    const std::string text = std::regex_replace(help.out, std::regex("\\s+"), " ");
    for (const settings::Setting& setting : settings::table()) {
        if (setting.cli.empty() || setting.by_hand) continue;
        INFO(setting.name);
        CHECK(text.find(setting.cli) != std::string::npos);
        if (setting.kind == settings::Kind::flag || setting.optional) continue;
        CHECK(text.find(settings::allowed(setting) + "; default " +
                        pipeline::setting_default(setting) + ".") != std::string::npos);
    }
}

// The knobs the CLI reads with code of its own (--provider, --cache, --batch-api, ...) are
// options of one of its commands under the table's spelling.
TEST_CASE("CLI: every knob it reads by hand is an option under the table's spelling",
          "[settings][parity][cli]") {
    std::string helps;
    for (const char* command : {"run", "batch", "power"}) {
        const cli_test::CliResult help = cli_test::run_cli({command, "--help"});
        REQUIRE(help.exit_code == 0);
        helps += help.out;
    }
    for (const settings::Setting& setting : settings::table()) {
        if (!setting.by_hand || setting.cli.rfind("--", 0) != 0) continue;
        INFO(setting.name << " as " << setting.cli);
        CHECK(std::regex_search(helps, std::regex(setting.cli + "\\b")));
        if (!setting.cli_short.empty()) CHECK(helps.find(setting.cli_short + ",") != std::string::npos);
    }
}

TEST_CASE("CLI: a setting outside its range is refused with the table's message",
          "[settings][parity][cli]") {
    const cli_test::CliResult result = cli_test::run_cli(
        {"run", "--task", "simple_sentiment", "--provider", "simulated", "--text", "x",
         "--alpha", "0.6", "--no-cache"});
    CHECK(result.exit_code == 3);
    CHECK(result.err.find("`--alpha` must be a number in [1e-06, 0.5]; received 0.6.") !=
          std::string::npos);
}

// The names of a program's `foreach setting in ... {` list (continuation lines joined): the
// settings the ado passes to the plugin, each only when given.
std::set<std::string> passed_settings(const std::string& ado, const std::string& program) {
    const std::size_t start = ado.find("program define " + program);
    REQUIRE(start != std::string::npos);
    const std::size_t loop = ado.find("foreach setting in ", start);
    REQUIRE(loop != std::string::npos);
    REQUIRE(loop < ado.find("\nend", start));
    const std::string list =
        std::regex_replace(ado.substr(loop, ado.find('{', loop) - loop), std::regex("///\\s*"), " ");
    std::istringstream words(list.substr(std::string("foreach setting in ").size()));
    std::set<std::string> names;
    for (std::string word; words >> word;) names.insert(word);
    return names;
}

// Every setting the table gives the subcommand (Setting::stata_commands) is an option of the ado
// program's `syntax`, as a string without a default, and the ado passes it only when given: the
// engine's table holds the default, and the plugin parses and checks the value (so no default
// is restated). A knob read by hand (provider(), batchapi, ...) is declared under its spelling.
static void check_stata_syntax(const std::string& program, unsigned command) {
    const std::string ado = read_ado();
    const std::string syntax = syntax_of(ado, program);
    const std::set<std::string> passed = passed_settings(ado, program);
    // OPTion(type default): the capital letters are the minimal abbreviation.
    const std::regex option("([A-Za-z]+)\\(([a-z]+)(?: ([-0-9.e]+))?\\)");
    std::map<std::string, std::pair<std::string, std::string>> declared;  // name -> type, default
    for (auto it = std::sregex_iterator(syntax.begin(), syntax.end(), option);
         it != std::sregex_iterator(); ++it)
        declared[lower((*it)[1].str())] = {(*it)[2].str(), (*it)[3].str()};
    for (const settings::Setting& setting : settings::table()) {
        if (setting.stata.empty() || (setting.stata_commands & command) == 0) continue;
        INFO(program << ": " << setting.name << " as " << setting.stata_syntax);
        if (setting.kind == settings::Kind::flag) {
            CHECK(std::regex_search(syntax, std::regex("\\b" + setting.stata_syntax + "\\b")));
            continue;
        }
        if (setting.by_hand) {  // any type: VARS(string asis), SIMPrompt(varname string), ...
            CHECK(std::regex_search(syntax, std::regex("\\b" + setting.stata_syntax + "\\(")));
            continue;
        }
        const auto found = declared.find(setting.stata);
        REQUIRE(found != declared.end());
        const auto& [type, default_value] = found->second;
        CHECK(type == "string");
        CHECK(default_value.empty());
        // The seed is drawn from Stata's generator when empty, and always passed.
        if (setting.kind != settings::Kind::seed) CHECK(passed.count(setting.stata) == 1);
    }
}

TEST_CASE("Stata: each subcommand's syntax declares every setting the table gives it, and "
          "restates no default",
          "[settings][parity][stata]") {
    check_stata_syntax("Validate", settings::stata_validate);
    check_stata_syntax("Power", settings::stata_power);
    // llmvalidate test reads its options through the table too (its messages name alpha()).
    check_stata_syntax("Test", settings::stata_test);
}

// The ado restates no default, so the help is where a Stata user reads them: every
// "default {cmd:name(value)}" of llmvalidate.sthlp names the table's default.
TEST_CASE("Stata: every default the help states is the table's", "[settings][parity][stata]") {
    const std::string help = read_text(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.sthlp");
    const std::regex stated("default \\{cmd:([a-z]+)\\(([^)]*)\\)\\}");
    std::set<std::string> checked;
    for (auto it = std::sregex_iterator(help.begin(), help.end(), stated);
         it != std::sregex_iterator(); ++it) {
        const std::string name = (*it)[1].str(), value = (*it)[2].str();
        for (const settings::Setting& setting : settings::table()) {
            if (setting.stata != name) continue;
            const std::string default_text = pipeline::setting_default(setting);
            INFO(name << "(" << value << ") in the help; the table: " << default_text);
            CHECK(std::strtod(value.c_str(), nullptr) ==
                  std::strtod(default_text.c_str(), nullptr));
            checked.insert(name);
        }
    }
    // Every number Stata offers with a default of its own is stated in the help.
    for (const settings::Setting& setting : settings::table()) {
        const bool numeric =
            setting.kind == settings::Kind::integer || setting.kind == settings::Kind::number;
        if (setting.stata.empty() || !numeric || setting.optional || setting.by_hand) continue;
        INFO(setting.stata);
        CHECK(checked.count(setting.stata) == 1);
    }
}
