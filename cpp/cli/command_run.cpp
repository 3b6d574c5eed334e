// llmvalidate run --task TASK (--text TEXT | --text-file PATH | --passages PATH) [options]
// Validates one passage (or the passages of a passages file, e.g. the paper's Section 4
// passages) and prints a report, or JSON.
#include <algorithm>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/key_value.hpp"
#include "llmvalidate/overview.hpp"
#include "llmvalidate/resolution.hpp"
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

CommandSpec run_spec() {
    CommandSpec spec = {
        "run",
        "--task TASK (--text TEXT | --text-file PATH | --passages PATH) [options]",
        "Validates the LLM's annotation of a passage (Hansen 2026): annotates it, generates M\n"
        "passages per label, backtranslates the passage's label, embeds everything and runs\n"
        "the validation, separation and backtranslation tests. Prints the verdict (valid,\n"
        "invalid or inconclusive) with every number behind it.\n\n"
        "The provider comes from --provider, or from the environment, first set first:\n" +
            pipeline::auto_sources() +
            ". With none of them the\n"
            "simulated provider (a synthetic data-generating process, docs/simulated.md) runs,\n"
            "and the report's first line says so. Every answer is cached (--cache): a re-run\n"
            "makes no call.\n\n"
            "--passages reads a passages file (prompts/passages/section4.toml: the paper's five\n"
            "Section 4 passages with their own simulation prompts) and prints a Table-1-style\n"
            "report, one panel per passage. With several tasks (--task A,B or\n"
            "--task 'topic[topic=@topic_not_discussed]': a task with variables of its own) or "
            "several\n"
            "chat models (--models X,Y), it validates the passages for each, prints each one's\n"
            "report and then an overview, one row per passage and one column per task and model,\n"
            "in the layout of the paper's Tables 7 and 8. Each model's answers are cached under\n"
            "their own keys: adding a model later pays only for that model. --text with several\n"
            "tasks or models gives the same overview of one passage.\n"
            "Example: llmvalidate run --task simple_sentiment --passages "
            "prompts/passages/section4.toml",
        "",
        {
            {"--text", "", "TEXT", "The passage to validate."},
            {"--text-file", "", "PATH", "Read the passage from a file ('-': standard input)."},
            {"--passages", "", "PATH",
             "Validate every passage of a passages file (Table-1-style report)."},
            {"--models", "", "MODEL,...",
             "Validate with each of these chat models of the provider, one embedding model for "
             "all (Table 8)."},
            {"--id", "", "ID", "The passage's id in the report (default 1)."},
            {"--json", "", "",
             "Print JSON lines (one object per passage, every number) instead of the report."},
            {"--output", "-o", "PATH", "Write the report to PATH instead of standard output."},
        },
        0,
    };
    spec.options.push_back(save_generations_option());
    for (const OptionSpec& option : report_options()) spec.options.push_back(option);
    for (const OptionSpec& option : pipeline_options()) spec.options.push_back(option);
    for (const OptionSpec& option : simulated_options()) spec.options.push_back(option);
    return spec;
}

// One column of an overview (Tables 7 and 8): a task, its own variables, a chat model.
struct GridColumn {
    std::string task;
    TaskVariables variables;
    std::string model;  // empty: the run's
    std::string header;
};

// "a,b[x=1;y=2],c": commas inside brackets belong to the task's variables.
std::vector<std::string> split_outside_brackets(const std::string& text) {
    std::vector<std::string> parts(1);
    int depth = 0;
    for (char c : text) {
        if (c == '[') ++depth;
        if (c == ']') --depth;
        if (c == ',' && depth == 0) {
            parts.emplace_back();
        } else {
            parts.back() += c;
        }
    }
    return parts;
}

std::vector<GridColumn> grid_columns(const std::string& command, const ParsedArgs& parsed) {
    std::vector<GridColumn> tasks;
    for (const std::string& raw : split_outside_brackets(parsed.value("--task"))) {
        const std::string item = text::trim(raw);
        GridColumn column;
        column.header = item;
        const auto open = item.find('[');
        column.task = text::trim(item.substr(0, open));
        if (open != std::string::npos) {
            if (item.back() != ']')
                throw_usage(
                    command,
                    "option `--task` takes TASK or TASK[NAME=VALUE;...]; received `" + item + "`.");
            for (const std::string& pair_text :
                 text::split(item.substr(open + 1, item.size() - open - 2), ';')) {
                const auto pair = key_value::split(pair_text);
                if (!pair)
                    throw_usage(command, "option `--task` takes TASK[NAME=VALUE;...]; received `" +
                                             pair_text + "` in `" + item + "`.");
                column.variables[text::trim(pair->first)] = pair->second;
            }
        }
        if (column.task.empty())
            throw_usage(command,
                        "option `--task` has an empty task in `" + parsed.value("--task") + "`.");
        tasks.push_back(std::move(column));
    }
    std::vector<std::string> models;
    if (parsed.has("--models")) {
        for (const std::string& model : text::split(parsed.value("--models"), ','))
            if (!text::trim(model).empty()) models.push_back(text::trim(model));
        if (models.empty())
            throw_usage(command,
                        "option `--models` takes model names separated by commas; received `" +
                            parsed.value("--models") + "`.");
    }
    if (models.empty()) return tasks;
    std::vector<GridColumn> columns;
    for (const GridColumn& task : tasks) {
        for (const std::string& model : models) {
            GridColumn column = task;
            column.model = model;
            column.header = tasks.size() > 1 ? task.header + " / " + model : model;
            columns.push_back(std::move(column));
        }
    }
    return columns;
}

// The overview: one row per passage, one column per task and model; each cell the passage's
// label and verdict, as the paper's Tables 7 and 8 (the engine's layout, which Stata shares).
std::string format_overview(const std::vector<GridColumn>& columns,
                            const std::vector<std::vector<pipeline::PassageResult>>& results,
                            const std::vector<std::string>& titles) {
    std::vector<pipeline::OverviewColumn> grid;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        pipeline::OverviewColumn column;
        column.header = columns[c].header;
        for (const auto& result : results[c])
            column.cells.push_back(pipeline::overview_cell(result.ok, result.label,
                                                           result.verdict_name, result.error_code));
        grid.push_back(std::move(column));
    }
    const bool by_model = columns.size() > 1 && columns[0].model != columns[1].model;
    return pipeline::format_overview(by_model ? "model (Table 8)" : "task (Table 7)", titles, grid);
}

// The passage of --text or --text-file (the file's trailing line ends dropped), id --id.
std::string single_text(const ParsedArgs& parsed) {
    if (parsed.has("--text")) return parsed.value("--text");
    std::string source;
    std::string text = read_input(parsed.value("--text-file"), &source);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
}

// A grid's rows: the passages of --passages, or the one passage of --text / --text-file.
std::vector<TaskPassage> grid_passages(const ParsedArgs& parsed) {
    if (parsed.has("--passages")) return load_passages(parsed.value("--passages"));
    TaskPassage item;
    item.id = parsed.value("--id", "1");
    item.text = single_text(parsed);
    return {item};
}

// run with several tasks or models: each column as its own run (its own cache keys), each
// column's report, then the overview.
int run_grid(const ParsedArgs& parsed, const CommandSpec& spec, ConfigChoice& choice) {
    const pipeline::ValidationConfig& base = choice.config;
    const std::vector<GridColumn> columns = grid_columns(spec.name, parsed);
    const std::vector<TaskPassage> items = grid_passages(parsed);
    std::vector<std::string> titles;
    for (const TaskPassage& item : items)
        titles.push_back(item.title.empty() ? item.id : item.title + " (" + item.id + ")");
    // Every column's inputs first: a bad task or variable stops the run before any call.
    std::vector<pipeline::ValidationConfig> configs;
    std::vector<std::vector<pipeline::PassageInput>> inputs;
    for (const GridColumn& column : columns) {
        pipeline::ValidationConfig config = base;
        config.task_path = column.task;
        for (const auto& [name, value] : column.variables) config.variables[name] = value;
        if (!column.model.empty()) config.model = column.model;
        const Task task = task_of(config, options_task_origin);
        std::vector<pipeline::PassageInput> column_inputs;
        for (const TaskPassage& item : items)
            column_inputs.push_back(passage_input(task, item, config.variables));
        configs.push_back(std::move(config));
        inputs.push_back(std::move(column_inputs));
    }
    if (!choice.cache_note.empty()) std::cerr << choice.cache_note << "\n";
    for (const char* option : {"--output", "--save-generations", "--run-json", "--report"})
        check_writable(parsed, option);
    std::string report = choice.banner + "\n";
    std::unique_ptr<GenerationsWriter> generations;
    pipeline::RunSink sink;
    sink.cancel = install_interrupt_flag();
    llmv::report::RunContext context;
    context.synthetic = choice.synthetic;
    sink.on_warning = [&](const pipeline::RunWarning& warning) {
        context.warnings.push_back(warning);
        print_run_warning(warning);
    };
    std::unique_ptr<llmv::report::RunDocument> document;
    Failures failures;
    bool cancelled = false;
    bool estimated = false;
    pipeline::CallCounts totals;
    std::vector<std::vector<pipeline::PassageResult>> results;
    std::string json;
    for (std::size_t c = 0; c < columns.size() && !cancelled; ++c) {
        pipeline::ValidationConfig& config = configs[c];
        config.keep_texts = parsed.has("--save-generations");
        ProgressBar bar(!parsed.has("--quiet") && stderr_is_terminal());
        sink.on_progress = [&](const pipeline::Progress& progress) { bar.update(progress); };
        pipeline::RunOutcome outcome = pipeline::run(config, inputs[c], sink);
        bar.finish();
        if (outcome.estimate) {
            report += "\n== " + columns[c].header + " ==\n" + format_dry_run(*outcome.estimate);
            estimated = true;
            continue;
        }
        pipeline::BatchResult& batch = outcome.result;
        if (wants_report(parsed)) {
            if (!document) document = std::make_unique<llmv::report::RunDocument>(base, context);
            llmv::report::ColumnInfo info;
            info.header = columns[c].header;
            info.titles = titles;
            for (const auto& input : inputs[c]) info.texts.push_back(input.text);
            document->begin_column(config, std::move(info));
            for (const auto& result : batch.passages) document->add_passage(result);
            document->end_column(outcome);
        }
        warn_unwritten(batch, config.cache_path);
        cancelled = outcome.status == pipeline::RunStatus::cancelled;
        failures.add(outcome);
        if (!generations && parsed.has("--save-generations"))
            generations = std::make_unique<GenerationsWriter>(parsed.value("--save-generations"));
        for (const auto& result : batch.passages) {
            if (generations) generations->write(result);
            // Each JSON line names its column: the task (with its variables) and model.
            const std::string line = jsonl_line(result);
            json += "{\"column\":" + nlohmann::json(columns[c].header).dump() + "," +
                    line.substr(1) + "\n";
        }
        const pipeline::CallCounts& calls = batch.calls;
        totals.chat_calls += calls.chat_calls;
        totals.annotation_calls += calls.annotation_calls;
        totals.simulation_calls += calls.simulation_calls;
        totals.backtranslation_calls += calls.backtranslation_calls;
        totals.embedded_texts += calls.embedded_texts;
        totals.cache_hits += calls.cache_hits;
        totals.transport_retries += calls.transport_retries;
        totals.parse_retries += calls.parse_retries;
        totals.unparseable += calls.unparseable;
        totals.out_of_set += calls.out_of_set;
        totals.input_tokens += calls.input_tokens;
        totals.output_tokens += calls.output_tokens;
        if (!batch.passages.empty()) {
            const auto& first = batch.passages.front();
            report += "\n== " + columns[c].header + " ==\nTask: " + first.task_name +
                      "; M = " + std::to_string(first.m) + ", n = " + std::to_string(first.n) +
                      ", methods " + first.validation_method + "/" + first.separation_method +
                      ", models " + first.model + " + " + first.embedding_model + ".\n\n";
        }
        report += format_table1(batch.passages, titles);
        report += "Calls: " + format_counts(batch.calls) + ".\n";
        report += format_cost(batch.cost, "Cost at the price table's prices");
        results.push_back(std::move(batch.passages));
    }
    if (estimated) {
        write_output(parsed.value("--output"), report);
        return exit_ok;
    }
    if (generations) generations->close();
    if (parsed.has("--json")) {
        report = json;
    } else {
        report += "\n" + format_overview(columns, results, titles);
        report += "Total: " + format_counts(totals) + ".\n";
        if (cancelled)
            report += "Cancelled: a re-run with the same cache resumes without repeating a call.\n";
    }
    write_output(parsed.value("--output"), report);
    if (document) write_report_files(parsed, *document);
    return exit_code_for_results(cancelled, failures);
}

}  // namespace

int command_run(const std::vector<std::string>& args) {
    const CommandSpec spec = run_spec();
    ParsedArgs parsed = parse_args(args, spec);
    if (parsed.has("--models") && !parsed.has("--model")) {
        // The first model resolves the provider (its endpoint and key); each column names its own.
        std::vector<std::string> with_model = args;
        with_model.push_back("--model");
        with_model.push_back(text::trim(text::split(parsed.value("--models"), ',').front()));
        parsed = parse_args(with_model, spec);
    }
    if (parsed.help) {
        print_command_help(std::cout, spec);
        return exit_ok;
    }
    const int sources = (parsed.has("--text") ? 1 : 0) + (parsed.has("--text-file") ? 1 : 0) +
                        (parsed.has("--passages") ? 1 : 0);
    if (sources != 1) {
        throw_usage(spec.name, "give exactly one of --text, --text-file or --passages; received " +
                                   std::to_string(sources) + ".");
    }
    ConfigChoice choice = config_from_args(spec.name, parsed, /*allow_simulated_fallback=*/true);
    pipeline::ValidationConfig& config = choice.config;
    const std::string task_list = parsed.value("--task");
    const bool grid = parsed.has("--models") || task_list.find(',') != std::string::npos ||
                      task_list.find('[') != std::string::npos;
    if (grid) return run_grid(parsed, spec, choice);

    std::vector<pipeline::PassageInput> passages;
    std::vector<std::string> titles;
    if (parsed.has("--passages")) {
        const Task task = task_of(config, options_task_origin);
        for (const TaskPassage& item : load_passages(parsed.value("--passages"))) {
            passages.push_back(passage_input(task, item, config.variables));
            titles.push_back(item.title.empty() ? item.id : item.title + " (" + item.id + ")");
        }
    } else {
        pipeline::PassageInput input;
        input.id = parsed.value("--id", "1");
        input.text = single_text(parsed);
        passages.push_back(std::move(input));
        titles.push_back("");
    }

    if (!choice.cache_note.empty()) std::cerr << choice.cache_note << "\n";
    std::string report = choice.banner + "\n";
    for (const char* option : {"--output", "--save-generations", "--run-json", "--report"})
        check_writable(parsed, option);
    pipeline::RunSink sink;
    sink.cancel = install_interrupt_flag();
    llmv::report::RunContext context;
    context.synthetic = choice.synthetic;
    sink.on_warning = [&](const pipeline::RunWarning& warning) {
        context.warnings.push_back(warning);
        print_run_warning(warning);
    };
    ProgressBar bar(!parsed.has("--quiet") && stderr_is_terminal());
    sink.on_progress = [&](const pipeline::Progress& progress) { bar.update(progress); };
    if (parsed.has("--save-generations")) config.keep_texts = true;
    const pipeline::RunOutcome outcome = pipeline::run(config, passages, sink);
    bar.finish();
    if (outcome.estimate) {
        report += format_dry_run(*outcome.estimate);
        write_output(parsed.value("--output"), report);
        return exit_ok;
    }
    const pipeline::BatchResult& batch = outcome.result;
    if (parsed.has("--save-generations")) {
        GenerationsWriter generations(parsed.value("--save-generations"));
        for (const auto& result : batch.passages) generations.write(result);
        generations.close();
    }

    if (parsed.has("--json")) {
        report.clear();  // JSON lines only: the banner is in every row ("synthetic")
        for (const auto& result : batch.passages) report += jsonl_line(result) + "\n";
    } else {
        const auto& first = batch.passages.front();
        report += "Task: " + first.task_name + "; labels:";
        for (const auto& label : first.label_set) report += " " + label;
        report += "; M = " + std::to_string(first.m) + ", n = " + std::to_string(first.n) +
                  ", R = " + std::to_string(first.repeats) +
                  ", alpha = " + std::to_string(first.alpha).substr(0, 4) + ", methods " +
                  first.validation_method + "/" + first.separation_method + ", models " +
                  first.model + " + " + first.embedding_model + ", seed " +
                  std::to_string(first.seed) + ".\n\n";
        if (passages.size() > 1 || parsed.has("--passages")) {
            report += format_table1(batch.passages, titles);
        } else {
            report += format_passage_report(first);
        }
        report += "Total: " + format_counts(batch.calls) + ".\n";
        report += format_cost(batch.cost, "Cost at the price table's prices");
        if (outcome.status == pipeline::RunStatus::cancelled)
            report += "Cancelled: a re-run with the same cache resumes without repeating a call.\n";
    }
    write_output(parsed.value("--output"), report);
    if (wants_report(parsed)) {
        llmv::report::RunDocument document(config, context);
        llmv::report::ColumnInfo info;
        info.titles = titles;
        for (const auto& input : passages) info.texts.push_back(input.text);
        document.begin_column(config, std::move(info));
        for (const auto& result : batch.passages) document.add_passage(result);
        document.end_column(outcome);
        write_report_files(parsed, document);
    }
    warn_unwritten(batch, config.cache_path);
    return exit_code_for(outcome);
}

}  // namespace llmv::cli
