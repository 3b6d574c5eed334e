// The subcommands of stata_call (argv[0]). Each returns 0 or throws; plugin.cpp turns every
// exception into a message and a Stata return code.
#pragma once

#include "stata_api.hpp"

namespace llmv::stata {

int command_version(Api& api, int argc, char* argv[]);
int command_test(Api& api, int argc, char* argv[]);
int command_validate(Api& api, int argc, char* argv[]);
// The variables vars() names (command_validate.cpp).
int command_vars_variables(Api& api, int argc, char* argv[]);
int command_power(Api& api, int argc, char* argv[]);
int command_cache(Api& api, int argc, char* argv[]);
// The default cache file, shared with the CLI and R (command_cache.cpp).
int command_cache_path(Api& api, int argc, char* argv[]);
// What a task() name means: its canonical name and the shipped tasks (command_task.cpp).
int command_task(Api& api, int argc, char* argv[]);
// A reproducible sample of the observations, the engine's sampler (command_sample.cpp).
int command_sample(Api& api, int argc, char* argv[]);
int command_where_columns(Api& api, int argc, char* argv[]);
// The vendor's own list of models, from its API (command_models.cpp).
int command_models(Api& api, int argc, char* argv[]);
// The overview of Tables 7 and 8 from generate() variables (command_overview.cpp).
int command_overview(Api& api, int argc, char* argv[]);
// The run's HTML report from its run document (command_report.cpp).
int command_report(Api& api, int argc, char* argv[]);
// The pipeline is linked into this build (validate, power and cache can run).

}  // namespace llmv::stata
