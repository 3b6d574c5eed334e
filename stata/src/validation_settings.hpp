// The test settings that `llmvalidate varname` and `llmvalidate power` share, read from the
// plugin's words into a pipeline::ValidationConfig (only with LLMV_STATA_HAVE_PIPELINE).
#pragma once

#include "arguments.hpp"
#include "llmvalidate/pipeline.hpp"

namespace llmv::stata {

// m= n= repeats= alpha= threshold= seed= permutations= vmethod= smethod= rule= concurrency=;
// a word not given keeps the value already in `config`.
void read_validation_settings(const Arguments& args, pipeline::ValidationConfig& config);

}  // namespace llmv::stata
