// The public entry points of llmvalidate/pipeline.hpp around the scheduler (scheduler.cpp); the
// dry run is in dry_run.cpp.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "core/utf8.hpp"
#include "llm/structured_output.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/record_csv.hpp"
#include "llmvalidate/record_lists.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/settings.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/simulated.hpp"

namespace llmv::pipeline {

bool prompts_carry_answer_format(const ValidationConfig& config) {
    if (config.answer_format == "always" || config.structured_output != "schema") return true;
    // The simulated provider receives no request: its prompts only name its draws (cache keys),
    // which stay those of every earlier version.
    try {
        return resolve_providers(config).synthetic_chat;
    } catch (const Error&) {
        return false;  // the run itself reports what cannot be resolved
    }
}

Task load_config_task(const ValidationConfig& config) {
    Task task = task_of(config, "<task_source>");
    return prompts_carry_answer_format(config) ? task : task.without_answer_formats();
}

Task task_for_input(const Task& task, const PassageInput& passage) {
    return task.with_simulation_template(passage.simulation_template);
}

TaskVariables passage_variables(const ValidationConfig& config, const PassageInput& passage) {
    TaskVariables variables = config.variables;
    for (const auto& entry : passage.variables) variables[entry.first] = entry.second;
    return variables;
}

void check_config(const ValidationConfig& config) {
    settings::check(config);  // every setting's range, one set of messages
    if (config.paper_n == 1) {
        throw_invalid(code::invalid_argument, "paper_n", "1",
                      "0 (use M) or a whole number in 2..100000");
    }
    // Provider and embedding names, models and keys: the run's own resolution (an unknown
    // name, or a server of your own without a model, fails here, before any call).
    (void)resolve_providers(config);
    const Task task = load_config_task(config);
    if (task.labels().size() < 2) {
        throw_invalid(code::task_invalid, "labels", std::to_string(task.labels().size()) + " label",
                      "at least two labels (the separation test needs another label)");
    }
    if (config.provider == simulated_provider_name) {
        SimulatedModel check(config.simulated, task.labels());
        (void)check;
    }
}

int per_passage_reference_labels(const ValidationConfig& config, int label_count) {
    const int for_validation = draws_reference("validation", config.tests.validation_method) ? 1 : 0;
    const int for_separation =
        draws_reference("separation", config.tests.separation_method) ? label_count - 1 : 0;
    return for_validation + for_separation;
}

CallCounts expected_calls_per_passage(const ValidationConfig& config, int label_count) {
    const int m = pool_size(config);
    CallCounts counts;
    counts.annotation_calls = config.annotation_repeats;
    // Reference draws: β̂'s for the paper validation test, every other label's for the paper
    // separation test. They continue the pool's calls, so a label with references costs
    // ⌈(M + B)/n⌉ calls instead of ⌈M/n⌉.
    const int with_reference = per_passage_reference_labels(config, label_count);
    const int without_reference = label_count - with_reference;
    counts.simulation_calls =
        static_cast<std::int64_t>(without_reference) * calls_for(m, config.n) +
        static_cast<std::int64_t>(with_reference) * calls_for(m + config.paper_b, config.n);
    counts.backtranslation_calls =
        static_cast<std::int64_t>(m) * (config.backtranslate_all_labels ? label_count : 1);
    counts.chat_calls =
        counts.annotation_calls + counts.simulation_calls + counts.backtranslation_calls;
    counts.embedded_texts = static_cast<std::int64_t>(label_count) * m + 1 +
                            static_cast<std::int64_t>(with_reference) * config.paper_b;
    return counts;
}

namespace {

// A human label must be a label of the task (compared as labels are, ignoring case and white
// space) or empty: a label outside the set would silently fall out of Table 10.
class HumanLabelCheck {
  public:
    explicit HumanLabelCheck(const ValidationConfig& config)
        : labels_(load_config_task(config).labels()) {
        for (const std::string& label : labels_) keys_.push_back(normalize_label(label));
    }
    void operator()(const PassageInput& passage, std::size_t position) const {
        if (passage.human_label.empty()) return;
        const std::string key = normalize_label(passage.human_label);
        if (std::find(keys_.begin(), keys_.end(), key) != keys_.end()) return;
        std::string names;
        for (const std::string& label : labels_)
            names += (names.empty() ? "'" : ", '") + label + "'";
        const std::string id = passage.id.empty() ? std::to_string(position + 1) : passage.id;
        ErrorSubject subject;
        subject.setting = "human_label";
        subject.key = id;
        subject.name = "human label of passage " + id;
        subject.received = subject.received_value = "'" + passage.human_label + "'";
        subject.allowed = "a label of the task (" + names + ") or empty";
        throw Error(code::unknown_label, std::move(subject));
    }

  private:
    std::vector<std::string> labels_;
    std::vector<std::string> keys_;
};

BatchResult run_checked(const ValidationConfig& config, const PassageSource& source,
                        const BatchCallbacks& callbacks, bool keep_results, std::size_t total) {
    check_config(config);
    // Streams are checked as they are read: like a malformed input line, a human label outside
    // the task's labels fails its row alone (issue 25). Passages given at once are checked
    // before any call, in validate_batch().
    const HumanLabelCheck check_human(config);
    std::size_t position = 0;
    const PassageSource checked = [&](PassageInput& out) {
        if (!source(out)) return false;
        if (out.input_error.empty()) {
            try {
                check_human(out, position);
            } catch (const Error& error) {
                // In the front end's terms, as every row's error (settings::message).
                out.input_error = settings::message(error, config.messages_for);
                out.input_error_code = error.code();
            }
        }
        ++position;
        return true;
    };
    return run_engine(config, checked, callbacks, keep_results, total);
}

}  // namespace

void check_human_labels(const ValidationConfig& config, const std::vector<PassageInput>& passages) {
    check_config(config);
    const HumanLabelCheck check_human(config);
    for (std::size_t i = 0; i < passages.size(); ++i) check_human(passages[i], i);
}

void check_passage_text(const PassageInput& passage, std::size_t index) {
    // A row the reader could not read fails alone, with its own message, in the run.
    if (!passage.input_error.empty() || !is_blank(passage.text)) return;
    const std::string name =
        "passage " + (passage.id.empty() ? std::to_string(index + 1) : "\"" + passage.id + "\"") +
        " (row " + std::to_string(index + 1) + ")";
    throw_invalid(code::invalid_argument, "text",
                  name + ": " +
                      (passage.text.empty()
                           ? "an empty text"
                           : "only white space " + nlohmann::json(abbreviate(passage.text)).dump()),
                  "a passage with text to annotate (leave out the empty rows before the run; no "
                  "call was made)");
}

void check_passages(const std::vector<PassageInput>& passages) {
    for (std::size_t i = 0; i < passages.size(); ++i) check_passage_text(passages[i], i);
}

namespace {
BatchResult run_passages(const ValidationConfig& config, const std::vector<PassageInput>& passages,
                         const BatchCallbacks& callbacks, bool keep_results) {
    check_human_labels(config, passages);
    std::size_t next = 0;
    const PassageSource source = [&](PassageInput& out) {
        if (next >= passages.size()) return false;
        out = passages[next++];
        return true;
    };
    return run_checked(config, source, callbacks, keep_results, passages.size());
}
}  // namespace

// One passage never throws for its own text: a blank one is its failed result (no call).
PassageResult validate_passage(const ValidationConfig& config, const PassageInput& passage,
                               const BatchCallbacks& callbacks) {
    BatchResult batch = run_passages(config, {passage}, callbacks, true);
    return std::move(batch.passages.front());
}

BatchResult validate_batch(const ValidationConfig& config,
                           const std::vector<PassageInput>& passages,
                           const BatchCallbacks& callbacks, bool keep_results) {
    check_passages(passages);
    return run_passages(config, passages, callbacks, keep_results);
}

BatchResult validate_stream(const ValidationConfig& config, const PassageSource& source,
                            const BatchCallbacks& callbacks, bool keep_results) {
    return run_checked(config, source, callbacks, keep_results, 0);
}

std::vector<GenerationRow> generation_rows(const PassageResult& result) {
    std::vector<GenerationRow> rows;
    const auto hash_of = [&](const std::string& name) {
        const auto found = result.prompt_hashes.find(name);
        return found == result.prompt_hashes.end() ? std::string() : found->second;
    };
    const auto row = [&](const char* kind, const std::string& label, int draw) {
        GenerationRow out;
        out.index = result.index;
        out.passage_id = result.id;
        out.kind = kind;
        out.label = label;
        out.draw = draw;
        out.model = result.model;
        out.prompt_hash = hash_of(label.empty() ? "annotation" : "simulation:" + label);
        return out;
    };
    for (std::size_t r = 0; r < result.annotations.size(); ++r) {
        GenerationRow out = row("annotation", "", static_cast<int>(r));
        out.text = result.passage_text;
        out.answer = result.annotations[r];
        rows.push_back(std::move(out));
    }
    for (const std::string& label : result.label_set) {
        const auto pool = result.pool_texts.find(label);
        if (pool == result.pool_texts.end()) continue;
        const auto answers = result.backtranslation_answers.find(label);
        for (std::size_t j = 0; j < pool->second.size(); ++j) {
            GenerationRow out = row("simulation", label, static_cast<int>(j));
            out.text = pool->second[j];
            if (answers != result.backtranslation_answers.end() && j < answers->second.size()) {
                out.answer = answers->second[j];
            }
            rows.push_back(std::move(out));
        }
    }
    return rows;
}

std::string csv_line(const std::vector<std::string>& fields) {
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i) line += ',';
        const std::string& field = fields[i];
        if (field.find_first_of(",\"\n\r") == std::string::npos) {
            line += field;
            continue;
        }
        line += '"';
        for (char c : field) {
            if (c == '"') line += '"';
            line += c;
        }
        line += '"';
    }
    return line;
}

// The columns and cells of the generation rows' one field list (record_lists.hpp).
std::string generations_csv_header() { return csv_line(records::csv_header(GenerationRow{})); }

std::string generation_csv_line(const GenerationRow& row) {
    return csv_line(records::csv_cells(row));
}

Generations read_generations(const ValidationConfig& config,
                             const std::vector<PassageInput>& passages) {
    ValidationConfig replay = config;
    replay.replay_only = true;
    replay.keep_texts = true;
    replay.dry_run = false;
    Generations generations;
    BatchCallbacks callbacks;
    callbacks.on_passage = [&](const PassageResult& result) {
        if (!result.ok) generations.failed.push_back(result);
    };
    BatchResult batch = validate_batch(replay, passages, callbacks, /*keep_results=*/true);
    generations.synthetic = batch.synthetic;
    for (const PassageResult& result : batch.passages) {
        if (!result.ok) continue;
        std::vector<GenerationRow> rows = generation_rows(result);
        generations.rows.insert(generations.rows.end(), std::make_move_iterator(rows.begin()),
                                std::make_move_iterator(rows.end()));
    }
    std::sort(generations.failed.begin(), generations.failed.end(),
              [](const PassageResult& a, const PassageResult& b) { return a.index < b.index; });
    return generations;
}

BatchSummary summarize(const std::vector<PassageResult>& results,
                       const std::vector<std::string>& label_set) {
    std::vector<SummaryRow> rows;
    rows.reserve(results.size());
    // The passage's text is in its result only with keep_texts.
    for (const PassageResult& result : results)
        rows.push_back(summary_row(result, result.passage_text));
    return summarize_rows(rows, label_set);
}

}  // namespace llmv::pipeline
