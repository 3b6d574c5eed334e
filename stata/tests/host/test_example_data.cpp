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

#include "phrasebank_dta.hpp"

using namespace host;

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
