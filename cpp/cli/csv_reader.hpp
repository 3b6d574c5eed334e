// The CSV reader of `llmvalidate batch --input`.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace llmv::cli {

// Streaming CSV reader (RFC 4180: quoted fields, doubled quotes, newlines inside quotes).
// Blank lines are skipped. A quote left open at the end of the file spoils only its own
// record: next() reports it (error()) and, when the stream can seek, goes on reading at the
// line after the one the quote opened on.
class CsvReader {
  public:
    CsvReader(std::istream& in, std::string source);
    bool next(std::vector<std::string>& fields);  // false at the end
    std::size_t line() const { return line_; }
    std::size_t record_line() const { return record_line_; }  // where the last record began
    // The record next() returned last could not be read (its fields are empty): why, with its
    // line; empty when it was read.
    const std::string& error() const { return error_; }

  private:
    std::istream& in_;
    std::string source_;
    std::size_t line_ = 0;
    std::size_t record_line_ = 0;
    std::string error_;
};

}  // namespace llmv::cli
