// The settings of a validation, declared once: each one's name, its spelling in the CLI, R and
// Stata, its type, default, range and one line of documentation. Every front end reads its
// options through this table (or is checked against it by a parity test), and check() is the
// one validation of a whole configuration, with one set of messages.
//
// How to add a setting (three hand-edited files: the field, the table, NEWS):
//   1. Add the field, with its default, to pipeline::ValidationConfig (or stats::TestOptions
//      for a setting of the statistics alone); the default is written only there.
//   2. Add one entry to the table in cpp/stats/settings.cpp: name, front-end spellings ("" for
//      a front end that does not offer it; Stata's with its minimal abbreviation in capitals,
//      as `syntax` declares it), kind, range, doc, and the field it reads/writes.
//   3. Regenerate what is written from the table: `LLMV_UPDATE_DOCS=1 build/tests/test_core
//      "[docs]"` rewrites docs/settings.md, rpkg/R/settings-doc.R (the help of R's `...`) and
//      the GENERATED regions of stata/llmvalidate.ado (syntax options, the names passed to the
//      plugin) and stata/llmvalidate.sthlp (a help line with the range and default); then
//      roxygen2 rewrites rpkg/man. The CLI's options and --help read the table at run time, R's
//      llm_validate() takes a setting it has no formal for through `...` (checked and passed
//      by the table), and the Stata plugin parses every option through the table.
//   The parity tests (tests/core/test_settings_frontends.cpp, rpkg/tests/testthat/
//   test-settings.R) fail until the generated files are current.
#pragma once

#include <string>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"

namespace llmv {
namespace pipeline {
struct ValidationConfig;
}

namespace settings {

enum class Kind {
    integer,  // a whole number in [low, high]
    number,   // a real number in the range (bounds open or closed)
    choice,   // one of `choices`
    seed,     // an unsigned 64-bit integer, as decimal text
    flag,     // on / off (number 0 or 1)
};

// Which object a setting belongs to: a validation (llm_validate(), `llmvalidate varname`,
// `llmvalidate run`), or the simulated provider's data-generating process
// (llm_provider_simulated(), `llmvalidate power`, the CLI's --follow, ...).
enum class Group { validation, simulated };

// Whose spelling a message uses: `alpha` (engine, R), `--alpha` (CLI), `alpha()` (Stata).
enum class FrontEnd { engine, cli, r, stata };

struct Value {
    bool present = true;  // false: an optional setting left unset (the provider's default)
    double number = 0;    // integer, number, flag
    std::string text;     // choice, seed
};

struct Setting {
    std::string name;          // the engine's name: JSON field, messages of the engine
    std::string cli;           // "--alpha", or "" when the CLI does not offer it
    std::string cli_short;     // "-M", or ""
    std::string r;             // argument of llm_validate() (or of its `...`), or ""
    std::string stata;         // option of `llmvalidate varname` (no parentheses), or ""
    std::string stata_syntax;  // the same as the ado's `syntax` declares it: REPeats
    std::string value_name;    // the CLI's placeholder: "LEVEL"
    Kind kind = Kind::integer;
    double low = 0, high = 0;  // integer / number range
    bool low_open = false, high_open = false;
    bool optional = false;             // may be left unset
    std::vector<std::string> choices;  // Kind::choice
    std::string doc;                   // one line
    bool statistics = false;           // a field of stats::TestOptions (llmvalidate test too)
    Group group = Group::validation;
    Value (*get)(const pipeline::ValidationConfig&) = nullptr;
    void (*set)(pipeline::ValidationConfig&, const Value&) = nullptr;
};

// Every setting, in the order of the documentation.
const std::vector<Setting>& table();
// nullptr when there is none of that (engine) name.
const Setting* find(const std::string& name);
// Throws llmv::Error(internal) for a name not in the table (a bug in the caller).
const Setting& setting(const std::string& name);

// The name as the front end's user writes it: alpha, --alpha, alpha().
std::string spelling(const Setting& setting, FrontEnd front_end);
// What the setting allows, as messages say it: "a number in (0, 0.5]", "one of point, bound".
std::string allowed(const Setting& setting);
// The default as a user would type it ("0.05", "999", "exact"; "" for an unset optional one).
std::string default_text(const Setting& setting);
std::string format_value(const Setting& setting, const Value& value);

// Throws llmv::Error(invalid_argument) naming the front end's spelling, the value received and
// what is allowed.
void check_value(const Setting& setting, const Value& value, FrontEnd front_end = FrontEnd::engine);
// Parses what a user typed (a CLI option, a Stata word), checks it and returns it.
Value parse(const Setting& setting, const std::string& text, FrontEnd front_end);

// One check of every setting of a configuration (the table's ranges, in the table's order).
void check(const pipeline::ValidationConfig& config, FrontEnd front_end = FrontEnd::engine);
// The same check of the statistics' settings alone (llmvalidate test, R, Stata test).
void check(const stats::TestOptions& options, FrontEnd front_end = FrontEnd::engine);

// The name as the front end's user writes it, for any engine name a message can carry: a
// setting of the table, or a field the table does not hold (provider, model, api_key,
// base_url, cache, batch_api, task, ...). The engine name itself when the front end has none.
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
void apply_preset(pipeline::ValidationConfig& config, const std::string& name,
                  FrontEnd front_end = FrontEnd::engine);

}  // namespace settings
}  // namespace llmv
