// llmvalidate report RUN.json [-o FILE.html]
// The run's HTML report from its run document (`--run-json FILE` on run and batch): the same
// bytes as `--report FILE.html` on that run, R's llm_report() and Stata's `llmvalidate report`.
#include <iostream>

#include "cli.hpp"
#include "llmvalidate/report.hpp"
#include "terminal.hpp"

namespace llmv::cli {

namespace {

const CommandSpec& report_spec() {
    static const CommandSpec spec = {
        "report",
        "RUN.json [-o FILE.html]",
        "Writes a run's report: one self-contained HTML file (no external request; inline CSS\n"
        "and SVG; printable to PDF) with the verdicts by task and model, the share valid with\n"
        "its interval, each passage's tests and null distributions, the grids of Tables 7-11\n"
        "when the run has them, and every setting, model, seed and cost behind them. RUN.json\n"
        "is the run document written by `--run-json FILE` on run or batch (which also take\n"
        "`--report FILE.html` to write the report directly); docs/report.md.\n"
        "Example: llmvalidate report run.json -o report.html",
        "  RUN.json                  The run document ('-': standard input).\n",
        {
            {"--output", "-o", "PATH", "Write the HTML to PATH instead of standard output."},
        },
        1,
    };
    return spec;
}

}  // namespace

int command_report(const std::vector<std::string>& args) {
    const CommandSpec& spec = report_spec();
    const ParsedArgs parsed = parse_args(args, spec);
    if (parsed.help) {
        print_command_help(std::cout, spec);
        return exit_ok;
    }
    if (parsed.operands.empty())
        throw_usage(spec.name, "give the run document: llmvalidate report RUN.json -o FILE.html.");
    std::string source;
    const std::string text = read_input(parsed.operands[0], &source);
    const nlohmann::ordered_json doc = report::parse_document(text, source);
    write_output(parsed.value("--output"), report::render_html(doc));
    return exit_ok;
}

}  // namespace llmv::cli
