// The two symbols Stata looks for. Nothing else is exported (see llmvalidate.map), and no
// exception leaves stata_call: every one becomes a message shown with SF_error and a Stata
// return code (return_codes.hpp). The last message is also kept in the local llmv_error so
// the ado-file can add context.
#include <exception>
#include <new>
#include <string>

#include "arguments.hpp"
#include "commands.hpp"
#include "llmv_stplugin.h"
#include "llmvalidate/error.hpp"
#include "messages.hpp"
#include "results.hpp"
#include "return_codes.hpp"
#include "stata_api.hpp"

namespace {

using llmv::stata::Api;

int report(int rc, const std::string& message) {
    try {
        Api api;
        api.error(message);
        try {
            api.set_local("llmv_error", message);
        } catch (...) {
        }
    } catch (...) {
        // No table: nothing can be shown; the return code still tells Stata.
    }
    return rc;
}

int dispatch(int argc, char* argv[]) {
    Api api;
    const std::string subcommand = (argc >= 1 && argv && argv[0]) ? argv[0] : "";
    if (subcommand.empty()) llmv::stata::Arguments(argc, argv);  // throws: no subcommand
    if (subcommand == "version") return llmv::stata::command_version(api, argc, argv);
    if (subcommand == "test") return llmv::stata::command_test(api, argc, argv);
    if (subcommand == "store") return llmv::stata::store_pending(api, argc, argv);
    if (subcommand == "validate") return llmv::stata::command_validate(api, argc, argv);
    if (subcommand == "power") return llmv::stata::command_power(api, argc, argv);
    if (subcommand == "cache") return llmv::stata::command_cache(api, argc, argv);
    if (subcommand == "task") return llmv::stata::command_task(api, argc, argv);
    if (subcommand == "cachepath") return llmv::stata::command_cache_path(api, argc, argv);
    if (subcommand == "varsvariables")
        return llmv::stata::command_vars_variables(api, argc, argv);
    if (subcommand == "sample") return llmv::stata::command_sample(api, argc, argv);
    if (subcommand == "wherecolumns") return llmv::stata::command_where_columns(api, argc, argv);
    if (subcommand == "models") return llmv::stata::command_models(api, argc, argv);
    return report(llmv::stata::kRcSyntax,
                  "llmvalidate plugin: unknown subcommand `" + subcommand +
                      "'; allowed: version, test, store, validate, power, cache, task, cachepath, "
                      "sample, wherecolumns, varsvariables, models");
}

}  // namespace

// The only exported symbols: a Windows DLL exports what is marked dllexport (and then nothing
// else); an ELF or Mach-O plugin what has default visibility (the rest is hidden).
#ifdef _WIN32
#define LLMV_PLUGIN_EXPORT __declspec(dllexport)
#else
#define LLMV_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

extern "C" LLMV_PLUGIN_EXPORT ST_retcode pginit(ST_plugin* table) {
    llmv::stata::set_table(table);
    return SD_PLUGINVER;
}

extern "C" LLMV_PLUGIN_EXPORT ST_retcode stata_call(int argc, char* argv[]) {
    try {
        return dispatch(argc, argv);
    } catch (const llmv::stata::BreakRequested&) {
        llmv::stata::forget_pending();
        return report(llmv::stata::kRcBreak, "--Break--");
    } catch (const llmv::stata::StataFailure& failure) {
        return report(failure.rc(), failure.what());
    } catch (const llmv::Error& error) {
        if (const auto human = llmv::stata::human_label_message(error))
            return report(human->rc, human->text);
        return report(llmv::stata::return_code_for(error.code()),
                      llmv::stata::in_stata_options(error.code(), error.what()));
    } catch (const std::bad_alloc&) {
        return report(llmv::stata::kRcNoMemory, "llmvalidate: out of memory");
    } catch (const std::exception& error) {
        return report(llmv::stata::kRcInternal, std::string("llmvalidate: internal error: ") +
                                                    error.what() + " (please report this)");
    } catch (...) {
        return report(llmv::stata::kRcInternal,
                      "llmvalidate: internal error of unknown type (please report this)");
    }
}
