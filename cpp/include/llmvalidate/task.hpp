// Tasks: one TOML file holds a label set, an annotation template, a simulation template,
// per-label instructions, the JSON answer-format instructions and default variables
// (prompts/README.md documents the format). One source for the CLI, R and Stata.
//
// Loading checks everything that can be checked before a paid call: every placeholder is
// known where it is used, every label set is non-empty and unique, every per-label entry
// names a label of S. Failures throw llmv::Error with code llmv::code::task_invalid and a
// message naming the file, the field, the value received and what is allowed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llmv {

using TaskVariables = std::map<std::string, std::string>;

// The built-in placeholders of each template (user variables come on top).
//   annotation: {text} (the passage annotated), {labels} (S joined by ", ")
//   simulation: {label}, {n}, {length} (word count of y), {example} (y itself), {labels}
// {topic} is an ordinary variable that the topic tasks declare.
class Task {
  public:
    // Parse a task from TOML text; `origin` names it in error messages (a path or "<string>").
    static Task from_string(const std::string& toml_text, const std::string& origin = "<string>");
    static Task from_file(const std::string& path);

    const std::string& name() const { return name_; }
    const std::string& title() const { return title_; }
    const std::string& description() const { return description_; }
    const std::string& source() const { return source_; }  // where in the paper it comes from
    const std::string& origin() const { return origin_; }
    const std::vector<std::string>& labels() const { return labels_; }

    const std::string& annotation_template() const { return annotation_template_; }
    const std::string& annotation_answer_format() const { return annotation_answer_format_; }
    const std::string& simulation_template() const { return simulation_template_; }
    const std::string& simulation_answer_format() const { return simulation_answer_format_; }
    // "as_is" or "lower": how {label} is spelled in the simulation prompt.
    const std::string& simulation_label_case() const { return label_case_; }
    // name -> (label as in S -> value); a label without an entry gets "".
    const std::map<std::string, std::map<std::string, std::string>>& label_variables() const {
        return label_variables_;
    }
    const TaskVariables& default_variables() const { return default_variables_; }
    const std::vector<std::string>& required_variables() const { return required_variables_; }
    // [variable_descriptions]: what a variable holds and why, quoted when a required one is
    // missing (a general task's {genre}). Not part of the prompts nor of definition_hash().
    const std::map<std::string, std::string>& variable_descriptions() const {
        return variable_descriptions_;
    }

    // True when `name` may be given as a variable: a declared default or a required variable.
    bool accepts_variable(const std::string& name) const;
    // True when the simulation prompt quotes y ({example} or {length}): pools are then per
    // passage (METHOD.md, "Many passages"). Per-passage variables are the caller's to compare.
    bool simulation_depends_on_passage() const;

    // The full prompts: template, a blank line, then the answer-format instructions.
    // `variables` override the task's defaults; an unknown name, a required variable left
    // unset, or a label outside S throws llmv::Error (task_invalid).
    std::string render_annotation(const std::string& text,
                                  const TaskVariables& variables = {}) const;
    std::string render_simulation(const std::string& label, int n, const std::string& example,
                                  const TaskVariables& variables = {}) const;

    // The label of S that `answer` names (case- and whitespace-insensitive), if any.
    std::optional<std::string> match_label(const std::string& answer) const;

    // A new task with another simulation template (e.g. one written for a given passage,
    // prompts/passages/*.toml) or other default variables; checked like a loaded one.
    Task with_simulation_template(const std::string& simulation_template) const;
    Task with_variables(const TaskVariables& variables) const;
    // The same task without its answer-format instructions: for requests whose JSON Schema
    // travels with them (structured output `schema`), which constrains the answer already.
    Task without_answer_formats() const;

    // SHA-256 (hex) of everything that shapes the prompts (labels, templates, answer formats,
    // per-label values, defaults), independent of TOML layout and comments.
    std::string definition_hash() const;

  private:
    Task() = default;
    // `simulation_name`: how messages name the simulation template ("simulation.template" of
    // the task file, or "the simulation prompt" a user gave for the passage).
    void check(const std::string& simulation_name = "simulation.template") const;
    std::string render(const std::string& which, const std::string& templ,
                       const TaskVariables& values) const;
    TaskVariables merged(const TaskVariables& variables) const;

    std::string name_, title_, description_, source_, origin_;
    std::vector<std::string> labels_;
    std::string annotation_template_, annotation_answer_format_;
    std::string simulation_template_, simulation_answer_format_;
    std::string label_case_ = "as_is";
    std::map<std::string, std::map<std::string, std::string>> label_variables_;
    TaskVariables default_variables_;
    std::vector<std::string> required_variables_;
    std::map<std::string, std::string> variable_descriptions_;
};

// A task from its parts, for the front ends that build one from arguments (R's llm_task(), the
// CLI's --labels, --annotation-prompt, --simulation-prompt). The parts are written as TOML
// (task_toml) and read by Task::from_string, so they are checked exactly like a file.
struct TaskSpec {
    std::string name = "custom";
    std::string title, description, source;
    std::vector<std::string> labels;
    std::string annotation;                        // annotation.template
    std::string simulation;                        // simulation.template
    std::optional<std::string> annotation_format;  // unset: the engine's; "": none
    std::optional<std::string> simulation_format;
    std::string label_case;  // empty: as_is
    std::map<std::string, std::map<std::string, std::string>> label_variables;
    TaskVariables variables;  // defaults
    std::vector<std::string> required_variables;
    std::map<std::string, std::string> variable_descriptions;
};
// The TOML text of a task file holding `spec` (strings escaped; keys quoted where needed).
std::string task_toml(const TaskSpec& spec);
// Task::from_string(task_toml(spec), origin); an error's leading TOML field ("annotation.template")
// is renamed by `argument_names` ({"annotation.template", "`annotation`"}) so that it names
// the front end's argument. Fields without an entry keep their TOML name. `declare_variable`,
// when given, replaces the task file's advice on declaring a placeholder's variable ("declare
// it under [variables] ...") with the front end's ("give it a value with --vars NAME=VALUE").
Task task_from_spec(const TaskSpec& spec, const std::string& origin,
                    const std::map<std::string, std::string>& argument_names,
                    const std::string& declare_variable = "");

// SHA-256 (hex) of one rendered prompt: the verdict's prompt hashes.
std::string prompt_hash(const std::string& prompt);

// The shipped prompts folder: `prompts_dir` if not empty, else $LLMV_PROMPTS_DIR, else the
// path compiled in (the source tree's prompts/). Throws llmv::Error (io) when none exists.
std::string prompts_directory(const std::string& prompts_dir = "");
// Names of the shipped tasks (the *.toml files directly in the prompts folder), sorted.
std::vector<std::string> list_tasks(const std::string& prompts_dir = "");

// The task catalog: one canonical name per shipped task (its file, prompts/<name>.toml) and
// the short aliases every front end accepts too (R's "sentiment" is the CLI's
// "simple_sentiment"). A shipped task without an entry here is known by its file name only.
// Adding a shipped task: the .toml file, plus a line here when it has aliases.
struct TaskAlias {
    std::string name;                  // canonical: the file name without .toml
    std::vector<std::string> aliases;  // other names accepted for it
};
const std::vector<TaskAlias>& task_aliases();
// The canonical name of a shipped task or of one of its aliases; the input when it is neither.
std::string canonical_task_name(const std::string& name);
// "simple_sentiment (or sentiment), detailed_sentiment (or sentiment5), ...": every shipped
// task of the prompts folder, with its aliases, for messages and help.
std::string describe_tasks(const std::string& prompts_dir = "");
// The same text for a list of task names (a front end that ships the task files elsewhere,
// e.g. Stata's ado-path, and knows their names from the build).
std::string describe_task_names(const std::vector<std::string>& names);

// The file of a shipped task, by canonical name or alias; an unknown name is the error of
// load_task (task_invalid, listing the shipped names).
std::string shipped_task_file(const std::string& name, const std::string& prompts_dir = "");

// A task by shipped name or alias ("simple_sentiment", "sentiment") or by path (anything with
// a '/' or ending in ".toml"). An unknown name is an error listing the shipped names.
Task load_task(const std::string& name_or_path, const std::string& prompts_dir = "");
// The file load_task() reads: a path as given, else the shipped task's file.
std::string task_file(const std::string& name_or_path, const std::string& prompts_dir = "");

// Passages with their own prompts (prompts/passages/section4.toml): text, provenance,
// variables (e.g. the topics of Section 4.5) and simulation templates keyed by task name.
struct TaskPassage {
    std::string id;
    std::string title;
    std::string source;
    std::string text;
    TaskVariables variables;
    std::map<std::string, std::string> simulation_templates;  // task name -> template
};
std::vector<TaskPassage> load_passages(const std::string& path);
// The task as used for `passage`: its simulation template (when the passage has one for this
// task) and its variables that the task accepts.
Task task_for_passage(const Task& task, const TaskPassage& passage);

namespace pipeline {
struct PassageInput;      // passage.hpp
struct ValidationConfig;  // validation_config.hpp
}  // namespace pipeline
// The task of a run: config.task_source (TOML text, named `source_origin` in messages, e.g.
// "built by llm_task()") or config.task_path (as load_task() takes it).
Task task_of(const pipeline::ValidationConfig& config, const std::string& source_origin);
// `passage` as the pipeline's input for `task` (`llmvalidate run --passages`, R's passages):
// id and text, its simulation template for this task (by the task's name) and the variables
// the task accepts; no human label. A value "@NAME" in `given` (the run's variables) takes the
// passage's own variable NAME for that variable (e.g. topic=@topic_not_discussed, Table 6).
pipeline::PassageInput passage_input(const Task& task, const TaskPassage& passage,
                                     const TaskVariables& given = {});
// The passages of a run of `config` as its inputs: passage_input() of each for the run's task
// (task_of(config, source_origin), read once); no human labels.
std::vector<pipeline::PassageInput> passage_inputs(const pipeline::ValidationConfig& config,
                                                   const std::vector<TaskPassage>& passages,
                                                   const std::string& source_origin);

}  // namespace llmv
