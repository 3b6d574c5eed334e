#include "cli/csv_reader.hpp"

#include <cstdio>
#include <istream>
#include <utility>

#include "llmvalidate/error.hpp"

namespace llmv::cli {

CsvReader::CsvReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

bool CsvReader::next(std::vector<std::string>& fields) {
    fields.clear();
    std::string field;
    bool in_quotes = false;
    bool any = false;
    const std::size_t start_line = line_ + 1;
    int c;
    while ((c = in_.get()) != EOF) {
        any = true;
        if (in_quotes) {
            if (c == '"') {
                if (in_.peek() == '"') {
                    in_.get();
                    field += '"';
                } else {
                    in_quotes = false;
                }
            } else {
                if (c == '\n') ++line_;
                field += static_cast<char>(c);
            }
            continue;
        }
        if (c == '"' && field.empty()) {
            in_quotes = true;
        } else if (c == ',') {
            fields.push_back(std::move(field));
            field.clear();
        } else if (c == '\r') {
            // CRLF line ends: the '\n' that follows ends the record.
        } else if (c == '\n') {
            ++line_;
            fields.push_back(std::move(field));
            return true;
        } else {
            field += static_cast<char>(c);
        }
    }
    if (in_quotes) {
        throw Error(code::invalid_argument, source_ + ", line " + std::to_string(start_line) +
                                                ": a quoted field is not closed before the end of the file");
    }
    if (!any) return false;
    ++line_;
    fields.push_back(std::move(field));
    return true;
}

}  // namespace llmv::cli
