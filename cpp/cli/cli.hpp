// The command-line tool's shared parts: the command registry, option parsing, help text, the
// mapping from llmv::Error codes to exit codes, and reading input / writing output.
#pragma once

#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"

namespace llmv::cli {

// Exit codes (documented in docs/test-format.md and `llmvalidate --help`; never renumber).
enum ExitCode : int {
    exit_ok = 0,
    exit_internal = 1,      // a bug: llmv.internal and anything unexpected
    exit_usage = 2,         // bad command line
    exit_input = 3,         // invalid input: llmv.input.*, llmv.task.*
    exit_provider = 4,      // provider or transport failure: llmv.provider.*, llmv.transport.*
    exit_io = 5,            // files, standard streams, cache: llmv.io.*, llmv.cache.*
    exit_cancelled = 130,   // llmv.cancelled after SIGINT (Ctrl-C), as shells report it
    exit_terminated = 143,  // llmv.cancelled after SIGTERM (128 + 15)
};

// The one place where error codes become exit codes. llmv.cancelled is exit_cancelled, or
// exit_terminated when the interrupt was a SIGTERM (on every path: a run, a batch-API run, a
// wait for the cache's lock).
int exit_code_for(const std::string& error_code);
// exit_cancelled or exit_terminated, from the signal the CLI's handler received (terminal.cpp).
int interrupted_exit_code();

// Stable code of command-line errors (CLI only: bindings never see them).
inline constexpr const char* usage_code = code::usage;

// "llmvalidate: error [<code>]: <message>" on standard error.
void print_error(const std::string& error_code, const std::string& message);

// ---- commands ------------------------------------------------------------------------------
using CommandFunction = int (*)(const std::vector<std::string>& args);

struct Command {
    const char* name;
    const char* summary;
    CommandFunction run;
};

#define LLMV_COMMAND(name, summary) int command_##name(const std::vector<std::string>& args);
#include "commands.def"
#undef LLMV_COMMAND

const std::vector<Command>& commands();
const Command* find_command(const std::string& name);

// ---- options -------------------------------------------------------------------------------
struct OptionSpec {
    std::string name;        // "--output"
    std::string short_name;  // "-o", or empty
    std::string value_name;  // "PATH"; empty for a flag
    std::string help;
};

struct CommandSpec {
    std::string name;                 // "test"
    std::string usage;                // after "llmvalidate test ": "[FILE|-] [options]"
    std::string description;          // paragraphs, already wrapped
    std::string operands;             // operand help lines, already formatted; may be empty
    std::vector<OptionSpec> options;  // --help is added automatically
    std::size_t max_operands = 0;
};

struct ParsedArgs {
    std::map<std::string, std::string> values;  // by long name, for options with a value
    std::set<std::string> flags;                // by long name
    std::vector<std::string> operands;
    bool help = false;

    bool has(const std::string& name) const;
    std::string value(const std::string& name, const std::string& fallback = "") const;
};

// Throws llmv::Error(usage_code) naming the argument received and what is allowed.
ParsedArgs parse_args(const std::vector<std::string>& args, const CommandSpec& spec);
void print_command_help(std::ostream& out, const CommandSpec& spec);
[[noreturn]] void throw_usage(const std::string& command, const std::string& message);

// ---- input and output ----------------------------------------------------------------------
// Reads a whole file, or standard input for "-". `source` receives a name for messages.
std::string read_input(const std::string& path, std::string* source);
// Writes to standard output when `path` is empty, else atomically to `path` (a temporary
// file in the same folder, then rename), so a failed run never leaves half a file. `option`
// names the path in the error.
// Refuses, before anything is paid for, a file option whose path cannot be written (a probe
// file beside it is created and removed); nothing when the option was not given.
void check_writable(const ParsedArgs& parsed, const std::string& option);
void write_output(const std::string& path, const std::string& text,
                  const std::string& option = "--output");

}  // namespace llmv::cli
