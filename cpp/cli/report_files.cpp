// --run-json and --report of `run` and `batch` (report_files.hpp).
#include "report_files.hpp"

namespace llmv::cli {

std::vector<OptionSpec> report_options() {
    return {
        {"--run-json", "", "PATH",
         "Write the run document (JSON: every setting, model, number and cost of the run) to "
         "PATH; `llmvalidate report PATH` renders it."},
        {"--report", "", "PATH",
         "Write the run's self-contained HTML report to PATH (docs/report.md)."},
    };
}

bool wants_report(const ParsedArgs& parsed) {
    return parsed.has("--run-json") || parsed.has("--report");
}

void write_report_files(const ParsedArgs& parsed, report::RunDocument& document) {
    const std::string text = document.text();
    if (parsed.has("--run-json")) write_output(parsed.value("--run-json"), text, "--run-json");
    // Rendered from the document as `llmvalidate report` reads it back, so that both files are
    // the same bytes.
    if (parsed.has("--report"))
        write_output(parsed.value("--report"),
                     report::render_html(report::parse_document(text, "the run document")),
                     "--report");
}

}  // namespace llmv::cli
