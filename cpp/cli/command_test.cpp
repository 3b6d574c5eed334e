// llmvalidate test [FILE|-] [--output PATH] [--pretty] [--null-distributions]
// The statistics on embeddings the user brings; the format is docs/test-format.md.
#include <unistd.h>

#include <iostream>

#include "cli.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/standalone_format.hpp"
#include "llmvalidate/validation_config.hpp"
#include "terminal.hpp"

namespace llmv::cli {

namespace {

// The optional fields of the input that are settings, with their defaults, from the settings
// table (the statistics' settings, by their engine names: the JSON's field names).
std::string optional_settings() {
    std::string text;
    for (const settings::Setting& setting : settings::table()) {
        if (!setting.statistics) continue;
        const std::string default_text = pipeline::setting_default(setting);
        const bool quoted = setting.kind == settings::Kind::choice;
        text += (text.empty() ? "" : ", ") + setting.name + " (" + (quoted ? "\"" : "") +
                default_text + (quoted ? "\"" : "") + ")";
    }
    return text;
}

std::string wrapped(const std::string& text, std::size_t width) {
    std::string out, line;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t space = text.find(' ', start);
        const std::string word =
            text.substr(start, space == std::string::npos ? std::string::npos : space - start);
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        if (space == std::string::npos) break;
        start = space + 1;
    }
    return out + line;
}

const CommandSpec& test_spec() {
    static const CommandSpec spec = {
        "test",
        "[FILE|-] [--output PATH] [--pretty] [--null-distributions]",
        std::string(
            "Runs the validation test (is the passage a plausible draw from the LLM's texts for\n"
            "its label?), the separation tests (are the texts of the label and of each other\n"
            "label told apart?) and the backtranslation test (does the LLM label its own texts\n"
            "back correctly?) on embeddings you computed yourself, and prints the verdict\n"
            "(valid, invalid or inconclusive) with every number behind it, as JSON.\n\n") +
            wrapped("Input fields: label, labels, passage, pools (required); backtranslation, "
                    "paper_reference, " +
                        optional_settings() + " (optional, defaults in brackets).",
                    88) +
            "\n"
            "The input and output formats are documented in docs/test-format.md.\n"
            "Example: llmvalidate test examples/test-input.json --pretty",
        "  FILE                      The input JSON. '-' or no FILE reads standard input.\n",
        {
            {"--output", "-o", "PATH", "Write the output JSON to PATH instead of standard output."},
            {"--pretty", "", "", "Indent the output JSON."},
            {"--null-distributions", "", "",
             "Add each test's null distribution to the output (large)."},
        },
        1,
    };
    return spec;
}

}  // namespace

int command_test(const std::vector<std::string>& args) {
    const CommandSpec& spec = test_spec();
    const ParsedArgs parsed = parse_args(args, spec);
    if (parsed.help) {
        print_command_help(std::cout, spec);
        return exit_ok;
    }
    const std::string path = parsed.operands.empty() ? "-" : parsed.operands[0];
    // Waiting on a terminal for JSON nobody will type would look like a hang.
    if (parsed.operands.empty() && ::isatty(STDIN_FILENO))
        throw_usage(spec.name,
                    "no input: give a FILE, or pipe the input JSON into standard input "
                    "(llmvalidate test - < input.json).");

    TestJsonWriteOptions write_options;
    write_options.pretty = parsed.has("--pretty");
    write_options.null_distributions = parsed.has("--null-distributions");

    std::string source;
    const std::string text = read_input(path, &source);
    // Ctrl-C (SIGINT) or SIGTERM stop the permutations: the engine's loops read the flag
    // through the interrupt check it installs; the run ends with llmv.cancelled (exit 130).
    install_interrupt_flag();
    std::string output;
    try {
        output = run_tests_json(text, source, write_options);
    } catch (const Error& error) {
        // The input's fields are the engine's names (`alpha`, `pools`): said as they are, not
        // as the options of `run` (main() would write `--alpha`).
        throw Error(error.code(), error.what());
    }
    write_output(parsed.value("--output"), output + "\n");
    return exit_ok;
}

}  // namespace llmv::cli
