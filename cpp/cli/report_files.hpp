// The run's document and report files of `run` and `batch`: --run-json FILE (the run document
// that `llmvalidate report` reads) and --report FILE.html (the report itself).
#pragma once

#include <memory>
#include <vector>

#include "cli.hpp"
#include "llmvalidate/report.hpp"

namespace llmv::cli {

std::vector<OptionSpec> report_options();
// Whether either file was asked for.
bool wants_report(const ParsedArgs& parsed);
// Writes the files asked for (each written whole or not at all).
void write_report_files(const ParsedArgs& parsed, report::RunDocument& document);

}  // namespace llmv::cli
