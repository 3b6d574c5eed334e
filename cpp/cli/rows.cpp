#include "rows.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "llmvalidate/error.hpp"
#include "llmvalidate/record_csv.hpp"
#include "llmvalidate/record_json.hpp"
#include "llmvalidate/record_lists.hpp"
#include "llmvalidate/records.hpp"
#include "llmvalidate/standalone_format.hpp"

namespace llmv::cli {

// The CSV columns and the JSON line: the passage's records (llmvalidate/records.hpp).
std::vector<std::string> csv_header(const std::vector<std::string>& labels) {
    const pipeline::PassageResult none;
    return records::csv_header(records::PassageRow{none, labels});
}

std::vector<std::string> csv_row(const pipeline::PassageResult& result,
                                 const std::vector<std::string>& labels) {
    return records::csv_cells(records::PassageRow{result, labels});
}

std::string csv_line(const std::vector<std::string>& fields) { return pipeline::csv_line(fields); }

OptionSpec save_generations_option() {
    return {"--save-generations", "", "PATH",
            "Write what the model wrote and answered (the audit trail): one row per annotation and "
            "per generated "
            "text, with its label, draw, backtranslated label, model and prompt hash. CSV, or JSON "
            "lines when PATH "
            "ends in .jsonl."};
}

GenerationsWriter::GenerationsWriter(const std::string& path) : path_(path) {
    const auto ends_with = [&](const std::string& suffix) {
        return path.size() >= suffix.size() &&
               path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
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
            *out_ << records::to_json(row).dump(-1, ' ', false,
                                                nlohmann::json::error_handler_t::replace)
                  << "\n";
        } else {
            *out_ << pipeline::generation_csv_line(row) << "\n";
        }
    }
    out_->flush();
}

void GenerationsWriter::close() {
    out_->flush();
    if (!*out_)
        throw Error(code::io, "writing the generations to " + path_ + " failed (disk full?)");
    out_->close();
}

std::string jsonl_line(const pipeline::PassageResult& result) {
    return dump_json(records::to_json(result), false);
}

}  // namespace llmv::cli
