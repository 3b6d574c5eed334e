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

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Reads passages one at a time from CSV or JSON lines.
class PassageReader {
  public:
    PassageReader(const std::string& path, std::string text_column, std::string id_column,
                  std::string human_column, std::vector<std::string> variable_columns,
                  std::string simulation_column, RowFilter filter = {},
                  std::string filter_text = {})
        : filter_(std::move(filter)),
          filter_text_(std::move(filter_text)),
          text_column_(std::move(text_column)),
          id_column_(std::move(id_column)),
          human_column_(std::move(human_column)),
          simulation_column_(std::move(simulation_column)),
          variable_columns_(std::move(variable_columns)) {
        source_ = path == "-" ? std::string("standard input") : path;
        jsonl_ = ends_with(path, ".jsonl") || ends_with(path, ".ndjson");
        if (path == "-") {
            in_ = &std::cin;
        } else {
            std::error_code ignored;
            if (std::filesystem::is_directory(path, ignored))
                throw_invalid(code::io, "--input", path + " (a directory)",
                              "a readable CSV or JSON-lines file");
            file_ = std::make_unique<std::ifstream>(path, std::ios::binary);
            if (!*file_) {
                throw_invalid(code::io, "--input", path, "a readable CSV or JSON-lines file");
            }
            in_ = file_.get();
        }
        refuse_utf16();
        skip_utf8_bom();
        if (!jsonl_) {
            csv_ = std::make_unique<CsvReader>(*in_, source_);
            std::vector<std::string> header;
            if (!csv_->next(header) || !csv_->error().empty()) {
                throw_invalid(
                    code::invalid_argument, "--input",
                    source_ + (csv_->error().empty() ? " (empty)" : " (" + csv_->error() + ")"),
                    "a CSV file with a header row");
            }
            refuse_duplicate_columns(header);
            header_size_ = header.size();
            for (std::size_t i = 0; i < header.size(); ++i) columns_[header[i]] = i;
            std::string names;
            for (const auto& name : header) names += (names.empty() ? "" : ", ") + name;
            const auto need = [&](const std::string& option, const std::string& name) {
                if (!name.empty() && !columns_.count(name)) {
                    throw_invalid(code::invalid_argument, option, "\"" + name + "\"",
                                  "a column of " + source_ + ": " + names);
                }
            };
            need("--text-column", text_column_);
            need("--id-column", id_column_);
            need("--human-label-column", human_column_);
            need("--simulation-column", simulation_column_);
            for (const auto& name : variable_columns_) need("--variable-columns", name);
            for (const auto& name : filter_.columns()) need("--where", name);
        }
    }

    // The next row that --where keeps; its id is its row number in the file (before filtering),
    // so that a sample names the same rows as the file does.
    bool next(pipeline::PassageInput& out) {
        while (next_row(out)) {
            // A row that could not be read is reported whatever --where says: its values are
            // unknown.
            if (!out.input_error.empty() || filter_.empty() ||
                filter_.matches([&](const std::string& column) { return value_of(column); })) {
                ++kept_;
                return true;
            }
        }
        // A --where that keeps nothing is an error (nothing was sent): a run of no rows that
        // exits 0 reads like success.
        if (!filter_.empty() && kept_ == 0) {
            throw_invalid(code::invalid_argument, "--where", "\"" + filter_text_ + "\"",
                          "a condition some row of " + source_ + " meets (none of its " +
                              std::to_string(row_ - 1) + " rows does)");
        }
        return false;
    }

  private:
    // A UTF-16 file (Excel's "Unicode text") would read as bytes with NULs between them.
    void refuse_utf16() {
        char head[2] = {0, 0};
        in_->read(head, 2);
        const std::streamsize got = in_->gcount();
        for (std::streamsize i = got; i > 0; --i) in_->putback(head[i - 1]);
        in_->clear();
        const bool bom = got == 2 && ((head[0] == '\xFF' && head[1] == '\xFE') ||
                                      (head[0] == '\xFE' && head[1] == '\xFF'));
        const bool nul = got == 2 && (head[0] == '\0' || head[1] == '\0');
        if (bom || nul) {
            throw_invalid(
                code::invalid_encoding, "--input", source_ + " (UTF-16 text, or NUL bytes)",
                "a file in UTF-8 (or latin1 with --encoding latin1): save it as UTF-8 CSV");
        }
    }

    // A UTF-8 byte order mark (R's write.csv with fileEncoding "UTF-8-BOM", Excel's "CSV UTF-8")
    // goes before the parser sees the header, so that a quoted first name ("\"id\"") reads as
    // a quoted field.
    void skip_utf8_bom() {
        char head[3] = {0, 0, 0};
        in_->read(head, 3);
        const std::streamsize got = in_->gcount();
        const bool bom = got == 3 && head[0] == '\xEF' && head[1] == '\xBB' && head[2] == '\xBF';
        if (!bom)
            for (std::streamsize i = got; i > 0; --i) in_->putback(head[i - 1]);
        in_->clear();
    }

    // Two columns of one name: which one a row's value comes from would be a guess (and every
    // row would seem to have the wrong number of fields), so the file is refused, naming them.
    void refuse_duplicate_columns(const std::vector<std::string>& header) const {
        std::map<std::string, std::vector<std::size_t>> positions;
        std::vector<std::string> order;
        for (std::size_t i = 0; i < header.size(); ++i) {
            if (header[i].empty()) continue;  // no option can name it: no ambiguity
            auto& at = positions[header[i]];
            if (at.size() == 1) order.push_back(header[i]);
            at.push_back(i + 1);
        }
        if (order.empty()) return;
        std::string repeated;
        for (const std::string& name : order) {
            std::vector<std::string> columns;
            for (std::size_t column : positions[name]) columns.push_back(std::to_string(column));
            repeated += (repeated.empty() ? "" : "; ") + ("\"" + name + "\" in columns ") +
                        text::join_list(columns, ", ", " and ");
        }
        throw_invalid(code::invalid_argument, "--input",
                      source_ + ", whose header repeats " + repeated,
                      "a CSV file whose header names each column once");
    }

    // A row that cannot be read fails alone: it becomes a passage that carries the reason and
    // is never sent; the rows after it are read on.
    void refuse_row(pipeline::PassageInput& out, const std::string& id, const std::string& reason,
                    const char* error_code = code::invalid_argument) {
        out.id = id.empty() ? std::to_string(row_) : id;
        out.text.clear();
        out.input_error = reason;
        out.input_error_code = error_code;
    }

    std::string value_of(const std::string& column) const {
        if (jsonl_) {
            if (!object_.is_object() || !object_.contains(column)) return "";
            const auto& value = object_[column];
            return value.is_string() ? value.get<std::string>() : value.dump();
        }
        const auto found = columns_.find(column);
        return found == columns_.end() || found->second >= fields_.size() ? std::string()
                                                                          : fields_[found->second];
    }

    bool next_row(pipeline::PassageInput& out) {
        out = pipeline::PassageInput();
        ++row_;
        if (jsonl_) {
            std::string line;
            while (std::getline(*in_, line)) {
                ++line_;
                if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
                nlohmann::json& object = object_;
                const std::string where = source_ + ", line " + std::to_string(line_);
                try {
                    object = nlohmann::json::parse(line);
                } catch (const std::exception& error) {
                    object = nullptr;
                    refuse_row(out, "",
                               where + ": not a JSON object (" + std::string(error.what()) + ")",
                               code::malformed_json);
                    return true;
                }
                if (!object.is_object()) {
                    const std::string kind = object.type_name();
                    object = nullptr;
                    refuse_row(out, "",
                               where + ": a JSON " + kind + " where a JSON object is needed");
                    return true;
                }
                const auto field = [&](const std::string& name) -> std::string {
                    if (name.empty() || !object.contains(name)) return "";
                    const auto& value = object[name];
                    return value.is_string() ? value.get<std::string>() : value.dump();
                };
                out.id = id_column_.empty() ? std::to_string(row_) : field(id_column_);
                const auto text = object.find(text_column_);
                if (text == object.end() || !text->is_string()) {
                    // null or 42 is no passage: it would be paid for as the text "null" or "42".
                    refuse_row(out, out.id,
                               where + ": `" + text_column_ + "` (--text-column) is " +
                                   (text == object.end() ? "missing"
                                                         : "not a string but " + text->dump()) +
                                   "; every line needs its passage as a JSON string");
                    return true;
                }
                out.text = text->get<std::string>();
                out.human_label = field(human_column_);
                out.simulation_template = field(simulation_column_);
                for (const auto& name : variable_columns_) out.variables[name] = field(name);
                return true;
            }
            return false;
        }
        std::vector<std::string>& fields = fields_;
        if (!csv_->next(fields)) return false;
        const std::size_t first_line = csv_->record_line();
        if (!csv_->error().empty()) {
            refuse_row(out, "", csv_->error());
            return true;
        }
        if (fields.size() != header_size_) {
            // Named by its id when the id column is there, else by its row number.
            const auto id_at = id_column_.empty() ? fields.size() : columns_.at(id_column_);
            refuse_row(
                out, id_at < fields.size() ? fields[id_at] : std::string(),
                source_ + ", line " + std::to_string(first_line) + " (row " + std::to_string(row_) +
                    "): " + std::to_string(fields.size()) + " field(s) where the header has " +
                    std::to_string(header_size_) +
                    "; every row needs one field per column (quote fields that contain commas)");
            return true;
        }
        const auto get = [&](const std::string& name) -> std::string {
            if (name.empty()) return "";
            const std::size_t column = columns_.at(name);
            return column < fields.size() ? fields[column] : std::string();
        };
        out.text = get(text_column_);
        out.id = id_column_.empty() ? std::to_string(row_) : get(id_column_);
        out.human_label = get(human_column_);
        out.simulation_template = get(simulation_column_);
        for (const auto& name : variable_columns_) out.variables[name] = get(name);
        return true;
    }

    RowFilter filter_;
    std::string filter_text_;  // as the user wrote it
    std::size_t kept_ = 0;
    nlohmann::json object_;            // the current JSON line
    std::vector<std::string> fields_;  // the current CSV row
    std::string text_column_, id_column_, human_column_, simulation_column_;
    std::vector<std::string> variable_columns_;
    std::string source_;
    bool jsonl_ = false;
    std::unique_ptr<std::ifstream> file_;
    std::istream* in_ = nullptr;
    std::unique_ptr<CsvReader> csv_;
    std::map<std::string, std::size_t> columns_;
    std::size_t header_size_ = 0;  // the header's fields (empty names included)
    std::size_t row_ = 0;
    std::size_t line_ = 0;
};

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
    const auto next_passage = [&](pipeline::PassageInput& input) {
        if (!sampling) return reader.next(input);
        if (sampled_next >= sampled.size()) return false;
        input = sampled[sampled_next++];
        return true;
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
