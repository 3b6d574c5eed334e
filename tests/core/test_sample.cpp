// The reproducible row sample (sample.hpp) behind `batch --sample`, R's llm_sample() and Stata.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "llmvalidate/error.hpp"
#include "llmvalidate/sample.hpp"

using namespace llmv;

TEST_CASE("sample_rows draws n distinct rows in increasing order, the same for the same seed") {
    const auto rows = sample_rows(4846, 100, 7);
    REQUIRE(rows.size() == 100);
    CHECK(std::is_sorted(rows.begin(), rows.end()));
    CHECK(std::set<std::size_t>(rows.begin(), rows.end()).size() == 100);
    CHECK(rows.back() < 4846);
    CHECK(sample_rows(4846, 100, 7) == rows);
    CHECK(sample_rows(4846, 100, 8) != rows);
    const auto all = sample_rows(5, 5, 3);
    CHECK(all == std::vector<std::size_t>{0, 1, 2, 3, 4});
    CHECK(sample_rows(5, 0, 3).empty());
}

TEST_CASE("sample_rows gives every row the same chance") {
    // 4000 draws of 3 of 10 rows: each row is drawn 1200 times in expectation; the binomial
    // standard deviation is about 29, so 6 of them is a bound a uniform draw meets.
    std::map<std::size_t, int> counts;
    for (std::uint64_t seed = 0; seed < 4000; ++seed)
        for (std::size_t row : sample_rows(10, 3, seed)) ++counts[row];
    REQUIRE(counts.size() == 10);
    for (const auto& [row, count] : counts) {
        INFO("row " << row);
        CHECK(std::abs(count - 1200) < 6 * 29);
    }
}

TEST_CASE("sample_rows refuses more rows than there are, naming the option") {
    CHECK_THROWS_WITH(sample_rows(10, 11, 1, "--sample"),
                      Catch::Matchers::Contains("--sample") && Catch::Matchers::Contains("11") &&
                          Catch::Matchers::Contains("10 rows"));
}

TEST_CASE("RowFilter keeps rows whose column has one of the values") {
    const RowFilter filter = RowFilter::parse("agreement=50|66; label = positive");
    CHECK(filter.columns() == std::vector<std::string>{"agreement", "label"});
    std::map<std::string, std::string> row = {{"agreement", "66"}, {"label", "positive"}};
    const auto value_of = [&](const std::string& column) { return row[column]; };
    CHECK(filter.matches(value_of));
    row["agreement"] = "100";
    CHECK_FALSE(filter.matches(value_of));
    CHECK(RowFilter::parse("").empty());
    CHECK_THROWS_WITH(RowFilter::parse("agreement", "--where"),
                      Catch::Matchers::Contains("--where") && Catch::Matchers::Contains("COLUMN=VALUE"));
}
