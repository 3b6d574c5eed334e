#include "arguments.hpp"
#include "commands.hpp"

#ifndef LLMV_VERSION
#error "LLMV_VERSION must be defined by the build"
#endif

namespace llmv::stata {

// `version`: the plugin's version and interface, in locals for the ado-file's compatibility
// check, and on screen unless quiet=1.
int command_version(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({"quiet"});
    api.set_local("llmv_version", LLMV_VERSION);
    api.set_local("llmv_spi", "3.0");
    api.set_local("llmv_pipeline", "1");  // every build has the pipeline; r(validate_available)
    if (args.integer("quiet", 0) == 0) {
        api.display(std::string("{txt}llmvalidate plugin {res}") + LLMV_VERSION +
                    "{txt} (Stata Plugin Interface 3.0; validate available)\n");
    }
    return 0;
}

}  // namespace llmv::stata
