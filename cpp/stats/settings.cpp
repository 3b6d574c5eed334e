// The settings table (llmvalidate/settings.hpp). It lives with the statistics because
// stats::run_tests checks its options with it; it reads pipeline::ValidationConfig, a plain
// struct, and calls nothing outside stats/ and core/.
#include "llmvalidate/settings.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"

namespace llmv::settings {

namespace {

using pipeline::ValidationConfig;

// Accessors of one field, as the table's function pointers (capture-less lambdas).
#define LLMV_NUMBER_FIELD(field)                                \
    [](const ValidationConfig& c) {                             \
        return Value{true, static_cast<double>(c.field), {}};   \
    },                                                          \
        [](ValidationConfig& c, const Value& v) {               \
            c.field = static_cast<decltype(c.field)>(v.number); \
        }
#define LLMV_OPTIONAL_FIELD(field)                                                             \
    [](const ValidationConfig& c) {                                                            \
        return c.field ? Value{true, static_cast<double>(*c.field), {}} : Value{false, 0, {}}; \
    },                                                                                         \
        [](ValidationConfig& c, const Value& v) {                                              \
            if (v.present)                                                                     \
                c.field = static_cast<decltype(c.field)::value_type>(v.number);                \
            else                                                                               \
                c.field.reset();                                                               \
        }
#define LLMV_TEXT_FIELD(field)          \
    [](const ValidationConfig& c) {     \
        return Value{true, 0, c.field}; \
    },                                  \
        [](ValidationConfig& c, const Value& v) { c.field = v.text; }
#define LLMV_SEED_FIELD(field)                          \
    [](const ValidationConfig& c) {                     \
        return Value{true, 0, std::to_string(c.field)}; \
    },                                                  \
        [](ValidationConfig& c, const Value& v) { c.field = std::stoull(v.text); }

struct Spellings {
    std::string cli, cli_short, r, stata, value_name;
};

using Getter = Value (*)(const ValidationConfig&);
using Setter = void (*)(ValidationConfig&, const Value&);

Setting entry(const std::string& name, const Spellings& spellings, Kind kind,
              const std::string& doc, Getter get, Setter set) {
    Setting setting;
    setting.name = name;
    setting.cli = spellings.cli;
    setting.cli_short = spellings.cli_short;
    setting.r = spellings.r;
    // The table writes Stata's option as its `syntax` declares it (REPeats: the capitals are
    // the minimal abbreviation); the plugin, messages and help use its lower-case name.
    setting.stata_syntax = spellings.stata;
    for (const char c : spellings.stata)
        setting.stata += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    setting.value_name = spellings.value_name;
    setting.kind = kind;
    setting.doc = doc;
    setting.get = get;
    setting.set = set;
    return setting;
}

Setting integer(const std::string& name, const Spellings& spellings, double low, double high,
                const std::string& doc, Getter get, Setter set) {
    Setting setting = entry(name, spellings, Kind::integer, doc, get, set);
    setting.low = low;
    setting.high = high;
    return setting;
}

Setting number(const std::string& name, const Spellings& spellings, double low, bool low_open,
               double high, bool high_open, const std::string& doc, Getter get, Setter set) {
    Setting setting = entry(name, spellings, Kind::number, doc, get, set);
    setting.low = low;
    setting.high = high;
    setting.low_open = low_open;
    setting.high_open = high_open;
    return setting;
}

Setting choice(const std::string& name, const Spellings& spellings,
               std::vector<std::string> choices, const std::string& doc, Getter get, Setter set) {
    Setting setting = entry(name, spellings, Kind::choice, doc, get, set);
    setting.choices = std::move(choices);
    return setting;
}

template <typename Registry>
std::vector<std::string> registry_names(const Registry& registry) {
    std::vector<std::string> names;
    for (const auto& item : registry) names.push_back(item.first);
    return names;
}

Setting statistics(Setting setting) {
    setting.statistics = true;
    return setting;
}

Setting simulated(Setting setting) {
    setting.group = Group::simulated;
    return setting;
}

Setting optional(Setting setting) {
    setting.optional = true;
    return setting;
}

std::vector<Setting> build_table() {
    constexpr double int_max = std::numeric_limits<int>::max();
    return {
        integer("M", {"--pool-size", "-M", "M", "M", "M"}, 2, 100000,
                "Passages generated per label (the pool size M).", LLMV_NUMBER_FIELD(m)),
        integer("n", {"--per-call", "-n", "n", "N", "N"}, 1, 1000,
                "Passages asked for per simulation call.", LLMV_NUMBER_FIELD(n)),
        integer("repeats", {"--repeats", "-R", "repeats", "REPeats", "R"}, 1, 1000,
                "Annotations of each passage; its label is the modal answer.",
                LLMV_NUMBER_FIELD(annotation_repeats)),
        // Below 1e-6 no test could decide: its deciding size (1/α - 1) would exceed every size
        // the table allows (permutations up to 1e6).
        statistics(number("alpha", {"--alpha", "", "alpha", "ALPha", "LEVEL"}, 1e-6, false, 0.5,
                          false, "Level of every test.", LLMV_NUMBER_FIELD(tests.alpha))),
        statistics(number("threshold", {"--threshold", "", "threshold", "THReshold", "ACCURACY"}, 0,
                          false, 1, false, "Backtranslation accuracy needed.",
                          LLMV_NUMBER_FIELD(tests.threshold))),
        statistics(
            choice("validation_method",
                   {"--validation-method", "", "methods[[\"validation\"]]", "VMethod", "METHOD"},
                   registry_names(stats::validation_methods()),
                   "Validation test: exact (exact p-value) or paper (the paper's "
                   "bootstrap).",
                   LLMV_TEXT_FIELD(tests.validation_method))),
        statistics(
            choice("separation_method",
                   {"--separation-method", "", "methods[[\"separation\"]]", "SMethod", "METHOD"},
                   registry_names(stats::separation_methods()),
                   "Separation test: permutation (exact) or paper (the paper's "
                   "bootstrap).",
                   LLMV_TEXT_FIELD(tests.separation_method))),
        statistics(choice("backtranslation_rule",
                          {"--rule", "", "methods[[\"backtranslation\"]]", "RULE", "RULE"},
                          {"point", "bound"},
                          "Backtranslation pass rule: the accuracy (point, the paper's) or its "
                          "lower confidence bound (bound).",
                          LLMV_TEXT_FIELD(tests.backtranslation_rule))),
        statistics(integer(
            "permutations", {"--permutations", "", "permutations", "PERMutations", "R"}, 1, 1000000,
            "Permutations of the separation test.", LLMV_NUMBER_FIELD(tests.permutations))),
        statistics(entry("seed", {"--seed", "", "seed", "SEED", "SEED"}, Kind::seed,
                         "Seed of the permutation and bootstrap draws and of the texts the "
                         "LLM generates: another seed draws (and pays for) new texts, the same "
                         "seed reads them back from the cache.",
                         LLMV_SEED_FIELD(tests.seed))),
        integer("paper_n", {"", "", "", "", "N"}, 0, 100000,
                "Paper methods: texts per pool (0: M).", LLMV_NUMBER_FIELD(paper_n)),
        integer("paper_b", {"--paper-b", "", "", "", "B"}, 1, 100000,
                "Paper methods: reference texts per label.", LLMV_NUMBER_FIELD(paper_b)),
        entry("backtranslate_all", {"--backtranslate-all", "", "", "", ""}, Kind::flag,
              "Backtranslate every label's pool, not only the passage's label.",
              LLMV_NUMBER_FIELD(backtranslate_all_labels)),
        integer("concurrency", {"--concurrency", "-c", "concurrency", "CONCurrency", "N"}, 1, 4096,
                "Requests in flight.", LLMV_NUMBER_FIELD(concurrency)),
        number("rpm", {"--rpm", "", "", "", "N"}, 0, false, 1e9, false,
               "Requests per minute (0: no limit).", LLMV_NUMBER_FIELD(rpm)),
        number("tpm", {"--tpm", "", "", "", "N"}, 0, false, 1e12, false,
               "Tokens per minute (0: no limit).", LLMV_NUMBER_FIELD(tpm)),
        number("temperature", {"--temperature", "", "temperature", "TEMPerature", "T"}, 0, false, 2,
               false, "Sampling temperature (1, as in the paper).", LLMV_NUMBER_FIELD(temperature)),
        choice("structured_output", {"--structured", "", "structured", "STRuctured", "HOW"},
               {"schema", "prompt", "none"},
               "How the answer's JSON is asked for: schema (the API's structured output), prompt "
               "(the schema in the prompt) or none (the paper's way: the prompt alone).",
               LLMV_TEXT_FIELD(structured_output)),
        choice("answer_format", {"--answer-format", "", "answer_format", "ANSwerformat", "WHEN"},
               {"auto", "always"},
               "Whether prompts end with the task's answer-format instructions: auto (left out "
               "when structured output schema sends the JSON Schema with the request: a fifth to "
               "a third fewer input tokens) or always (as earlier versions did: their cached "
               "answers serve again).",
               LLMV_TEXT_FIELD(answer_format)),
        optional(number("top_p", {"--top-p", "", "", "", "P"}, 0, false, 1, false,
                        "Nucleus sampling (unset: the provider's).", LLMV_OPTIONAL_FIELD(top_p))),
        optional(integer("max_tokens", {"--max-tokens", "", "", "", "N"}, 1, 1000000,
                         "Answer length cap (unset: the provider's).",
                         LLMV_OPTIONAL_FIELD(max_tokens))),
        choice("reasoning_effort",
               {"--reasoning-effort", "", "reasoning_effort", "REASONeffort", "LEVEL"},
               {"auto", "none", "minimal", "low", "medium", "high", "xhigh", "max"},
               "Reasoning effort of a reasoning model: auto (the lowest level the model takes "
               "for text generation, sent only to models that reason by default) or a level the "
               "model takes (docs/providers.md lists each family's).",
               LLMV_TEXT_FIELD(reasoning_effort)),
        integer("parse_retries", {"--parse-retries", "", "parse_retries", "PARSERetries", "N"}, 0,
                100,
                "Redraws of an unparseable or out-of-set answer (the paper preset: 0, a bad "
                "backtranslation answer counts as wrong).",
                LLMV_NUMBER_FIELD(parse_retry_limit)),
        integer("max_retries", {"--max-retries", "", "max_retries", "MAXRetries", "N"}, 0, 100,
                "Retries of a request after HTTP 429/5xx or a transport failure.",
                LLMV_NUMBER_FIELD(max_transport_retries)),
        number(
            "timeout", {"--timeout", "", "timeout", "TIMEout", "SECONDS"}, 0, true, 86400, false,
            "Time limit of one request, retries apart, in seconds.",
            [](const ValidationConfig& c) {
                return Value{true, static_cast<double>(c.total_timeout_ms) / 1000.0, {}};
            },
            [](ValidationConfig& c, const Value& v) {
                c.total_timeout_ms = static_cast<long>(std::ceil(v.number * 1000));
            }),
        number("drain", {"--drain", "", "drain", "DRAIN", "SECONDS"}, 0, false, 3600, false,
               "On Ctrl-C or SIGTERM: how long the requests in flight may finish and be cached "
               "before the run stops, in seconds.",
               LLMV_NUMBER_FIELD(drain_seconds)),
        number("poll_interval", {"--poll-interval", "", "poll_interval", "POLLinterval", "SECONDS"},
               0, false, 86400, false,
               "Batch API: seconds between two polls of a provider batch in progress (Ctrl-C "
               "and Break are seen at once, whatever the interval).",
               LLMV_NUMBER_FIELD(poll_interval_seconds)),
        choice("input_encoding", {"--encoding", "", "encoding", "ENCoding", "ENCODING"},
               {"utf-8", "latin1"},
               "How the passages' bytes are read: utf-8, or latin1 (ISO 8859-1, e.g. the original "
               "Financial PhraseBank files).",
               LLMV_TEXT_FIELD(input_encoding)),
        integer("cache_busy_timeout_ms", {"", "", "", "", "MS"}, 0, int_max,
                "How long a cache write waits for another process's lock, in milliseconds.",
                LLMV_NUMBER_FIELD(cache_busy_timeout_ms)),
        // The simulated provider's data-generating process (docs/simulated.md): synthetic.
        simulated(number("follow_probability",
                         {"--follow", "", "follow_probability", "FOLlow", "P"}, 0, false, 1, false,
                         "Simulated provider: probability that a generated text is written in "
                         "the requested label.",
                         LLMV_NUMBER_FIELD(simulated.follow_probability))),
        simulated(number("label_signal", {"--signal", "", "label_signal", "SIGnal", "SHARE"}, 0,
                         false, 1, false,
                         "Simulated provider: share of a generated text's words drawn from its "
                         "label's lexicon.",
                         LLMV_NUMBER_FIELD(simulated.label_signal))),
        simulated(number("annotator_accuracy",
                         {"--accuracy", "", "annotator_accuracy", "ACCuracy", "P"}, 0, false, 1,
                         false,
                         "Simulated provider: probability that the annotator returns a "
                         "text's latent label.",
                         LLMV_NUMBER_FIELD(simulated.annotator_accuracy))),
        simulated(number("unparseable_probability",
                         {"--unparseable", "", "unparseable_probability", "UNParseable", "P"}, 0,
                         false, 1, true,
                         "Simulated provider: probability that an answer is not valid JSON.",
                         LLMV_NUMBER_FIELD(simulated.unparseable_probability))),
        simulated(integer("words", {"--words", "", "words", "WORDs", "N"}, 0, 2000,
                          "Simulated provider: words per generated text (0: the passage's "
                          "length).",
                          LLMV_NUMBER_FIELD(simulated.words))),
        simulated(entry("dgp_seed", {"--dgp-seed", "", "", "DGPseed", "SEED"}, Kind::seed,
                        "Simulated provider: seed of the data-generating process (R: the run's "
                        "seed).",
                        LLMV_SEED_FIELD(simulated.seed))),
    };
}

// Shortest text that reads back to the same double.
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

bool is_seed_text(const std::string& text) {
    if (text.empty() || text.size() > 20 ||
        text.find_first_not_of("0123456789") != std::string::npos)
        return false;
    return text.size() < 20 || text <= "18446744073709551615";
}

}  // namespace

const std::vector<Setting>& table() {
    static const std::vector<Setting> settings = build_table();
    return settings;
}

const Setting* find(const std::string& name) {
    for (const Setting& setting : table())
        if (setting.name == name) return &setting;
    return nullptr;
}

const Setting& setting(const std::string& name) {
    const Setting* found = find(name);
    if (!found)
        throw Error(code::internal, "no setting named `" + name + "` in the settings table");
    return *found;
}

std::string spelling(const Setting& setting, FrontEnd front_end) {
    switch (front_end) {
        case FrontEnd::cli:
            return setting.cli.empty() ? setting.name : setting.cli;
        case FrontEnd::r:
            return setting.r.empty() ? setting.name : setting.r;
        case FrontEnd::stata:
            return setting.stata.empty() ? setting.name : setting.stata + "()";
        case FrontEnd::engine:
            break;
    }
    return setting.name;
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
    }
    return "";
}

std::string format_value(const Setting& setting, const Value& value) {
    if (!value.present) return "";
    switch (setting.kind) {
        case Kind::choice:
        case Kind::seed:
            return value.text;
        case Kind::flag:
            return value.number != 0 ? "true" : "false";
        case Kind::integer:
        case Kind::number:
            break;
    }
    return format_number(value.number);
}

std::string default_text(const Setting& setting) {
    return format_value(setting, setting.get(pipeline::ValidationConfig{}));
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

void check(const pipeline::ValidationConfig& config, FrontEnd front_end) {
    for (const Setting& setting : table()) check_value(setting, setting.get(config), front_end);
}

void check(const stats::TestOptions& options, FrontEnd front_end) {
    pipeline::ValidationConfig config;
    config.tests = options;
    for (const Setting& setting : table())
        if (setting.statistics) check_value(setting, setting.get(config), front_end);
}

}  // namespace llmv::settings

namespace llmv::settings {

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

void apply_preset(pipeline::ValidationConfig& config, const std::string& name, FrontEnd front_end) {
    for (const Preset& preset : presets()) {
        if (preset.name != name) continue;
        for (const auto& [setting_name, value] : preset.values) {
            const Setting& entry = setting(setting_name);
            entry.set(config, parse(entry, value, front_end));
        }
        return;
    }
    std::string names;
    for (const Preset& preset : presets())
        names += (names.empty() ? "" : ", ") + ("\"" + preset.name + "\"");
    throw_invalid(code::invalid_argument, spelling_of("preset", front_end), "\"" + name + "\"",
                  "one of " + names);
}

}  // namespace llmv::settings
