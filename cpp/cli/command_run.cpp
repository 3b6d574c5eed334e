// llmvalidate run --task TASK (--text TEXT | --text-file PATH | --passages PATH) [options]
// Validates one passage (or the passages of a passages file, e.g. the paper's Section 4
// passages) and prints a report, or JSON.
#include <iostream>
#include <memory>

#include "cli/cli.hpp"
#include "cli/options.hpp"
#include "cli/reports.hpp"
#include "cli/rows.hpp"
#include "cli/terminal.hpp"
#include "cli/task_options.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/task.hpp"

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
        "The provider comes from --provider, or from the environment (LLMV_BASE_URL,\n"
        "ANTHROPIC_API_KEY, OPENAI_API_KEY, AWS credentials). With none of them the\n"
        "simulated provider (a synthetic data-generating process, docs/simulated.md) runs,\n"
        "and the report's first line says so. Every answer is cached (--cache): a re-run\n"
        "makes no call.\n\n"
        "--passages reads a passages file (prompts/passages/section4.toml: the paper's five\n"
        "Section 4 passages with their own simulation prompts) and prints a Table-1-style\n"
        "report, one panel per passage.\n"
        "Example: llmvalidate run --task simple_sentiment --passages prompts/passages/section4.toml",
        "",
        {
            {"--text", "", "TEXT", "The passage to validate."},
            {"--text-file", "", "PATH", "Read the passage from a file ('-': standard input)."},
            {"--passages", "", "PATH", "Validate every passage of a passages file (Table-1-style report)."},
            {"--id", "", "ID", "The passage's id in the report (default 1)."},
            {"--json", "", "", "Print JSON lines (one object per passage, every number) instead of the report."},
            {"--output", "-o", "PATH", "Write the report to PATH instead of standard output."},
        },
        0,
    };
    spec.options.push_back(save_generations_option());
    for (const OptionSpec& option : pipeline_options()) spec.options.push_back(option);
    for (const OptionSpec& option : simulated_options()) spec.options.push_back(option);
    return spec;
}

}  // namespace

int command_run(const std::vector<std::string>& args) {
    const CommandSpec spec = run_spec();
    const ParsedArgs parsed = parse_args(args, spec);
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

    std::vector<pipeline::PassageInput> passages;
    std::vector<std::string> titles;
    if (parsed.has("--passages")) {
        const Task task = task_of(config, options_task_origin);
        for (const TaskPassage& item : load_passages(parsed.value("--passages"))) {
            passages.push_back(passage_input(task, item));
            titles.push_back(item.title.empty() ? item.id : item.title + " (" + item.id + ")");
        }
    } else {
        pipeline::PassageInput input;
        input.id = parsed.value("--id", "1");
        if (parsed.has("--text")) {
            input.text = parsed.value("--text");
        } else {
            std::string source;
            input.text = read_input(parsed.value("--text-file"), &source);
            while (!input.text.empty() && (input.text.back() == '\n' || input.text.back() == '\r')) {
                input.text.pop_back();
            }
        }
        passages.push_back(std::move(input));
        titles.push_back("");
    }

    if (!choice.cache_note.empty()) std::cerr << choice.cache_note << "\n";
    std::string report = choice.banner + "\n";
    if (config.dry_run) {
        report += format_dry_run(pipeline::dry_run(config, passages));
        write_output(parsed.value("--output"), report);
        return exit_ok;
    }

    std::unique_ptr<GenerationsWriter> generations;
    if (parsed.has("--save-generations")) {
        generations = std::make_unique<GenerationsWriter>(parsed.value("--save-generations"));
        config.keep_texts = true;
    }
    pipeline::BatchCallbacks callbacks;
    callbacks.cancel = install_interrupt_flag();
    ProgressBar bar(!parsed.has("--quiet") && stderr_is_terminal());
    callbacks.on_progress = [&](const pipeline::Progress& progress) { bar.update(progress); };
    pipeline::BatchResult batch = pipeline::validate_batch(config, passages, callbacks, true);
    bar.finish();
    if (generations) {
        for (const auto& result : batch.passages) generations->write(result);
        generations->close();
    }

    Failures failures;
    for (const auto& result : batch.passages) failures.add(result);
    if (parsed.has("--json")) {
        report.clear();  // JSON lines only: the banner is in every row ("synthetic")
        for (const auto& result : batch.passages) report += jsonl_line(result) + "\n";
    } else {
        const auto& first = batch.passages.front();
        report += "Task: " + first.task_name + "; labels:";
        for (const auto& label : first.label_set) report += " " + label;
        report += "; M = " + std::to_string(first.m) + ", n = " + std::to_string(first.n) +
                  ", R = " + std::to_string(first.repeats) + ", alpha = " + std::to_string(first.alpha).substr(0, 4) +
                  ", methods " + first.validation_method + "/" + first.separation_method +
                  ", models " + first.model + " + " + first.embedding_model + ", seed " +
                  std::to_string(first.seed) + ".\n\n";
        if (passages.size() > 1 || parsed.has("--passages")) {
            report += format_table1(batch.passages, titles);
        } else {
            report += format_passage_report(first);
        }
        report += "Total: " + format_counts(batch.calls) + ".\n";
        report += format_cost(batch.cost, "Cost at the price table's prices");
        if (batch.cancelled) report += "Cancelled: a re-run with the same cache resumes without repeating a call.\n";
    }
    write_output(parsed.value("--output"), report);
    warn_unwritten(batch, config.cache_path);
    return exit_code_for_results(batch.cancelled, failures);
}

}  // namespace llmv::cli
