// A task from the options of run and batch (--labels, --annotation-prompt, --simulation-prompt),
// the alternative to --task; defined in command_task.cpp.
#pragma once

#include <string>
#include <vector>

#include "cli.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/task.hpp"

namespace llmv::cli {

std::vector<OptionSpec> task_from_options_options();
// The TOML text of the task the options describe, checked by the engine's task parser (errors
// name the options); empty when none of the three options is given. Giving them with --task,
// or one without the others, is a usage error.
std::string task_source_from_options(const std::string& command, const ParsedArgs& parsed);
// The name of a task from the options in the engine's messages (task_of(config, ...)).
inline constexpr const char* options_task_origin = "from options";

}  // namespace llmv::cli
