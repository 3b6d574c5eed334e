// What `llmvalidate varname` and `llmvalidate power` share: the test settings read from the
// plugin's words (`llmvalidate test` too), and the progress dots with Break.
#pragma once

#include <atomic>
#include <cstddef>
#include <set>
#include <string>

#include "arguments.hpp"
#include "llmvalidate/pipeline.hpp"
#include "stata_api.hpp"

namespace llmv::stata {

// m= n= repeats= alpha= threshold= seed= permutations= vmethod= smethod= rule= concurrency=
// (each setting of the engine's table by its Stata spelling; statistics_only: those of the
// statistics alone); a word not given keeps the value already in `config`. Messages name the
// Stata option: alpha().
void read_validation_settings(const Arguments& args, pipeline::ValidationConfig& config,
                              bool statistics_only = false);
// Which of the table's settings a subcommand offers: `llmvalidate test` the statistics' alone,
// `llmvalidate varname` those of the validation, `llmvalidate power` every one with a Stata
// spelling (the simulated provider's DGP too).
enum class Offered { statistics, validation, all };
// The words a subcommand accepts: its own (`structural`: layout, flags of the ado) and the
// Stata spelling of every table setting it offers, so that no list restates the table.
std::set<std::string> accepted_words(std::set<std::string> structural, Offered offered);

// `llmvalidate test`: the statistics' settings from the words, checked by the table.
stats::TestOptions read_test_settings(const Arguments& args);

// Pipeline callbacks that print a dot per finished passage (a count every 50) and read Break
// on the calling thread between progress reports, raising the pipeline's cancel flag; the
// pipeline then abandons the requests in flight and the cache keeps every answer paid for.
class ProgressDots {
  public:
    explicit ProgressDots(Api& api);
    ProgressDots(const ProgressDots&) = delete;
    ProgressDots& operator=(const ProgressDots&) = delete;

    const pipeline::BatchCallbacks& callbacks() const { return callbacks_; }
    // The same as a run's sink (pipeline::run), with the batch API's status lines.
    const pipeline::RunSink& sink() const { return callbacks_; }
    // Ends the line of dots; throws BreakRequested when Break was pressed.
    void finish(bool cancelled_by_pipeline = false);
    // A warning: a "Warning:" line now, and kept for r(warnings) (warnings(): each one, in
    // order, separated by a space, as the dry run stores them).
    void warn(const std::string& text);
    const std::string& warnings() const { return warnings_; }
    // The run's warnings as the engine typed them (the run document's).
    const std::vector<pipeline::RunWarning>& run_warnings() const { return run_warnings_; }

  private:
    Api& api_;
    std::atomic<bool> cancel_{false};
    std::size_t dots_ = 0;
    pipeline::RunSink callbacks_;
    std::string warnings_;
    std::vector<pipeline::RunWarning> run_warnings_;
};

}  // namespace llmv::stata
