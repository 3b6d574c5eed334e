// What is written from the settings table (llmvalidate/settings.hpp): docs/settings.md, the
// help of R's `...` (rpkg/R/settings-doc.R), the settings of `llmvalidate test`'s JSON input in
// docs/test-format.md, and the Stata ado's and help's settings regions.
#include <cctype>
#include <string>
#include <vector>

#include "generated.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/standalone_format.hpp"
#include "llmvalidate/validation_config.hpp"

namespace llmv::generate {

namespace {

using settings::Setting;

std::string default_doc(const Setting& setting) {
    std::string text = pipeline::setting_default(setting);
    if (setting.kind == settings::Kind::flag)
        text = text == "true" ? "on" : text == "false" ? "off" : text;
    if (setting.optional && text.empty()) text = "the provider's";
    return text;
}

}  // namespace

std::string settings_markdown() {
    std::string text =
        "# Settings\n\n"
        "Generated from the engine's settings table (`cpp/settings/table.cpp`,\n"
        "`llmvalidate/settings.hpp`) by `cmake --build build --target generate-docs`; the ctest\n"
        "`generated files are current` fails when this file and the table differ. A dash: the\n"
        "front end does not offer the setting. The knobs of the first rows are read by each\n"
        "front end's own code (R's provider objects, a key from the environment, the run's\n"
        "route); the rest through the table. `--submit-only` and `nowait` turn `wait` off.\n\n"
        "| Setting | CLI | R | Stata | Default | Allowed | What it does |\n"
        "|---|---|---|---|---|---|---|\n";
    const auto cell = [](const std::string& value) {
        return value.empty() ? std::string("-") : "`" + value + "`";
    };
    for (const Setting& setting : settings::table()) {
        text += "| " + setting.name + " | " + cell(setting.cli) + " | " + cell(setting.r) + " | " +
                (setting.stata.empty() ? std::string("-")
                                       : "`" + settings::spelling(setting, settings::FrontEnd::stata) + "`") +
                " | " + default_doc(setting) + " | " + settings::allowed(setting) + " | " +
                setting.doc + " |\n";
    }
    text +=
        "\nR draws `seed` from R's random-number generator when it is `NULL` (its default),\n"
        "and Stata from Stata's (`set seed`), so that each session's own seed governs.\n";
    return text;
}

// The R source that carries the table's documentation into the help of llm_validate()'s `...`
// (roxygen2 evaluates rpkg/R/validate-arguments.R's dots_settings_help(), which reads it).
std::string settings_doc_r() {
    const auto quoted = [](const std::string& value) {
        std::string out = "\"";
        for (char c : value) {
            if (c == '"' || c == '\\') out += '\\';
            out += c;
        }
        return out + "\"";
    };
    std::string r, group, by_hand, default_value, allowed, doc;
    for (const Setting& setting : settings::table()) {
        if (setting.r.empty()) continue;
        const std::string separator = r.empty() ? "" : ",\n      ";
        r += separator + quoted(setting.r);
        group += separator +
                 quoted(setting.group == settings::Group::simulated ? "simulated" : "validation");
        by_hand += separator + (setting.by_hand ? "TRUE" : "FALSE");
        std::string default_text = pipeline::setting_default(setting);
        if (setting.optional && default_text.empty()) default_text = "the provider's";
        default_value += separator + quoted(default_text);
        allowed += separator + quoted(settings::allowed(setting));
        doc += separator + quoted(setting.doc);
    }
    return "# Generated from the engine's settings table (cpp/settings/table.cpp) by\n"
           "# `cmake --build build --target generate-docs`; the ctest `generated files are "
           "current`\n"
           "# fails when this file and the table differ: edit the table, not this file. roxygen2\n"
           "# writes the help of llm_validate()'s `...` from it; at run time R reads the engine's\n"
           "# table itself.\n"
           "settings_doc_table <- function() {\n"
           "  data.frame(\n"
           "    r = c(" + r + "),\n"
           "    group = c(" + group + "),\n"
           "    by_hand = c(" + by_hand + "),\n"
           "    default = c(" + default_value + "),\n"
           "    allowed = c(" + allowed + "),\n"
           "    doc = c(" + doc + "),\n"
           "    stringsAsFactors = FALSE\n"
           "  )\n"
           "}\n";
}

// The rows of docs/test-format.md's input table for the statistics settings: the JSON's
// optional fields named by the table.
std::string test_format(std::string markdown) {
    std::string rows = "| field | allowed | default | meaning |\n|---|---|---|---|\n";
    for (const Setting& setting : settings::table()) {
        if (!setting.statistics) continue;
        std::string default_text = pipeline::setting_default(setting);
        if (setting.kind == settings::Kind::choice) default_text = "\"" + default_text + "\"";
        rows += "| `" + setting.name + "` | " + json_allowed(setting) + " | `" + default_text +
                "` | " + setting.doc + " |\n";
    }
    return with_region(markdown, "test-settings", rows);
}

// ---- the Stata regions ---------------------------------------------------------------------
// Which subcommand takes which option is the table's (Setting::stata_commands); the knobs read
// by hand (provider(), cache(), ...) are declared by hand in the ado.

namespace {

bool offered(const Setting& s, unsigned command) {
    return !s.stata.empty() && !s.by_hand && (s.stata_commands & command) != 0;
}
bool passed(const Setting& s, unsigned command) {  // seeds are drawn by the ado when not given
    return offered(s, command) && s.kind != settings::Kind::seed;
}
// Options validation alone takes, which the ado's IsValidation reads to tell
// `llmvalidate test, timeout(9)` (a variable named test) from the subcommand.
bool validation_only(const Setting& s) {
    return passed(s, settings::stata_validate) && s.stata_commands == settings::stata_validate;
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
std::vector<std::string> stata_words(Offered wanted, const std::string& suffix, bool syntax_case) {
    std::vector<std::string> words;
    for (const Setting& setting : settings::table())
        if (wanted(setting))
            words.push_back((syntax_case ? setting.stata_syntax : setting.stata) + suffix);
    return words;
}

// A {synopt} line of the help: the option with its abbreviation, what it does, what it
// allows and its default.
std::string help_line(const Setting& setting) {
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
           "(" + pipeline::setting_default(setting) + ")}{p_end}\n";
}

template <typename Offered>
std::string help_lines(Offered wanted) {
    std::string out;
    for (const Setting& setting : settings::table())
        if (wanted(setting)) out += help_line(setting);
    return out;
}

}  // namespace

std::string stata_ado(std::string ado) {
    using settings::stata_power;
    using settings::stata_test;
    using settings::stata_validate;
    const auto options = [](unsigned command) {
        return stata_words([command](const Setting& s) { return offered(s, command); },
                           "(string)", true);
    };
    const auto names = [](unsigned command) {
        return stata_words([command](const Setting& s) { return passed(s, command); }, "", false);
    };
    const std::string syntax = "          ", loop = "        ";
    ado = with_region(ado, "Validate-options", ado_lines(options(stata_validate), syntax));
    ado = with_region(ado, "Validate-names", ado_lines(names(stata_validate), loop));
    ado = with_region(ado, "Test-options", ado_lines(options(stata_test), syntax));
    ado = with_region(ado, "Test-names", ado_lines(names(stata_test), loop));
    ado = with_region(ado, "Power-options", ado_lines(options(stata_power), syntax));
    ado = with_region(ado, "Power-names", ado_lines(names(stata_power), loop));
    ado = with_region(ado, "validation-only",
                      ado_lines(stata_words(validation_only, "(passthru)", true), loop));
    ado = with_region(
        ado, "statistics-passthru",
        ado_lines(stata_words([](const Setting& s) { return passed(s, stata_test); },
                              "(passthru)", true),
                  loop));
    return ado;
}

std::string stata_help(std::string help) {
    using settings::stata_power;
    using settings::stata_test;
    using settings::stata_validate;
    help = with_region(help, "validate-settings", help_lines([](const Setting& s) {
                           return passed(s, stata_validate) && !s.statistics;
                       }));
    help = with_region(help, "test-settings",
                       help_lines([](const Setting& s) { return passed(s, stata_test); }));
    help = with_region(help, "power-settings", help_lines([](const Setting& s) {
                           return passed(s, stata_power) && !s.statistics &&
                                  (s.stata_commands & stata_validate) == 0;
                       }));
    return help;
}

}  // namespace llmv::generate
