// The options shared by the commands that run the pipeline (run, batch, power) and the
// configuration built from them, with the provider chosen from the environment.
#pragma once

#include <string>
#include <vector>

#include "cli.hpp"
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

}  // namespace llmv::cli
