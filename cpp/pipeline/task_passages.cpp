// Passages files (prompts/passages/*.toml): passages with their own simulation prompts and
// variables, as the paper's Section 4 gives them.
#include <algorithm>
#include <set>

#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/task.hpp"
#include "llmvalidate/text.hpp"
#include "pipeline/task_internal.hpp"

namespace llmv {
using namespace task_detail;
using text::trim;

std::vector<TaskPassage> load_passages(const std::string& path) {
    const TomlValue root = parse_toml(read_file(path, "passages"), path);
    check_keys(root, {"schema", "source", "passage"}, path, "the file");
    check_schema(root, path);
    const auto* list = find(root, "passage");
    if (!list || !list->is_array() || list->as_array().empty()) {
        fail(path, "needs at least one [[passage]] with id and text.");
    }
    std::vector<TaskPassage> passages;
    std::set<std::string> ids;
    for (const auto& item : list->as_array()) {
        if (!item.is_table()) fail(path, "each passage must be a table" + line_of(item) + ".");
        check_keys(item, {"id", "title", "source", "text", "variables", "simulation"}, path,
                   "[[passage]]" + line_of(item));
        TaskPassage passage;
        passage.id = get_string(item, "id", path, "passage.", true);
        if (!ids.insert(passage.id).second) {
            fail(path,
                 "passage id " + in_quotes(passage.id) + " appears twice" + line_of(item) + ".");
        }
        const std::string where = "passage " + in_quotes(passage.id) + ": ";
        passage.title = get_string(item, "title", path, where, false);
        passage.source = get_string(item, "source", path, where, false);
        passage.text = trim(get_string(item, "text", path, where, true));
        if (passage.text.empty()) fail(path, where + "text is empty.");
        if (const auto* variables = find(item, "variables")) {
            passage.variables = get_string_table(*variables, path, where + "variables");
        }
        if (const auto* simulation = find(item, "simulation")) {
            passage.simulation_templates =
                get_string_table(*simulation, path, where + "simulation");
            for (auto& entry : passage.simulation_templates) {
                entry.second = trim(entry.second);
                parse_template(entry.second, path, where + "simulation." + entry.first);
            }
        }
        passages.push_back(std::move(passage));
    }
    return passages;
}

namespace {

// A key of [passage.simulation] that names no task would be ignored without a word (a typo).
// Known: the task of the run and the shipped tasks (aliases too).
void check_simulation_names(const Task& task, const TaskPassage& passage) {
    std::vector<std::string> known;
    bool catalog_read = false;
    for (const auto& entry : passage.simulation_templates) {
        const std::string name = canonical_task_name(entry.first);
        if (name == task.name()) continue;
        if (!catalog_read) {
            try {
                known = list_tasks();
            } catch (const Error&) {
                // No catalog of shipped tasks here (e.g. a front end that names its tasks'
                // folder per call): a typo cannot be told from another task, so none is refused.
                return;
            }
            catalog_read = true;
        }
        if (std::find(known.begin(), known.end(), name) != known.end()) continue;
        std::vector<std::string> names = known;
        if (std::find(names.begin(), names.end(), task.name()) == names.end())
            names.push_back(task.name());
        throw Error(code::task_invalid,
                    "passage " + in_quotes(passage.id) + ": simulation." + entry.first +
                        " names no task; the keys of [passage.simulation] are task "
                        "names: " +
                        describe_task_names(names) + ".");
    }
}

const std::string* simulation_template_for(const Task& task, const TaskPassage& passage) {
    check_simulation_names(task, passage);
    for (const auto& entry : passage.simulation_templates)
        if (canonical_task_name(entry.first) == task.name()) return &entry.second;
    return nullptr;
}

}  // namespace

Task task_for_passage(const Task& task, const TaskPassage& passage) {
    Task out = task;
    if (const std::string* templ = simulation_template_for(task, passage)) {
        try {
            out = out.with_simulation_template(*templ);
        } catch (const Error& error) {
            throw Error(error.code(), "passage " + in_quotes(passage.id) + ", simulation." +
                                          task.name() + ": " + error.what());
        }
    }
    TaskVariables accepted;
    for (const auto& entry : passage.variables) {
        if (task.accepts_variable(entry.first)) accepted.insert(entry);
    }
    return accepted.empty() ? out : out.with_variables(accepted);
}

pipeline::PassageInput passage_input(const Task& task, const TaskPassage& passage,
                                     const TaskVariables& given) {
    pipeline::PassageInput input;
    input.id = passage.id;
    input.text = passage.text;
    if (const std::string* templ = simulation_template_for(task, passage))
        input.simulation_template = *templ;
    for (const auto& [name, value] : passage.variables)
        if (task.accepts_variable(name)) input.variables[name] = value;
    // A run's variable given as "@NAME" takes each passage's own NAME, e.g. Table 6's
    // topic=@topic_not_discussed; it wins over the passage's value of the same variable.
    for (const auto& [name, value] : given) {
        if (value.size() < 2 || value[0] != '@') continue;
        const std::string wanted = value.substr(1);
        const auto own = passage.variables.find(wanted);
        if (own == passage.variables.end()) {
            std::string names;
            for (const auto& entry : passage.variables)
                names += (names.empty() ? "" : ", ") + entry.first;
            throw_invalid(
                code::task_invalid, "variables",
                name + "=" + value + " (passage " + in_quotes(passage.id) + ")",
                names.empty()
                    ? "a literal value: the passage has no variables"
                    : "a literal value or @ and one of the passage's variables: " + names);
        }
        input.variables[name] = own->second;
    }
    return input;
}

std::vector<pipeline::PassageInput> passage_inputs(const pipeline::ValidationConfig& config,
                                                   const std::vector<TaskPassage>& passages,
                                                   const std::string& source_origin) {
    const Task task = task_of(config, source_origin);
    std::vector<pipeline::PassageInput> inputs;
    inputs.reserve(passages.size());
    for (const TaskPassage& passage : passages)
        inputs.push_back(passage_input(task, passage, config.variables));
    return inputs;
}

}  // namespace llmv
