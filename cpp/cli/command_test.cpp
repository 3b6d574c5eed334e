// llmvalidate test [FILE|-] [--output PATH] [--pretty] [--null-distributions]
// The statistics on embeddings the user brings; the format is docs/test-format.md.
#include <unistd.h>

#include <iostream>

#include "cli.hpp"
#include "llmvalidate/test_format.hpp"
#include "terminal.hpp"

namespace llmv::cli {

namespace {

const CommandSpec& test_spec() {
    static const CommandSpec spec = {
        "test",
        "[FILE|-] [--output PATH] [--pretty] [--null-distributions]",
        "Runs the validation test (is the passage a plausible draw from the LLM's texts for\n"
        "its label?), the separation tests (are the texts of the label and of each other\n"
        "label told apart?) and the backtranslation test (does the LLM label its own texts\n"
        "back correctly?) on embeddings you computed yourself, and prints the verdict\n"
        "(valid, invalid or inconclusive) with every number behind it, as JSON.\n\n"
        "Input fields: label, labels, passage, pools (required); backtranslation,\n"
        "paper_reference, alpha (0.05), threshold (0.9), seed (1), permutations (999),\n"
        "validation_method (\"exact\"), separation_method (\"permutation\"),\n"
        "backtranslation_rule (\"point\") (optional, defaults in brackets).\n"
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
    const std::string output = run_tests_json(text, source, write_options);
    write_output(parsed.value("--output"), output + "\n");
    return exit_ok;
}

}  // namespace llmv::cli
