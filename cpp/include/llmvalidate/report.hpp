// The run report: one self-contained HTML file per run, the same bytes from every front end.
//
// A run is first written down as its run document, a JSON object (`--run-json FILE` on the
// CLI's run and batch, R's attr(x, "run_document"), the Stata plugin's last run): the settings
// as used, the models, the calls and the cost, each column (a task and model of a run; several
// for the grids of Tables 7 and 8) with its summary (verdicts, the share valid and its
// interval, Tables 9-11) and its passages (the numbers of every test, the binned null
// distributions, a sample of the generated texts). render_html() reads nothing but that
// document: the CLI (`llmvalidate report RUN.json -o F.html`, `--report F.html`), R's
// llm_report() and Stata's `llmvalidate report using F.html` call it, so their files are
// byte-identical up to the document's `created` line.
//
// Every number the page shows from the document carries data-j="<JSON pointer>" and
// data-t="<format>" (i: whole number, f<d>: d decimals, pct<d>: a share as a percentage), so a
// test can read each from the DOM and compare it with the document.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "llmvalidate/run.hpp"
#include "llmvalidate/validate.hpp"
#include "llmvalidate/validation_config.hpp"

namespace llmv::report {

// The run document's format name and version (the key "format").
inline constexpr const char* document_format = "llmvalidate-run/1";

// What a front end knows about a run besides its outcome.
struct RunContext {
    bool synthetic = false;          // the simulated provider ran: the report says so on every page
    std::string human_label_column;  // "" when the run had no human labels
    std::vector<pipeline::RunWarning> warnings;  // those shown before and during the run
    std::string created;                         // ISO 8601 UTC; "" = now
};

// One column of a run: a task (with its variables) and a chat model.
struct ColumnInfo {
    std::string header;               // "" for a run of one column
    std::vector<std::string> titles;  // per passage, input order ("" or missing: the id)
    std::vector<std::string> texts;   // per passage, when results do not keep them
};

// Builds the run document. Passages may be added as they finish (a streamed batch), in input
// order or not (they are sorted by index when the column ends).
class RunDocument {
  public:
    RunDocument(const pipeline::ValidationConfig& config, RunContext context);
    void begin_column(const pipeline::ValidationConfig& config, ColumnInfo info);
    void add_passage(const pipeline::PassageResult& result);
    // The column's totals (outcome.result: summary, calls, cost) and status.
    void end_column(const pipeline::RunOutcome& outcome);
    // The finished document (the run's totals over its columns filled in).
    const nlohmann::ordered_json& document();
    // The document as written to a file (2-space indent, a final newline).
    std::string text();

  private:
    nlohmann::ordered_json doc_;
    ColumnInfo info_;
    std::size_t detail_kept_ = 0;
};

// A run document read back (a file's text); throws llmv::Error (llmv.input.invalid_argument)
// when it is not JSON or not a run document of this format.
nlohmann::ordered_json parse_document(const std::string& text, const std::string& source);

// The report. Pure: the same document gives the same bytes.
std::string render_html(const nlohmann::ordered_json& doc);

// Runs above this many passages keep the per-passage detail (panel, distributions, texts) of
// their non-valid passages only, up to detail_limit, and list every passage in the index. At
// 1,000 a 5,000-passage report was 14 MB and took 2.7 to 3.1 s to open in headless Chromium on a
// 2-core machine, against the 3 s target (bench/report_scale.sh); at 500 it takes about half.
inline constexpr std::size_t all_detail_up_to = 250;
inline constexpr std::size_t detail_limit = 500;

}  // namespace llmv::report
