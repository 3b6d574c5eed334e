#include "cli/rows.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "llmvalidate/error.hpp"
#include "pipeline/test_json.hpp"

namespace llmv::cli {

namespace {

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

}  // namespace

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

}  // namespace llmv::cli
