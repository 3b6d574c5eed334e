// PassageReader (passage_reader.hpp).
#include "passage_reader.hpp"

#include <filesystem>
#include <iostream>

#include "cli.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/text.hpp"

namespace llmv::cli {

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

PassageReader::PassageReader(const std::string& path, std::string text_column,
                             std::string id_column, std::string human_column,
                             std::vector<std::string> variable_columns,
                             std::string simulation_column, RowFilter filter,
                             std::string filter_text)
    : filter_(std::move(filter)),
      filter_text_(std::move(filter_text)),
      text_column_(std::move(text_column)),
      id_column_(std::move(id_column)),
      human_column_(std::move(human_column)),
      simulation_column_(std::move(simulation_column)),
      variable_columns_(std::move(variable_columns)) {
    source_ = path == "-" ? std::string("standard input") : path;
    jsonl_ = ends_with(path, ".jsonl") || ends_with(path, ".ndjson");
    if (path == "-") {
        in_ = &std::cin;
    } else {
        std::error_code ignored;
        if (std::filesystem::is_directory(path, ignored))
            throw_invalid(code::io, "--input", path + " (a directory)",
                          "a readable CSV or JSON-lines file");
        file_ = std::make_unique<std::ifstream>(path, std::ios::binary);
        if (!*file_) {
            throw_invalid(code::io, "--input", path, "a readable CSV or JSON-lines file");
        }
        in_ = file_.get();
    }
    refuse_utf16();
    skip_utf8_bom();
    if (!jsonl_) {
        csv_ = std::make_unique<CsvReader>(*in_, source_);
        std::vector<std::string> header;
        if (!csv_->next(header) || !csv_->error().empty()) {
            throw_invalid(
                code::invalid_argument, "--input",
                source_ + (csv_->error().empty() ? " (empty)" : " (" + csv_->error() + ")"),
                "a CSV file with a header row");
        }
        refuse_duplicate_columns(header);
        header_size_ = header.size();
        for (std::size_t i = 0; i < header.size(); ++i) columns_[header[i]] = i;
        std::string names;
        for (const auto& name : header) names += (names.empty() ? "" : ", ") + name;
        const auto need = [&](const std::string& option, const std::string& name) {
            if (!name.empty() && !columns_.count(name)) {
                throw_invalid(code::invalid_argument, option, "\"" + name + "\"",
                              "a column of " + source_ + ": " + names);
            }
        };
        need("--text-column", text_column_);
        need("--id-column", id_column_);
        need("--human-label-column", human_column_);
        need("--simulation-column", simulation_column_);
        for (const auto& name : variable_columns_) need("--variable-columns", name);
        for (const auto& name : filter_.columns()) need("--where", name);
    }
}

bool PassageReader::next(pipeline::PassageInput& out) {
    while (next_row(out)) {
        // A row that could not be read is reported whatever --where says: its values are
        // unknown.
        if (!out.input_error.empty() || filter_.empty() ||
            filter_.matches([&](const std::string& column) { return value_of(column); })) {
            ++kept_;
            return true;
        }
    }
    // A --where that keeps nothing is an error (nothing was sent): a run of no rows that
    // exits 0 reads like success.
    if (!filter_.empty() && kept_ == 0) {
        throw_invalid(code::invalid_argument, "--where", "\"" + filter_text_ + "\"",
                      "a condition some row of " + source_ + " meets (none of its " +
                          std::to_string(row_ - 1) + " rows does)");
    }
    return false;
}

// A UTF-16 file (Excel's "Unicode text") would read as bytes with NULs between them.
void PassageReader::refuse_utf16() {
    char head[2] = {0, 0};
    in_->read(head, 2);
    const std::streamsize got = in_->gcount();
    for (std::streamsize i = got; i > 0; --i) in_->putback(head[i - 1]);
    in_->clear();
    const bool bom = got == 2 && ((head[0] == '\xFF' && head[1] == '\xFE') ||
                                  (head[0] == '\xFE' && head[1] == '\xFF'));
    const bool nul = got == 2 && (head[0] == '\0' || head[1] == '\0');
    if (bom || nul) {
        throw_invalid(
            code::invalid_encoding, "--input", source_ + " (UTF-16 text, or NUL bytes)",
            "a file in UTF-8 (or latin1 with --encoding latin1): save it as UTF-8 CSV");
    }
}

// A UTF-8 byte order mark (R's write.csv with fileEncoding "UTF-8-BOM", Excel's "CSV UTF-8")
// goes before the parser sees the header, so that a quoted first name ("\"id\"") reads as
// a quoted field.
void PassageReader::skip_utf8_bom() {
    char head[3] = {0, 0, 0};
    in_->read(head, 3);
    const std::streamsize got = in_->gcount();
    const bool bom = got == 3 && head[0] == '\xEF' && head[1] == '\xBB' && head[2] == '\xBF';
    if (!bom)
        for (std::streamsize i = got; i > 0; --i) in_->putback(head[i - 1]);
    in_->clear();
}

// Two columns of one name: which one a row's value comes from would be a guess (and every
// row would seem to have the wrong number of fields), so the file is refused, naming them.
void PassageReader::refuse_duplicate_columns(const std::vector<std::string>& header) const {
    std::map<std::string, std::vector<std::size_t>> positions;
    std::vector<std::string> order;
    for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i].empty()) continue;  // no option can name it: no ambiguity
        auto& at = positions[header[i]];
        if (at.size() == 1) order.push_back(header[i]);
        at.push_back(i + 1);
    }
    if (order.empty()) return;
    std::string repeated;
    for (const std::string& name : order) {
        std::vector<std::string> columns;
        for (std::size_t column : positions[name]) columns.push_back(std::to_string(column));
        repeated += (repeated.empty() ? "" : "; ") + ("\"" + name + "\" in columns ") +
                    text::join_list(columns, ", ", " and ");
    }
    throw_invalid(code::invalid_argument, "--input",
                  source_ + ", whose header repeats " + repeated,
                  "a CSV file whose header names each column once");
}

// A row that cannot be read fails alone: it becomes a passage that carries the reason and
// is never sent; the rows after it are read on.
void PassageReader::refuse_row(pipeline::PassageInput& out, const std::string& id,
                               const std::string& reason, const char* error_code) {
    out.id = id.empty() ? std::to_string(row_) : id;
    out.text.clear();
    out.input_error = reason;
    out.input_error_code = error_code;
}

std::string PassageReader::value_of(const std::string& column) const {
    if (jsonl_) {
        if (!object_.is_object() || !object_.contains(column)) return "";
        const auto& value = object_[column];
        return value.is_string() ? value.get<std::string>() : value.dump();
    }
    const auto found = columns_.find(column);
    return found == columns_.end() || found->second >= fields_.size() ? std::string()
                                                                      : fields_[found->second];
}

bool PassageReader::next_row(pipeline::PassageInput& out) {
    out = pipeline::PassageInput();
    ++row_;
    if (jsonl_) {
        std::string line;
        while (std::getline(*in_, line)) {
            ++line_;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            nlohmann::json& object = object_;
            const std::string where = source_ + ", line " + std::to_string(line_);
            try {
                object = nlohmann::json::parse(line);
            } catch (const std::exception& error) {
                object = nullptr;
                refuse_row(out, "",
                           where + ": not a JSON object (" + std::string(error.what()) + ")",
                           code::malformed_json);
                return true;
            }
            if (!object.is_object()) {
                const std::string kind = object.type_name();
                object = nullptr;
                refuse_row(out, "",
                           where + ": a JSON " + kind + " where a JSON object is needed");
                return true;
            }
            const auto field = [&](const std::string& name) -> std::string {
                if (name.empty() || !object.contains(name)) return "";
                const auto& value = object[name];
                return value.is_string() ? value.get<std::string>() : value.dump();
            };
            out.id = id_column_.empty() ? std::to_string(row_) : field(id_column_);
            const auto text = object.find(text_column_);
            if (text == object.end() || !text->is_string()) {
                // null or 42 is no passage: it would be paid for as the text "null" or "42".
                refuse_row(out, out.id,
                           where + ": `" + text_column_ + "` (--text-column) is " +
                               (text == object.end() ? "missing"
                                                     : "not a string but " + text->dump()) +
                               "; every line needs its passage as a JSON string");
                return true;
            }
            out.text = text->get<std::string>();
            out.human_label = field(human_column_);
            out.simulation_template = field(simulation_column_);
            for (const auto& name : variable_columns_) out.variables[name] = field(name);
            return true;
        }
        return false;
    }
    std::vector<std::string>& fields = fields_;
    if (!csv_->next(fields)) return false;
    const std::size_t first_line = csv_->record_line();
    if (!csv_->error().empty()) {
        refuse_row(out, "", csv_->error());
        return true;
    }
    if (fields.size() != header_size_) {
        // Named by its id when the id column is there, else by its row number.
        const auto id_at = id_column_.empty() ? fields.size() : columns_.at(id_column_);
        refuse_row(
            out, id_at < fields.size() ? fields[id_at] : std::string(),
            source_ + ", line " + std::to_string(first_line) + " (row " + std::to_string(row_) +
                "): " + std::to_string(fields.size()) + " field(s) where the header has " +
                std::to_string(header_size_) +
                "; every row needs one field per column (quote fields that contain commas)");
        return true;
    }
    const auto get = [&](const std::string& name) -> std::string {
        if (name.empty()) return "";
        const std::size_t column = columns_.at(name);
        return column < fields.size() ? fields[column] : std::string();
    };
    out.text = get(text_column_);
    out.id = id_column_.empty() ? std::to_string(row_) : get(id_column_);
    out.human_label = get(human_column_);
    out.simulation_template = get(simulation_column_);
    for (const auto& name : variable_columns_) out.variables[name] = get(name);
    return true;
}

}  // namespace llmv::cli
