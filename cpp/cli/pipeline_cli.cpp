#include "cli/pipeline_cli.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/task_options.hpp"
#include "core/key_value.hpp"
#include "core/text.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/settings.hpp"
#include "pipeline/test_json.hpp"

namespace llmv::cli {

namespace {

using text::split;
using text::trim;

std::atomic<bool> interrupt_flag{false};
volatile std::sig_atomic_t interrupt_signal = 0;

// The first SIGINT or SIGTERM starts the drain (the flag); a second one ends the process at
// once, with the exit status of the first.
extern "C" void on_interrupt(int signal_number) {
    if (interrupt_signal != 0) ::_exit(128 + interrupt_signal);
    interrupt_signal = signal_number;
    interrupt_flag.store(true);
}

std::string fixed(double value, int digits = 3) {
    if (std::isnan(value)) return "NA";
    if (std::isinf(value)) return value < 0 ? "-Inf" : "Inf";
    std::ostringstream out;
    out << std::fixed << std::setprecision(digits) << value;
    return out.str();
}

// Shortest text that reads back to the same double (CSV/JSON: every number exactly).
std::string exact(double value) {
    if (std::isnan(value)) return "NA";
    if (std::isinf(value)) return value < 0 ? "-Inf" : "Inf";
    char buffer[40];
    for (int precision = 15; precision <= 17; ++precision) {
        std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
        if (std::strtod(buffer, nullptr) == value) break;
    }
    return buffer;
}

std::string pad(std::string text, std::size_t width) {
    if (text.size() < width) text.resize(width, ' ');
    return text;
}

const char* pass_word(bool pass) { return pass ? "pass" : "FAIL"; }

}  // namespace

std::vector<OptionSpec> setting_options() {
    std::vector<OptionSpec> options;
    for (const settings::Setting& setting : settings::table()) {
        if (setting.cli.empty()) continue;
        std::string help = setting.doc;
        if (setting.kind == settings::Kind::flag) {
            // a flag is off unless given
        } else if (setting.optional) {
            help += " " + settings::allowed(setting) + "; unset by default.";
        } else {
            help += " " + settings::allowed(setting) + "; default " + settings::default_text(setting) + ".";
        }
        help[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(help[0])));
        options.push_back({setting.cli, setting.cli_short,
                           setting.kind == settings::Kind::flag ? "" : setting.value_name, help});
    }
    return options;
}

namespace {

// The registry's names, from the engine's table (no front end keeps its own list).
std::string provider_names(const std::string& kind) {
    std::string names;
    for (const pipeline::ProviderDefaults& row : pipeline::provider_defaults()) {
        if (row.kind == kind) names += (names.empty() ? "" : ", ") + row.provider;
    }
    return names;
}

}  // namespace

std::vector<OptionSpec> pipeline_options() {
    std::vector<OptionSpec> options = {
        {"--task", "-t", "TASK", "A shipped task (simple_sentiment, ...) or the path of a task file (prompts/*.toml)."},
        {"--vars", "", "NAME=VALUE,...", "Values of the task's user placeholders, e.g. --vars topic=inflation."},
        {"--provider", "-p", "NAME", "Chat provider: auto (default: from the environment), " + provider_names("chat") + "; simulated is synthetic (no network)."},
        {"--model", "", "NAME", "Chat model (LLMV_MODEL; default per provider: docs/providers.md)."},
        {"--base-url", "", "URL", "Base URL of an OpenAI-compatible server (LLMV_BASE_URL): Ollama, vLLM, llama-server, Azure."},
        {"--embedding-provider", "", "NAME", provider_names("embedding") + " (hashed is synthetic). Default: the chat provider's own vendor."},
        {"--embedding-model", "", "NAME", "Embedding model (LLMV_EMBEDDING_MODEL; default per provider: docs/providers.md). One model embeds every text of a validation."},
        {"--embedding-base-url", "", "URL", "Base URL of the embedding server when it differs from --base-url."},
        {"--methods", "", "METHODS", "exact (default: exact validation + permutation separation), paper (the paper's bootstrap variants), or VALIDATION,SEPARATION."},
        {"--cache", "", "PATH", "Response cache (SQLite; default $LLMV_CACHE, else the per-user cache shared with R and Stata: `llmvalidate cache --path` prints it)."},
        {"--no-cache", "", "", "Keep responses in memory only (a re-run pays again)."},
        {"--dry-run", "", "", "Print the exact number of calls, the estimated tokens and their price (synchronous and batch API); make none."},
        {"--price-table", "", "PATH", "Prices per million tokens for the dry run and the run's cost (LLMV_PRICE_TABLE; default: the shipped prompts/prices.csv, whose columns a table of your own repeats)."},
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
        {"--confusion", "", "ROWS", "Simulated provider: annotator confusion matrix, rows by ';', entries by ',' (rows = true label, S order)."},
    };
}

ConfigChoice config_from_args(const std::string& command, const ParsedArgs& parsed,
                              bool allow_simulated_fallback) {
    ConfigChoice choice;
    pipeline::ValidationConfig& config = choice.config;
    config.task_source = task_source_from_options(command, parsed);
    if (config.task_source.empty() && !parsed.has("--task")) {
        throw_usage(command, "option `--task` is required: a shipped task (e.g. simple_sentiment), "
                             "the path of a task file, or a task from options (--labels, "
                             "--annotation-prompt, --simulation-prompt).");
    }
    if (config.task_source.empty()) config.task_path = parsed.value("--task");
    if (parsed.has("--vars")) {
        for (const std::string& item : split(parsed.value("--vars"), ',')) {
            const auto pair = key_value::split(item);
            if (!pair) {
                throw_usage(command, "option `--vars` takes NAME=VALUE pairs separated by commas; "
                                     "received `" + item + "`.");
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
    // Auto-selection, default models and keys: the engine's rules (resolution.hpp). Only here,
    // where the report's first line says so, may "auto" fall back to the synthetic stand-ins.
    pipeline::ResolveOptions resolve_options;
    resolve_options.allow_synthetic_fallback = allow_simulated_fallback;
    pipeline::ResolvedProviders resolved;
    try {
        resolved = pipeline::resolve_providers(config, resolve_options);
    } catch (const Error& error) {
        throw pipeline::in_front_end_terms(error, settings::FrontEnd::cli);  // options, not fields
    }
    pipeline::apply_resolution(config, resolved);
    choice.synthetic = resolved.synthetic_chat || resolved.local_embedding;
    if (resolved.synthetic_chat) {
        choice.banner = parsed.value("--provider", pipeline::auto_provider_name) ==
                                pipeline::auto_provider_name
                            ? "SYNTHETIC RESULTS: no LLM provider is configured (LLMV_BASE_URL, "
                              "ANTHROPIC_API_KEY, OPENAI_API_KEY, AWS credentials), so the simulated "
                              "provider (a synthetic data-generating process, docs/simulated.md) "
                              "stands in for the LLM and the embeddings. No LLM was called."
                            : "SYNTHETIC RESULTS: the simulated provider (a synthetic data-generating "
                              "process, docs/simulated.md) stands in for the LLM and the embeddings. "
                              "No LLM was called.";
    } else {
        choice.banner = resolved.description();
    }

    for (const settings::Preset& preset : settings::presets()) {
        if (parsed.has("--" + preset.name))
            settings::apply_preset(config, preset.name, settings::FrontEnd::cli);
    }
    // Every setting of the table that the CLI offers, with the table's ranges and messages.
    for (const settings::Setting& setting : settings::table()) {
        if (setting.cli.empty() || !parsed.has(setting.cli)) continue;
        const std::string text =
            setting.kind == settings::Kind::flag ? "true" : parsed.value(setting.cli);
        setting.set(config, settings::parse(setting, text, settings::FrontEnd::cli));
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
                throw_usage(command, "option `--methods` takes exact, paper, or VALIDATION,SEPARATION "
                                     "(e.g. exact,paper); received `" + methods + "`.");
            }
            config.tests.validation_method = trim(parts[0]);
            config.tests.separation_method = trim(parts[1]);
        }
    }
    if (!parsed.has("--no-cache")) {
        config.cache_path = parsed.value("--cache", pipeline::default_cache_path());
    }
    {
        const std::string warning = pipeline::cache_warning(config);
        const bool nothing_paid = config.provider == "simulated" && config.embedding_provider == "hashed";
        // Nothing paid, nothing cached: the banner already says the run is synthetic.
        choice.cache_note = nothing_paid                 ? ""
                            : config.cache_path.empty() ? "Cache: none (--no-cache)."
                                                        : "Cache: " + config.cache_path;
        if (!warning.empty()) choice.cache_note += "\nWarning: " + warning;
    }
    // --timeout, --drain and --encoding: the settings table (its ranges and messages).
    config.dry_run = parsed.has("--dry-run");
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
                    throw_usage(command, "option `--confusion` takes numbers (rows by ';', entries "
                                         "by ','); received `" + cell + "`.");
                }
            }
            dgp.confusion.push_back(row);
        }
    }
    return choice;
}

std::atomic<bool>* install_interrupt_flag() {
    interrupt_flag.store(false);
    interrupt_signal = 0;
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    return &interrupt_flag;
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

ProgressBar::ProgressBar(bool enabled) : enabled_(enabled) {}

void ProgressBar::update(const pipeline::Progress& progress) {
    if (!enabled_) return;
    const double share = progress.calls_total > 0
                             ? static_cast<double>(progress.calls_done) / static_cast<double>(progress.calls_total)
                             : 0.0;
    const int width = 24;
    const int filled = static_cast<int>(share * width + 0.5);
    std::string bar(static_cast<std::size_t>(std::max(0, std::min(width, filled))), '#');
    bar.resize(width, '-');
    std::ostringstream line;
    line << "\r[" << bar << "] " << std::setw(3) << static_cast<int>(share * 100 + 0.5) << "%  "
         << progress.calls_done << "/" << progress.calls_total << " calls, " << progress.cache_hits
         << " cached, " << progress.retries << " retries, "
         << (progress.input_tokens + progress.output_tokens) << " tokens, passages "
         << progress.passages_done;
    if (progress.passages_total > 0) line << "/" << progress.passages_total;
    if (progress.eta_seconds >= 0) line << ", ETA " << static_cast<long>(progress.eta_seconds + 0.5) << " s";
    line << "   ";
    std::cerr << line.str() << std::flush;
    drawn_ = true;
}

void ProgressBar::finish() {
    if (enabled_ && drawn_) std::cerr << "\n" << std::flush;
    drawn_ = false;
}

std::string format_counts(const pipeline::CallCounts& counts) {
    std::ostringstream out;
    out << counts.chat_calls << " chat calls made (" << counts.annotation_calls << " annotation, "
        << counts.simulation_calls << " simulation, " << counts.backtranslation_calls
        << " backtranslation draws), " << counts.embedded_texts << " texts embedded, "
        << counts.cache_hits << " cache hits, " << counts.transport_retries << " transport retries, "
        << counts.parse_retries << " parse retries (" << counts.unparseable << " unparseable, "
        << counts.out_of_set << " outside the label set), "
        << counts.input_tokens << " input and " << counts.output_tokens << " output tokens";
    return out.str();
}

std::string format_passage_report(const pipeline::PassageResult& result) {
    std::ostringstream out;
    out << "Passage " << result.id << ": ";
    if (!result.ok) {
        out << "ERROR [" << result.error_code << "] " << result.error_message << "\n";
        return out.str();
    }
    const stats::TestOutput& tests = result.tests;
    out << "label " << result.label;
    if (result.repeats > 1) out << " (stability " << fixed(result.annotation_stability, 2) << " over " << result.repeats << " annotations)";
    out << " -> verdict " << result.verdict_name << "\n";
    out << "  " << tests.verdict_reason << "\n";
    const auto& bt = tests.backtranslation;
    out << "  Backtranslation (" << bt.label << "): accuracy " << fixed(bt.accuracy) << " (" << bt.correct << "/" << bt.m
        << "), lower bound " << fixed(bt.lower_bound) << ", rule " << bt.rule << " >= " << fixed(bt.threshold, 2)
        << ": " << pass_word(bt.pass) << "\n";
    for (const auto& separation : tests.separation) {
        out << "  Separation " << result.label << " vs " << separation.label << " (" << separation.method
            << "): xi " << fixed(separation.statistic) << ", critical value " << fixed(separation.critical_value)
            << ", p " << fixed(separation.p_value) << ": " << pass_word(separation.pass) << "\n";
    }
    const auto& validation = tests.validation;
    out << "  Validation (" << validation.method << ", M = " << validation.m << "): tau " << fixed(validation.statistic)
        << ", critical value " << fixed(validation.critical_value) << ", p " << fixed(validation.p_value)
        << ": " << (validation.reject ? "validity rejected" : "not rejected") << "\n";
    out << "  Calls: " << format_counts(result.calls) << "\n";
    return out.str();
}

std::string format_table1(const std::vector<pipeline::PassageResult>& results,
                          const std::vector<std::string>& titles) {
    std::ostringstream out;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const pipeline::PassageResult& result = results[i];
        const std::string title = i < titles.size() && !titles[i].empty() ? titles[i] : result.id;
        out << "Panel (" << static_cast<char>('a' + static_cast<int>(i % 26)) << ") " << title << "\n";
        if (!result.ok) {
            out << "  ERROR [" << result.error_code << "] " << result.error_message << "\n\n";
            continue;
        }
        const stats::TestOutput& tests = result.tests;
        out << "  " << pad("Test", 28) << pad("Label", 12) << pad("Statistic", 12) << pad("Critical", 12)
            << pad("p-value", 10) << "Outcome\n";
        out << "  " << pad("Annotation", 28) << pad(result.label, 12) << pad("", 12) << pad("", 12) << pad("", 10)
            << (result.repeats > 1 ? "stability " + fixed(result.annotation_stability, 2) : std::string("")) << "\n";
        const auto& bt = tests.backtranslation;
        out << "  " << pad("Backtranslation accuracy", 28) << pad(bt.label, 12) << pad(fixed(bt.accuracy, 2), 12)
            << pad(fixed(bt.threshold, 2), 12) << pad("", 10) << (bt.pass ? "pass" : "FAIL") << "\n";
        for (const auto& separation : tests.separation) {
            out << "  " << pad("Separation", 28) << pad(separation.label, 12) << pad(fixed(separation.statistic, 2), 12)
                << pad(fixed(separation.critical_value, 2), 12) << pad(fixed(separation.p_value, 3), 10)
                << (separation.pass ? "pass" : "FAIL") << "\n";
        }
        const auto& validation = tests.validation;
        out << "  " << pad("Validation", 28) << pad(result.label, 12) << pad(fixed(validation.statistic, 2), 12)
            << pad(fixed(validation.critical_value, 2), 12) << pad(fixed(validation.p_value, 3), 10)
            << (validation.reject ? "rejected" : "not rejected") << "\n";
        out << "  Verdict: " << result.verdict_name << " (" << tests.verdict_reason << ")\n\n";
    }
    return out.str();
}

std::string format_summary(const pipeline::BatchSummary& summary) {
    std::ostringstream out;
    out << "Passages: " << summary.n_passages << " (" << summary.n_valid << " valid, " << summary.n_invalid
        << " invalid, " << summary.n_inconclusive << " inconclusive, " << summary.n_failed << " failed)\n";
    if (summary.summary.table9.empty()) return out.str();
    const bool human = !summary.summary.table10.empty();
    out << "Share valid among passages whose prerequisites pass (Table 9):\n";
    out << "  " << pad("LLM label", 16) << pad("n", 8) << pad("valid", 8) << pad("share", 8)
        << (human ? "share agreeing with human" : "") << "\n";
    for (const auto& row : summary.summary.table9) {
        out << "  " << pad(row.label.empty() ? "All" : row.label, 16) << pad(std::to_string(row.n), 8)
            << pad(std::to_string(row.n_valid), 8) << pad(fixed(row.share_valid, 3), 8)
            << (human ? fixed(row.share_human, 3) : "") << "\n";
    }
    if (human) {
        out << "LLM label x human label, share valid (Table 10):\n";
        for (const auto& cell : summary.summary.table10) {
            out << "  " << pad(cell.llm_label, 16) << pad(cell.human_label, 16) << pad(std::to_string(cell.n), 8)
                << pad(std::to_string(cell.n_valid), 8) << fixed(cell.share_valid, 3) << "\n";
        }
    }
    return out.str();
}

std::string format_cost(const CostEstimate& cost, const std::string& title) {
    std::ostringstream out;
    out << title << ": " << format_dollars(cost.dollars) << " with the synchronous APIs, "
        << format_dollars(cost.batch_dollars) << " with the batch API"
        << (cost.complete ? "" : " (not every model is priced)") << "\n";
    for (const CostLine& line : cost.lines) {
        out << "    " << line.role << " " << line.provider << " " << line.model << ": "
            << line.input_tokens << " input";
        if (line.cached_input_tokens > 0) out << " + " << line.cached_input_tokens << " cached input";
        if (line.role == "chat") out << ", " << line.output_tokens << " output";
        out << " tokens, ";
        if (!line.priced) {
            out << "no price\n";
            continue;
        }
        out << format_dollars(line.dollars);
        if (line.batch_available) out << " (batch " << format_dollars(line.batch_dollars) << ")";
        if (!line.checked.empty()) out << ", prices of " << line.checked;
        out << "\n";
    }
    if (!cost.table.empty()) out << "    prices from " << cost.table << "\n";
    if (!cost.note.empty()) out << "    " << cost.note << "\n";
    return out.str();
}

std::string format_dry_run(const pipeline::DryRunReport& report) {
    std::ostringstream out;
    out << "Dry run: no call made.\n"
        << "  passages:              " << report.passages << "\n"
        << "  chat calls:            " << report.calls.chat_calls << " ("
        << report.calls.annotation_calls << " annotation, " << report.calls.simulation_calls
        << " simulation, " << report.calls.backtranslation_calls << " backtranslation)\n"
        << "  embedded texts:        " << report.calls.embedded_texts << "\n"
        << "  shared across passages: " << report.calls.shared << " chat calls, "
        << report.shared_embedded_texts << " texts\n"
        << "  already in the cache:  " << report.cached_calls << " chat calls, "
        << report.cached_embedded_texts << " texts\n"
        << "  to be made:            " << report.chat_calls_to_make << " chat calls, "
        << report.texts_to_embed << " texts to embed\n"
        << "  input tokens (est.):   " << report.estimated_input_tokens << "\n"
        << "  output tokens (est.):  " << report.estimated_output_tokens << "\n"
        << "  embedding tokens (est.): " << report.estimated_embedding_tokens << "\n"
        << format_cost(report.cost, "  price of the calls to be made (est.)");
    for (const std::string& warning : report.warnings) out << "Warning: " << warning << "\n";
    out << report.note << "\n";
    return out.str();
}

std::vector<std::string> csv_header(const std::vector<std::string>& labels) {
    std::vector<std::string> header = {
        "index", "id", "status", "error_code", "error_message", "label", "verdict", "verdict_reason",
        "human_label", "annotation_stability", "annotations",
        "validation_method", "validation_statistic", "validation_critical_value", "validation_p_value",
        "validation_reject", "backtranslation_accuracy", "backtranslation_correct", "backtranslation_m",
        "backtranslation_lower_bound", "backtranslation_pass", "backtranslation_counts"};
    for (const std::string& label : labels) {
        header.push_back("separation_" + label + "_statistic");
        header.push_back("separation_" + label + "_critical_value");
        header.push_back("separation_" + label + "_p_value");
        header.push_back("separation_" + label + "_pass");
    }
    const std::vector<std::string> tail = {
        "separation_method", "M", "n", "R", "alpha", "threshold", "backtranslation_rule", "seed",
        "provider", "model", "embedding_provider", "embedding_model", "synthetic", "task",
        "prompt_hash_annotation", "chat_calls", "annotation_calls", "simulation_calls",
        "backtranslation_calls", "embedded_texts", "cache_hits", "shared", "transport_retries",
        "parse_retries", "unparseable", "out_of_set", "input_tokens", "output_tokens"};
    header.insert(header.end(), tail.begin(), tail.end());
    return header;
}

std::vector<std::string> csv_row(const pipeline::PassageResult& result,
                                 const std::vector<std::string>& labels) {
    const stats::TestOutput& tests = result.tests;
    const bool ok = result.ok;
    std::string annotations;
    for (const auto& answer : result.annotations) annotations += (annotations.empty() ? "" : "|") + answer;
    std::string counts;
    for (const auto& [label, count] : tests.backtranslation.counts) {
        counts += (counts.empty() ? "" : "|") + label + ":" + std::to_string(count);
    }
    auto num = [&](double value) { return ok ? exact(value) : std::string(); };
    auto flag = [&](bool value) { return ok ? std::string(value ? "true" : "false") : std::string(); };
    std::vector<std::string> row = {
        std::to_string(result.index + 1), result.id, ok ? "ok" : "error", result.error_code, result.error_message,
        result.label, result.verdict_name, ok ? tests.verdict_reason : "", result.human_label,
        ok ? exact(result.annotation_stability) : "", annotations,
        result.validation_method, num(tests.validation.statistic), num(tests.validation.critical_value),
        num(tests.validation.p_value), flag(tests.validation.reject), num(tests.backtranslation.accuracy),
        ok ? std::to_string(tests.backtranslation.correct) : "", ok ? std::to_string(tests.backtranslation.m) : "",
        num(tests.backtranslation.lower_bound), flag(tests.backtranslation.pass), counts};
    for (const std::string& label : labels) {
        const stats::SeparationResult* found = nullptr;
        for (const auto& separation : tests.separation) {
            if (separation.label == label) found = &separation;
        }
        if (found && ok) {
            row.push_back(exact(found->statistic));
            row.push_back(exact(found->critical_value));
            row.push_back(exact(found->p_value));
            row.push_back(found->pass ? "true" : "false");
        } else {
            row.insert(row.end(), 4, "");
        }
    }
    const pipeline::CallCounts& c = result.calls;
    const std::vector<std::string> tail = {
        result.separation_method, std::to_string(result.m), std::to_string(result.n), std::to_string(result.repeats),
        exact(result.alpha), exact(result.threshold), result.backtranslation_rule, std::to_string(result.seed),
        result.provider, result.model, result.embedding_provider, result.embedding_model,
        result.synthetic ? "true" : "false", result.task_name,
        result.prompt_hashes.count("annotation") ? result.prompt_hashes.at("annotation") : "",
        std::to_string(c.chat_calls), std::to_string(c.annotation_calls), std::to_string(c.simulation_calls),
        std::to_string(c.backtranslation_calls), std::to_string(c.embedded_texts), std::to_string(c.cache_hits),
        std::to_string(c.shared), std::to_string(c.transport_retries), std::to_string(c.parse_retries),
        std::to_string(c.unparseable), std::to_string(c.out_of_set), std::to_string(c.input_tokens),
        std::to_string(c.output_tokens)};
    row.insert(row.end(), tail.begin(), tail.end());
    return row;
}

std::string csv_line(const std::vector<std::string>& fields) { return pipeline::csv_line(fields); }

OptionSpec save_generations_option() {
    return {"--save-generations", "", "PATH",
            "Write what the model wrote and answered (the audit trail): one row per annotation and per generated "
            "text, with its label, draw, backtranslated label, model and prompt hash. CSV, or JSON lines when PATH "
            "ends in .jsonl."};
}

GenerationsWriter::GenerationsWriter(const std::string& path) : path_(path) {
    const auto ends_with = [&](const std::string& suffix) {
        return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    jsonl_ = ends_with(".jsonl") || ends_with(".ndjson");
    out_ = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
    if (!*out_) throw_invalid(code::io, "--save-generations", path, "a writable file path");
    if (!jsonl_) *out_ << pipeline::generations_csv_header() << "\n";
}

GenerationsWriter::~GenerationsWriter() = default;

void GenerationsWriter::write(const pipeline::PassageResult& result) {
    for (const pipeline::GenerationRow& row : pipeline::generation_rows(result)) {
        if (jsonl_) {
            nlohmann::ordered_json line;
            line["index"] = row.index + 1;
            line["id"] = row.passage_id;
            line["kind"] = row.kind;
            line["label"] = row.label;
            line["draw"] = row.draw + 1;
            line["text"] = row.text;
            line["answer"] = row.answer;
            line["model"] = row.model;
            line["prompt_hash"] = row.prompt_hash;
            *out_ << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        } else {
            *out_ << pipeline::generation_csv_line(row) << "\n";
        }
    }
    out_->flush();
}

void GenerationsWriter::close() {
    out_->flush();
    if (!*out_) throw Error(code::io, "writing the generations to " + path_ + " failed (disk full?)");
    out_->close();
}

std::string jsonl_line(const pipeline::PassageResult& result) {
    nlohmann::ordered_json row;
    row["index"] = result.index + 1;
    row["id"] = result.id;
    row["status"] = result.ok ? "ok" : "error";
    if (!result.ok) {
        row["error_code"] = result.error_code;
        row["error_message"] = result.error_message;
    }
    row["label"] = result.label;
    row["verdict"] = result.verdict_name;
    row["human_label"] = result.human_label;
    row["annotations"] = result.annotations;
    row["annotation_stability"] = result.annotation_stability;
    if (result.ok) {
        // The writer of `llmvalidate test` reads only the label, S and the options.
        stats::TestInput input;
        input.label = result.label;
        input.labels = result.label_set;
        stats::TestOptions& options = input.options;
        options.alpha = result.alpha;
        options.threshold = result.threshold;
        options.seed = result.seed;
        options.validation_method = result.validation_method;
        options.separation_method = result.separation_method;
        options.backtranslation_rule = result.backtranslation_rule;
        row["tests"] = test_output_to_json(input, result.tests);
    }
    row["M"] = result.m;
    row["n"] = result.n;
    row["R"] = result.repeats;
    row["provider"] = result.provider;
    row["model"] = result.model;
    row["embedding_provider"] = result.embedding_provider;
    row["embedding_model"] = result.embedding_model;
    row["synthetic"] = result.synthetic;
    row["task"] = result.task_name;
    row["prompt_hashes"] = result.prompt_hashes;
    row["seed"] = seed_to_json(result.seed);
    const pipeline::CallCounts& c = result.calls;
    row["calls"] = {{"chat_calls", c.chat_calls},
                    {"annotation_calls", c.annotation_calls},
                    {"simulation_calls", c.simulation_calls},
                    {"backtranslation_calls", c.backtranslation_calls},
                    {"embedded_texts", c.embedded_texts},
                    {"cache_hits", c.cache_hits},
                    {"shared", c.shared},
                    {"transport_retries", c.transport_retries},
                    {"parse_retries", c.parse_retries},
                    {"unparseable", c.unparseable},
                    {"out_of_set", c.out_of_set},
                    {"input_tokens", c.input_tokens},
                    {"output_tokens", c.output_tokens}};
    if (!result.pool_texts.empty()) row["pool_texts"] = result.pool_texts;
    if (!result.backtranslation_answers.empty()) row["backtranslation_answers"] = result.backtranslation_answers;
    return dump_json(row, false);
}

CsvReader::CsvReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

bool CsvReader::next(std::vector<std::string>& fields) {
    fields.clear();
    std::string field;
    bool in_quotes = false;
    bool any = false;
    const std::size_t start_line = line_ + 1;
    int c;
    while ((c = in_.get()) != EOF) {
        any = true;
        if (in_quotes) {
            if (c == '"') {
                if (in_.peek() == '"') {
                    in_.get();
                    field += '"';
                } else {
                    in_quotes = false;
                }
            } else {
                if (c == '\n') ++line_;
                field += static_cast<char>(c);
            }
            continue;
        }
        if (c == '"' && field.empty()) {
            in_quotes = true;
        } else if (c == ',') {
            fields.push_back(std::move(field));
            field.clear();
        } else if (c == '\r') {
            // CRLF line ends: the '\n' that follows ends the record.
        } else if (c == '\n') {
            ++line_;
            fields.push_back(std::move(field));
            return true;
        } else {
            field += static_cast<char>(c);
        }
    }
    if (in_quotes) {
        throw Error(code::invalid_argument, source_ + ", line " + std::to_string(start_line) +
                                                ": a quoted field is not closed before the end of the file");
    }
    if (!any) return false;
    ++line_;
    fields.push_back(std::move(field));
    return true;
}

void warn_unwritten(const pipeline::BatchResult& batch, const std::string& cache_path) {
    if (batch.unwritten_file.empty()) return;
    std::cerr << "Warning: the cache " << cache_path << " stayed locked by another process, so "
              << batch.unwritten_answers << " answers paid for were written to " << batch.unwritten_file
              << " instead; add them with: llmvalidate cache --cache " << cache_path << " --import "
              << batch.unwritten_file << "\n";
}

int exit_code_for_results(bool cancelled, const std::string& first_error_code,
                          const std::string& first_error_message, std::size_t failed) {
    if (cancelled) {
        const bool term = interrupt_signal == SIGTERM;
        print_error(code::cancelled,
                    std::string("interrupted (") + (term ? "SIGTERM" : "SIGINT") +
                        "): no new request was started and the requests in flight were drained into "
                        "the cache; a re-run with the same cache resumes without repeating a call.");
        return term ? 128 + SIGTERM : exit_cancelled;
    }
    if (first_error_code.empty()) return exit_ok;
    print_error(first_error_code,
                first_error_message +
                    (failed > 1 ? " (" + std::to_string(failed - 1) + " more passage(s) failed; see the rows)" : ""));
    return exit_code_for(first_error_code);
}

}  // namespace llmv::cli
