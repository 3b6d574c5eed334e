// Reading task files: TOML fields with messages that name the field, the type received and the
// type wanted, and prompt templates. The format is documented in prompts/README.md.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "llmvalidate/error.hpp"
#include "pipeline/task_internal.hpp"

namespace llmv::task_detail {


[[noreturn]] void fail(const std::string& origin, const std::string& message) {
    throw Error::in_context(code::task_invalid, "task " + origin, message);
}

std::string line_of(const TomlValue& value) {
    const auto line = value.location().line();
    return line > 0 ? " (line " + std::to_string(line) + ")" : "";
}

std::string in_quotes(const std::string& text) { return "\"" + text + "\""; }

std::string join(const std::vector<std::string>& items, const std::string& separator,
                 const std::string& before, const std::string& after) {
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

bool is_identifier(const std::string& name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

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
        // toml11's what() is a drawing of several lines; the message stays one line: the place,
        // the line's text and the reason.
        const toml::source_location& where = error.location();
        std::string reason = error.what();
        reason = reason.substr(0, reason.find('\n'));
        if (reason.rfind("[error] ", 0) == 0) reason.erase(0, 8);
        if (reason.rfind("toml::", 0) == 0 && reason.find(": ") != std::string::npos)
            reason.erase(0, reason.find(": ") + 2);
        std::string place;
        if (where.line() > 0) {
            place = " at line " + std::to_string(where.line()) + ", column " + std::to_string(where.column());
            if (!where.line_str().empty()) place += " (" + abbreviate(where.line_str()) + ")";
        }
        fail(origin, "not valid TOML" + place + ": " + reason);
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

}  // namespace llmv::task_detail
