// Many passages: Tables 9 and 10 of the paper recomputed from Table 10's counts, and
// Benjamini-Hochberg adjusted p-values against R's p.adjust.
#include <catch2/catch.hpp>

#include <cmath>

#include "llmvalidate/stats.hpp"

using namespace llmv::stats;

namespace {
struct Cell {
    const char* llm;
    const char* human;
    int n;
    int n_valid;
};

// Passages with the given cells, plus `inconclusive` passages whose prerequisites fail.
PassageSummaryInput passages(const std::vector<Cell>& cells, int inconclusive) {
    PassageSummaryInput input;
    for (const Cell& cell : cells)
        for (int i = 0; i < cell.n; ++i) {
            input.llm_label.push_back(cell.llm);
            input.human_label.push_back(cell.human);
            input.verdict.push_back(i < cell.n_valid ? Verdict::valid : Verdict::invalid);
        }
    for (int i = 0; i < inconclusive; ++i) {
        input.llm_label.push_back(i % 2 ? "Positive" : "Negative");
        input.human_label.push_back("Neutral");
        input.verdict.push_back(Verdict::inconclusive);
    }
    return input;
}

double percent(double share) { return std::round(share * 10000) / 100; }  // as printed: 82.14

const ShareRow& row(const PassageSummary& summary, const std::string& label) {
    for (const ShareRow& r : summary.table9)
        if (r.label == label) return r;
    FAIL("no row " << label);
    return summary.table9.front();
}

const CrossCell& cell(const PassageSummary& summary, const std::string& llm,
                      const std::string& human) {
    for (const CrossCell& c : summary.table10)
        if (c.llm_label == llm && c.human_label == human) return c;
    FAIL("no cell " << llm << " x " << human);
    return summary.table10.front();
}

const std::vector<std::string> sentiment{"Positive", "Neutral", "Negative"};
}  // namespace

TEST_CASE("Table 9 (a) recomputed from Table 10 (a)'s counts") {
    // Table 10 (a): counts with the share valid in parentheses, e.g. Positive~Positive
    // 24 (66.67%) = 16 valid. 100 sentences, 84 with passing prerequisites.
    const PassageSummary summary = summarize_passages(passages({{"Positive", "Positive", 24, 16},
                                                                {"Positive", "Neutral", 5, 3},
                                                                {"Neutral", "Neutral", 39, 35},
                                                                {"Negative", "Neutral", 2, 2},
                                                                {"Negative", "Negative", 14, 13}},
                                                               16),
                                                      sentiment);
    CHECK(summary.n_total == 100);
    CHECK(summary.n_inconclusive == 16);
    REQUIRE(summary.table9.size() == 4);
    CHECK(summary.table9[0].label == "");
    CHECK(summary.table9[1].label == "Positive");
    CHECK(summary.table9[3].label == "Negative");
    // Table 9 (a): validity test 82.14 / 65.52 / 89.74 / 93.75; human 91.67 / 82.76 / 100 / 87.50.
    CHECK(row(summary, "").n == 84);
    CHECK(row(summary, "").n_valid == 69);
    CHECK(percent(row(summary, "").share_valid) == 82.14);
    CHECK(percent(row(summary, "Positive").share_valid) == 65.52);  // 19 / 29
    CHECK(percent(row(summary, "Neutral").share_valid) == 89.74);   // 35 / 39
    CHECK(percent(row(summary, "Negative").share_valid) == 93.75);  // 15 / 16
    CHECK(percent(row(summary, "").share_human) == 91.67);          // 77 / 84
    CHECK(percent(row(summary, "Positive").share_human) == 82.76);  // 24 / 29
    CHECK(percent(row(summary, "Neutral").share_human) == 100.00);
    CHECK(percent(row(summary, "Negative").share_human) == 87.50);  // 14 / 16
    // Table 10 (a) back: 3 x 3 cells, shares as printed.
    REQUIRE(summary.table10.size() == 9);
    CHECK(cell(summary, "Positive", "Positive").n == 24);
    CHECK(percent(cell(summary, "Positive", "Positive").share_valid) == 66.67);
    CHECK(percent(cell(summary, "Positive", "Neutral").share_valid) == 60.00);
    CHECK(percent(cell(summary, "Negative", "Negative").share_valid) == 92.86);
    CHECK(cell(summary, "Neutral", "Positive").n == 0);
    CHECK(std::isnan(cell(summary, "Neutral", "Positive").share_valid));
}

TEST_CASE("Table 9 (b) recomputed from Table 10 (b)'s counts") {
    const PassageSummary summary = summarize_passages(passages({{"Positive", "Positive", 26, 15},
                                                                {"Positive", "Neutral", 26, 13},
                                                                {"Neutral", "Neutral", 14, 14},
                                                                {"Negative", "Neutral", 3, 3},
                                                                {"Negative", "Negative", 13, 11}},
                                                               18),
                                                      sentiment);
    // Table 9 (b): 68.29 / 53.85 / 100.00 / 87.50; human 64.63 / 50.00 / 100.00 / 81.25.
    CHECK(row(summary, "").n == 82);
    CHECK(percent(row(summary, "").share_valid) == 68.29);
    CHECK(percent(row(summary, "Positive").share_valid) == 53.85);
    CHECK(percent(row(summary, "Neutral").share_valid) == 100.00);
    CHECK(percent(row(summary, "Negative").share_valid) == 87.50);
    CHECK(percent(row(summary, "").share_human) == 64.63);
    CHECK(percent(row(summary, "Positive").share_human) == 50.00);
    CHECK(percent(row(summary, "Negative").share_human) == 81.25);
    CHECK(percent(cell(summary, "Positive", "Positive").share_valid) == 57.69);
    CHECK(percent(cell(summary, "Negative", "Negative").share_valid) == 84.62);
}

TEST_CASE("passage summary without human labels: labels matched loosely and extra labels last") {
    PassageSummaryInput input;
    input.llm_label = {"positive", "Positive ", "Other", "Negative"};
    input.verdict = {Verdict::valid, Verdict::invalid, Verdict::valid, Verdict::inconclusive};
    const PassageSummary summary = summarize_passages(input, sentiment);
    REQUIRE(summary.table9.size() == 5);  // overall, 3 labels of S, "Other"
    CHECK(summary.table9[1].n == 2);
    CHECK(summary.table9[1].share_valid == 0.5);
    CHECK(summary.table9[4].label == "Other");
    CHECK(std::isnan(summary.table9[0].share_human));
    CHECK(std::isnan(summary.table9[2].share_valid));  // Neutral: no passage
    CHECK(summary.table10.empty());
    input.human_label = {"Positive"};
    CHECK_THROWS_WITH(summarize_passages(input, sentiment), Catch::Contains("`human_label`"));
}

TEST_CASE("Benjamini-Hochberg equals R's p.adjust with method BH") {
    // By hand, m = 5 (the NaN is left out): sorted p 0.01 0.03 0.04 0.04 0.20 times m / i
    // = 0.05 0.075 0.0667 0.05 0.20, cumulative minimum from the top = 0.05 0.05 0.05 0.05 0.20.
    const double nan = std::nan("");
    const std::vector<double> adjusted = benjamini_hochberg({0.01, 0.04, 0.03, 0.20, nan, 0.04});
    CHECK(adjusted[0] == Approx(0.05));
    CHECK(adjusted[1] == Approx(0.05));
    CHECK(adjusted[2] == Approx(0.05));
    CHECK(adjusted[3] == Approx(0.20));
    CHECK(std::isnan(adjusted[4]));
    CHECK(adjusted[5] == Approx(0.05));
    // R: p.adjust(c(0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216), "BH")
    const std::vector<double> ten =
        benjamini_hochberg({0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216});
    const std::vector<double> r{0.01,  0.04,  0.084, 0.084, 0.084, 0.1, 0.10571428571428571,
                                0.216, 0.216, 0.216};
    for (std::size_t i = 0; i < r.size(); ++i) CHECK(ten[i] == Approx(r[i]).margin(1e-15));
    CHECK(benjamini_hochberg({}).empty());
    CHECK(benjamini_hochberg({0.9, 0.95})[0] == Approx(0.95));  // capped by the cumulative min
    CHECK_THROWS_WITH(benjamini_hochberg({0.5, 1.5}), Catch::Contains("`p_values`"));
}
