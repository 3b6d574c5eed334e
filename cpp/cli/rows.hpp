// The rows a pipeline command writes: one per passage with every number (CSV or JSON lines),
// and the audit trail of --save-generations.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "llmvalidate/pipeline.hpp"

namespace llmv::cli {

// One row per passage with every number.
std::vector<std::string> csv_header(const std::vector<std::string>& labels);
std::vector<std::string> csv_row(const pipeline::PassageResult& result,
                                 const std::vector<std::string>& labels);
std::string csv_line(const std::vector<std::string>& fields);
std::string jsonl_line(const pipeline::PassageResult& result);  // one JSON object, no newline

// --save-generations PATH: the audit trail of a run, one row per annotation of a passage and
// per generated text (pipeline::GenerationRow), written as each passage finishes. JSON lines
// when PATH ends in .jsonl or .ndjson, else CSV. The run must keep its texts (keep_texts).
OptionSpec save_generations_option();
class GenerationsWriter {
  public:
    explicit GenerationsWriter(const std::string& path);
    ~GenerationsWriter();
    void write(const pipeline::PassageResult& result);
    void close();  // throws llmv.io.failed when a write failed

  private:
    std::string path_;
    bool jsonl_ = false;
    std::unique_ptr<std::ofstream> out_;
};

}  // namespace llmv::cli
