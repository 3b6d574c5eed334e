// Private to the task files (task.cpp, task_reading.cpp, task_catalog.cpp, task_spec.cpp,
// task_passages.cpp): reading TOML fields with messages that name the field, and templates.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <toml.hpp>

namespace llmv::task_detail {

// Ordered maps so that iteration (and so every message and hash) does not depend on hashing.
using TomlValue = toml::basic_value<toml::discard_comments, std::map, std::vector>;

constexpr int kSchemaVersion = 1;

[[noreturn]] void fail(const std::string& origin, const std::string& message);
std::string line_of(const TomlValue& value);
std::string in_quotes(const std::string& text);
std::string join(const std::vector<std::string>& items, const std::string& separator,
                 const std::string& before = "", const std::string& after = "");
std::string type_name(const TomlValue& value);
bool is_identifier(const std::string& name);

// Templates: literal text with {name} placeholders; {{ and }} are literal braces.
struct Segment {
    bool placeholder = false;
    std::string text;  // literal text, or the placeholder's name
};
std::vector<Segment> parse_template(const std::string& templ, const std::string& origin,
                                    const std::string& where);
std::set<std::string> placeholders(const std::string& templ);
// Substitutes values; a placeholder whose value is empty takes one surrounding space with it,
// so that an unset per-label instruction leaves no double space.
std::string substitute(const std::vector<Segment>& segments,
                       const std::map<std::string, std::string>& values);

const TomlValue* find(const TomlValue& table, const std::string& key);
void check_keys(const TomlValue& table, const std::vector<std::string>& allowed,
                const std::string& origin, const std::string& where);
std::string get_string(const TomlValue& table, const std::string& key, const std::string& origin,
                       const std::string& where, bool required);
std::vector<std::string> get_strings(const TomlValue& value, const std::string& origin,
                                     const std::string& field);
std::map<std::string, std::string> get_string_table(const TomlValue& value,
                                                    const std::string& origin,
                                                    const std::string& field);
TomlValue parse_toml(const std::string& text, const std::string& origin);
std::string read_file(const std::string& path, const std::string& what);
void check_schema(const TomlValue& root, const std::string& origin);

bool is_directory(const std::string& path);
bool is_file(const std::string& path);

}  // namespace llmv::task_detail
