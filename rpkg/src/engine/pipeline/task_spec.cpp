// A task built from its parts (TaskSpec): written as a task file and read back by the one checker.
#include <cstdio>

#include "llmvalidate/error.hpp"
#include "llmvalidate/task.hpp"
#include "pipeline/task_internal.hpp"

namespace llmv {
using namespace task_detail;

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
                    const std::map<std::string, std::string>& argument_names,
                    const std::string& declare_variable) {
    try {
        return Task::from_string(task_toml(spec), origin);
    } catch (const Error& error) {
        // "task <origin>: <field> ...": rename the field, the longest name that matches.
        const std::string prefix = "task " + origin + ": ";
        std::string message = error.what();
        // The task file's advice for an unknown placeholder, in the front end's terms.
        const std::string file_terms = "declare it under [variables] with a default or in required_variables";
        const auto advice = message.find(file_terms);
        if (!declare_variable.empty() && advice != std::string::npos)
            message.replace(advice, file_terms.size(), declare_variable);
        if (message.rfind(prefix, 0) != 0) {
            if (advice == std::string::npos || declare_variable.empty()) throw;
            throw Error(error.code(), message);
        }
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

}  // namespace llmv
