// What the table's entries say about a value: spellings, what is allowed, formatting,
// parsing and checking, and the presets (llmvalidate/settings.hpp).
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "llmvalidate/error.hpp"
#include "llmvalidate/settings.hpp"

namespace llmv::settings {

namespace {

bool is_seed_text(const std::string& text) {
    if (text.empty() || text.size() > 20 ||
        text.find_first_not_of("0123456789") != std::string::npos)
        return false;
    return text.size() < 20 || text <= "18446744073709551615";
}

}  // namespace

std::string format_number(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value < 0 ? "-Inf" : "Inf";
    char buffer[40];
    if (value == std::floor(value) && std::fabs(value) < 1e15) {
        std::snprintf(buffer, sizeof buffer, "%.0f", value);
        return buffer;
    }
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
        if (std::strtod(buffer, nullptr) == value) break;
    }
    return buffer;
}

std::string spelling(const Setting& setting, FrontEnd front_end) {
    switch (front_end) {
        case FrontEnd::cli:
            return setting.cli.empty() ? setting.name : setting.cli;
        case FrontEnd::r:
            return setting.r.empty() ? setting.name : setting.r;
        case FrontEnd::stata:
            if (setting.stata.empty()) return setting.name;
            return setting.kind == Kind::flag ? setting.stata : setting.stata + "()";
        case FrontEnd::engine:
            break;
    }
    return setting.name;
}

bool negated_in(const Setting& setting, FrontEnd front_end) {
    for (const FrontEnd negated : setting.negated)
        if (negated == front_end) return true;
    return false;
}

std::string allowed(const Setting& setting) {
    switch (setting.kind) {
        case Kind::integer:
            return "a whole number in " + format_number(setting.low) + ".." +
                   format_number(setting.high);
        case Kind::number:
            return std::string("a number in ") + (setting.low_open ? "(" : "[") +
                   format_number(setting.low) + ", " + format_number(setting.high) +
                   (setting.high_open ? ")" : "]");
        case Kind::choice: {
            std::string names;
            for (const std::string& name : setting.choices)
                names += (names.empty() ? "" : ", ") + ("\"" + name + "\"");
            return "one of " + names;
        }
        case Kind::seed:
            return "a whole number in 0..18446744073709551615";
        case Kind::flag:
            return "true or false";
        case Kind::text:
            return "a string";
    }
    return "";
}

std::string format_value(const Setting& setting, const Value& value) {
    if (!value.present) return "";
    switch (setting.kind) {
        case Kind::choice:
        case Kind::seed:
        case Kind::text:
            return value.text;
        case Kind::flag:
            return value.number != 0 ? "true" : "false";
        case Kind::integer:
        case Kind::number:
            break;
    }
    return format_number(value.number);
}

void check_value(const Setting& setting, const Value& value, FrontEnd front_end) {
    if (!value.present) {
        if (setting.optional) return;
        throw_invalid(code::invalid_argument, spelling(setting, front_end), "nothing",
                      allowed(setting));
    }
    bool ok = true;
    std::string received;
    switch (setting.kind) {
        case Kind::integer:
            received = format_number(value.number);
            ok = std::isfinite(value.number) && value.number == std::floor(value.number) &&
                 value.number >= setting.low && value.number <= setting.high;
            break;
        case Kind::number:
            received = format_number(value.number);
            ok = std::isfinite(value.number) &&
                 (setting.low_open ? value.number > setting.low : value.number >= setting.low) &&
                 (setting.high_open ? value.number < setting.high : value.number <= setting.high);
            break;
        case Kind::choice:
            received = "\"" + abbreviate(value.text) + "\"";
            ok = false;
            for (const std::string& name : setting.choices) ok = ok || name == value.text;
            break;
        case Kind::seed:
            received = "\"" + abbreviate(value.text) + "\"";
            ok = is_seed_text(value.text);
            break;
        case Kind::text:
            break;
        case Kind::flag:
            received = format_number(value.number);
            ok = value.number == 0 || value.number == 1;
            break;
    }
    if (!ok)
        throw_invalid(code::invalid_argument, spelling(setting, front_end), received,
                      allowed(setting));
}

Value parse(const Setting& setting, const std::string& text, FrontEnd front_end) {
    Value value;
    switch (setting.kind) {
        case Kind::choice:
        case Kind::seed:
        case Kind::text:
            value.text = text;
            break;
        case Kind::flag:
            if (text == "1" || text == "true" || text == "yes" || text == "on") {
                value.number = 1;
            } else if (text == "0" || text == "false" || text == "no" || text == "off") {
                value.number = 0;
            } else {
                throw_invalid(code::invalid_argument, spelling(setting, front_end),
                              "\"" + abbreviate(text) + "\"", allowed(setting));
            }
            break;
        case Kind::integer:
        case Kind::number: {
            char* end = nullptr;
            value.number = text.empty() ? std::nan("") : std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size())
                throw_invalid(code::invalid_argument, spelling(setting, front_end),
                              "\"" + abbreviate(text) + "\"", allowed(setting));
            break;
        }
    }
    check_value(setting, value, front_end);
    return value;
}

const std::vector<Preset>& presets() {
    static const std::vector<Preset> all = {
        {"paper",
         "The paper's way (docs/paper-fidelity.md): its bootstrap validation and separation tests, "
         "each prompt sent alone as one user message, the JSON read from the free-text answer, and "
         "no redraw of an unusable answer (a bad backtranslation answer counts as wrong).",
         {{"validation_method", "paper"},
          {"separation_method", "paper"},
          {"structured_output", "none"},
          {"parse_retries", "0"}}},
    };
    return all;
}

const Preset& preset(const std::string& name, FrontEnd front_end) {
    for (const Preset& known : presets())
        if (known.name == name) return known;
    std::string names;
    for (const Preset& known : presets())
        names += (names.empty() ? "" : ", ") + ("\"" + known.name + "\"");
    throw_invalid(code::invalid_argument, spelling_of("preset", front_end), "\"" + name + "\"",
                  "one of " + names);
}

}  // namespace llmv::settings
