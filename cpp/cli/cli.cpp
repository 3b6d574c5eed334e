#include "cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "llmvalidate/edit_distance.hpp"
#include "llmvalidate/error.hpp"

namespace llmv::cli {

namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

std::vector<OptionSpec> with_help(const CommandSpec& spec) {
    std::vector<OptionSpec> options = spec.options;
    options.push_back({"--help", "-h", "", "Show this help and exit."});
    return options;
}

}  // namespace

int exit_code_for(const std::string& error_code) {
    switch (error_category(error_code)) {
        case ErrorCategory::usage:
            return exit_usage;
        case ErrorCategory::invalid_input:
            return exit_input;
        case ErrorCategory::provider:
        case ErrorCategory::transport:
            return exit_provider;
        case ErrorCategory::io:
            return exit_io;
        case ErrorCategory::cancelled:
            return interrupted_exit_code();
        case ErrorCategory::internal:
            return exit_internal;
    }
    return exit_internal;
}

void print_error(const std::string& error_code, const std::string& message) {
    std::cerr << "llmvalidate: error [" << error_code << "]: " << message << std::endl;
}

const std::vector<Command>& commands() {
    static const std::vector<Command> registry = {
#define LLMV_COMMAND(name, summary) {#name, summary, command_##name},
#include "commands.def"
#undef LLMV_COMMAND
    };
    return registry;
}

const Command* find_command(const std::string& name) {
    for (const Command& command : commands())
        if (name == command.name) return &command;
    return nullptr;
}

bool ParsedArgs::has(const std::string& name) const {
    return flags.count(name) > 0 || values.count(name) > 0;
}

std::string ParsedArgs::value(const std::string& name, const std::string& fallback) const {
    auto found = values.find(name);
    return found == values.end() ? fallback : found->second;
}

void throw_usage(const std::string& command, const std::string& message) {
    const std::string help =
        command.empty() ? "llmvalidate --help" : "llmvalidate " + command + " --help";
    throw Error(usage_code, message + " Run `" + help + "` for usage.");
}

ParsedArgs parse_args(const std::vector<std::string>& args, const CommandSpec& spec) {
    const std::vector<OptionSpec> options = with_help(spec);
    ParsedArgs parsed;
    bool only_operands = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool is_option = !only_operands && arg.size() > 1 && arg[0] == '-';
        if (!is_option) {
            if (parsed.operands.size() >= spec.max_operands)
                throw_usage(spec.name, "unexpected argument `" + arg + "` for `llmvalidate " +
                                           spec.name + "`; it takes at most " +
                                           std::to_string(spec.max_operands) +
                                           " operand(s): " + spec.usage + ".");
            parsed.operands.push_back(arg);
            continue;
        }
        if (arg == "--") {
            only_operands = true;
            continue;
        }
        std::string name = arg, value;
        bool has_inline_value = false;
        const std::size_t equals = arg.find('=');
        if (starts_with(arg, "--") && equals != std::string::npos) {
            name = arg.substr(0, equals);
            value = arg.substr(equals + 1);
            has_inline_value = true;
        }
        const OptionSpec* option = nullptr;
        for (const OptionSpec& candidate : options)
            if (name == candidate.name ||
                (!candidate.short_name.empty() && name == candidate.short_name))
                option = &candidate;
        if (!option) {
            std::string allowed, hint;
            for (const OptionSpec& candidate : options) {
                allowed += (allowed.empty() ? "" : ", ") + candidate.name;
                if (llmv::edit_distance(name, candidate.name) <= 2)
                    hint = " (did you mean " + candidate.name + "?)";
            }
            throw_usage(spec.name, "unknown option `" + name + "` for `llmvalidate " + spec.name +
                                       "`" + hint + "; allowed: " + allowed + ".");
        }
        if (option->name == "--help") {
            parsed.help = true;
            continue;
        }
        if (option->value_name.empty()) {
            if (has_inline_value)
                throw_usage(spec.name, "option `" + option->name + "` takes no value; received `" +
                                           arg + "`.");
            parsed.flags.insert(option->name);
            continue;
        }
        if (!has_inline_value) {
            if (i + 1 >= args.size())
                throw_usage(spec.name, "option `" + option->name + "` needs a value (" +
                                           option->name + " " + option->value_name +
                                           "); received nothing.");
            value = args[++i];
        }
        if (value.empty())
            throw_usage(spec.name, "option `" + option->name + "` needs a non-empty " +
                                       option->value_name + "; received an empty value.");
        if (parsed.values.count(option->name))
            throw_usage(spec.name, "option `" + option->name + "` given twice (`" +
                                       parsed.values[option->name] + "` and `" + value +
                                       "`); give it once.");
        parsed.values[option->name] = value;
    }
    return parsed;
}

void print_command_help(std::ostream& out, const CommandSpec& spec) {
    out << "Usage: llmvalidate " << spec.name << " " << spec.usage << "\n\n"
        << spec.description << "\n";
    if (!spec.operands.empty()) out << "\nOperands:\n" << spec.operands;
    out << "\nOptions:\n";
    for (const OptionSpec& option : with_help(spec)) {
        std::string left = "  " + (option.short_name.empty() ? "    " : option.short_name + ", ") +
                           option.name + (option.value_name.empty() ? "" : " " + option.value_name);
        if (left.size() < 28)
            left.resize(28, ' ');
        else
            left += "\n" + std::string(28, ' ');
        out << left << option.help << "\n";
    }
}

std::string read_input(const std::string& path, std::string* source) {
    if (path == "-") {
        *source = "standard input";
        std::string text{std::istreambuf_iterator<char>(std::cin),
                         std::istreambuf_iterator<char>()};
        if (std::cin.bad())
            throw Error(code::io, "could not read standard input: " +
                                      std::string(std::strerror(errno)) + ".");
        return text;
    }
    *source = "`" + path + "`";
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        const std::string reason = std::strerror(errno);
        throw Error(code::io,
                    "`FILE` must be a readable file; received \"" + path + "\" (" + reason + ").");
    }
    std::ostringstream buffer;
    buffer << file.rdbuf();
    if (file.bad())
        throw Error(code::io, "could not read \"" + path + "\": " + std::strerror(errno) + ".");
    return buffer.str();
}

void check_writable(const ParsedArgs& parsed, const std::string& option) {
    if (!parsed.has(option)) return;
    const std::string path = parsed.value(option);
    const std::string probe = path + ".tmp-probe-" + std::to_string(::getpid());
    if (!std::ofstream(probe, std::ios::binary | std::ios::trunc))
        throw_invalid(code::io, option, path, "a writable file path");
    std::remove(probe.c_str());
}

void write_output(const std::string& path, const std::string& text, const std::string& option) {
    if (path.empty()) {
        std::cout << text;
        std::cout.flush();
        if (!std::cout)
            throw Error(code::io, "could not write to standard output: " +
                                      std::string(std::strerror(errno)) + ".");
        return;
    }
    const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        if (!file) {
            const std::string reason = std::strerror(errno);
            throw Error(code::io, "`" + option + "` must be a writable path; received \"" + path +
                                      "\" (" + reason + ").");
        }
        file << text;
        file.flush();
        if (!file) {
            const std::string reason = std::strerror(errno);
            std::remove(temporary.c_str());
            throw Error(code::io, "could not write \"" + path + "\": " + reason + ".");
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        std::remove(temporary.c_str());
        throw Error(code::io, "`" + option + "` must be a writable path; received \"" + path +
                                  "\" (" + reason + ").");
    }
}

}  // namespace llmv::cli
