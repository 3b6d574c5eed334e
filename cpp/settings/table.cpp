// The settings table (llmvalidate/settings.hpp): every knob of the engine, one entry each. It
// names no struct: the fields are bound where they are declared (visit_settings()).
#include <cctype>
#include <limits>

#include "llmvalidate/error.hpp"
#include "llmvalidate/settings.hpp"

namespace llmv::settings {

namespace {

struct Spellings {
    std::string cli, cli_short, r, stata, value_name;
};

Setting entry(const std::string& name, const Spellings& spellings, Kind kind,
              const std::string& doc) {
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
    return setting;
}

Setting integer(const std::string& name, const Spellings& spellings, double low, double high,
                const std::string& doc) {
    Setting setting = entry(name, spellings, Kind::integer, doc);
    setting.low = low;
    setting.high = high;
    return setting;
}

Setting number(const std::string& name, const Spellings& spellings, double low, bool low_open,
               double high, bool high_open, const std::string& doc) {
    Setting setting = entry(name, spellings, Kind::number, doc);
    setting.low = low;
    setting.high = high;
    setting.low_open = low_open;
    setting.high_open = high_open;
    return setting;
}

Setting choice(const std::string& name, const Spellings& spellings,
               std::vector<std::string> choices, const std::string& doc) {
    Setting setting = entry(name, spellings, Kind::choice, doc);
    setting.choices = std::move(choices);
    return setting;
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

// A knob each front end reads with code of its own; `default_doc`: its default in words when
// no field's initial value is it.
Setting by_hand(Setting setting, const std::string& default_doc = "") {
    setting.by_hand = true;
    setting.default_doc = default_doc;
    return setting;
}

// The Stata subcommands that take the option, where the group's rule (below) does not say.
Setting stata_in(Setting setting, unsigned commands) {
    setting.stata_commands = commands;
    return setting;
}

std::vector<Setting> build_table() {
    constexpr double int_max = std::numeric_limits<int>::max();
    std::vector<Setting> settings = {
        // What a run is and where it goes: each front end reads these with code of its own (a
        // task file, an R provider object, a key from the environment, the run's route).
        stata_in(by_hand(entry("task", {"--task", "-t", "task", "TASK", "TASK"}, Kind::text,
                               "A shipped task (simple_sentiment, ...) or a task file "
                               "(prompts/*.toml)."),
                         "none: required"),
                 stata_validate | stata_power),
        stata_in(
            by_hand(entry("variables", {"--vars", "", "variables", "VARS", "NAME=VALUE,..."},
                          Kind::text, "Values of the task's user placeholders (topic=inflation)."),
                    "none"),
            stata_validate),
        stata_in(by_hand(entry("simulation.template",
                               {"simulation.template", "", "simulation_prompt", "SIMPrompt", ""},
                               Kind::text, "A simulation prompt of the passage's own."),
                         "the task's"),
                 stata_validate),
        stata_in(by_hand(entry("provider", {"--provider", "-p", "provider", "PROVider", "NAME"},
                               Kind::text,
                               "Chat provider: auto (from the environment), a provider of "
                               "docs/providers.md, or simulated (synthetic: no network).")),
                 stata_validate),
        stata_in(by_hand(entry("model", {"--model", "", "model", "MODel", "NAME"}, Kind::text,
                               "Chat model."),
                         "the provider's (docs/providers.md)"),
                 stata_validate),
        stata_in(
            by_hand(entry("base_url", {"--base-url", "", "base_url", "BASEurl", "URL"}, Kind::text,
                          "Base URL of the chat provider's server (an OpenAI-compatible "
                          "one)."),
                    "the provider's"),
            stata_validate),
        stata_in(by_hand(entry("api_key", {"LLMV_API_KEY", "", "api_key", "KEYenv", ""}, Kind::text,
                               "The chat provider's key (Stata: the environment variable that "
                               "holds it; the CLI reads it from the environment only)."),
                         "the provider's environment variable"),
                 stata_validate),
        stata_in(by_hand(entry("embedding_provider",
                               {"--embedding-provider", "", "embedding", "EMBedding", "NAME"},
                               Kind::text,
                               "Embedding provider (R: one object for the provider and its "
                               "model)."),
                         "the chat provider's own vendor"),
                 stata_validate),
        stata_in(
            by_hand(
                entry("embedding_model", {"--embedding-model", "", "embedding", "EMBMODel", "NAME"},
                      Kind::text, "Embedding model: one model embeds every text of a validation."),
                "the provider's (docs/providers.md)"),
            stata_validate),
        stata_in(
            by_hand(entry("embedding_base_url",
                          {"--embedding-base-url", "", "base_url", "EMBBASEurl", "URL"}, Kind::text,
                          "Base URL of the embedding server when it differs from the chat "
                          "one's."),
                    "the chat provider's when it is the same vendor"),
            stata_validate),
        [] {
            Setting cache = by_hand(
                entry("cache", {"--cache", "", "cache", "CACHE", "PATH"}, Kind::text,
                      "The response cache (SQLite): every answer paid for is kept, and a re-run "
                      "reads it back."),
                "the per-user cache the CLI, R and Stata share (`llmvalidate cache --path`)");
            cache.aliases = {"cache_path"};
            cache.stata_commands = stata_validate;
            return cache;
        }(),
        by_hand(entry("preset", {"", "", "preset", "preset", "NAME"}, Kind::text,
                      "A named bundle of settings (the CLI's --paper, Stata's paper); settings "
                      "given explicitly win."),
                "none"),
        stata_in(by_hand(entry("dry_run", {"--dry-run", "", "dry_run", "DRYrun", ""}, Kind::flag,
                               "Count the calls, the tokens and their price; make none.")),
                 stata_validate),
        stata_in(
            by_hand(entry("batch_api", {"--batch-api", "", "batch", "BATCHapi", ""}, Kind::flag,
                          "Run through the vendor's batch API (half the price, hours) "
                          "instead of synchronous requests.")),
            stata_validate),
        [] {
            Setting wait =
                by_hand(entry("wait", {"--submit-only", "", "wait", "NOWAIT", ""}, Kind::flag,
                              "Batch API: wait for the batches; off (the CLI's "
                              "--submit-only, Stata's nowait) submits them and "
                              "returns, and the same command collects them later."));
            wait.negated = {FrontEnd::cli, FrontEnd::stata};
            wait.stata_commands = stata_validate;
            return wait;
        }(),
        by_hand(entry("pending", {"--pending", "", "path", "", "FILE"}, Kind::text,
                      "Batch API with `wait` off: the file where the pending batch's handle "
                      "is saved, from which the run is collected later."),
                "none: the handle is returned, not saved"),
        // The validation's numbers, in the order of the documentation.
        stata_in(integer("M", {"--pool-size", "-M", "M", "M", "M"}, 2, 100000,
                         "Passages generated per label (the pool size M)."),
                 stata_validate | stata_power),
        stata_in(integer("n", {"--per-call", "-n", "n", "N", "N"}, 1, 1000,
                         "Passages asked for per simulation call."),
                 stata_validate | stata_power),
        stata_in(integer("repeats", {"--repeats", "-R", "repeats", "REPeats", "R"}, 1, 1000,
                         "Annotations of each passage; its label is the modal answer."),
                 stata_validate | stata_power),
        // Below 1e-6 no test could decide: its deciding size (1/α - 1) would exceed every size
        // the table allows (permutations up to 1e6).
        statistics(number("alpha", {"--alpha", "", "alpha", "ALPha", "LEVEL"}, 1e-6, false, 0.5,
                          false, "Level of every test.")),
        statistics(number("threshold", {"--threshold", "", "threshold", "THReshold", "ACCURACY"}, 0,
                          false, 1, false, "Backtranslation accuracy needed.")),
        statistics(
            choice("validation_method",
                   {"--validation-method", "", "methods[[\"validation\"]]", "VMethod", "METHOD"},
                   {"exact", "paper"},
                   "Validation test: exact (exact p-value) or paper (the paper's "
                   "bootstrap).")),
        statistics(
            choice("separation_method",
                   {"--separation-method", "", "methods[[\"separation\"]]", "SMethod", "METHOD"},
                   {"paper", "permutation"},
                   "Separation test: permutation (exact) or paper (the paper's "
                   "bootstrap).")),
        statistics(choice("backtranslation_rule",
                          {"--rule", "", "methods[[\"backtranslation\"]]", "RULE", "RULE"},
                          {"point", "bound"},
                          "Backtranslation pass rule: the accuracy (point, the paper's) or its "
                          "lower confidence bound (bound).")),
        statistics(integer("permutations",
                           {"--permutations", "", "permutations", "PERMutations", "R"}, 1, 1000000,
                           "Permutations of the separation test.")),
        statistics(entry("seed", {"--seed", "", "seed", "SEED", "SEED"}, Kind::seed,
                         "Seed of the permutation and bootstrap draws and of the texts the "
                         "LLM generates: another seed draws (and pays for) new texts, the same "
                         "seed reads them back from the cache.")),
        integer("paper_n", {"", "", "", "", "N"}, 0, 100000,
                "Paper methods: texts per pool (0: M)."),
        integer("paper_b", {"--paper-b", "", "", "", "B"}, 1, 100000,
                "Paper methods: reference texts per label."),
        entry("backtranslate_all", {"--backtranslate-all", "", "", "", ""}, Kind::flag,
              "Backtranslate every label's pool, not only the passage's label."),
        stata_in(integer("concurrency", {"--concurrency", "-c", "concurrency", "CONCurrency", "N"},
                         1, 4096, "Requests in flight."),
                 stata_validate | stata_power),
        number("rpm", {"--rpm", "", "", "", "N"}, 0, false, 1e9, false,
               "Requests per minute (0: no limit)."),
        number("tpm", {"--tpm", "", "", "", "N"}, 0, false, 1e12, false,
               "Tokens per minute (0: no limit)."),
        number("temperature", {"--temperature", "", "temperature", "TEMPerature", "T"}, 0, false, 2,
               false, "Sampling temperature (1, as in the paper)."),
        choice("structured_output", {"--structured", "", "structured", "STRuctured", "HOW"},
               {"schema", "prompt", "none"},
               "How the answer's JSON is asked for: schema (the API's structured output), prompt "
               "(the schema in the prompt) or none (the paper's way: the prompt alone)."),
        choice("answer_format", {"--answer-format", "", "answer_format", "ANSwerformat", "WHEN"},
               {"auto", "always"},
               "Whether prompts end with the task's answer-format instructions: auto (left out "
               "when structured output schema sends the JSON Schema with the request: a fifth to "
               "a third fewer input tokens) or always (as earlier versions did: their cached "
               "answers serve again)."),
        optional(number("top_p", {"--top-p", "", "", "", "P"}, 0, false, 1, false,
                        "Nucleus sampling (unset: the provider's).")),
        optional(integer("max_tokens", {"--max-tokens", "", "", "", "N"}, 1, 1000000,
                         "Answer length cap (unset: the provider's).")),
        choice("reasoning_effort",
               {"--reasoning-effort", "", "reasoning_effort", "REASONeffort", "LEVEL"},
               {"auto", "none", "minimal", "low", "medium", "high", "xhigh", "max"},
               "Reasoning effort of a reasoning model: auto (the lowest level the model takes "
               "for text generation, sent only to models that reason by default) or a level the "
               "model takes (docs/providers.md lists each family's)."),
        integer("parse_retries", {"--parse-retries", "", "parse_retries", "PARSERetries", "N"}, 0,
                100,
                "Redraws of an unparseable or out-of-set answer (the paper preset: 0, a bad "
                "backtranslation answer counts as wrong)."),
        integer("max_retries", {"--max-retries", "", "max_retries", "MAXRetries", "N"}, 0, 100,
                "Retries of a request after HTTP 429/5xx or a transport failure."),
        number("timeout", {"--timeout", "", "timeout", "TIMEout", "SECONDS"}, 0, true, 86400, false,
               "Time limit of one request, retries apart, in seconds."),
        number("drain", {"--drain", "", "drain", "DRAIN", "SECONDS"}, 0, false, 3600, false,
               "On Ctrl-C or SIGTERM: how long the requests in flight may finish and be cached "
               "before the run stops, in seconds."),
        number("poll_interval", {"--poll-interval", "", "poll_interval", "POLLinterval", "SECONDS"},
               0, false, 86400, false,
               "Batch API: seconds between two polls of a provider batch in progress (Ctrl-C "
               "and Break are seen at once, whatever the interval)."),
        choice("input_encoding", {"--encoding", "", "encoding", "ENCoding", "ENCODING"},
               {"utf-8", "latin1"},
               "How the passages' bytes are read: utf-8, or latin1 (ISO 8859-1, e.g. the original "
               "Financial PhraseBank files)."),
        integer("max_passage_bytes",
                {"--max-passage-bytes", "", "max_passage_bytes", "MAXPASSagebytes", "BYTES"}, 1,
                int_max,
                "The largest passage, in bytes: a larger one fails on its own row (naming it) "
                "before any request."),
        integer("cache_busy_timeout_ms", {"", "", "", "", "MS"}, 0, int_max,
                "How long a cache write waits for another process's lock, in milliseconds."),
        // The simulated provider's data-generating process (docs/simulated.md): synthetic.
        simulated(number("follow_probability",
                         {"--follow", "", "follow_probability", "FOLlow", "P"}, 0, false, 1, false,
                         "Simulated provider: probability that a generated text is written in "
                         "the requested label.")),
        simulated(number("label_signal", {"--signal", "", "label_signal", "SIGnal", "SHARE"}, 0,
                         false, 1, false,
                         "Simulated provider: share of a generated text's words drawn from its "
                         "label's lexicon.")),
        simulated(number("annotator_accuracy",
                         {"--accuracy", "", "annotator_accuracy", "ACCuracy", "P"}, 0, false, 1,
                         false,
                         "Simulated provider: probability that the annotator returns a "
                         "text's latent label.")),
        simulated(number("unparseable_probability",
                         {"--unparseable", "", "unparseable_probability", "UNParseable", "P"}, 0,
                         false, 1, true,
                         "Simulated provider: probability that an answer is not valid JSON.")),
        simulated(integer("words", {"--words", "", "words", "WORDs", "N"}, 0, 2000,
                          "Simulated provider: words per generated text (0: the passage's "
                          "length).")),
        simulated(entry("dgp_seed", {"--dgp-seed", "", "", "DGPseed", "SEED"}, Kind::seed,
                        "Simulated provider: seed of the data-generating process (R: the run's "
                        "seed).")),
        // `llmvalidate power` and the CLI's power command.
        stata_in(
            by_hand(entry("true_label", {"--true-label", "", "true_label", "TRUElabel", "LABEL"},
                          Kind::text, "Power: the label every simulated passage has."),
                    "the first label of the task"),
            stata_power),
        stata_in(by_hand(integer("replications",
                                 {"--replications", "", "replications", "REPLications", "N"}, 1,
                                 1000000, "Power: simulated validations.")),
                 stata_power),
    };
    // Which Stata subcommands take an option, where the entry does not say: the statistics'
    // settings every one (validation, test, power), the simulated provider's power, the rest
    // the validation. A knob read by hand says which (preset: none; Stata's option is paper).
    for (Setting& setting : settings) {
        if (setting.stata.empty() || setting.by_hand || setting.stata_commands != 0) continue;
        setting.stata_commands = setting.statistics ? stata_validate | stata_test | stata_power
                                 : setting.group == Group::simulated ? unsigned{stata_power}
                                                                     : unsigned{stata_validate};
    }
    return settings;
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

}  // namespace llmv::settings
