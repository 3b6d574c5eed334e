// Tasks (prompts/*.toml): loading with every check done up front, and prompt rendering.
// The format is documented in prompts/README.md; keep the two in step.
#include "llmvalidate/task.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/sha256.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/labels.hpp"
#include "llmvalidate/text.hpp"
#include "pipeline/task_internal.hpp"

namespace llmv {
using namespace task_detail;

namespace {

using text::trim;

std::string lower(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

const std::vector<std::string> kAnnotationBuiltins = {"text", "labels"};
const std::vector<std::string> kSimulationBuiltins = {"label", "n", "length", "example", "labels"};
const std::vector<std::string> kAllBuiltins = {"text", "labels", "label", "n", "length", "example"};

std::size_t word_count(const std::string& text) {
    std::istringstream words(text);
    std::size_t count = 0;
    for (std::string word; words >> word;) ++count;
    return count;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
Task Task::from_string(const std::string& toml_text, const std::string& origin) {
    const TomlValue root = parse_toml(toml_text, origin);
    check_keys(
        root,
        {"schema", "name", "title", "description", "source", "labels", "required_variables",
         "variables", "variable_descriptions", "annotation", "simulation", "label_variables"},
        origin, "the file");
    check_schema(root, origin);

    Task task;
    task.origin_ = origin;
    task.name_ = get_string(root, "name", origin, "", true);
    task.title_ = get_string(root, "title", origin, "", false);
    task.description_ = get_string(root, "description", origin, "", false);
    task.source_ = get_string(root, "source", origin, "", false);

    const auto* labels = find(root, "labels");
    if (!labels) {
        fail(origin,
             "labels is missing; give the label set S, e.g. labels = [\"Positive\", "
             "\"Neutral\", \"Negative\"].");
    }
    for (const auto& label : get_strings(*labels, origin, "labels")) {
        task.labels_.push_back(trim(label));
    }

    for (const auto& section : {"annotation", "simulation"}) {
        const auto* table = find(root, section);
        if (!table) {
            fail(origin, std::string("[") + section +
                             "] is missing; it must hold at least template = \"...\".");
        }
        if (!table->is_table()) {
            fail(origin, std::string(section) + " must be a table; received " + type_name(*table) +
                             line_of(*table) + ".");
        }
    }
    const auto& annotation = *find(root, "annotation");
    const auto& simulation = *find(root, "simulation");
    check_keys(annotation, {"template", "answer_format"}, origin, "[annotation]");
    check_keys(simulation, {"template", "answer_format", "label_case"}, origin, "[simulation]");
    task.annotation_template_ =
        trim(get_string(annotation, "template", origin, "annotation.", true));
    task.simulation_template_ =
        trim(get_string(simulation, "template", origin, "simulation.", true));
    // Without answer-format instructions of its own a task gets the engine's.
    task.annotation_answer_format_ =
        find(annotation, "answer_format")
            ? trim(get_string(annotation, "answer_format", origin, "annotation.", false))
            : "Answer with a JSON object and nothing else, in the form {{\"label\": \"...\"}}, "
              "where the label is exactly one of: {labels}.";
    task.simulation_answer_format_ =
        find(simulation, "answer_format")
            ? trim(get_string(simulation, "answer_format", origin, "simulation.", false))
            : "Answer with a JSON object and nothing else, in the form {{\"passages\": [\"...\", "
              "\"...\"]}}, holding exactly {n} passages as strings.";
    if (find(simulation, "label_case")) {
        task.label_case_ = get_string(simulation, "label_case", origin, "simulation.", false);
    }

    if (const auto* defaults = find(root, "variables")) {
        task.default_variables_ = get_string_table(*defaults, origin, "variables");
    }
    if (const auto* required = find(root, "required_variables")) {
        task.required_variables_ = get_strings(*required, origin, "required_variables");
    }
    if (const auto* descriptions = find(root, "variable_descriptions")) {
        task.variable_descriptions_ =
            get_string_table(*descriptions, origin, "variable_descriptions");
        for (auto& entry : task.variable_descriptions_) entry.second = trim(entry.second);
    }
    if (const auto* per_label = find(root, "label_variables")) {
        if (!per_label->is_table()) {
            fail(origin, "label_variables must be a table of tables; received " +
                             type_name(*per_label) + line_of(*per_label) + ".");
        }
        for (const auto& entry : per_label->as_table()) {
            auto values = get_string_table(entry.second, origin, "label_variables." + entry.first);
            auto& target = task.label_variables_[entry.first];
            for (const auto& value : values) {
                // Keys are labels of S, matched like answers; stored spelled as in S.
                const auto label = task.match_label(value.first);
                if (!label) {
                    fail(origin, "label_variables." + entry.first + " has the key " +
                                     in_quotes(value.first) + line_of(entry.second) +
                                     ", which is not a label; labels: " +
                                     join(task.labels_, ", ", "\"", "\"") + ".");
                }
                target[*label] = trim(value.second);
            }
        }
    }
    task.check();
    return task;
}

Task Task::from_file(const std::string& path) { return from_string(read_file(path, "task"), path); }

void Task::check(const std::string& simulation_name) const {
    const auto& origin = origin_;
    if (name_.empty() || !std::all_of(name_.begin(), name_.end(), [](char c) {
            return std::islower(static_cast<unsigned char>(c)) ||
                   std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        })) {
        fail(origin, "name must be lower-case letters, digits, '_' or '-'; received " +
                         in_quotes(name_) + ".");
    }
    if (labels_.size() < 2) {
        fail(origin,
             "labels must hold at least two labels (the separation test compares "
             "labels); received " +
                 std::to_string(labels_.size()) + ".");
    }
    std::set<std::string> seen;
    for (const auto& label : labels_) {
        if (label.empty()) fail(origin, "labels has an empty label; every label needs a name.");
        if (!seen.insert(normalize_label(label)).second) {
            fail(origin, "labels has " + in_quotes(label) +
                             " twice (labels match case- and space-insensitively); labels: " +
                             join(labels_, ", ", "\"", "\"") + ".");
        }
    }
    if (label_case_ != "as_is" && label_case_ != "lower") {
        fail(origin, "simulation.label_case must be \"as_is\" or \"lower\"; received " +
                         in_quotes(label_case_) + ".");
    }

    // Variable names: identifiers, not built-ins, each declared once.
    std::vector<std::string> user_names;
    auto declare = [&](const std::string& name, const std::string& field) {
        if (!is_identifier(name)) {
            fail(origin, field + " has the variable name " + in_quotes(name) +
                             ", which is not a name; use letters, digits and underscores.");
        }
        if (std::find(kAllBuiltins.begin(), kAllBuiltins.end(), name) != kAllBuiltins.end()) {
            fail(origin, field + " declares " + in_quotes(name) +
                             ", a built-in placeholder; built-ins: " + join(kAllBuiltins, ", ") +
                             ".");
        }
        if (std::find(user_names.begin(), user_names.end(), name) != user_names.end()) {
            fail(origin, field + " declares " + in_quotes(name) +
                             ", which is already declared (in variables, required_variables or "
                             "label_variables).");
        }
        user_names.push_back(name);
    };
    for (const auto& entry : default_variables_) declare(entry.first, "variables");
    for (const auto& name : required_variables_) declare(name, "required_variables");
    std::vector<std::string> label_variable_names;
    for (const auto& entry : label_variables_) {
        declare(entry.first, "label_variables");
        label_variable_names.push_back(entry.first);
    }
    for (const auto& entry : variable_descriptions_) {
        if (std::find(user_names.begin(), user_names.end(), entry.first) == user_names.end()) {
            fail(origin, "variable_descriptions describes " + in_quotes(entry.first) +
                             ", which the task does not declare; declared: " +
                             (user_names.empty() ? std::string("none") : join(user_names, ", ")) +
                             ".");
        }
    }
    std::vector<std::string> plain_user_names;
    for (const auto& name : user_names) {
        if (!label_variables_.count(name)) plain_user_names.push_back(name);
    }

    auto allowed_in = [&](std::vector<std::string> builtins, bool with_label_variables) {
        for (const auto& name : plain_user_names) builtins.push_back(name);
        if (with_label_variables) {
            for (const auto& name : label_variable_names) builtins.push_back(name);
        }
        return builtins;
    };
    const auto annotation_allowed = allowed_in(kAnnotationBuiltins, false);
    const auto simulation_allowed = allowed_in(kSimulationBuiltins, true);
    const auto label_value_allowed = allowed_in(kSimulationBuiltins, false);

    auto check_template = [&](const std::string& templ, const std::string& where,
                              const std::vector<std::string>& allowed) {
        for (const auto& segment : parse_template(templ, origin, where)) {
            if (!segment.placeholder) continue;
            if (std::find(allowed.begin(), allowed.end(), segment.text) != allowed.end()) continue;
            std::string hint;
            if (std::find(kAllBuiltins.begin(), kAllBuiltins.end(), segment.text) !=
                kAllBuiltins.end()) {
                hint = " ({" + segment.text + "} is a built-in of the " +
                       (where.rfind("annotation", 0) == 0 ? "simulation" : "annotation") +
                       " template only)";
            } else if (label_variables_.count(segment.text)) {
                hint = " (a per-label value cannot use another per-label variable)";
            } else {
                hint =
                    "; declare it under [variables] with a default or in required_variables, "
                    "or write {{ and }} for literal braces";
            }
            fail(origin, where + " uses the unknown placeholder {" + segment.text + "}" + hint +
                             ". Allowed here: " + join(allowed, ", ", "{", "}") + ".");
        }
    };
    if (annotation_template_.empty()) fail(origin, "annotation.template is empty.");
    if (simulation_template_.empty()) fail(origin, simulation_name + " is empty.");
    check_template(annotation_template_, "annotation.template", annotation_allowed);
    check_template(annotation_answer_format_, "annotation.answer_format", annotation_allowed);
    check_template(simulation_template_, simulation_name, simulation_allowed);
    check_template(simulation_answer_format_, "simulation.answer_format", simulation_allowed);
    for (const auto& entry : label_variables_) {
        for (const auto& value : entry.second) {
            check_template(value.second, "label_variables." + entry.first + "." + value.first,
                           label_value_allowed);
        }
    }

    if (!placeholders(annotation_template_).count("text")) {
        fail(origin, "annotation.template must quote the passage with {text}; it has no {text}.");
    }
    // A simulation prompt that ignores the label makes every pool the same distribution.
    bool uses_label = false;
    for (const auto& name : placeholders(simulation_template_)) {
        if (name == "label" || label_variables_.count(name)) uses_label = true;
    }
    if (!uses_label) {
        // Named in the words of any front end (a Stata or R user giving a simulation prompt
        // has no task file to look up a table in).
        fail(origin, simulation_name + " must depend on the label: use {label}" +
                         (label_variable_names.empty()
                              ? std::string()
                              : " or one of the task's label variables (" +
                                    join(label_variable_names, ", ", "{", "}") + ")") +
                         ".");
    }
}

bool Task::accepts_variable(const std::string& name) const {
    return default_variables_.count(name) > 0 ||
           std::find(required_variables_.begin(), required_variables_.end(), name) !=
               required_variables_.end();
}

bool Task::simulation_depends_on_passage() const {
    auto quotes_y = [](const std::string& templ) {
        const auto names = placeholders(templ);
        return names.count("example") > 0 || names.count("length") > 0;
    };
    if (quotes_y(simulation_template_) || quotes_y(simulation_answer_format_)) return true;
    for (const auto& entry : label_variables_) {
        for (const auto& value : entry.second) {
            if (quotes_y(value.second)) return true;
        }
    }
    return false;
}

TaskVariables Task::merged(const TaskVariables& variables) const {
    TaskVariables values = default_variables_;
    for (const auto& entry : variables) {
        if (!accepts_variable(entry.first)) {
            std::vector<std::string> accepted;
            for (const auto& d : default_variables_) accepted.push_back(d.first);
            for (const auto& r : required_variables_) accepted.push_back(r);
            throw_invalid(
                code::task_invalid, "variables", in_quotes(entry.first) + " (task " + name_ + ")",
                accepted.empty() ? "empty: task " + name_ + " declares no variables"
                                 : "one of the task's variables: " + join(accepted, ", "));
        }
        values[entry.first] = entry.second;
    }
    for (const auto& name : required_variables_) {
        if (!values.count(name)) {
            const auto description = variable_descriptions_.find(name);
            throw Error(
                code::task_invalid,
                "`variables` must give a value for " + in_quotes(name) + ", which task " + name_ +
                    " requires (required_variables); received none." +
                    (description == variable_descriptions_.end() || description->second.empty()
                         ? std::string()
                         : " " + name + ": " + description->second),
                {"variables"});
        }
    }
    values["labels"] = join(labels_, ", ");
    return values;
}

std::string Task::render(const std::string& which, const std::string& templ,
                         const TaskVariables& values) const {
    return substitute(parse_template(templ, origin_, which), values);
}

std::string Task::render_annotation(const std::string& text, const TaskVariables& variables) const {
    auto values = merged(variables);
    values["text"] = text;
    std::string prompt = render("annotation.template", annotation_template_, values);
    if (!annotation_answer_format_.empty()) {
        prompt += "\n\n" + render("annotation.answer_format", annotation_answer_format_, values);
    }
    return prompt;
}

std::string Task::render_simulation(const std::string& label, int n, const std::string& example,
                                    const TaskVariables& variables) const {
    const auto matched = match_label(label);
    if (!matched) {
        throw_invalid(code::unknown_label, "label", in_quotes(label),
                      "a label of task " + name_ + ": " + join(labels_, ", ", "\"", "\""));
    }
    if (n < 1) throw_invalid(code::invalid_argument, "n", std::to_string(n), "at least 1");
    auto values = merged(variables);
    values["label"] = label_case_ == "lower" ? lower(*matched) : *matched;
    values["n"] = std::to_string(n);
    values["example"] = example;
    values["length"] = std::to_string(word_count(example));
    for (const auto& entry : label_variables_) {
        const auto it = entry.second.find(*matched);
        values[entry.first] = it == entry.second.end()
                                  ? ""
                                  : render("label_variables." + entry.first, it->second, values);
    }
    std::string prompt = render("simulation.template", simulation_template_, values);
    if (!simulation_answer_format_.empty()) {
        prompt += "\n\n" + render("simulation.answer_format", simulation_answer_format_, values);
    }
    return prompt;
}

std::optional<std::string> Task::match_label(const std::string& answer) const {
    const auto wanted = normalize_label(answer);
    for (const auto& label : labels_) {
        if (normalize_label(label) == wanted) return label;
    }
    return std::nullopt;
}

Task Task::with_simulation_template(const std::string& simulation_template) const {
    Task task = *this;
    task.simulation_template_ = trim(simulation_template);
    task.check("the simulation prompt");
    return task;
}

Task Task::with_variables(const TaskVariables& variables) const {
    Task task = *this;
    for (const auto& entry : variables) {
        if (!accepts_variable(entry.first)) merged({{entry.first, ""}});  // throws, naming it
        task.default_variables_[entry.first] = entry.second;
        auto& required = task.required_variables_;
        required.erase(std::remove(required.begin(), required.end(), entry.first), required.end());
    }
    task.check();
    return task;
}

Task Task::without_answer_formats() const {
    Task task = *this;
    task.annotation_answer_format_.clear();
    task.simulation_answer_format_.clear();
    return task;
}

std::string Task::definition_hash() const {
    nlohmann::json definition = {
        {"schema", kSchemaVersion},
        {"labels", labels_},
        {"annotation",
         {{"template", annotation_template_}, {"answer_format", annotation_answer_format_}}},
        {"simulation",
         {{"template", simulation_template_},
          {"answer_format", simulation_answer_format_},
          {"label_case", label_case_}}},
        {"label_variables", label_variables_},
        {"variables", default_variables_},
        {"required_variables", required_variables_},
    };
    return sha256_hex(definition.dump());
}

std::string prompt_hash(const std::string& prompt) { return sha256_hex(prompt); }

}  // namespace llmv
