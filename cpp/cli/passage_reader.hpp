// Reads the passages of `batch --input` one at a time from a CSV or JSON-lines file (or
// standard input), so that a 20,000-row file is never held: the header checked against the
// options that name columns, a BOM skipped, UTF-16 and repeated column names refused, a row
// that cannot be read made a passage that carries its reason, --where applied.
#pragma once

#include <cstddef>
#include <fstream>
#include <istream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "csv_reader.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/sample.hpp"

namespace llmv::cli {

class PassageReader {
  public:
    PassageReader(const std::string& path, std::string text_column, std::string id_column,
                  std::string human_column, std::vector<std::string> variable_columns,
                  std::string simulation_column, RowFilter filter = {},
                  std::string filter_text = {});

    // The next row that --where keeps; its id is its row number in the file (before filtering),
    // so that a sample names the same rows as the file does.
    bool next(pipeline::PassageInput& out);

  private:
    void refuse_utf16();
    void skip_utf8_bom();
    void refuse_duplicate_columns(const std::vector<std::string>& header) const;
    void refuse_row(pipeline::PassageInput& out, const std::string& id, const std::string& reason,
                    const char* error_code = code::invalid_argument);
    std::string value_of(const std::string& column) const;
    bool next_row(pipeline::PassageInput& out);

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

}  // namespace llmv::cli
