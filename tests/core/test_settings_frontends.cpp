// Parity of the front ends with the engine's settings table (issue 10): each test walks the
// whole table, so a front end (or the documentation) that drifts from it fails here.
//   - CLI: `llmvalidate run --help` shows every setting the CLI offers with the table's range
//     and default;
//   - Stata: the `syntax` line of `llmvalidate varname` declares every setting Stata offers,
//     as a string without a default (the table's holds: the ado passes a setting only when
//     given);
//   - docs/settings.md is the table (regenerate: LLMV_UPDATE_DOCS=1 build/tests/test_core "[docs]").
// R's parity test is rpkg/tests/testthat/test-settings.R.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli/cli_runner.hpp"
#include "generated_region.hpp"
#include "llmvalidate/settings.hpp"

using namespace llmv;
using llmv::test::check_generated;
using llmv::test::with_region;

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

std::string markdown_table() {
    std::string text =
        "# Settings\n\n"
        "Generated from the engine's settings table (`cpp/include/llmvalidate/settings.hpp`);\n"
        "`tests/core/test_settings_frontends.cpp` fails when this file and the table differ.\n"
        "A dash: the front end does not offer the setting.\n\n"
        "| Setting | CLI | R | Stata | Default | Allowed | What it does |\n"
        "|---|---|---|---|---|---|---|\n";
    auto cell = [](const std::string& value) { return value.empty() ? std::string("-") : "`" + value + "`"; };
    for (const settings::Setting& setting : settings::table()) {
        std::string default_text = settings::default_text(setting);
        if (setting.kind == settings::Kind::flag) default_text = "off";
        if (setting.optional && default_text.empty()) default_text = "the provider's";
        text += "| " + setting.name + " | " + cell(setting.cli) + " | " + cell(setting.r) + " | " +
                (setting.stata.empty() ? std::string("-") : "`" + setting.stata + "()`") + " | " +
                default_text + " | " + settings::allowed(setting) + " | " + setting.doc + " |\n";
    }
    text += "\nR draws `seed` from R's random-number generator when it is `NULL` (its default),\n"
            "and Stata from Stata's (`set seed`), so that each session's own seed governs.\n";
    return text;
}

// The R source that carries the table's documentation into the help of llm_validate()'s `...`
// (roxygen2 evaluates rpkg/R/validate-arguments.R's dots_settings_help(), which reads it).
std::string r_doc_source() {
    const auto quoted = [](const std::string& value) {
        std::string out = "\"";
        for (char c : value) {
            if (c == '"' || c == '\\') out += '\\';
            out += c;
        }
        return out + "\"";
    };
    std::string r, group, default_value, allowed, doc;
    for (const settings::Setting& setting : settings::table()) {
        if (setting.r.empty()) continue;
        const std::string separator = r.empty() ? "" : ",\n      ";
        r += separator + quoted(setting.r);
        group += separator + quoted(setting.group == settings::Group::simulated ? "simulated" : "validation");
        std::string default_text = settings::default_text(setting);
        if (setting.optional && default_text.empty()) default_text = "the provider's";
        default_value += separator + quoted(default_text);
        allowed += separator + quoted(settings::allowed(setting));
        doc += separator + quoted(setting.doc);
    }
    return "# Generated from the engine's settings table (cpp/stats/settings.cpp) by\n"
           "# `LLMV_UPDATE_DOCS=1 build/tests/test_core \"[docs]\"`, which fails when this file and\n"
           "# the table differ: edit the table, not this file. roxygen2 writes the help of\n"
           "# llm_validate()'s `...` from it; at run time R reads the engine's table itself.\n"
           "settings_doc_table <- function() {\n"
           "  data.frame(\n"
           "    r = c(" + r + "),\n"
           "    group = c(" + group + "),\n"
           "    default = c(" + default_value + "),\n"
           "    allowed = c(" + allowed + "),\n"
           "    doc = c(" + doc + "),\n"
           "    stringsAsFactors = FALSE\n"
           "  )\n"
           "}\n";
}

// ---- the Stata regions written from the table ----------------------------------------------
// The ado-file and the help carry the engine's settings in regions that this test writes: the
// lines strictly between a line holding `BEGIN GENERATED <name>` and the next line holding
// `END GENERATED`. Everything else in those files is written by hand.

// Whose options a region lists.
bool is_validate_option(const settings::Setting& s) {
    return !s.stata.empty() && s.kind != settings::Kind::seed && s.group == settings::Group::validation;
}
bool is_test_option(const settings::Setting& s) {
    return !s.stata.empty() && s.kind != settings::Kind::seed && s.statistics;
}
bool is_simulated_option(const settings::Setting& s) {
    return !s.stata.empty() && s.kind != settings::Kind::seed && s.group == settings::Group::simulated;
}
// The sizes and concurrency that `llmvalidate power` and `test` also declare by hand (beside
// the statistics): every other validation setting is an option of validation alone, which
// the ado's IsValidation reads to tell `llmvalidate test, timeout(9)` (a variable named
// test) from the subcommand.
bool is_validation_only_option(const settings::Setting& s) {
    static const std::set<std::string> shared = {"M", "n", "repeats", "concurrency"};
    return is_validate_option(s) && !s.statistics && shared.count(s.name) == 0;
}

// Words joined into `///`-continued lines of an ado command, each `indent` deep.
std::string ado_lines(const std::vector<std::string>& words, const std::string& indent) {
    std::string out, line;
    const auto flush = [&]() {
        std::string padded = indent + line;
        if (padded.size() < 90) padded += std::string(90 - padded.size(), ' ');
        out += padded + " ///\n";
        line.clear();
    };
    for (const std::string& word : words) {
        if (!line.empty() && indent.size() + line.size() + 1 + word.size() > 88) flush();
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty()) flush();
    return out;
}

template <typename Offered>
std::vector<std::string> stata_words(Offered offered, const std::string& suffix, bool syntax_case) {
    std::vector<std::string> words;
    for (const settings::Setting& setting : settings::table())
        if (offered(setting)) words.push_back((syntax_case ? setting.stata_syntax : setting.stata) + suffix);
    return words;
}

// A {synopt} line of the help: the option with its abbreviation, what it does, what it
// allows and its default.
std::string help_line(const settings::Setting& setting) {
    const auto smcl = [](const std::string& text) {
        std::string out;
        for (char c : text) out += c == '{' ? "{c -(}" : c == '}' ? "{c )-}" : std::string(1, c);
        return out;
    };
    std::size_t capitals = 0;
    while (capitals < setting.stata_syntax.size() &&
           std::isupper(static_cast<unsigned char>(setting.stata_syntax[capitals])))
        ++capitals;
    std::string option = setting.stata;
    if (capitals > 0 && capitals < option.size())
        option = option.substr(0, capitals) + ":" + option.substr(capitals);
    const std::string placeholder = setting.kind == settings::Kind::choice ? "name" : "#";
    return "{synopt:{opt " + option + "(" + placeholder + ")}}" + smcl(setting.doc) +
           " Allowed: " + smcl(settings::allowed(setting)) + "; default {cmd:" + setting.stata +
           "(" + settings::default_text(setting) + ")}{p_end}\n";
}

template <typename Offered>
std::string help_lines(Offered offered) {
    std::string out;
    for (const settings::Setting& setting : settings::table())
        if (offered(setting)) out += help_line(setting);
    return out;
}

std::string generated_ado(std::string ado) {
    ado = with_region(ado, "Validate-options", ado_lines(stata_words(is_validate_option, "(string)", true), "          "));
    ado = with_region(ado, "Validate-names", ado_lines(stata_words(is_validate_option, "", false), "        "));
    ado = with_region(ado, "Test-options", ado_lines(stata_words(is_test_option, "(string)", true), "          "));
    ado = with_region(ado, "Test-names", ado_lines(stata_words(is_test_option, "", false), "        "));
    const auto power = [](const settings::Setting& s) { return is_test_option(s) || is_simulated_option(s); };
    ado = with_region(ado, "Power-options", ado_lines(stata_words(power, "(string)", true), "          "));
    ado = with_region(ado, "Power-names", ado_lines(stata_words(power, "", false), "        "));
    ado = with_region(ado, "validation-only", ado_lines(stata_words(is_validation_only_option, "(passthru)", true), "        "));
    ado = with_region(ado, "statistics-passthru", ado_lines(stata_words(is_test_option, "(passthru)", true), "        "));
    return ado;
}

std::string generated_help(std::string help) {
    const auto validate_only = [](const settings::Setting& s) { return is_validate_option(s) && !s.statistics; };
    help = with_region(help, "validate-settings", help_lines(validate_only));
    help = with_region(help, "test-settings", help_lines(is_test_option));
    help = with_region(help, "power-settings", help_lines(is_simulated_option));
    return help;
}

}  // namespace

TEST_CASE("CLI: --help shows every setting of the table with its range and default",
          "[settings][parity][cli]") {
    const cli_test::CliResult help = cli_test::run_cli({"run", "--help"});
    REQUIRE(help.exit_code == 0);
    // --help wraps long lines: compare with white space collapsed.
    const std::string text = std::regex_replace(help.out, std::regex("\\s+"), " ");
    for (const settings::Setting& setting : settings::table()) {
        if (setting.cli.empty()) continue;
        INFO(setting.name);
        CHECK(text.find(setting.cli) != std::string::npos);
        if (setting.kind == settings::Kind::flag || setting.optional) continue;
        CHECK(text.find(settings::allowed(setting) + "; default " +
                        settings::default_text(setting) + ".") != std::string::npos);
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

// Every setting `offered` (with a Stata spelling) is an option of the ado program's `syntax`,
// as a string without a default, and the ado passes it only when given: the engine's table
// holds the default, and the plugin parses and checks the value (so no default is restated).
template <typename Offered>
static void check_stata_syntax(const std::string& program, Offered offered) {
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
        if (setting.stata.empty() || !offered(setting)) continue;
        INFO(program << ": " << setting.name << " as " << setting.stata << "()");
        const auto found = declared.find(setting.stata);
        REQUIRE(found != declared.end());
        const auto& [type, default_value] = found->second;
        if (setting.kind == settings::Kind::flag) continue;
        CHECK(type == "string");
        CHECK(default_value.empty());
        // The seed is drawn from Stata's generator when empty, and always passed.
        if (setting.kind != settings::Kind::seed) CHECK(passed.count(setting.stata) == 1);
    }
}

TEST_CASE("Stata: the syntax of llmvalidate varname declares every setting Stata offers, and "
          "restates no default",
          "[settings][parity][stata]") {
    // The validation's settings are options of `llmvalidate varname`; the simulated provider's
    // DGP settings are options of `llmvalidate power`.
    const auto group = GENERATE(settings::Group::validation, settings::Group::simulated);
    check_stata_syntax(group == settings::Group::validation ? "Validate" : "Power",
                       [group](const settings::Setting& setting) { return setting.group == group; });
}

// llmvalidate test reads its options through the table too (issue 10: its messages name alpha()).
TEST_CASE("Stata: the syntax of llmvalidate test declares every statistics setting, and restates "
          "no default",
          "[settings][parity][stata]") {
    check_stata_syntax("Test", [](const settings::Setting& setting) { return setting.statistics; });
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
            INFO(name << "(" << value << ") in the help; the table: " << settings::default_text(setting));
            CHECK(std::strtod(value.c_str(), nullptr) ==
                  std::strtod(settings::default_text(setting).c_str(), nullptr));
            checked.insert(name);
        }
    }
    // Every number Stata offers with a default of its own is stated in the help.
    for (const settings::Setting& setting : settings::table()) {
        const bool numeric =
            setting.kind == settings::Kind::integer || setting.kind == settings::Kind::number;
        if (setting.stata.empty() || !numeric || setting.optional) continue;
        INFO(setting.stata);
        CHECK(checked.count(setting.stata) == 1);
    }
}

TEST_CASE("docs/settings.md is the settings table", "[settings][parity][docs]") {
    check_generated("docs/settings.md", markdown_table());
}

// The help of llm_validate()'s `...` is written from this file by roxygen2 (the r-package test
// checks man/ against roxygen2's output): a setting added to the table is documented in R
// with its default and range without an R edit.
TEST_CASE("rpkg/R/settings-doc.R is the settings table", "[settings][parity][docs]") {
    check_generated("rpkg/R/settings-doc.R", r_doc_source());
}

// The settings in the ado-file (options of `syntax`, the names passed to the plugin) and in the
// help are written from the table: a setting added there appears in Stata, with its help line,
// default and range, when the regions are regenerated (LLMV_UPDATE_DOCS=1 test_core "[docs]").
TEST_CASE("stata/llmvalidate.ado: its settings regions are the table's", "[settings][parity][docs][stata]") {
    check_generated("stata/llmvalidate.ado",
                    generated_ado(read_text(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.ado")));
}

TEST_CASE("stata/llmvalidate.sthlp: its settings regions are the table's", "[settings][parity][docs][stata]") {
    check_generated("stata/llmvalidate.sthlp",
                    generated_help(read_text(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.sthlp")));
}
