// The warnings a run gives before its first call (providers.hpp): the CLI prints them on
// standard error, R raises them as conditions of class llmvalidate_warning_<kind>, Stata shows
// them and keeps them in r(warnings).
#include "pipeline/providers.hpp"

namespace llmv::pipeline {

void warn_before_first_call(const ValidationConfig& config, const RunProviders& providers,
                            const BatchCallbacks& callbacks) {
    if (!callbacks.on_warning) return;
    for (const std::string& warning : providers.warnings)
        callbacks.on_warning({"model_retiring", warning});
    for (const std::string& warning : size_warnings(config))
        callbacks.on_warning({"cannot_decide", warning});
}

}  // namespace llmv::pipeline
