// llmvalidate <command> [options]: dispatches to the registry in cli/commands.def and turns
// every error into one line on standard error and a documented exit code.
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/settings.hpp"

#ifndef LLMV_VERSION
#define LLMV_VERSION "unknown"
#endif

namespace {

void print_main_help(std::ostream& out) {
    out << "Usage: llmvalidate <command> [options]\n"
           "       llmvalidate <command> --help\n"
           "       llmvalidate --version\n\n"
           "Validates LLM annotations without a human benchmark: the tests of Hansen (2026),\n"
           "\"Validating Large Language Model Annotations\" (FEDS 2026-020).\n\n"
           "Commands:\n";
    for (const llmv::cli::Command& command : llmv::cli::commands()) {
        std::string name = std::string("  ") + command.name;
        if (name.size() < 12) name.resize(12, ' ');
        out << name << command.summary << "\n";
    }
    out << "\nExit codes:\n"
           "  0    success (whatever the verdict)\n"
           "  1    internal error (a bug: please report it)\n"
           "  2    usage error (unknown command or option)\n"
           "  3    invalid input (a field, a label, an embedding, malformed JSON)\n"
           "  4    provider or transport failure\n"
           "  5    input/output failure (a file cannot be read or written)\n"
           "  130  interrupted by SIGINT (Ctrl-C), on every path: a run, a batch-API run, a wait\n"
           "       for another process's lock on the cache\n"
           "  143  interrupted by SIGTERM, likewise\n"
           "Errors are one line on standard error: llmvalidate: error [<code>]: <message>\n";
}

int dispatch(const std::vector<std::string>& args) {
    using namespace llmv::cli;
    if (args.empty()) {
        print_main_help(std::cerr);
        throw_usage("", "no command given.");
    }
    const std::string& first = args[0];
    if (first == "--help" || first == "-h") {
        print_main_help(std::cout);
        return exit_ok;
    }
    if (first == "--version" || first == "-V") {
        std::cout << "llmvalidate " << LLMV_VERSION << "\n";
        return exit_ok;
    }
    if (first == "help") {
        if (args.size() == 1) {
            print_main_help(std::cout);
            return exit_ok;
        }
        return dispatch({args[1], "--help"});
    }
    const Command* command = find_command(first);
    if (!command) {
        std::string allowed;
        for (const Command& candidate : commands())
            allowed += (allowed.empty() ? "" : ", ") + std::string(candidate.name);
        throw_usage("", "unknown command `" + first + "`; allowed: " + allowed +
                            ", help, --help, --version.");
    }
    return command->run(std::vector<std::string>(args.begin() + 1, args.end()));
}

}  // namespace

int main(int argc, char** argv) {
    using namespace llmv::cli;
    try {
        return dispatch(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const llmv::Error& error) {
        // Every setting the error names is named as the CLI's option (`--model`, not `model`),
        // from what the error carries.
        print_error(error.code(), llmv::settings::message(error, llmv::settings::FrontEnd::cli));
        return exit_code_for(error.code());
    } catch (const std::bad_alloc&) {
        print_error(llmv::code::internal, "out of memory.");
        return exit_internal;
    } catch (const std::exception& error) {
        print_error(llmv::code::internal,
                    std::string(error.what()) + " (this is a bug; please report it).");
        return exit_internal;
    } catch (...) {
        print_error(llmv::code::internal, "unknown failure (this is a bug; please report it).");
        return exit_internal;
    }
}
