// What a pipeline command does with the terminal and the process: Ctrl-C, the progress bar,
// the exit code and the warnings on standard error.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

#include "llmvalidate/pipeline.hpp"

namespace llmv::cli {

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

// The failures of several runs (run --passages with several columns): how many, and the first
// of the first run that had one.
struct Failures {
    void add(const pipeline::RunOutcome& outcome);
    std::size_t count = 0;
    std::string first_code, first_message;
    std::string side_file;  // where a run left the answers its cache could not take
};

// The exit code of a run: 0 when every passage has a verdict, else the code of the first
// failure in input order (130 when interrupted by SIGINT, 143 by SIGTERM). A failure or an
// interruption is also one `llmvalidate: error [<code>]: ...` line on standard error.
int exit_code_for_results(bool cancelled, const Failures& failures);
int exit_code_for(const pipeline::RunOutcome& outcome);

// Answers the cache could not take went to a side file: says where and how to import it (on
// standard error); nothing when every answer reached the cache.
void warn_unwritten(const pipeline::BatchResult& batch, const std::string& cache_path);

// "Warning: <text>" on standard error; print_run_warning is the run's sink for its warnings
// (RunSink::on_warning: no cache, a model retiring soon, a size that cannot decide, ...).
void print_warning(const std::string& text);
void print_run_warning(const pipeline::RunWarning& warning);

}  // namespace llmv::cli
