#include "llmvalidate/standalone_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "llmvalidate/edit_distance.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/record_json.hpp"
#include "llmvalidate/records.hpp"
#include "llmvalidate/settings.hpp"

namespace llmv {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// ---- messages ------------------------------------------------------------------------------

std::string describe(const json& value) {
    std::string text = abbreviate(value.dump(-1, ' ', false, json::error_handler_t::replace));
    switch (value.type()) {
        case json::value_t::string:
            return text + " (a string)";
        case json::value_t::boolean:
            return text + " (a boolean)";
        case json::value_t::object:
            return text + " (an object)";
        case json::value_t::array:
            return text + " (an array of " + std::to_string(value.size()) + ")";
        default:
            return text;
    }
}

bool is_identifier(const std::string& key) {
    if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0]))) return false;
    return std::all_of(key.begin(), key.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

// `pools.Positive`, or `pools["Very positive"]` when the key is not a plain word.
std::string member_path(const std::string& parent, const std::string& key) {
    if (is_identifier(key)) return parent + "." + key;
    return parent + "[" + json(key).dump(-1, ' ', false, json::error_handler_t::replace) + "]";
}

[[noreturn]] void throw_at(const char* error_code, const std::string& field,
                           const std::string& position, const std::string& allowed,
                           const std::string& received) {
    throw Error(error_code, "`" + field + "`" + position + " must be " + allowed + "; received " +
                                received + ".");
}

// ---- the fields ----------------------------------------------------------------------------

struct FieldSpec {
    std::string name;
    bool required;
    std::string allowed;  // the type-level description used in messages
};

const char* const seed_allowed =
    "a whole number from 0 to 2^53, or a string of digits up to 18446744073709551615";

}  // namespace

std::string json_allowed(const settings::Setting& setting) {
    return setting.kind == settings::Kind::seed ? seed_allowed : settings::allowed(setting);
}

namespace {

// The fields of the input: the data, and every statistics setting of the settings table by its
// engine name (a setting added there is a field here, with the table's range in messages).
const std::vector<FieldSpec>& input_fields() {
    static const std::vector<FieldSpec> fields = [] {
        std::vector<FieldSpec> out = {
            {"label", true, "a string: the label the LLM gave the passage"},
            {"labels", true, "a non-empty array of strings: the label set"},
            {"passage", true, "a non-empty array of finite numbers: the passage's embedding"},
            {"pools", true, "an object mapping each label to an array of embeddings"},
            {"backtranslation", false,
             "an object mapping a label to the array of labels the LLM gave its pool"},
            {"paper_reference", false,
             "an object mapping a label to an array of embeddings (the paper methods' B texts)"},
        };
        for (const settings::Setting& setting : settings::table())
            if (setting.statistics) out.push_back({setting.name, false, json_allowed(setting)});
        return out;
    }();
    return fields;
}

const FieldSpec& field_spec(const std::string& name) {
    for (const FieldSpec& spec : input_fields())
        if (name == spec.name) return spec;
    throw Error(code::internal, "no field spec for " + name);
}

void check_fields(const json& document) {
    std::vector<std::string> known;
    for (const FieldSpec& spec : input_fields()) known.push_back(spec.name);
    for (const auto& item : document.items()) {
        const std::string& key = item.key();
        if (!key.empty() && key[0] == '_') continue;  // documented: comments and metadata
        if (std::find(known.begin(), known.end(), key) != known.end()) continue;
        std::string hint;
        for (const std::string& name : known)
            if (llmv::edit_distance(key, name, LetterCase::ignored) <= 2)
                hint = " (did you mean \"" + name + "\"?)";
        std::string allowed;
        for (const std::string& name : known) allowed += (allowed.empty() ? "" : ", ") + name;
        throw Error(code::invalid_argument,
                    "`" + key + "` is not a field of the test input" + hint + "; allowed fields: " +
                        allowed + ", and any field whose name starts with \"_\" (ignored).");
    }
    for (const FieldSpec& spec : input_fields()) {
        if (!spec.required) continue;
        if (!document.contains(spec.name))
            throw_invalid(code::invalid_argument, spec.name, "no such field (it is required)",
                          spec.allowed);
    }
}

// The value of an optional field, or nullptr when it is absent or null.
const json* optional_field(const json& document, const char* name) {
    auto found = document.find(name);
    if (found == document.end() || found->is_null()) return nullptr;
    return &*found;
}

std::string read_string(const json& value, const std::string& field, const std::string& allowed) {
    if (!value.is_string()) throw_invalid(code::invalid_argument, field, describe(value), allowed);
    return value.get<std::string>();
}

double read_number(const json& value, const std::string& field, const std::string& allowed) {
    if (!value.is_number()) throw_invalid(code::invalid_argument, field, describe(value), allowed);
    return value.get<double>();
}

// A JSON number holding a whole value (7 or 7.0), as a double for range checks.
bool whole_number(const json& value, double* result) {
    if (value.is_number_unsigned()) {
        *result = static_cast<double>(value.get<std::uint64_t>());
        return true;
    }
    if (value.is_number_integer()) {
        *result = static_cast<double>(value.get<std::int64_t>());
        return true;
    }
    if (value.is_number_float()) {
        const double x = value.get<double>();
        if (std::isfinite(x) && std::floor(x) == x) {
            *result = x;
            return true;
        }
    }
    return false;
}

int read_int(const json& value, const std::string& field, const std::string& allowed) {
    double number = 0;
    if (!whole_number(value, &number) || number < INT_MIN || number > INT_MAX)
        throw_invalid(code::invalid_argument, field, describe(value), allowed);
    return static_cast<int>(number);
}

bool looks_like_non_finite(const json& value) {
    if (!value.is_string()) return false;
    std::string text = value.get<std::string>();
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.erase(0, 1);
    return text == "nan" || text == "na" || text == "inf" || text == "infinity";
}

double read_entry(const json& value, const std::string& field, const std::string& position) {
    if (value.is_number()) {
        const double x = value.get<double>();
        if (std::isfinite(x)) return x;
        throw_at(code::invalid_embedding, field, position, "a finite number",
                 std::isnan(x) ? "NaN" : (x > 0 ? "Inf" : "-Inf"));
    }
    std::string received = describe(value);
    if (value.is_null() || looks_like_non_finite(value))
        received +=
            " (JSON has no NaN or Infinity: an embedding with a missing or non-finite "
            "entry cannot be used; re-embed the text)";
    throw_at(code::invalid_embedding, field, position, "a finite number", received);
}

Eigen::VectorXd read_vector(const json& value, const std::string& field) {
    if (!value.is_array() || value.empty())
        throw_invalid(code::invalid_embedding, field, describe(value),
                      "a non-empty array of finite numbers (one embedding)");
    Eigen::VectorXd vector(static_cast<Eigen::Index>(value.size()));
    for (std::size_t i = 0; i < value.size(); ++i)
        vector(static_cast<Eigen::Index>(i)) =
            read_entry(value[i], field, " entry " + std::to_string(i + 1));
    return vector;
}

Eigen::MatrixXd read_matrix(const json& value, const std::string& field) {
    if (!value.is_array())
        throw_invalid(code::invalid_embedding, field, describe(value),
                      "an array of embeddings, each an array of finite numbers");
    if (value.empty()) return Eigen::MatrixXd(0, 0);  // run_tests() reports the pool size
    std::size_t dimension = 0;
    Eigen::MatrixXd matrix;
    for (std::size_t row = 0; row < value.size(); ++row) {
        const json& embedding = value[row];
        const std::string position = " row " + std::to_string(row + 1);
        if (!embedding.is_array() || embedding.empty())
            throw_at(code::invalid_embedding, field, position,
                     "a non-empty array of finite numbers (one embedding)", describe(embedding));
        if (row == 0) {
            dimension = embedding.size();
            matrix.resize(static_cast<Eigen::Index>(value.size()),
                          static_cast<Eigen::Index>(dimension));
        } else if (embedding.size() != dimension) {
            throw_at(code::dimension_mismatch, field, position,
                     "an embedding of " + std::to_string(dimension) +
                         " numbers, as row 1 is (one embedding model gives one dimension)",
                     std::to_string(embedding.size()) + " numbers");
        }
        for (std::size_t column = 0; column < dimension; ++column)
            matrix(static_cast<Eigen::Index>(row), static_cast<Eigen::Index>(column)) = read_entry(
                embedding[column], field, position + ", entry " + std::to_string(column + 1));
    }
    return matrix;
}

std::map<std::string, Eigen::MatrixXd> read_matrices(const json& value, const std::string& field,
                                                     const std::string& allowed) {
    if (!value.is_object()) throw_invalid(code::invalid_argument, field, describe(value), allowed);
    std::map<std::string, Eigen::MatrixXd> matrices;
    for (const auto& item : value.items())
        matrices[item.key()] = read_matrix(item.value(), member_path(field, item.key()));
    return matrices;
}

// A statistics setting's value as the JSON gives it: a number, a whole number, a string, a
// boolean, or a seed (a number up to 2^53 or a string of digits).
settings::Value read_setting(const json& value, const settings::Setting& setting) {
    const std::string allowed = json_allowed(setting);
    switch (setting.kind) {
        case settings::Kind::number:
            return {true, read_number(value, setting.name, allowed), {}};
        case settings::Kind::integer:
            return {true, static_cast<double>(read_int(value, setting.name, allowed)), {}};
        case settings::Kind::seed:
            return {true, 0, std::to_string(seed_from_json(value, setting.name))};
        case settings::Kind::flag:
            if (!value.is_boolean())
                throw_invalid(code::invalid_argument, setting.name, describe(value), allowed);
            return {true, value.get<bool>() ? 1.0 : 0.0, {}};
        case settings::Kind::choice:
        case settings::Kind::text:
            break;
    }
    return {true, 0, read_string(value, setting.name, allowed)};
}

// ---- messages about the input text -----------------------------------------------------

std::string line_excerpt(const std::string& text, std::size_t offset) {
    offset = std::min(offset, text.size());
    std::size_t begin = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    begin = (begin == std::string::npos || begin >= offset) ? 0 : begin + 1;
    if (offset > 0 && text[offset - 1] == '\n') begin = offset;
    std::size_t end = text.find('\n', offset);
    if (end == std::string::npos) end = text.size();
    // At most 30 bytes either side of the error, cut at UTF-8 character boundaries.
    std::size_t from = offset > begin + 30 ? offset - 30 : begin;
    while (from > begin && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) --from;
    std::size_t to = std::min(end, offset + 30);
    while (to < end && (static_cast<unsigned char>(text[to]) & 0xC0) == 0x80) ++to;
    std::string excerpt = text.substr(from, to - from);
    if (!excerpt.empty() && excerpt.back() == '\r') excerpt.pop_back();
    return (from > begin ? "..." : "") + excerpt + (to < end ? "..." : "");
}

[[noreturn]] void throw_malformed(const std::string& text, std::size_t offset,
                                  const std::string& source, const std::string& reason) {
    const auto [line, column] = json_line_column(text, offset);
    std::string message = "malformed JSON in " + source + " at line " + std::to_string(line) +
                          ", column " + std::to_string(column) + ": " + reason;
    const std::string excerpt = line_excerpt(text, offset);
    if (!excerpt.empty())
        message += "; near " + json(excerpt).dump(-1, ' ', false, json::error_handler_t::replace);
    throw Error(code::malformed_json, message + ". The input must be one JSON object.");
}

}  // namespace

std::pair<std::size_t, std::size_t> json_line_column(const std::string& text,
                                                     std::size_t byte_offset) {
    byte_offset = std::min(byte_offset, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < byte_offset; ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            ++line;
            column = 1;
        } else if ((c & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
            ++column;
        }
    }
    return {line, column};
}

json parse_json_text(const std::string& text, const std::string& source) {
    // A UTF-8 byte order mark (some Windows editors write one) is not part of the JSON; skipped
    // here so that it does not shift the columns of messages.
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) return parse_json_text(text.substr(3), source);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw Error(code::malformed_json, "malformed JSON in " + source +
                                              " at line 1, column 1: the input is empty" +
                                              (text.empty() ? "" : " (only white space)") +
                                              ". The input must be one JSON object.");
    // Duplicate keys are legal JSON, but readers disagree on which copy counts (nlohmann keeps
    // the last): a second "alpha" or a second pool of one label is refused, not guessed.
    std::vector<std::set<std::string>> keys_seen;
    const json::parser_callback_t refuse_duplicates = [&keys_seen](int, json::parse_event_t event,
                                                                   json& parsed) {
        if (event == json::parse_event_t::object_start) {
            keys_seen.emplace_back();
        } else if (event == json::parse_event_t::object_end) {
            keys_seen.pop_back();
        } else if (event == json::parse_event_t::key && !keys_seen.empty()) {
            const std::string key = parsed.get<std::string>();
            if (!keys_seen.back().insert(key).second)
                throw_invalid(code::invalid_argument, key, "it twice in one JSON object",
                              "given once per object (JSON readers disagree on which copy "
                              "counts)");
        }
        return true;
    };
    try {
        return json::parse(text, refuse_duplicates);
    } catch (const json::parse_error& error) {
        // error.byte is the 1-based position of the character that could not be read.
        std::string reason = error.what();
        const std::size_t column_at = reason.find(", column ");
        const std::size_t colon = reason.find(": ", column_at == std::string::npos ? 0 : column_at);
        if (colon != std::string::npos) reason = reason.substr(colon + 2);
        throw_malformed(text, error.byte > 0 ? error.byte - 1 : 0, source, reason);
    } catch (const json::out_of_range& error) {
        // A number too large for a double (1e400): nlohmann says which, but not where.
        const std::string what = error.what();
        const std::size_t open = what.find('\'');
        const std::size_t close = what.rfind('\'');
        std::string number;
        if (open != std::string::npos && close > open)
            number = what.substr(open + 1, close - open - 1);
        std::size_t offset = number.empty() ? std::string::npos : text.find(number);
        if (offset == std::string::npos) offset = 0;
        throw_malformed(text, offset, source,
                        "the number " + (number.empty() ? std::string("here") : number) +
                            " is too large for a double (numbers must be finite)");
    }
}

std::uint64_t seed_from_json(const json& value, const std::string& field) {
    const std::string allowed = seed_allowed;
    if (value.is_string()) {
        const std::string digits = value.get<std::string>();
        const bool all_digits =
            !digits.empty() && digits.size() <= 20 &&
            std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (all_digits) {
            // Accumulate with an overflow check: 18446744073709551615 is the largest seed.
            std::uint64_t seed = 0;
            bool overflow = false;
            for (char c : digits) {
                const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
                if (seed > (UINT64_MAX - digit) / 10) overflow = true;
                seed = seed * 10 + digit;
            }
            if (!overflow) return seed;
        }
        throw_invalid(code::invalid_argument, field, describe(value), allowed);
    }
    // Numbers above 2^53 may have been rounded by whatever wrote the JSON: refused, so that a
    // seed is never silently a different one.
    constexpr std::uint64_t max_exact = std::uint64_t{1} << 53;
    if (value.is_number_unsigned() && value.get<std::uint64_t>() <= max_exact)
        return value.get<std::uint64_t>();
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0 &&
        static_cast<std::uint64_t>(value.get<std::int64_t>()) <= max_exact)
        return static_cast<std::uint64_t>(value.get<std::int64_t>());
    double number = 0;
    if (value.is_number_float() && whole_number(value, &number) && number >= 0 &&
        number <= static_cast<double>(max_exact))
        return static_cast<std::uint64_t>(number);
    throw_invalid(code::invalid_argument, field, describe(value), allowed);
}

ordered_json seed_to_json(std::uint64_t seed) {
    return records::detail::json_value(records::Seed{seed}, records::JsonWriteOptions{});
}

stats::TestInput test_input_from_json(const json& document) {
    if (!document.is_object())
        throw_invalid(code::invalid_argument, "input", describe(document),
                      "a JSON object with the fields label, labels, passage and pools");
    check_fields(document);

    stats::TestInput input;
    input.label = read_string(document["label"], "label", field_spec("label").allowed);

    const json& labels = document["labels"];
    if (!labels.is_array() || labels.empty())
        throw_invalid(code::invalid_argument, "labels", describe(labels),
                      field_spec("labels").allowed);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (!labels[i].is_string())
            throw_at(code::invalid_argument, "labels", " entry " + std::to_string(i + 1),
                     "a string", describe(labels[i]));
        input.labels.push_back(labels[i].get<std::string>());
    }

    input.passage = read_vector(document["passage"], "passage");
    input.pools = read_matrices(document["pools"], "pools", field_spec("pools").allowed);

    if (const json* value = optional_field(document, "backtranslation")) {
        if (!value->is_object())
            throw_invalid(code::invalid_argument, "backtranslation", describe(*value),
                          field_spec("backtranslation").allowed);
        for (const auto& item : value->items()) {
            const std::string field = member_path("backtranslation", item.key());
            const json& answers = item.value();
            if (!answers.is_array())
                throw_invalid(code::invalid_argument, field, describe(answers),
                              "an array of strings: the labels the LLM gave the pool's texts, "
                              "in pool order");
            std::vector<std::string>& out = input.backtranslation[item.key()];
            for (std::size_t i = 0; i < answers.size(); ++i) {
                if (!answers[i].is_string())
                    throw_at(code::invalid_argument, field, " entry " + std::to_string(i + 1),
                             "a string (a label)", describe(answers[i]));
                out.push_back(answers[i].get<std::string>());
            }
        }
    }
    if (const json* value = optional_field(document, "paper_reference"))
        input.paper_reference =
            read_matrices(*value, "paper_reference", field_spec("paper_reference").allowed);

    // Every statistics setting of the table the document gives, read by its kind; its range is
    // checked with the others by run_tests().
    for (const settings::Setting& setting : settings::table()) {
        if (!setting.statistics) continue;
        if (const json* value = optional_field(document, setting.name.c_str()))
            settings::set(input.options, setting, read_setting(*value, setting));
    }
    return input;
}

ordered_json test_output_to_json(const stats::TestInput& input, const stats::TestOutput& output,
                                 const TestJsonWriteOptions& write_options) {
    records::JsonWriteOptions options;
    options.bulk = write_options.null_distributions;
    return records::to_json(records::TestReport{input.label, input.options, output}, options);
}

std::string dump_json(const ordered_json& document, bool pretty) {
    return document.dump(pretty ? 2 : -1, ' ', false, ordered_json::error_handler_t::replace);
}

std::string run_tests_json(const std::string& input_text, const std::string& source,
                           const TestJsonWriteOptions& write_options) {
    const stats::TestInput input = test_input_from_json(parse_json_text(input_text, source));
    const stats::TestOutput output = stats::run_tests(input);
    return dump_json(test_output_to_json(input, output, write_options), write_options.pretty);
}

}  // namespace llmv
