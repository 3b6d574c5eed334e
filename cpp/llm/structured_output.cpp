#include "llm/structured_output.hpp"
#include "llmvalidate/labels.hpp"
#include "llmvalidate/text.hpp"

#include <cctype>
#include <nlohmann/json.hpp>

namespace llmv {

using nlohmann::json;

namespace {

// Every balanced JSON object or array in `text` that parses, in order of appearance. A bracket
// in prose that does not start valid JSON is skipped; strings (with escaped quotes) are
// tracked so that brackets and quotes inside passages do not confuse the scan.
std::vector<json> json_values(const std::string& text) {
    std::vector<json> values;
    std::size_t start = 0;
    while (start < text.size()) {
        start = text.find_first_of("{[", start);
        if (start == std::string::npos) break;
        std::string stack;
        bool in_string = false, escaped = false, balanced = false;
        std::size_t end = start;
        for (; end < text.size(); ++end) {
            const char c = text[end];
            if (in_string) {
                if (escaped) {
                    escaped = false;
                } else if (c == '\\') {
                    escaped = true;
                } else if (c == '"') {
                    in_string = false;
                }
            } else if (c == '"') {
                in_string = true;
            } else if (c == '{' || c == '[') {
                stack.push_back(c == '{' ? '}' : ']');
            } else if (c == '}' || c == ']') {
                if (stack.empty() || stack.back() != c) break;  // mismatched: not JSON from here
                stack.pop_back();
                if (stack.empty()) {
                    balanced = true;
                    break;
                }
            }
        }
        if (balanced) {
            json value =
                json::parse(text.begin() + static_cast<std::ptrdiff_t>(start),
                            text.begin() + static_cast<std::ptrdiff_t>(end) + 1, nullptr, false);
            if (!value.is_discarded()) {
                values.push_back(std::move(value));
                start = end + 1;
                continue;
            }
        }
        ++start;
    }
    return values;
}

using text::trim;

// Removes a surrounding Markdown code fence (```json ... ```), if any.
std::string strip_fence(const std::string& text) {
    std::string out = trim(text);
    if (out.rfind("```", 0) == 0) {
        auto newline = out.find('\n');
        out = newline == std::string::npos ? out.substr(3) : out.substr(newline + 1);
        auto close = out.rfind("```");
        if (close != std::string::npos) out = out.substr(0, close);
    }
    return trim(out);
}

const json* member(const json& object, std::initializer_list<const char*> names) {
    for (auto it = object.begin(); it != object.end(); ++it) {
        std::string key = it.key();
        for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        for (const char* name : names) {
            if (key == name) return &it.value();
        }
    }
    return nullptr;
}

// The passages of one JSON value, or nullopt when it is not a passages answer.
std::optional<std::vector<std::string>> passages_of(const json& value) {
    const json* array = nullptr;
    if (value.is_array()) {
        array = &value;
    } else if (value.is_object()) {
        array = member(value, {"passages", "texts"});
        if ((!array || !array->is_array()) && value.size() == 1 && value.begin()->is_array()) {
            array = &*value.begin();
        }
    }
    if (!array || !array->is_array() || array->empty()) return std::nullopt;
    std::vector<std::string> out;
    for (const auto& element : *array) {
        if (element.is_string()) {
            out.push_back(element.get<std::string>());
        } else if (element.is_object()) {
            const json* text = member(element, {"text", "passage", "content"});
            if (!text || !text->is_string()) return std::nullopt;
            out.push_back(text->get<std::string>());
        } else {
            return std::nullopt;
        }
    }
    return out;
}

}  // namespace

const char* to_string(AnswerStatus status) {
    switch (status) {
        case AnswerStatus::ok:
            return "ok";
        case AnswerStatus::unparseable:
            return "unparseable";
        case AnswerStatus::wrong_count:
            return "wrong_count";
        case AnswerStatus::label_outside_set:
            return "label_outside_set";
    }
    return "unknown";
}

std::optional<std::string> find_json_value(const std::string& text) {
    auto values = json_values(text);
    if (values.empty()) return std::nullopt;
    return values.front().dump();
}

PassagesAnswer parse_passages_answer(const std::string& answer,
                                     std::optional<std::size_t> expected_count) {
    PassagesAnswer out;
    out.raw = answer;
    const auto values = json_values(answer);
    for (const auto& value : values) {
        auto passages = passages_of(value);
        if (!passages) continue;
        out.passages = std::move(*passages);
        for (std::size_t i = 0; i < out.passages.size(); ++i) {
            if (trim(out.passages[i]).empty()) {
                out.status = AnswerStatus::unparseable;
                out.problem = "passage " + std::to_string(i + 1) + " of " +
                              std::to_string(out.passages.size()) + " is empty";
                return out;
            }
        }
        if (expected_count && out.passages.size() != *expected_count) {
            out.status = AnswerStatus::wrong_count;
            out.problem = "asked for " + std::to_string(*expected_count) +
                          (*expected_count == 1 ? " passage, got " : " passages, got ") +
                          std::to_string(out.passages.size());
            return out;
        }
        out.status = AnswerStatus::ok;
        return out;
    }
    out.status = AnswerStatus::unparseable;
    out.problem = values.empty() ? "no complete JSON object or array in the answer"
                                 : "no JSON value of the form {\"passages\": [texts]} or [texts]";
    return out;
}

LabelAnswer parse_label_answer(const std::string& answer,
                               const std::vector<std::string>& label_set) {
    LabelAnswer out;
    out.raw = answer;
    std::optional<std::string> read;
    for (const auto& value : json_values(answer)) {
        if (value.is_object()) {
            const json* label = member(
                value, {"label", "answer", "category", "class", "classification", "sentiment"});
            if (!label && value.size() == 1) label = &*value.begin();
            if (label && label->is_string()) read = label->get<std::string>();
        } else if (value.is_array() && value.size() == 1 && value[0].is_string()) {
            read = value[0].get<std::string>();
        }
        if (read) break;
    }
    if (!read) {
        const std::string bare = strip_fence(answer);
        json as_json = json::parse(bare, nullptr, false);
        if (!as_json.is_discarded() && as_json.is_string()) {
            read = as_json.get<std::string>();
        } else if (!bare.empty() && bare.find('\n') == std::string::npos && bare.size() <= 100 &&
                   bare.find_first_of("{}[]") == std::string::npos) {
            // A one-line answer that is just the label, possibly after "Label:".
            std::string candidate = bare;
            const std::string lowered = normalize_label(candidate.substr(0, 6));
            if (lowered == "label" && candidate.find(':') != std::string::npos) {
                candidate = candidate.substr(candidate.find(':') + 1);
            }
            const std::string normal = normalize_label(candidate);
            for (const auto& label : label_set) {
                if (normalize_label(label) == normal) read = trim(candidate);
            }
        }
    }
    if (!read) {
        out.status = AnswerStatus::unparseable;
        out.problem = "no label found: expected {\"label\": \"...\"}";
        return out;
    }
    out.raw_label = *read;
    const std::string normal = normalize_label(*read);
    for (const auto& label : label_set) {
        if (!normal.empty() && normalize_label(label) == normal) {
            out.label = label;
            out.status = AnswerStatus::ok;
            return out;
        }
    }
    out.status = AnswerStatus::label_outside_set;
    std::string allowed;
    for (const auto& label : label_set)
        allowed += (allowed.empty() ? "" : ", ") + ("\"" + label + "\"");
    out.problem = "label \"" + *read + "\" is not one of " + allowed;
    return out;
}

std::string passages_json_schema(std::size_t n) {
    json schema = {{"type", "object"},
                   {"properties",
                    {{"passages",
                      {{"type", "array"},
                       {"items", {{"type", "string"}}},
                       {"minItems", n},
                       {"maxItems", n}}}}},
                   {"required", json::array({"passages"})},
                   {"additionalProperties", false}};
    return schema.dump();
}

std::string label_json_schema(const std::vector<std::string>& label_set) {
    json schema = {{"type", "object"},
                   {"properties", {{"label", {{"type", "string"}, {"enum", label_set}}}}},
                   {"required", json::array({"label"})},
                   {"additionalProperties", false}};
    return schema.dump();
}

std::string schema_instruction(const std::string& schema) {
    return "Answer with JSON only, valid against this JSON Schema:\n" + schema;
}

}  // namespace llmv
