// Shared parts of the commands that run the pipeline (run, batch, power, cache): the common
// options, the provider chosen from the environment, the progress bar, Ctrl-C, reports and
// row writers.
#pragma once

#include <atomic>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "llmvalidate/pipeline.hpp"

namespace llmv::cli {

// --task, --provider, --model, ..., -M, -n, --alpha, ..., --dry-run.
// The options of the settings table (llmvalidate/settings.hpp) that the CLI offers.
std::vector<OptionSpec> setting_options();
std::vector<OptionSpec> pipeline_options();
// Options of the simulated provider's DGP (--follow, --signal, --accuracy, --confusion, ...).
std::vector<OptionSpec> simulated_options();

struct ConfigChoice {
    pipeline::ValidationConfig config;
    // Non-empty when the provider was chosen from the environment or is synthetic: printed as
    // the first line of every report.
    std::string banner;
    bool synthetic = false;
    // Where answers are cached, and the engine's warning when a paid run keeps none: printed
    // on standard error before the first call.
    std::string cache_note;
};

// Builds the configuration from the options. `--provider auto` (the default) is resolved by the
// engine (resolution.hpp); with no provider configured, `allow_simulated_fallback` picks the
// simulated provider (with a banner that says so), otherwise it is an error.
ConfigChoice config_from_args(const std::string& command, const ParsedArgs& parsed,
                              bool allow_simulated_fallback);

// The first SIGINT (Ctrl-C) or SIGTERM sets this flag: the run drains the requests in flight
// (ValidationConfig::drain_seconds) and stops. A second one ends the process at once.
std::atomic<bool>* install_interrupt_flag();

// A one-line progress bar on standard error when it is a terminal; nothing otherwise.
class ProgressBar {
public:
    explicit ProgressBar(bool enabled);
    void update(const pipeline::Progress& progress);
    void finish();
    bool enabled() const { return enabled_; }

private:
    bool enabled_;
    bool drawn_ = false;
};
bool stderr_is_terminal();

// Reports.
std::string format_passage_report(const pipeline::PassageResult& result);
std::string format_table1(const std::vector<pipeline::PassageResult>& results,
                          const std::vector<std::string>& titles);
std::string format_summary(const pipeline::BatchSummary& summary);
std::string format_dry_run(const pipeline::DryRunReport& report);
// The dollars of a dry run or a run, one line per model (pricing.hpp).
std::string format_cost(const CostEstimate& cost, const std::string& title);
std::string format_counts(const pipeline::CallCounts& counts);

// One row per passage with every number.
std::vector<std::string> csv_header(const std::vector<std::string>& labels);
std::vector<std::string> csv_row(const pipeline::PassageResult& result,
                                 const std::vector<std::string>& labels);
std::string csv_line(const std::vector<std::string>& fields);
std::string jsonl_line(const pipeline::PassageResult& result);  // one JSON object, no newline

// --save-generations PATH: the audit trail of a run, one row per annotation of a passage and
// per generated text (pipeline::GenerationRow), written as each passage finishes. JSON lines
// when PATH ends in .jsonl or .ndjson, else CSV. The run must keep its texts (keep_texts).
OptionSpec save_generations_option();
class GenerationsWriter {
public:
    explicit GenerationsWriter(const std::string& path);
    ~GenerationsWriter();
    void write(const pipeline::PassageResult& result);
    void close();  // throws llmv.io.failed when a write failed

private:
    std::string path_;
    bool jsonl_ = false;
    std::unique_ptr<std::ofstream> out_;
};

// Streaming CSV reader (RFC 4180: quoted fields, doubled quotes, newlines inside quotes).
class CsvReader {
public:
    CsvReader(std::istream& in, std::string source);
    bool next(std::vector<std::string>& fields);  // false at the end
    std::size_t line() const { return line_; }

private:
    std::istream& in_;
    std::string source_;
    std::size_t line_ = 0;
};

// The exit code of a batch: 0 when every passage has a verdict, else the code of the first
// failure in input order (130 when interrupted by SIGINT, 143 by SIGTERM). A failure or an
// interruption is also one `llmvalidate: error [<code>]: ...` line on standard error.
int exit_code_for_results(bool cancelled, const std::string& first_error_code,
                          const std::string& first_error_message, std::size_t failed);

// Answers the cache could not take went to a side file: says where and how to import it (on
// standard error); nothing when every answer reached the cache.
void warn_unwritten(const pipeline::BatchResult& batch, const std::string& cache_path);

}  // namespace llmv::cli
