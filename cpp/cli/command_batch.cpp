// llmvalidate batch --task TASK --input data.csv --text-column text [options]
// Validates many passages as one stream of requests; writes one row per passage as soon as it
// is finished (CSV or JSON lines), then the Table 9/10 summaries.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "csv_reader.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/key_value.hpp"
#include "llmvalidate/pending.hpp"
#include "llmvalidate/record_json.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/sample.hpp"
#include "llmvalidate/task.hpp"
#include "llmvalidate/text.hpp"
#include "options.hpp"
#include "passage_reader.hpp"
#include "report_files.hpp"
#include "reports.hpp"
#include "rows.hpp"
#include "task_options.hpp"
#include "terminal.hpp"

namespace llmv::cli {

namespace {

CommandSpec batch_spec() {
    CommandSpec spec = {
        "batch",
        "--task TASK --input PATH --text-column NAME [--id-column NAME] [--human-label-column "
        "NAME] [options]",
        "Validates every passage of a CSV file (or JSON lines: .jsonl/.ndjson) as one stream\n"
        "of requests, with --concurrency requests in flight across passages. Writes one row\n"
        "per passage with every number as soon as it and the passages before it are finished\n"
        "(CSV, or JSON lines with --format jsonl; rows come in input order), then the\n"
        "summaries: share valid by LLM label (Table 9) and, with human labels, the LLM x\n"
        "human cross-tabulation (Table 10), with Benjamini-Hochberg\n"
        "adjusted p-values in the JSON summary. Memory does not grow with the number of rows.\n"
        "The provider must be configured (environment or --provider); the synthetic\n"
        "simulated provider runs only when asked for (--provider simulated).\n"
        "Exit code: 0 when every passage has a verdict, else the code of the first failure.\n"
        "Example: llmvalidate batch --task simple_sentiment --input data.csv --text-column text",
        "",
        {
            {"--input", "-i", "PATH",
             "The passages: CSV with a header row, or JSON lines ('-': standard input, CSV)."},
            {"--text-column", "", "NAME", "Column holding the passages (default text)."},
            {"--id-column", "", "NAME",
             "Column holding the passage ids (default: the row number)."},
            {"--human-label-column", "", "NAME", "Column holding human labels: adds Table 10."},
            {"--variable-columns", "", "NAMES",
             "Columns passed to the task as placeholders, comma-separated."},
            {"--simulation-column", "", "NAME",
             "Column holding each passage's own simulation prompt (a template like the task's; "
             "empty: the task's)."},
            {"--format", "-f", "csv|jsonl", "Output format (default csv)."},
            {"--output", "-o", "PATH", "Write the rows to PATH instead of standard output."},
            {"--summary", "", "PATH",
             "Write the summaries (JSON) to PATH; they are printed on standard error too."},
            {"--where", "", "COND",
             "Keep only rows where COLUMN=VALUE (VALUE|VALUE for several, ';' between conditions), "
             "e.g. \"agreement=50|66\" (quoted: | is a pipe to the shell); keeping no row is an "
             "error "
             "(exit 3)."},
            {"--shard", "", "I/N",
             "Validate only shard I of N (1 <= I <= N): the rows whose id (or text, without "
             "--id-column) falls in it, the same whatever the rows' order; after --where and "
             "--sample. Each shard runs with its own --cache; `llmvalidate cache --merge` brings "
             "the caches together (docs/shards.md)."},
            {"--sample", "", "N",
             "Validate N rows drawn at random (after --where); the same seed draws the same rows "
             "in R (llm_sample()) and Stata."},
            {"--sample-seed", "", "SEED",
             "Seed of --sample (default " + std::to_string(default_sample_seed) + ")."},
            {"--batch-api", "", "",
             "Send the requests through the provider's batch API (openai, anthropic) at its batch "
             "price: one provider batch per phase, resumable with the same command (the batch ids "
             "are kept in the cache file)."},
            {"--submit-only", "", "",
             "With --batch-api: submit the next phase's batches (or poll those out, once) and "
             "exit; run the same command again, or --collect the handle, to go on."},
            {"--pending", "", "FILE",
             "With --submit-only: save the pending batch's handle (JSON: the settings, the "
             "passages, the batches out) to FILE when batches are still out."},
            {"--collect", "", "FILE",
             "Go on with the pending run saved by --pending (no --input, task or settings: the "
             "handle has them); with --submit-only it polls once and saves the handle again."},
        },
        0,
    };
    spec.options.push_back(save_generations_option());
    for (const OptionSpec& option : report_options()) spec.options.push_back(option);
    for (const OptionSpec& option : pipeline_options()) spec.options.push_back(option);
    for (const OptionSpec& option : simulated_options()) spec.options.push_back(option);
    return spec;
}

// `texts`: the passages' texts in input order, filled by the run for the report (a row's text
// is not in its result without keep_texts).
using RunIt = std::function<pipeline::RunOutcome(
    const pipeline::ValidationConfig&, const pipeline::RunSink&, std::vector<std::string>& texts)>;

// The run (or the collection of a pending one: `run_it`) and its report: the rows as they
// come, the batch API's lines, the summaries.
int run_and_report(const ParsedArgs& parsed, const std::string& format, ConfigChoice& choice,
                   const RunIt& run_it) {
    pipeline::ValidationConfig& config = choice.config;
    // Checked before anything is paid for: the rows and the summary are written as the run goes
    // and at its end. The files are created only once there is something to write (a dry run
    // writes its report on standard output and creates neither).
    for (const char* option :
         {"--output", "--summary", "--save-generations", "--run-json", "--report"})
        check_writable(parsed, option);
    const Task task = task_of(config, options_task_origin);
    const std::vector<std::string> labels = task.labels();
    std::unique_ptr<std::ofstream> file;
    std::ostream* out = nullptr;
    const auto rows_out = [&]() -> std::ostream& {
        if (out) return *out;
        out = &std::cout;
        if (parsed.has("--output")) {
            file = std::make_unique<std::ofstream>(parsed.value("--output"),
                                                   std::ios::binary | std::ios::trunc);
            if (!*file)
                throw_invalid(code::io, "--output", parsed.value("--output"),
                              "a writable file path");
            out = file.get();
        }
        if (format == "csv") *out << csv_line(csv_header(labels)) << "\n";
        return *out;
    };
    if (parsed.has("--save-generations")) config.keep_texts = true;
    std::unique_ptr<GenerationsWriter> generations;
    pipeline::RunSink sink;
    sink.cancel = install_interrupt_flag();
    llmv::report::RunContext context;
    context.synthetic = choice.synthetic;
    context.human_label_column = parsed.value("--human-label-column");
    sink.on_warning = [&](const pipeline::RunWarning& warning) {
        context.warnings.push_back(warning);
        print_run_warning(warning);
    };
    // The report's document takes each row as it is done (the rows are not kept).
    std::unique_ptr<llmv::report::RunDocument> document;
    std::vector<std::string> texts;
    ProgressBar bar(!parsed.has("--quiet") && stderr_is_terminal());
    sink.on_progress = [&](const pipeline::Progress& progress) { bar.update(progress); };
    sink.on_passage = [&](const pipeline::PassageResult& result) {
        if (wants_report(parsed)) {
            if (!document) {
                document = std::make_unique<llmv::report::RunDocument>(config, context);
                document->begin_column(config, {});
            }
            pipeline::PassageResult shown = result;
            if (shown.passage_text.empty() && result.index < texts.size())
                shown.passage_text = texts[result.index];
            document->add_passage(shown);
        }
        std::ostream& rows = rows_out();
        rows << (format == "csv" ? csv_line(csv_row(result, labels)) : jsonl_line(result)) << "\n";
        rows.flush();
        if (!generations && parsed.has("--save-generations"))
            generations = std::make_unique<GenerationsWriter>(parsed.value("--save-generations"));
        if (generations) generations->write(result);
    };
    sink.on_status = [](const std::string& line) { std::cerr << "Batch API: " << line << "\n"; };
    const pipeline::RunOutcome outcome = run_it(config, sink, texts);
    bar.finish();
    if (outcome.estimate) {
        std::cout << format_dry_run(*outcome.estimate);
        return exit_ok;
    }
    if (outcome.batch_report) {
        const pipeline::BatchApiReport& report = *outcome.batch_report;
        if (outcome.status == pipeline::RunStatus::waiting) {
            // The handle goes where --pending says, or back to the file it was collected from.
            const std::string path =
                parsed.has("--pending") ? parsed.value("--pending") : parsed.value("--collect");
            if (!path.empty() && outcome.pending) {
                pipeline::save_pending(*outcome.pending, path);
                std::cerr << "Batch API: waiting for the provider ("
                          << outcome.pending->batch_ids.size()
                          << " provider batches out); the handle is in " << path
                          << ": `llmvalidate batch --collect " << path << "` goes on.\n";
            } else {
                std::cerr << "Batch API: waiting for the provider; run the same command again "
                             "to go on.\n";
            }
            return exit_ok;
        }
        std::cerr << "Batch API: " << report.batch_requests << " requests in "
                  << report.submitted.size() << " provider batches by this command, "
                  << report.synchronous_requests << " retries sent synchronously, " << report.phases
                  << " passes.\n";
    }
    const pipeline::BatchResult& batch = outcome.result;
    std::ostream& rows = rows_out();  // the header alone when no row came
    rows.flush();
    if (!rows) throw Error(code::io, "writing the rows failed (disk full?)");
    if (generations) generations->close();

    std::cerr << format_summary(batch.summary);
    std::cerr << "Total: " << format_counts(batch.calls) << ".\n";
    std::cerr << format_cost(batch.cost, "Cost at the price table's prices");
    if (outcome.status == pipeline::RunStatus::cancelled) {
        std::cerr
            << "Cancelled: the rows written so far are complete; a re-run with the same cache "
               "resumes without repeating a call.\n";
    }
    if (wants_report(parsed)) {
        if (!document) {
            document = std::make_unique<llmv::report::RunDocument>(config, context);
            document->begin_column(config, {});
        }
        document->end_column(outcome);
        write_report_files(parsed, *document);
    }
    if (parsed.has("--summary")) {
        nlohmann::ordered_json summary = records::to_json(batch.summary);
        summary["synthetic"] = choice.synthetic;
        summary["banner"] = choice.banner;
        write_output(parsed.value("--summary"), summary.dump(2) + "\n", "--summary");
    }
    warn_unwritten(batch, config.cache_path);
    return exit_code_for(outcome);
}

// batch --collect FILE: the pending run of a handle saved by --pending, collected with the
// same engine call as any run, and reported as `batch` reports it.
int collect_pending(const CommandSpec& spec, const ParsedArgs& parsed, const std::string& format) {
    for (const char* option : {"--input", "--task", "--pending", "--batch-api"})
        if (parsed.has(option))
            throw_usage(spec.name, std::string("option `") + option +
                                       "` does not go with `--collect`: the handle holds the "
                                       "run's passages and settings.");
    const std::string path = parsed.value("--collect");
    pipeline::PendingBatch handle = pipeline::load_pending(path);
    ConfigChoice choice;
    choice.config = handle.config;
    choice.config.messages_for = settings::FrontEnd::cli;
    choice.config.wait = !parsed.has("--submit-only");
    choice.banner = pipeline::resolve_providers(choice.config).description();
    choice.cache_note = "Cache: " + choice.config.cache_path;
    std::cerr << choice.banner << "\n" << choice.cache_note << "\n";
    std::cerr << "Batch API: collecting the pending run of " << path << " ("
              << handle.passages.size() << " passages, saved " << handle.created << ").\n";
    return run_and_report(
        parsed, format, choice,
        [&](const pipeline::ValidationConfig& run_config, const pipeline::RunSink& sink,
            std::vector<std::string>& texts) {
            handle.config = run_config;
            if (wants_report(parsed))
                for (const pipeline::PassageInput& passage : handle.passages)
                    texts.push_back(passage.text);
            return pipeline::collect(handle, run_config.wait, sink, {false, {}});
        });
}

// --shard I/N: a share of the rows that does not depend on their order (FNV-1a of the id or
// the text, modulo N), so that N jobs on N machines split a file without a row twice or none.
struct Shard {
    std::uint64_t index = 0, count = 1;  // index in 0..count-1
    bool holds(const std::string& key) const {
        if (count <= 1) return true;
        std::uint64_t hash = 14695981039346656037ull;
        for (const unsigned char byte : key) hash = (hash ^ byte) * 1099511628211ull;
        return hash % count == index;
    }
};

Shard parse_shard(const std::string& text) {
    Shard shard;
    if (text.empty()) return shard;
    const std::size_t slash = text.find('/');
    const auto i = slash == std::string::npos ? std::nullopt
                                              : key_value::whole_number(text.substr(0, slash));
    const auto n = slash == std::string::npos ? std::nullopt
                                              : key_value::whole_number(text.substr(slash + 1));
    if (!i || !n || *i < 1 || *n < 1 || *i > *n || text.size() > 19)
        throw_invalid(code::invalid_argument, "--shard", "\"" + text + "\"",
                      "I/N with whole numbers 1 <= I <= N, e.g. 2/3 (the second of three shards)");
    shard.index = static_cast<std::uint64_t>(*i - 1);
    shard.count = static_cast<std::uint64_t>(*n);
    return shard;
}

}  // namespace

int command_batch(const std::vector<std::string>& args) {
    const CommandSpec spec = batch_spec();
    const ParsedArgs parsed = parse_args(args, spec);
    if (parsed.help) {
        print_command_help(std::cout, spec);
        return exit_ok;
    }
    const std::string format = parsed.value("--format", "csv");
    if (format != "csv" && format != "jsonl") {
        throw_usage(spec.name, "option `--format` takes csv or jsonl; received `" + format + "`.");
    }
    if (parsed.has("--collect")) return collect_pending(spec, parsed, format);
    if (!parsed.has("--input"))
        throw_usage(spec.name, "option `--input` is required: a CSV or JSON-lines file.");
    if (parsed.has("--pending") && !parsed.has("--submit-only"))
        throw_usage(spec.name, "option `--pending` needs `--batch-api --submit-only`.");
    ConfigChoice choice = config_from_args(spec.name, parsed, /*allow_simulated_fallback=*/false);
    std::vector<std::string> variable_columns;
    if (parsed.has("--variable-columns")) {
        for (const std::string& column : text::split(parsed.value("--variable-columns"), ','))
            if (!column.empty()) variable_columns.push_back(column);
    }
    const RowFilter filter =
        parsed.has("--where") ? RowFilter::parse(parsed.value("--where"), "--where") : RowFilter();
    PassageReader reader(parsed.value("--input"), parsed.value("--text-column", "text"),
                         parsed.value("--id-column"), parsed.value("--human-label-column"),
                         variable_columns, parsed.value("--simulation-column"), filter,
                         parsed.value("--where"));
    std::cerr << choice.banner << "\n";
    if (!choice.cache_note.empty()) std::cerr << choice.cache_note << "\n";
    // --sample: every kept row is read first (rows are small next to a run), then n are drawn.
    std::vector<pipeline::PassageInput> sampled;
    std::size_t sampled_next = 0;
    const bool sampling = parsed.has("--sample");
    if (sampling) {
        const std::string n_text = parsed.value("--sample");
        const std::string seed_text =
            parsed.value("--sample-seed", std::to_string(default_sample_seed));
        const auto n = key_value::whole_number(n_text);
        const auto seed = key_value::whole_number(seed_text);
        if (!n || n_text.size() > 9)
            throw_usage(spec.name, "option `--sample` takes a whole number of rows; received `" +
                                       n_text + "`.");
        if (!seed || seed_text.size() > 19)
            throw_usage(spec.name, "option `--sample-seed` takes a whole number; received `" +
                                       seed_text + "`.");
        std::vector<pipeline::PassageInput> kept;
        pipeline::PassageInput row;
        while (reader.next(row)) kept.push_back(row);
        for (std::size_t position :
             sample_rows(kept.size(), static_cast<std::size_t>(*n), *seed, "--sample"))
            sampled.push_back(std::move(kept[position]));
        std::cerr << "Sample: " << sampled.size() << " of " << kept.size() << " rows"
                  << (filter.empty() ? "" : " (--where " + parsed.value("--where") + ")")
                  << ", seed " << seed_text << ".\n";
    } else if (parsed.has("--sample-seed")) {
        throw_usage(spec.name, "option `--sample-seed` needs `--sample N`.");
    }
    const Shard shard = parse_shard(parsed.value("--shard"));
    const bool by_id = parsed.has("--id-column");
    const auto next_row = [&](pipeline::PassageInput& input) {
        if (!sampling) return reader.next(input);
        if (sampled_next >= sampled.size()) return false;
        input = sampled[sampled_next++];
        return true;
    };
    const auto next_passage = [&](pipeline::PassageInput& input) {
        while (next_row(input))
            if (shard.holds(by_id || !input.input_error.empty() ? input.id : input.text))
                return true;
        return false;
    };

    if ((parsed.has("--submit-only") || parsed.has("--poll-interval")) &&
        !parsed.has("--batch-api"))
        throw_usage(spec.name, "options `--submit-only` and `--poll-interval` need `--batch-api`.");
    return run_and_report(
        parsed, format, choice,
        [&](const pipeline::ValidationConfig& run_config, const pipeline::RunSink& sink,
            std::vector<std::string>& texts) {
            const pipeline::PassageSource source = [&](pipeline::PassageInput& input) {
                if (!next_passage(input)) return false;
                if (wants_report(parsed)) texts.push_back(input.text);
                return true;
            };
            return pipeline::run(run_config, source, sink, {false, {}});
        });
}

}  // namespace llmv::cli
