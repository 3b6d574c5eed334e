// The two symbols Stata looks for. Nothing else is exported (see llmvalidate.map), and no
// exception leaves stata_call: every one becomes a message shown with SF_error and a Stata
// return code (return_codes.hpp). The last message is also kept in the local llmv_error so
// the ado-file can add context.
#include <exception>
#include <new>
#include <string>
#include <utility>

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
    // One table: the dispatch and the message's list of subcommands.
    using Command = int (*)(Api&, int, char*[]);
    static const std::pair<const char*, Command> commands[] = {
        {"version", llmv::stata::command_version},
        {"test", llmv::stata::command_test},
        {"store", llmv::stata::store_pending},
        {"validate", llmv::stata::command_validate},
        {"power", llmv::stata::command_power},
        {"cache", llmv::stata::command_cache},
        {"task", llmv::stata::command_task},
        {"cachepath", llmv::stata::command_cache_path},
        {"varsvariables", llmv::stata::command_vars_variables},
        {"sample", llmv::stata::command_sample},
        {"wherecolumns", llmv::stata::command_where_columns},
        {"models", llmv::stata::command_models},
        {"overview", llmv::stata::command_overview},
        {"report", llmv::stata::command_report},
    };
    std::string allowed;
    for (const auto& [name, command] : commands) {
        if (subcommand == name) return command(api, argc, argv);
        allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    }
    return report(llmv::stata::kRcSyntax, "llmvalidate plugin: unknown subcommand `" + subcommand +
                                              "'; allowed: " + allowed);
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
                      llmv::stata::in_stata_options(error));
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
