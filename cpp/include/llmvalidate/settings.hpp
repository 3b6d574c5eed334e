// Every knob of the engine, declared once (cpp/settings/, a layer below the statistics and the
// pipeline that depends on core/ alone): each one's engine name, its spelling in the CLI, R and
// Stata, its kind, range, default in words when no field holds it, one line of documentation,
// and which Stata subcommands take it. The statistics' settings, the validation's, the
// simulated provider's, and the knobs each front end reads with code of its own (provider,
// model, cache, batch API, preset, task, ...: `by_hand`) are all rows of one table.
//
// The table holds no field: the struct that holds a setting binds it, next to the field, with
// visit_settings() (stats::TestOptions in stats.hpp; pipeline::ValidationConfig in
// validation_config.hpp), and get()/set()/check() below reach a field through that binding.
// A setting's default is its field's initial value (pipeline::setting_default()).
//
// How to add a setting (three hand-edited files: the struct, the table, NEWS):
//   1. Add the field, with its default, to stats::TestOptions (a setting of the statistics:
//      `llmvalidate test`, its JSON input, R's tests on embeddings) or
//      pipeline::ValidationConfig, and its line in the visit_settings() below the struct.
//   2. Add one entry to the table in cpp/settings/table.cpp: name, front-end spellings ("" for
//      a front end that does not offer it; Stata's with its minimal abbreviation in capitals,
//      as `syntax` declares it), kind, range, doc.
//   3. A NEWS bullet. Then `cmake --build build --target generate-docs` rewrites what is
//      written from the table (docs/settings.md, docs/test-format.md's settings, the R files'
//      generated formals and rpkg/R/settings-doc.R, the GENERATED regions of the Stata ado and
//      help), and roxygen2 rewrites rpkg/man. The CLI's options and --help, the `test` JSON
//      format, R's llm_validate() `...` and tests on embeddings, and the Stata plugin read
//      the table at run time. The ctest `generated files are current` fails until then.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "llmvalidate/error.hpp"

namespace llmv::settings {

enum class Kind {
    integer,  // a whole number in [low, high]
    number,   // a real number in the range (bounds open or closed)
    choice,   // one of `choices`
    seed,     // an unsigned 64-bit integer, as decimal text
    flag,     // on / off (number 0 or 1)
    text,     // free text (a name, a path, a URL): each front end reads it (by_hand)
};

// Which object a setting belongs to: a validation (llm_validate(), `llmvalidate varname`,
// `llmvalidate run`), or the simulated provider's data-generating process
// (llm_provider_simulated(), `llmvalidate power`, the CLI's --follow, ...).
enum class Group { validation, simulated };

// Whose spelling a message uses: `alpha` (engine, R), `--alpha` (CLI), `alpha()` (Stata).
enum class FrontEnd { engine, cli, r, stata };

// The Stata subcommands that take a setting as an option (Setting::stata_commands).
enum StataCommand : unsigned {
    stata_validate = 1,  // llmvalidate varname
    stata_test = 2,      // llmvalidate test
    stata_power = 4,     // llmvalidate power
};

struct Value {
    bool present = true;  // false: an optional setting left unset (the provider's default)
    double number = 0;    // integer, number, flag
    std::string text;     // choice, seed, text
};

struct Setting {
    std::string name;          // the engine's name: JSON field, messages of the engine
    std::string cli;           // "--alpha", or "" when the CLI does not offer it
    std::string cli_short;     // "-M", or ""
    std::string r;             // argument of R's functions (or of llm_validate()'s `...`), or ""
    std::string stata;         // option of the ado (no parentheses), or ""
    std::string stata_syntax;  // the same as the ado's `syntax` declares it: REPeats
    std::string value_name;    // the CLI's placeholder: "LEVEL"
    Kind kind = Kind::integer;
    double low = 0, high = 0;  // integer / number range
    bool low_open = false, high_open = false;
    bool optional = false;             // may be left unset
    std::vector<std::string> choices;  // Kind::choice
    std::string doc;                   // one line
    bool statistics = false;  // a field of stats::TestOptions (llmvalidate test, its JSON too)
    Group group = Group::validation;
    // Read by each front end's own code (an R provider object, a file, the run's route), not
    // by its loop over the table: the table gives its spellings, doc and default.
    bool by_hand = false;
    // The default in words, when it is not a field's initial value ("the per-user cache").
    std::string default_doc;
    unsigned stata_commands = 0;  // StataCommand bits: which subcommands take the option
    // The front ends whose option turns the setting off (wait: --submit-only, nowait).
    std::vector<FrontEnd> negated;
    // Other engine names of the same knob that messages may carry (cache: "cache_path").
    std::vector<std::string> aliases;
};

// Every setting, in the order of the documentation.
const std::vector<Setting>& table();
// nullptr when there is none of that (engine) name.
const Setting* find(const std::string& name);
// Throws llmv::Error(internal) for a name not in the table (a bug in the caller).
const Setting& setting(const std::string& name);

// The name as the front end's user writes it: alpha, --alpha, alpha().
std::string spelling(const Setting& setting, FrontEnd front_end);
// Whether the front end's option turns the setting off (--submit-only for wait).
bool negated_in(const Setting& setting, FrontEnd front_end);
// What the setting allows, as messages say it: "a number in (0, 0.5]", "one of point, bound".
std::string allowed(const Setting& setting);
std::string format_value(const Setting& setting, const Value& value);
// Shortest text that reads back to the same double ("0.05", "1e-06").
std::string format_number(double value);

// Throws llmv::Error(invalid_argument) naming the front end's spelling, the value received and
// what is allowed.
void check_value(const Setting& setting, const Value& value, FrontEnd front_end = FrontEnd::engine);
// Parses what a user typed (a CLI option, a Stata word), checks it and returns it.
Value parse(const Setting& setting, const std::string& text, FrontEnd front_end);

// The name as the front end's user writes it, for any engine name a message can carry (every
// knob is a row of the table). The engine name itself when the front end has none.
std::string spelling_of(const std::string& name, FrontEnd front_end);
// "List the models it serves with <the front end's command> and name one with <its model
// option>.": the pointer of a message about a model the vendor does not serve.
std::string model_list_hint(const std::string& provider, FrontEnd front_end);
std::string spelling_of(const ErrorSubject& subject, FrontEnd front_end);
// An error's message in the front end's terms, from what the error carries (its subject, or
// the settings its sentence names): "`--temperature` must be ...", "set `keyenv()` or ...".
std::string message(const Error& error, FrontEnd front_end);

// A named bundle of settings: the CLI's --paper, R's preset = "paper", Stata's paper. A front
// end applies it first, so that a setting the user also gives explicitly wins.
struct Preset {
    std::string name;
    std::string doc;
    std::vector<std::pair<std::string, std::string>> values;  // setting name, value as typed
};
const std::vector<Preset>& presets();
// Throws llmv::Error(invalid_argument) naming the front end's spelling of "preset" and the
// presets there are.
const Preset& preset(const std::string& name, FrontEnd front_end = FrontEnd::engine);

// ---- the binding of settings to the fields of a struct ---------------------------------------
// A struct that holds settings declares, next to its fields,
//     template <typename Visit> void visit_settings(Holder& holder, Visit&& visit);
// (and the same for const Holder&), calling visit("alpha", holder.alpha) for each field, or
// visit("timeout", holder.total_timeout_ms, 1000) for a field kept in a unit the table does not
// use (milliseconds of a setting in seconds). The functions below find it by argument-dependent
// lookup; the settings layer never names the struct.
namespace field {
inline Value read(const std::string& field, double) { return Value{true, 0, field}; }
inline Value read(bool field, double) { return Value{true, field ? 1.0 : 0.0, {}}; }
inline Value read(std::uint64_t field, double) { return Value{true, 0, std::to_string(field)}; }
template <typename T>
std::enable_if_t<std::is_arithmetic_v<T>, Value> read(T field, double scale) {
    return Value{true, static_cast<double>(field) / scale, {}};
}
template <typename T>
Value read(const std::optional<T>& field, double scale) {
    return field ? read(*field, scale) : Value{false, 0, {}};
}
inline void write(std::string& field, const Value& value, double) { field = value.text; }
inline void write(bool& field, const Value& value, double) { field = value.number != 0; }
inline void write(std::uint64_t& field, const Value& value, double) {
    field = std::stoull(value.text);
}
template <typename T>
std::enable_if_t<std::is_arithmetic_v<T>> write(T& field, const Value& value, double scale) {
    field = static_cast<T>(scale == 1 ? value.number : std::ceil(value.number * scale));
}
template <typename T>
void write(std::optional<T>& field, const Value& value, double scale) {
    if (!value.present) return field.reset();
    T set{};
    write(set, value, scale);
    field = set;
}
}  // namespace field

// Whether `holder` has a field for the setting.
template <typename Holder>
bool binds(const Holder& holder, const std::string& name) {
    bool found = false;
    visit_settings(holder, [&](const char* bound, const auto&, double = 1) {
        found = found || name == bound;
    });
    return found;
}

// The value of a setting in `holder`; Error(internal) when `holder` has no such field.
template <typename Holder>
Value get(const Holder& holder, const Setting& setting) {
    std::optional<Value> value;
    visit_settings(holder, [&](const char* bound, const auto& held, double scale = 1) {
        if (setting.name == bound) value = field::read(held, scale);
    });
    if (!value) throw Error(code::internal, "no field holds the setting `" + setting.name + "`");
    return *value;
}

template <typename Holder>
void set(Holder& holder, const Setting& setting, const Value& value) {
    bool found = false;
    visit_settings(holder, [&](const char* bound, auto& held, double scale = 1) {
        if (setting.name != bound) return;
        field::write(held, value, scale);
        found = true;
    });
    if (!found) throw Error(code::internal, "no field holds the setting `" + setting.name + "`");
}

// One check of every setting `holder` holds (the table's ranges, in the table's order).
template <typename Holder>
void check(const Holder& holder, FrontEnd front_end = FrontEnd::engine) {
    for (const Setting& entry : table())
        if (!entry.by_hand && binds(holder, entry.name))
            check_value(entry, get(holder, entry), front_end);
}

// Applies a preset's settings to `holder` (each parsed and checked by the table).
template <typename Holder>
void apply_preset(Holder& holder, const std::string& name, FrontEnd front_end = FrontEnd::engine) {
    for (const auto& [setting_name, value] : preset(name, front_end).values) {
        const Setting& entry = setting(setting_name);
        set(holder, entry, parse(entry, value, front_end));
    }
}

}  // namespace llmv::settings
