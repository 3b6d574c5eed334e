#include "csv_reader.hpp"

#include <cstdio>
#include <istream>
#include <utility>

#include "llmvalidate/error.hpp"

namespace llmv::cli {

CsvReader::CsvReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

bool CsvReader::next(std::vector<std::string>& fields) {
    error_.clear();
    for (;;) {
        fields.clear();
        std::string field;
        bool in_quotes = false;
        bool any = false;
        const std::size_t start_line = line_ + 1;
        record_line_ = start_line;
        const std::streampos start = in_.tellg();
        int c;
        bool ended = false;
        while (!ended && (c = in_.get()) != EOF) {
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
                // CRLF line ends: the '\n' that follows ends the record. A lone CR (old Mac line
                // ends) would make the whole file one record.
                if (in_.peek() != '\n') {
                    throw Error(
                        code::invalid_argument,
                        source_ + ", line " + std::to_string(line_ + 1) +
                            ": a line ends with a lone carriage return (CR-only line ends); "
                            "save the file with LF or CRLF line ends");
                }
            } else if (c == '\n') {
                ++line_;
                ended = true;
            } else {
                field += static_cast<char>(c);
            }
        }
        if (in_quotes) {
            error_ = source_ + ", line " + std::to_string(start_line) +
                     ": a quoted field is not closed before the end of the file";
            fields.clear();
            in_.clear();
            line_ = start_line;
            // Read on after the line the quote opened on; on a stream that cannot seek
            // (standard input) the rest of the file was that field.
            if (start != std::streampos(-1) && in_.seekg(start)) {
                std::string skipped;
                std::getline(in_, skipped);
            } else {
                in_.setstate(std::ios::eofbit);
            }
            return true;
        }
        if (!any) return false;
        if (!ended) ++line_;
        fields.push_back(std::move(field));
        // A blank line (nothing, or only the CR of a CRLF) is no record.
        if (fields.size() == 1 && fields[0].empty()) continue;
        return true;
    }
}

}  // namespace llmv::cli
