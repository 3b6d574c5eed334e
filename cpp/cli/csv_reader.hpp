// The CSV reader of `llmvalidate batch --input`.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace llmv::cli {

// Streaming CSV reader (RFC 4180: quoted fields, doubled quotes, newlines inside quotes).
class CsvReader {
public:
    CsvReader(std::istream& in, std::string source);
    bool next(std::vector<std::string>& fields);  // false at the end
    std::size_t line() const { return line_; }

private:
    std::istream& in_;
    std::string source_;
    std::size_t line_ = 0;
};

}  // namespace llmv::cli
