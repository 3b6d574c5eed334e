// Tasks (prompts/*.toml): loading with every check done up front, and prompt rendering.
// The format is documented in prompts/README.md; keep the two in step.
#include "llmvalidate/task.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <utility>

#include <dirent.h>
#include <nlohmann/json.hpp>
#include <toml.hpp>

#include "core/text.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/labels.hpp"
#include "llmvalidate/sha256.hpp"

namespace llmv {
namespace {

// Ordered maps so that iteration (and so every message and hash) does not depend on hashing.
using TomlValue = toml::basic_value<toml::discard_comments, std::map, std::vector>;

constexpr int kSchemaVersion = 1;

[[noreturn]] void fail(const std::string& origin, const std::string& message) {
    throw Error(code::task_invalid, "task " + origin + ": " + message);
}

std::string line_of(const TomlValue& value) {
    const auto line = value.location().line();
    return line > 0 ? " (line " + std::to_string(line) + ")" : "";
}

std::string in_quotes(const std::string& text) { return "\"" + text + "\""; }

std::string join(const std::vector<std::string>& items, const std::string& separator,
                 const std::string& before = "", const std::string& after = "") {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += separator;
        out += before + items[i] + after;
    }
    return out;
}

std::string type_name(const TomlValue& value) {
    switch (value.type()) {
        case toml::value_t::boolean: return "a boolean";
        case toml::value_t::integer: return "an integer";
        case toml::value_t::floating: return "a number";
        case toml::value_t::string: return "a string";
        case toml::value_t::array: return "an array";
        case toml::value_t::table: return "a table";
        default: return "a date or time";
    }
}

using text::trim;

std::string lower(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

bool is_identifier(const std::string& name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

// ---------------------------------------------------------------------------------------------
// Templates: literal text with {name} placeholders; {{ and }} are literal braces.
struct Segment {
    bool placeholder = false;
    std::string text;  // literal text, or the placeholder's name
};

std::vector<Segment> parse_template(const std::string& templ, const std::string& origin,
                                    const std::string& where) {
    std::vector<Segment> segments;
    std::string literal;
    for (std::size_t i = 0; i < templ.size(); ++i) {
        const char c = templ[i];
        if (c == '{' && i + 1 < templ.size() && templ[i + 1] == '{') {
            literal += '{';
            ++i;
        } else if (c == '}' && i + 1 < templ.size() && templ[i + 1] == '}') {
            literal += '}';
            ++i;
        } else if (c == '{') {
            const auto close = templ.find('}', i + 1);
            const auto next_open = templ.find('{', i + 1);
            if (close == std::string::npos || (next_open != std::string::npos && next_open < close)) {
                fail(origin, where + " has a '{' that opens no placeholder, at \"" +
                                 abbreviate(templ.substr(i), 30) +
                                 "\"; write {{ for a literal brace, or {name} for a placeholder.");
            }
            const std::string name = templ.substr(i + 1, close - i - 1);
            if (!is_identifier(name)) {
                fail(origin, where + " has the placeholder {" + name +
                                 "}, which is not a name; a placeholder is {name} with letters, "
                                 "digits and underscores; write {{ and }} for literal braces.");
            }
            if (!literal.empty()) segments.push_back({false, literal});
            literal.clear();
            segments.push_back({true, name});
            i = close;
        } else if (c == '}') {
            fail(origin, where + " has a '}' that closes no placeholder, at \"" +
                             abbreviate(templ.substr(i), 30) + "\"; write }} for a literal brace.");
        } else {
            literal += c;
        }
    }
    if (!literal.empty()) segments.push_back({false, literal});
    return segments;
}

std::set<std::string> placeholders(const std::string& templ) {
    std::set<std::string> names;
    for (const auto& segment : parse_template(templ, "<checked>", "template")) {
        if (segment.placeholder) names.insert(segment.text);
    }
    return names;
}

// Substitutes values; a placeholder whose value is empty takes one surrounding space with it,
// so that an unset per-label instruction leaves no double space.
std::string substitute(const std::vector<Segment>& segments,
                       const std::map<std::string, std::string>& values) {
    std::string out;
    bool drop_space = false;
    for (const auto& segment : segments) {
        if (!segment.placeholder) {
            std::size_t skip = 0;
            if (drop_space && !segment.text.empty() && segment.text[0] == ' ' &&
                (out.empty() || out.back() == ' ' || out.back() == '\n')) {
                skip = 1;
            }
            out.append(segment.text, skip, std::string::npos);
            drop_space = false;
            continue;
        }
        const auto& value = values.at(segment.text);
        out += value;
        drop_space = value.empty();
    }
    return out;
}

const std::vector<std::string> kAnnotationBuiltins = {"text", "labels"};
const std::vector<std::string> kSimulationBuiltins = {"label", "n", "length", "example", "labels"};
const std::vector<std::string> kAllBuiltins = {"text", "labels", "label", "n", "length", "example"};

// ---------------------------------------------------------------------------------------------
// Reading TOML fields with messages that name the field, the type received and the type wanted.
const TomlValue* find(const TomlValue& table, const std::string& key) {
    const auto& entries = table.as_table();
    const auto it = entries.find(key);
    return it == entries.end() ? nullptr : &it->second;
}

void check_keys(const TomlValue& table, const std::vector<std::string>& allowed,
                const std::string& origin, const std::string& where) {
    for (const auto& entry : table.as_table()) {
        if (std::find(allowed.begin(), allowed.end(), entry.first) == allowed.end()) {
            fail(origin, where + " has the unknown key " + in_quotes(entry.first) + line_of(entry.second) +
                             "; allowed keys: " + join(allowed, ", ") + ".");
        }
    }
}

std::string get_string(const TomlValue& table, const std::string& key, const std::string& origin,
                       const std::string& where, bool required) {
    const auto* value = find(table, key);
    if (!value) {
        if (required) fail(origin, where + key + " is missing; it must be a string.");
        return "";
    }
    if (!value->is_string()) {
        fail(origin, where + key + " must be a string; received " + type_name(*value) +
                         line_of(*value) + ".");
    }
    return value->as_string().str;
}

std::vector<std::string> get_strings(const TomlValue& value, const std::string& origin,
                                     const std::string& field) {
    if (!value.is_array()) {
        fail(origin, field + " must be an array of strings; received " + type_name(value) +
                         line_of(value) + ".");
    }
    std::vector<std::string> out;
    for (const auto& item : value.as_array()) {
        if (!item.is_string()) {
            fail(origin, field + " must be an array of strings; one element is " + type_name(item) +
                             line_of(item) + ".");
        }
        out.push_back(item.as_string().str);
    }
    return out;
}

std::map<std::string, std::string> get_string_table(const TomlValue& value,
                                                    const std::string& origin,
                                                    const std::string& field) {
    if (!value.is_table()) {
        fail(origin, field + " must be a table of strings; received " + type_name(value) +
                         line_of(value) + ".");
    }
    std::map<std::string, std::string> out;
    for (const auto& entry : value.as_table()) {
        if (!entry.second.is_string()) {
            fail(origin, field + "." + entry.first + " must be a string; received " +
                             type_name(entry.second) + line_of(entry.second) + ".");
        }
        out[entry.first] = entry.second.as_string().str;
    }
    return out;
}

TomlValue parse_toml(const std::string& text, const std::string& origin) {
    std::istringstream stream(text);
    try {
        return toml::parse<toml::discard_comments, std::map, std::vector>(stream, origin);
    } catch (const toml::exception& error) {
        const auto line = error.location().line();
        fail(origin, "not valid TOML" + (line > 0 ? " at line " + std::to_string(line) : "") +
                         ":\n" + error.what());
    } catch (const std::exception& error) {
        fail(origin, std::string("not valid TOML: ") + error.what());
    }
}

std::string read_file(const std::string& path, const std::string& what) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw Error(code::io, "cannot read the " + what + " file " + in_quotes(path) + ".");
    std::ostringstream content;
    content << file.rdbuf();
    return content.str();
}

void check_schema(const TomlValue& root, const std::string& origin) {
    if (const auto* schema = find(root, "schema")) {
        if (!schema->is_integer() || schema->as_integer() != kSchemaVersion) {
            fail(origin, "schema must be " + std::to_string(kSchemaVersion) + "; received " +
                             (schema->is_integer() ? std::to_string(schema->as_integer())
                                                   : type_name(*schema)) +
                             line_of(*schema) + ".");
        }
    }
}

bool is_directory(const std::string& path) {
    struct stat info {};
    return !path.empty() && stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool is_file(const std::string& path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string compiled_prompts_directory() {
#ifdef LLMV_PROMPTS_DIR_DEFAULT
    return LLMV_PROMPTS_DIR_DEFAULT;
#else
    // The source tree's prompts/, two levels above this file (cpp/pipeline/task.cpp).
    std::string here = __FILE__;
    for (int level = 0; level < 3; ++level) {
        const auto slash = here.find_last_of('/');
        if (slash == std::string::npos) return "";
        here.resize(slash);
    }
    return here + "/prompts";
#endif
}

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
    check_keys(root,
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
        fail(origin, "labels is missing; give the label set S, e.g. labels = [\"Positive\", "
                     "\"Neutral\", \"Negative\"].");
    }
    for (const auto& label : get_strings(*labels, origin, "labels")) {
        task.labels_.push_back(trim(label));
    }

    for (const auto& section : {"annotation", "simulation"}) {
        const auto* table = find(root, section);
        if (!table) {
            fail(origin, std::string("[") + section + "] is missing; it must hold at least template = \"...\".");
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
    task.annotation_template_ = trim(get_string(annotation, "template", origin, "annotation.", true));
    task.simulation_template_ = trim(get_string(simulation, "template", origin, "simulation.", true));
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
        task.variable_descriptions_ = get_string_table(*descriptions, origin, "variable_descriptions");
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

void Task::check() const {
    const auto& origin = origin_;
    if (name_.empty() || !std::all_of(name_.begin(), name_.end(), [](char c) {
            return std::islower(static_cast<unsigned char>(c)) ||
                   std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        })) {
        fail(origin, "name must be lower-case letters, digits, '_' or '-'; received " +
                         in_quotes(name_) + ".");
    }
    if (labels_.size() < 2) {
        fail(origin, "labels must hold at least two labels (the separation test compares "
                     "labels); received " + std::to_string(labels_.size()) + ".");
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
                             ", a built-in placeholder; built-ins: " + join(kAllBuiltins, ", ") + ".");
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
            if (std::find(kAllBuiltins.begin(), kAllBuiltins.end(), segment.text) != kAllBuiltins.end()) {
                hint = " ({" + segment.text + "} is a built-in of the " +
                       (where.rfind("annotation", 0) == 0 ? "simulation" : "annotation") +
                       " template only)";
            } else if (label_variables_.count(segment.text)) {
                hint = " (a per-label value cannot use another per-label variable)";
            } else {
                hint = "; declare it under [variables] with a default or in required_variables, "
                       "or write {{ and }} for literal braces";
            }
            fail(origin, where + " uses the unknown placeholder {" + segment.text + "}" + hint +
                             ". Allowed here: " + join(allowed, ", ", "{", "}") + ".");
        }
    };
    if (annotation_template_.empty()) fail(origin, "annotation.template is empty.");
    if (simulation_template_.empty()) fail(origin, "simulation.template is empty.");
    check_template(annotation_template_, "annotation.template", annotation_allowed);
    check_template(annotation_answer_format_, "annotation.answer_format", annotation_allowed);
    check_template(simulation_template_, "simulation.template", simulation_allowed);
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
        fail(origin, "simulation.template must depend on the label: use {label} or a variable of "
                     "[label_variables]" +
                         (label_variable_names.empty()
                              ? std::string()
                              : " (" + join(label_variable_names, ", ", "{", "}") + ")") +
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
            throw_invalid(code::task_invalid, "variables",
                          in_quotes(entry.first) + " (task " + name_ + ")",
                          accepted.empty() ? "empty: task " + name_ + " declares no variables"
                                           : "one of the task's variables: " + join(accepted, ", "));
        }
        values[entry.first] = entry.second;
    }
    for (const auto& name : required_variables_) {
        if (!values.count(name)) {
            const auto description = variable_descriptions_.find(name);
            throw Error(code::task_invalid,
                        "`variables` must give a value for " + in_quotes(name) + ", which task " +
                            name_ + " requires (required_variables); received none." +
                            (description == variable_descriptions_.end() ||
                                     description->second.empty()
                                 ? std::string()
                                 : " " + name + ": " + description->second));
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
        values[entry.first] =
            it == entry.second.end()
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
    task.check();
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

std::string Task::definition_hash() const {
    nlohmann::json definition = {
        {"schema", kSchemaVersion},
        {"labels", labels_},
        {"annotation", {{"template", annotation_template_}, {"answer_format", annotation_answer_format_}}},
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

// ---------------------------------------------------------------------------------------------
std::string prompts_directory(const std::string& prompts_dir) {
    std::vector<std::pair<std::string, std::string>> candidates;
    if (!prompts_dir.empty()) {
        candidates.emplace_back(prompts_dir, "the prompts_dir argument");
    } else if (const char* env = std::getenv("LLMV_PROMPTS_DIR"); env && *env) {
        candidates.emplace_back(env, "LLMV_PROMPTS_DIR");
    } else {
        candidates.emplace_back(compiled_prompts_directory(), "the built-in default");
    }
    const auto& [path, from] = candidates.front();
    if (!is_directory(path)) {
        throw Error(code::io, "the prompts folder " + in_quotes(path) + " (from " + from +
                                  ") does not exist; set LLMV_PROMPTS_DIR to the folder that "
                                  "holds the shipped tasks (prompts/ in the source tree).");
    }
    return path;
}

std::vector<std::string> list_tasks(const std::string& prompts_dir) {
    const auto dir = prompts_directory(prompts_dir);
    std::vector<std::string> names;
    if (DIR* handle = opendir(dir.c_str())) {
        while (const dirent* entry = readdir(handle)) {
            const std::string file = entry->d_name;
            const std::string suffix = ".toml";
            if (file.size() > suffix.size() &&
                file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0 &&
                is_file(dir + "/" + file)) {
                names.push_back(file.substr(0, file.size() - suffix.size()));
            }
        }
        closedir(handle);
    }
    std::sort(names.begin(), names.end());
    return names;
}

const std::vector<TaskAlias>& task_aliases() {
    static const std::vector<TaskAlias> catalog = {
        {"simple_sentiment", {"sentiment"}},
        {"detailed_sentiment", {"sentiment5"}},
        {"temporal_focus", {"temporal"}},
        {"financial_phrasebank", {"phrasebank"}},
    };
    return catalog;
}

std::string canonical_task_name(const std::string& name) {
    for (const TaskAlias& entry : task_aliases())
        for (const std::string& alias : entry.aliases)
            if (alias == name) return entry.name;
    return name;
}

std::string describe_tasks(const std::string& prompts_dir) {
    return describe_task_names(list_tasks(prompts_dir));
}

std::string describe_task_names(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) {
        text += (text.empty() ? "" : ", ") + name;
        for (const TaskAlias& entry : task_aliases())
            if (entry.name == name && !entry.aliases.empty())
                text += " (or " + join(entry.aliases, ", ") + ")";
    }
    return text;
}

std::string shipped_task_file(const std::string& name, const std::string& prompts_dir) {
    const auto dir = prompts_directory(prompts_dir);
    const auto path = dir + "/" + canonical_task_name(name) + ".toml";
    if (name.find('/') != std::string::npos || !is_file(path)) {
        throw_invalid(code::task_invalid, "task", in_quotes(name),
                      "a path to a .toml file or the name of a shipped task: " +
                          describe_tasks(dir) + " (in " + dir + ")");
    }
    return path;
}

Task load_task(const std::string& name_or_path, const std::string& prompts_dir) {
    const bool is_path = name_or_path.find('/') != std::string::npos ||
                         (name_or_path.size() > 5 &&
                          name_or_path.compare(name_or_path.size() - 5, 5, ".toml") == 0);
    if (is_path) return Task::from_file(name_or_path);
    return Task::from_file(shipped_task_file(name_or_path, prompts_dir));
}

// ---------------------------------------------------------------------------------------------
namespace {

// A TOML basic string: quotes, backslashes and control characters escaped, UTF-8 kept.
std::string toml_quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (byte < 0x20 || byte == 0x7f) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04X", static_cast<unsigned>(byte));
                    out += escaped;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

std::string toml_string_array(const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + toml_quoted(items[i]);
    return out + "]";
}

// Keys are always quoted: labels and user names may hold spaces or dots.
std::string toml_table(const std::string& header, const std::map<std::string, std::string>& values) {
    std::string out = "\n[" + header + "]\n";
    for (const auto& entry : values) out += toml_quoted(entry.first) + " = " + toml_quoted(entry.second) + "\n";
    return out;
}

}  // namespace

std::string task_toml(const TaskSpec& spec) {
    std::string out = "schema = " + std::to_string(kSchemaVersion) + "\n";
    out += "name = " + toml_quoted(spec.name) + "\n";
    if (!spec.title.empty()) out += "title = " + toml_quoted(spec.title) + "\n";
    if (!spec.description.empty()) out += "description = " + toml_quoted(spec.description) + "\n";
    if (!spec.source.empty()) out += "source = " + toml_quoted(spec.source) + "\n";
    out += "labels = " + toml_string_array(spec.labels) + "\n";
    if (!spec.required_variables.empty())
        out += "required_variables = " + toml_string_array(spec.required_variables) + "\n";
    if (!spec.variables.empty()) out += toml_table("variables", spec.variables);
    if (!spec.variable_descriptions.empty())
        out += toml_table("variable_descriptions", spec.variable_descriptions);
    out += "\n[annotation]\ntemplate = " + toml_quoted(spec.annotation) + "\n";
    if (spec.annotation_format) out += "answer_format = " + toml_quoted(*spec.annotation_format) + "\n";
    out += "\n[simulation]\n";
    if (!spec.label_case.empty()) out += "label_case = " + toml_quoted(spec.label_case) + "\n";
    out += "template = " + toml_quoted(spec.simulation) + "\n";
    if (spec.simulation_format) out += "answer_format = " + toml_quoted(*spec.simulation_format) + "\n";
    for (const auto& entry : spec.label_variables)
        out += toml_table("label_variables." + toml_quoted(entry.first), entry.second);
    return out;
}

Task task_from_spec(const TaskSpec& spec, const std::string& origin,
                    const std::map<std::string, std::string>& argument_names) {
    try {
        return Task::from_string(task_toml(spec), origin);
    } catch (const Error& error) {
        // "task <origin>: <field> ...": rename the field, the longest name that matches.
        const std::string prefix = "task " + origin + ": ";
        std::string message = error.what();
        if (message.rfind(prefix, 0) != 0) throw;
        std::string rest = message.substr(prefix.size());
        std::string best;  // the field the message starts with
        for (const auto& entry : argument_names) {
            const std::string& field = entry.first;
            if (rest.rfind(field, 0) == 0 && field.size() > best.size() &&
                (rest.size() == field.size() || rest[field.size()] == ' ' ||
                 rest[field.size()] == '.'))
                best = field;
        }
        if (!best.empty()) rest = argument_names.at(best) + rest.substr(best.size());
        // Line numbers are those of the generated TOML, which the user never sees.
        for (auto at = rest.find(" (line "); at != std::string::npos; at = rest.find(" (line ", at)) {
            const auto close = rest.find(')', at);
            if (close == std::string::npos) break;
            rest.erase(at, close - at + 1);
        }
        const auto per_label = argument_names.find("label_variables");
        const std::string table = "[label_variables]";
        if (per_label != argument_names.end())
            for (auto at = rest.find(table); at != std::string::npos; at = rest.find(table, at))
                rest.replace(at, table.size(), per_label->second);
        throw Error(error.code(), prefix + rest);
    }
}

// ---------------------------------------------------------------------------------------------
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
            fail(path, "passage id " + in_quotes(passage.id) + " appears twice" + line_of(item) + ".");
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
            passage.simulation_templates = get_string_table(*simulation, path, where + "simulation");
            for (auto& entry : passage.simulation_templates) {
                entry.second = trim(entry.second);
                parse_template(entry.second, path, where + "simulation." + entry.first);
            }
        }
        passages.push_back(std::move(passage));
    }
    return passages;
}

Task task_for_passage(const Task& task, const TaskPassage& passage) {
    Task out = task;
    const auto it = passage.simulation_templates.find(task.name());
    if (it != passage.simulation_templates.end()) {
        try {
            out = out.with_simulation_template(it->second);
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

}  // namespace llmv
