// The Section 4 data the package ships (stata/llmv_section4.csv, made by
// stata/tools/make_section4_data.py): what `import delimited using llmv_section4.csv, clear
// varnames(1) encoding("utf-8") bindquote(strict)` gives, one string variable per column (strL,
// for the long passages and prompts). For the tests that run the help's examples on it.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fake_stata.hpp"

namespace host {

inline std::string read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// A CSV file whose fields are all quoted ("" inside a field is one "), one row per line.
inline std::vector<std::vector<std::string>> read_quoted_csv(const std::string& path) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(read_whole_file(path));
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> row;
        std::size_t i = 0;
        while (i < line.size()) {
            REQUIRE(line[i] == '"');
            std::string field;
            for (++i; i < line.size(); ++i) {
                if (line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else if (line[i] == '"') {
                    break;
                } else {
                    field += line[i];
                }
            }
            row.push_back(field);
            i += 2;  // the closing quote and the comma
        }
        rows.push_back(row);
    }
    return rows;
}

// The dataset import delimited makes: one string variable per column (strL for long text).
inline void load_section4(Stata& stata) {
    const auto rows = read_quoted_csv(std::string(LLMV_SOURCE_DIR) + "/stata/llmv_section4.csv");
    REQUIRE(rows.size() == 6);
    stata.clear();
    for (std::size_t column = 0; column < rows[0].size(); ++column) {
        std::vector<std::string> values;
        for (std::size_t row = 1; row < rows.size(); ++row) values.push_back(rows[row].at(column));
        stata.add_string(rows[0][column], values, /*strl=*/true);
    }
    stata.select_all();
}

}  // namespace host
