// llmvalidate task list | show NAME | new [--output FILE]
// The shipped tasks (prompts/*.toml) and a template to write one's own; also the task that
// run and batch build from --labels, --annotation-prompt and --simulation-prompt.
#include <iostream>

#include "cli.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/key_value.hpp"
#include "llmvalidate/task.hpp"
#include "llmvalidate/text.hpp"
#include "task_options.hpp"

namespace llmv::cli {

namespace {

const CommandSpec& task_spec() {
    static const CommandSpec spec = {
        "task",
        "list | show NAME | new [--output FILE]",
        "Shows the tasks that come with llmvalidate and writes a template for your own.\n"
        "A task is a TOML file (prompts/README.md): the label set, the annotation prompt\n"
        "and the simulation prompt. The simulation prompt must describe YOUR texts (kind\n"
        "of text, style, length; Hansen 2026, Section 4.1): the tests compare the texts it\n"
        "generates with your passage. Paper tasks keep the paper's prompts (most describe a\n"
        "bank's 10-K filing); general tasks ask for your description in {genre}.\n\n"
        "Examples:\n"
        "  llmvalidate task list\n"
        "  llmvalidate task show sentiment > my_task.toml\n"
        "  llmvalidate task new --output my_task.toml",
        "  list                      The shipped tasks: name, aliases, labels, title.\n"
        "  show NAME                 Print a shipped task's TOML, after its aliases and file.\n"
        "  new                       Write an editable task template with comments.\n",
        {
            {"--output", "-o", "FILE",
             "new: write the template to FILE instead of standard output."},
        },
        2,
    };
    return spec;
}

std::string aliases_of(const std::string& name) {
    for (const TaskAlias& entry : task_aliases()) {
        if (entry.name != name) continue;
        std::string text;
        for (const std::string& alias : entry.aliases) text += (text.empty() ? "" : ", ") + alias;
        return text;
    }
    return "";
}

std::string list_text() {
    std::string out;
    for (const std::string& name : list_tasks()) {
        const Task task = load_task(name);
        std::string labels;
        for (const std::string& label : task.labels())
            labels += (labels.empty() ? "" : ", ") + label;
        const std::string aliases = aliases_of(name);
        out += name + (aliases.empty() ? "" : " (or " + aliases + ")") + "\n";
        out += "    " + task.title() + "\n";
        out += "    labels: " + labels + "\n";
        if (!task.required_variables().empty()) {
            std::string required;
            for (const std::string& variable : task.required_variables())
                required += (required.empty() ? "" : ", ") + variable;
            out += "    requires: " + required + " (--vars NAME=VALUE)\n";
        }
    }
    return out;
}

std::string show_text(const std::string& name) {
    const std::string path = shipped_task_file(name);
    std::string source;
    const std::string text = read_input(path, &source);
    const Task task = Task::from_string(text, path);
    const std::string aliases = aliases_of(task.name());
    std::string out = "# Task " + task.name() +
                      (aliases.empty() ? "" : " (also known as " + aliases + ")") + "\n";
    out += "# File: " + path + "\n";
    if (!task.source().empty()) out += "# Provenance: " + task.source() + "\n";
    out += "# Copy it (llmvalidate task show " + task.name() +
           " > my_task.toml), edit it, and run it with --task my_task.toml.\n\n";
    return out + text;
}

// The template of `task new`: every field, commented, ready to edit. It loads as it is.
const char* const new_task_template =
    R"TOML(# A task of your own for llmvalidate (the format: prompts/README.md).
# Run it with: llmvalidate run --task THIS_FILE --text "..."
#
# The method compares the texts the LLM writes for each label with your passage. So the
# simulation prompt below must describe YOUR texts in broad terms (Hansen 2026, Section 4.1):
#   - the kind of text (a tweet, an FOMC statement, a customer review, a news headline);
#   - its style (formal or informal, first person, technical vocabulary);
#   - its length (e.g. "around 40 words", or {length}: the passage's own word count).
# A description that does not fit your texts gives spurious "invalid" verdicts.
schema = 1
name = "my_task"                  # lower-case letters, digits, _ or -
title = "One line that says what is annotated"
description = "What the label means and how it is decided."
source = "Who wrote these prompts, and from what."

labels = ["Positive", "Neutral", "Negative"]   # the label set S, at least two

# User placeholders: required_variables must be given at run time (--vars NAME=VALUE, or in
# R variables = c(NAME = "...")); [variables] NAME = "..." gives a default instead. Here
# {genre} describes your texts: replace this by a [variables] default that describes them,
# or give it on each run (--vars genre="short informal comments, one to three sentences").
required_variables = ["genre"]

[variable_descriptions]
genre = "your texts' kind, style and length, which the simulation prompt must describe (Hansen 2026, Section 4.1)."

[annotation]
# {text} is the passage; {labels} is the label set joined by ", ".
template = """
TASK: Read the following passage and classify its sentiment using one of the \
following labels: [{labels}].
PASSAGE: {text}"""

[simulation]
# {n} texts per call, {label} the label simulated; describe your texts here (see above).
template = """
TASK: Write {n} arbitrary passages of the following kind: {genre}. The sentiment of \
each passage should be characterized as {label}."""
)TOML";

}  // namespace

std::vector<OptionSpec> task_from_options_options() {
    return {
        {"--labels", "", "A,B,...",
         "A task from options instead of --task: the label set S, separated by commas."},
        {"--annotation-prompt", "", "TEXT",
         "With --labels: the annotation prompt, with {text} (the passage)."},
        {"--simulation-prompt", "", "TEXT",
         "With --labels: the simulation prompt, with {n} and {label}; it must describe your texts "
         "(kind, style, length)."},
    };
}

std::string task_source_from_options(const std::string& command, const ParsedArgs& parsed) {
    const bool labels = parsed.has("--labels");
    const bool annotation = parsed.has("--annotation-prompt");
    const bool simulation = parsed.has("--simulation-prompt");
    if (!labels && !annotation && !simulation) return "";
    if (parsed.has("--task")) {
        throw_usage(command,
                    "give either `--task` or `--labels` with `--annotation-prompt` and "
                    "`--simulation-prompt`, not both; received --task " +
                        parsed.value("--task") + " and a task from options.");
    }
    if (!labels || !annotation || !simulation) {
        std::string missing;
        for (const char* option : {"--labels", "--annotation-prompt", "--simulation-prompt"})
            if (!parsed.has(option))
                missing += std::string(missing.empty() ? "" : ", ") + "`" + option + "`";
        throw_usage(command,
                    "a task from options needs `--labels`, `--annotation-prompt` and "
                    "`--simulation-prompt` together; missing " +
                        missing + ".");
    }
    TaskSpec spec;
    for (const std::string& label : text::split(parsed.value("--labels"), ','))
        spec.labels.push_back(text::trim(label));
    spec.annotation = parsed.value("--annotation-prompt");
    spec.simulation = parsed.value("--simulation-prompt");
    // Variables given with --vars (defaults) and --variable-columns (required) become the
    // task's: a task from options declares what it uses.
    if (parsed.has("--vars")) {
        for (const std::string& item : text::split(parsed.value("--vars"), ','))
            if (const auto pair = key_value::split(item))
                spec.variables[text::trim(pair->first)] = pair->second;
    }
    // batch --variable-columns: per-row values, so required by the task.
    if (parsed.has("--variable-columns")) {
        for (const std::string& column : text::split(parsed.value("--variable-columns"), ',')) {
            const std::string name = text::trim(column);
            if (!name.empty() && !spec.variables.count(name))
                spec.required_variables.push_back(name);
        }
    }
    const std::map<std::string, std::string> option_names = {
        {"labels", "`--labels`"},
        {"annotation.template", "`--annotation-prompt`"},
        {"simulation.template", "`--simulation-prompt`"},
        {"variables", "`--vars`"},
        {"required_variables", "`--variable-columns`"},
    };
    try {
        task_from_spec(spec, options_task_origin, option_names,
                       "give it a value with --vars NAME=VALUE");
    } catch (const Error& error) {
        throw_usage(command, error.what());
    }
    return task_toml(spec);
}

int command_task(const std::vector<std::string>& args) {
    const CommandSpec& spec = task_spec();
    const ParsedArgs parsed = parse_args(args, spec);
    if (parsed.help) {
        print_command_help(std::cout, spec);
        return exit_ok;
    }
    const std::string action = parsed.operands.empty() ? "" : parsed.operands[0];
    const std::size_t expected = action == "show" ? 2 : 1;
    if (action != "list" && action != "show" && action != "new") {
        throw_usage(spec.name, "the action must be list, show NAME or new; received " +
                                   (action.empty() ? std::string("none") : "`" + action + "`") +
                                   ".");
    }
    if (parsed.operands.size() != expected) {
        throw_usage(spec.name, action == "show"
                                   ? "`task show` takes the name of one shipped task, e.g. "
                                     "`llmvalidate task show sentiment`; shipped: " +
                                         describe_tasks() + "."
                                   : "`task " + action + "` takes no further operand; received `" +
                                         parsed.operands.back() + "`.");
    }
    if (parsed.has("--output") && action != "new")
        throw_usage(spec.name, "`--output` goes with `task new` only; received it with `task " +
                                   action + "`.");
    if (action == "list") {
        std::cout << list_text();
    } else if (action == "show") {
        std::cout << show_text(parsed.operands[1]);
    } else {
        write_output(parsed.value("--output"), new_task_template);
        if (parsed.has("--output"))
            std::cerr << "Wrote " << parsed.value("--output")
                      << ": edit its labels and prompts, then run it with --task "
                      << parsed.value("--output") << ".\n";
    }
    return exit_ok;
}

}  // namespace llmv::cli
