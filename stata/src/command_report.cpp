// The run report from Stata (llmvalidate/report.hpp).
//   write_run_document(): after `llmvalidate varname, ...`, the run document to the file the
//     ado names (local llmv_rundoc: the last run's, or the one beside saving()'s dataset).
//   `llmvalidate report using FILE.html [, replace run(RUN.json)]`: the report of that run,
//     rendered by the engine, the same bytes as the CLI's `llmvalidate report` and R's
//     llm_report(). Locals: llmv_rundoc (the run document), llmv_report (the HTML file);
//     words: replace=0|1.
#include <fstream>
#include <sstream>

#include "arguments.hpp"
#include "commands.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/report.hpp"
#include "return_codes.hpp"
#include "validate_outputs.hpp"

namespace llmv::stata {

void write_run_document(const std::string& path, const pipeline::ValidationConfig& config,
                        const std::vector<pipeline::PassageInput>& inputs,
                        const pipeline::RunOutcome& outcome,
                        const std::vector<pipeline::RunWarning>& warnings) {
    report::RunContext context;
    context.synthetic = outcome.result.synthetic;
    context.warnings = warnings;
    for (const auto& input : inputs)
        if (!input.human_label.empty()) context.human_label_column = "human";
    report::RunDocument document(config, context);
    report::ColumnInfo info;
    for (const auto& input : inputs) info.texts.push_back(input.text);
    document.begin_column(config, std::move(info));
    for (const auto& passage : outcome.result.passages) document.add_passage(passage);
    document.end_column(outcome);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << document.text();
    out.flush();
    if (!out)
        throw StataFailure(kRcFile, "llmvalidate: could not write the run document to " + path);
}

int command_report(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({"replace"});
    const std::string source = api.local("llmv_rundoc").value_or("");
    const std::string target = api.local("llmv_report").value_or("");
    std::ifstream in(source, std::ios::binary);
    if (source.empty() || !in)
        throw StataFailure(kRcFileNotFound,
                           "llmvalidate report: no run document" +
                               (source.empty() ? std::string() : " at " + source) +
                               ": run llmvalidate varname, task(...) first, or give run(file)");
    std::stringstream text;
    text << in.rdbuf();
    std::string html;
    try {
        html = report::render_html(report::parse_document(text.str(), source));
    } catch (const Error& error) {
        throw StataFailure(kRcData, std::string("llmvalidate report: ") + error.what());
    }
    if (args.integer("replace", 0) == 0 && std::ifstream(target).good())
        throw StataFailure(602, "file " + target + " already exists");
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out << html;
    out.flush();
    if (!out) throw StataFailure(kRcFile, "llmvalidate report: could not write " + target);
    api.text("(report written to " + target + ")\n");
    return 0;
}

}  // namespace llmv::stata
