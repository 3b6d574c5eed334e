#include "options.hpp"

#include <cctype>

#include "llmvalidate/error.hpp"
#include "llmvalidate/key_value.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/text.hpp"
#include "llmvalidate/validation_config.hpp"
#include "task_options.hpp"

namespace llmv::cli {

namespace {

using text::split;
using text::trim;

}  // namespace

std::vector<OptionSpec> setting_options() {
    std::vector<OptionSpec> options;
    for (const settings::Setting& setting : settings::table()) {
        if (setting.cli.empty() || setting.by_hand) continue;
        std::string help = setting.doc;
        if (setting.kind == settings::Kind::flag) {
            // a flag is off unless given
        } else if (setting.optional) {
            help += " " + settings::allowed(setting) + "; unset by default.";
        } else {
            help += " " + settings::allowed(setting) + "; default " +
                    pipeline::setting_default(setting) + ".";
        }
        help[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(help[0])));
        options.push_back({setting.cli, setting.cli_short,
                           setting.kind == settings::Kind::flag ? "" : setting.value_name, help});
    }
    return options;
}

std::vector<OptionSpec> pipeline_options() {
    std::vector<OptionSpec> options = {
        {"--task", "-t", "TASK",
         "A shipped task (simple_sentiment, ...) or the path of a task file (prompts/*.toml)."},
        {"--vars", "", "NAME=VALUE,...",
         "Values of the task's user placeholders, e.g. --vars topic=inflation."},
        {"--provider", "-p", "NAME",
         "Chat provider: auto (default: from the environment), " +
             pipeline::provider_names("chat") + "; simulated is synthetic (no network)."},
        {"--model", "", "NAME",
         "Chat model (LLMV_MODEL; default per provider: docs/providers.md)."},
        {"--base-url", "", "URL",
         "Base URL of an OpenAI-compatible server (LLMV_BASE_URL): Ollama, vLLM, llama-server, "
         "Azure."},
        {"--embedding-provider", "", "NAME",
         pipeline::provider_names("embedding") +
             " (hashed is synthetic). Default: the chat provider's own vendor."},
        {"--embedding-model", "", "NAME",
         "Embedding model (LLMV_EMBEDDING_MODEL; default per provider: docs/providers.md). One "
         "model embeds every text of a validation."},
        {"--embedding-base-url", "", "URL",
         "Base URL of the embedding server when it differs from --base-url."},
        {"--methods", "", "METHODS",
         "exact (default: exact validation + permutation separation), paper (the paper's bootstrap "
         "variants), or VALIDATION,SEPARATION."},
        {"--cache", "", "PATH",
         "Response cache (SQLite; default $LLMV_CACHE, else the per-user cache shared with R and "
         "Stata: `llmvalidate cache --path` prints it)."},
        {"--no-cache", "", "", "Keep responses in memory only (a re-run pays again)."},
        {"--dry-run", "", "",
         "Print the exact number of calls, the estimated tokens and their price (synchronous and "
         "batch API); make none."},
        {"--price-table", "", "PATH",
         "Prices per million tokens for the dry run and the run's cost (LLMV_PRICE_TABLE; default: "
         "the shipped prompts/prices.csv, whose columns a table of your own repeats)."},
        {"--quiet", "-q", "", "No progress bar."},
    };
    for (OptionSpec& option : task_from_options_options()) options.push_back(std::move(option));
    for (OptionSpec& option : setting_options()) options.push_back(std::move(option));
    // Each preset of the engine is a flag (--paper); settings given explicitly still win.
    for (const settings::Preset& preset : settings::presets())
        options.push_back({"--" + preset.name, "", "", preset.doc});
    return options;
}

std::vector<OptionSpec> simulated_options() {
    return {
        {"--confusion", "", "ROWS",
         "Simulated provider: annotator confusion matrix, rows by ';', entries by ',' (rows = true "
         "label, S order)."},
    };
}

ConfigChoice config_from_args(const std::string& command, const ParsedArgs& parsed,
                              bool allow_simulated_fallback) {
    ConfigChoice choice;
    pipeline::ValidationConfig& config = choice.config;
    config.messages_for = settings::FrontEnd::cli;
    config.task_source = task_source_from_options(command, parsed);
    if (config.task_source.empty() && !parsed.has("--task")) {
        throw_usage(command,
                    "option `--task` is required: a shipped task (e.g. simple_sentiment), "
                    "the path of a task file, or a task from options (--labels, "
                    "--annotation-prompt, --simulation-prompt).");
    }
    if (config.task_source.empty()) config.task_path = parsed.value("--task");
    if (parsed.has("--vars")) {
        for (const std::string& item : split(parsed.value("--vars"), ',')) {
            const auto pair = key_value::split(item);
            if (!pair) {
                throw_usage(command,
                            "option `--vars` takes NAME=VALUE pairs separated by commas; "
                            "received `" +
                                item + "`.");
            }
            config.variables[trim(pair->first)] = pair->second;
        }
    }

    config.provider = parsed.value("--provider", pipeline::auto_provider_name);
    config.model = parsed.value("--model");
    config.base_url = parsed.value("--base-url");
    config.embedding_provider = parsed.value("--embedding-provider");
    config.embedding_model = parsed.value("--embedding-model");
    config.embedding_base_url = parsed.value("--embedding-base-url");
    for (const settings::Preset& preset : settings::presets()) {
        if (parsed.has("--" + preset.name))
            settings::apply_preset(config, preset.name, settings::FrontEnd::cli);
    }
    // Every setting of the table (before the resolution, which checks the model's rules on
    // temperature, top_p and max_tokens) that the CLI offers, with the table's ranges and messages.
    for (const settings::Setting& setting : settings::table()) {
        if (setting.cli.empty() || setting.by_hand || !parsed.has(setting.cli)) continue;
        const std::string text =
            setting.kind == settings::Kind::flag ? "true" : parsed.value(setting.cli);
        settings::set(config, setting, settings::parse(setting, text, settings::FrontEnd::cli));
    }
    // Auto-selection, default models and keys: the engine's rules (resolution.hpp). Only here,
    // where the report's first line says so, may "auto" fall back to the synthetic stand-ins.
    pipeline::ResolveOptions resolve_options;
    resolve_options.allow_synthetic_fallback = allow_simulated_fallback;
    // Its errors name fields (`embedding_provider`), which main() spells as options.
    const pipeline::ResolvedProviders resolved =
        pipeline::resolve_providers(config, resolve_options);
    pipeline::apply_resolution(config, resolved);
    choice.synthetic = resolved.synthetic_chat || resolved.local_embedding;
    if (resolved.synthetic_chat) {
        choice.banner =
            parsed.value("--provider", pipeline::auto_provider_name) == pipeline::auto_provider_name
                ? "SYNTHETIC RESULTS: no LLM provider is configured (" + pipeline::auto_sources() +
                      "), so the simulated "
                      "provider (a synthetic data-generating process, docs/simulated.md) "
                      "stands in for the LLM and the embeddings. No LLM was called."
                : "SYNTHETIC RESULTS: the simulated provider (a synthetic data-generating "
                  "process, docs/simulated.md) stands in for the LLM and the embeddings. "
                  "No LLM was called.";
    } else {
        choice.banner = resolved.description();
    }

    if (parsed.has("--methods")) {
        const std::string methods = parsed.value("--methods");
        if (methods == "exact" || methods == "default") {
            config.tests.validation_method = "exact";
            config.tests.separation_method = "permutation";
        } else if (methods == "paper") {
            config.tests.validation_method = "paper";
            config.tests.separation_method = "paper";
        } else {
            const auto parts = split(methods, ',');
            if (parts.size() != 2) {
                throw_usage(command,
                            "option `--methods` takes exact, paper, or VALIDATION,SEPARATION "
                            "(e.g. exact,paper); received `" +
                                methods + "`.");
            }
            config.tests.validation_method = trim(parts[0]);
            config.tests.separation_method = trim(parts[1]);
        }
    }
    if (!parsed.has("--no-cache")) {
        config.cache_path = parsed.value("--cache", pipeline::default_cache_path());
    }
    {
        // (A paid run without a cache is warned of by the run itself, before its first call.)
        const bool nothing_paid =
            config.provider == "simulated" && config.embedding_provider == "hashed";
        // Nothing paid, nothing cached: the banner already says the run is synthetic.
        choice.cache_note = nothing_paid                ? ""
                            : config.cache_path.empty() ? "Cache: none (--no-cache)."
                                                        : "Cache: " + config.cache_path;
    }
    // --timeout, --drain and --encoding: the settings table (its ranges and messages).
    // The route: pipeline::run() reads these three.
    config.dry_run = parsed.has("--dry-run");
    config.batch_api = parsed.has("--batch-api");
    config.wait = !parsed.has("--submit-only");
    if (parsed.has("--price-table")) config.price_table = parsed.value("--price-table");

    pipeline::SimulatedDgp& dgp = config.simulated;
    // --follow, --signal, --accuracy, --unparseable, --words, --dgp-seed: the settings table.
    if (parsed.has("--confusion")) {
        for (const std::string& row_text : split(parsed.value("--confusion"), ';')) {
            std::vector<double> row;
            for (const std::string& cell : split(row_text, ',')) {
                try {
                    row.push_back(std::stod(trim(cell)));
                } catch (const std::exception&) {
                    throw_usage(command,
                                "option `--confusion` takes numbers (rows by ';', entries "
                                "by ','); received `" +
                                    cell + "`.");
                }
            }
            dgp.confusion.push_back(row);
        }
    }
    return choice;
}

}  // namespace llmv::cli
