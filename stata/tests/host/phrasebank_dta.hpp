// The example dataset the package ships (stata/llmv_phrasebank.dta, made by
// stata/tools/make_example_data.R), read as Stata reads it: the format-114 file of 200
// Financial PhraseBank sentences (row, sentence, label, agreement). For the tests that check
// its provenance and those that run the help's examples on it.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace host {

struct Sentence {
    std::int32_t row = 0;
    std::string sentence, label;
    std::int32_t agreement = 0;
};

inline std::int32_t little_int(const std::string& bytes, std::size_t at, int width) {
    std::uint32_t value = 0;
    for (int k = width - 1; k >= 0; --k)
        value =
            (value << 8) | static_cast<unsigned char>(bytes.at(at + static_cast<std::size_t>(k)));
    return static_cast<std::int32_t>(value);
}

// Reads the format-114 file foreign::write.dta writes: header, descriptors, no expansion
// fields, then the data, little-endian, of the variables row (long), sentence (str#), label
// (str#), agreement (long).
inline std::vector<Sentence> read_dta(const std::string& path) {
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
inline std::vector<std::string> csv_fields(const std::string& line) {
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

}  // namespace host
