// The example dataset of the help (stata/llmv_phrasebank.dta, made by
// stata/tools/make_example_data.R): a Stata 10+ dataset (format 114) of 200 Financial
// PhraseBank sentences, 100 with full annotator agreement and 100 with 50-66%, and, where the
// source CSV is beside the repository, each sentence, label and agreement equal to its row.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Sentence {
    std::int32_t row = 0;
    std::string sentence, label;
    std::int32_t agreement = 0;
};

std::int32_t little_int(const std::string& bytes, std::size_t at, int width) {
    std::uint32_t value = 0;
    for (int k = width - 1; k >= 0; --k)
        value =
            (value << 8) | static_cast<unsigned char>(bytes.at(at + static_cast<std::size_t>(k)));
    return static_cast<std::int32_t>(value);
}

// Reads the format-114 file foreign::write.dta writes: header, descriptors, no expansion
// fields, then the data, little-endian, of the variables row (long), sentence (str#), label
// (str#), agreement (long).
std::vector<Sentence> read_dta(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string bytes = buffer.str();
    REQUIRE(static_cast<unsigned char>(bytes.at(0)) == 114);
    REQUIRE(bytes.at(1) == 2);  // little-endian
    const int nvar = little_int(bytes, 4, 2);
    const int nobs = little_int(bytes, 6, 4);
    REQUIRE(nvar == 4);
    std::size_t at = 109;
    std::vector<unsigned char> types;
    for (int v = 0; v < nvar; ++v) types.push_back(static_cast<unsigned char>(bytes.at(at++)));
    std::vector<std::string> names;
    for (int v = 0; v < nvar; ++v, at += 33) names.push_back(bytes.substr(at, 33).c_str());
    REQUIRE(names == std::vector<std::string>{"row", "sentence", "label", "agreement"});
    at += 2 * static_cast<std::size_t>(nvar + 1) + 49 * static_cast<std::size_t>(nvar) +
          33 * static_cast<std::size_t>(nvar) + 81 * static_cast<std::size_t>(nvar);
    // Expansion fields: type byte and 4-byte length, until type 0.
    while (bytes.at(at) != 0) at += 5 + static_cast<std::size_t>(little_int(bytes, at + 1, 4));
    at += 5;
    REQUIRE(types[0] == 253);
    REQUIRE(types[1] <= 244);
    REQUIRE(types[2] <= 244);
    REQUIRE(types[3] == 253);
    std::vector<Sentence> rows;
    for (int i = 0; i < nobs; ++i) {
        Sentence s;
        s.row = little_int(bytes, at, 4);
        at += 4;
        s.sentence = bytes.substr(at, types[1]).c_str();
        at += types[1];
        s.label = bytes.substr(at, types[2]).c_str();
        at += types[2];
        s.agreement = little_int(bytes, at, 4);
        at += 4;
        rows.push_back(s);
    }
    CHECK(at == bytes.size());
    return rows;
}

// A CSV field list (RFC 4180, one record per line).
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            fields.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

}  // namespace

TEST_CASE(
    "the example dataset: 100 sentences with full agreement, 100 with 50-66%, traced to "
    "the Financial PhraseBank CSV",
    "[example-data]") {
    const auto rows = read_dta(std::string(LLMV_SOURCE_DIR) + "/stata/llmv_phrasebank.dta");
    REQUIRE(rows.size() == 200);
    std::map<int, int> by_agreement;
    std::set<std::int32_t> distinct;
    for (const auto& row : rows) {
        ++by_agreement[row.agreement];
        distinct.insert(row.row);
        CHECK(std::set<std::string>{"positive", "neutral", "negative"}.count(row.label) == 1);
        CHECK_FALSE(row.sentence.empty());
    }
    CHECK(by_agreement[100] == 100);
    CHECK(by_agreement[50] + by_agreement[66] == 100);
    CHECK(distinct.size() == 200);

    // The source, where it is beside the repository (../shared/data/financial-phrasebank).
    std::ifstream csv(std::string(LLMV_SOURCE_DIR) +
                      "/../../shared/data/financial-phrasebank/financial_phrasebank.csv");
    if (!csv.good())
        csv.open(std::string(LLMV_SOURCE_DIR) +
                 "/../shared/data/financial-phrasebank/financial_phrasebank.csv");
    if (!csv.good()) {
        WARN("financial_phrasebank.csv is not beside the repository: provenance not checked");
        return;
    }
    std::vector<std::vector<std::string>> source;
    std::string line;
    std::getline(csv, line);
    REQUIRE(line == "sentence,label,agreement");
    while (std::getline(csv, line)) source.push_back(csv_fields(line));
    for (const auto& row : rows) {
        INFO("row " << row.row);
        REQUIRE(row.row >= 1);
        REQUIRE(static_cast<std::size_t>(row.row) <= source.size());
        const auto& fields = source[static_cast<std::size_t>(row.row - 1)];
        REQUIRE(fields.size() == 3);
        CHECK(fields[0] == row.sentence);
        CHECK(fields[1] == row.label);
        CHECK(fields[2] == std::to_string(row.agreement));
    }
}
