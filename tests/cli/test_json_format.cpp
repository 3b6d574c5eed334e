// The JSON layer in-process: positions, seeds, non-finite numbers and exact double round trips.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "llmvalidate/error.hpp"
#include "llmvalidate/standalone_format.hpp"

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

std::string error_code_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const llmv::Error& error) {
        return error.code();
    }
    return "";
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

}  // namespace

TEST_CASE("json_line_column counts lines and UTF-8 characters", "[cli][format]") {
    const std::string text = "{\n  \"a\": \"é\", x\n}";
    CHECK(llmv::json_line_column(text, 0) == std::make_pair<std::size_t, std::size_t>(1, 1));
    CHECK(llmv::json_line_column(text, 1) == std::make_pair<std::size_t, std::size_t>(1, 2));
    CHECK(llmv::json_line_column(text, 2) == std::make_pair<std::size_t, std::size_t>(2, 1));
    const std::size_t x = text.find('x');
    // Line 2 is `  "a": "é", x`: x is the 13th character but the 14th byte.
    CHECK(llmv::json_line_column(text, x) == std::make_pair<std::size_t, std::size_t>(2, 13));
    CHECK(llmv::json_line_column(text, 10'000) == std::make_pair<std::size_t, std::size_t>(3, 2));
}

TEST_CASE("parse_json_text reports where the text breaks also after a byte order mark",
          "[cli][format]") {
    for (const std::string& prefix : {std::string(), std::string("\xEF\xBB\xBF")}) {
        try {
            llmv::parse_json_text(prefix + "{\"a\": [1, 2,]}", "`x.json`");
            FAIL("no error");
        } catch (const llmv::Error& error) {
            CHECK(error.code() == llmv::code::malformed_json);
            CHECK_THAT(error.what(),
                       Catch::Contains("malformed JSON in `x.json` at line 1, column 13"));
        }
    }
    CHECK(llmv::parse_json_text("\xEF\xBB\xBF{\"a\": 1}", "x")["a"] == 1);
}

TEST_CASE("seeds are numbers up to 2^53 or strings of digits up to 2^64 - 1",
          "[cli][format][seed]") {
    CHECK(llmv::seed_from_json(json(0), "seed") == 0);
    CHECK(llmv::seed_from_json(json(7.0), "seed") == 7);
    CHECK(llmv::seed_from_json(json(9007199254740992ULL), "seed") == 9007199254740992ULL);
    CHECK(llmv::seed_from_json(json("18446744073709551615"), "seed") == 18446744073709551615ULL);
    CHECK(llmv::seed_from_json(json("00042"), "seed") == 42);
    for (const json& bad : {json(9007199254740993ULL), json(-1), json(0.5), json("1e3"), json(""),
                            json("18446744073709551616"), json("99999999999999999999"), json(true),
                            json(nullptr), json::array()}) {
        INFO(bad.dump());
        CHECK(error_code_of([&] { llmv::seed_from_json(bad, "seed"); }) ==
              llmv::code::invalid_argument);
    }
    // Written back as a number when exact in a double, else as a string.
    CHECK(llmv::seed_to_json(1) == 1);
    CHECK(llmv::seed_to_json(9007199254740992ULL).is_number());
    CHECK(llmv::seed_to_json(9007199254740993ULL) == "9007199254740993");
    for (std::uint64_t seed : {0ULL, 1ULL, 9007199254740993ULL, 18446744073709551615ULL})
        CHECK(llmv::seed_from_json(json::parse(llmv::seed_to_json(seed).dump()), "seed") == seed);
}

TEST_CASE("doubles survive dump and parse bit for bit and non-finite numbers become null",
          "[cli][format]") {
    const std::vector<double> values = {
        0.1,    1.0 / 3.0, 2.0 / 3.0, std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0), -0.0,
        5e-324, DBL_MIN,   DBL_MAX,   0.7853981633974483,       123456789.12345679,       -1e-300};
    llmv::stats::TestInput input;
    input.label = "A";
    llmv::stats::TestOutput output;
    output.validation.method = "exact";
    output.validation.statistic = values[1];
    output.validation.critical_value = -std::numeric_limits<double>::infinity();
    output.validation.p_value = std::numeric_limits<double>::quiet_NaN();
    output.validation.null_distribution =
        Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
    llmv::TestJsonWriteOptions write_options;
    write_options.null_distributions = true;
    const std::string text =
        llmv::dump_json(llmv::test_output_to_json(input, output, write_options), false);

    const json parsed = json::parse(text);
    CHECK(parsed["validation"]["critical_value"].is_null());
    CHECK(parsed["validation"]["p_value"].is_null());
    CHECK(same_bits(parsed["validation"]["statistic"].get<double>(), values[1]));
    const json& written = parsed["validation"]["null_distribution"];
    REQUIRE(written.size() == values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        INFO(written[i].dump());
        CHECK(same_bits(written[i].get<double>(), values[i]));
    }
    // And a second round trip writes the very same text.
    CHECK(llmv::dump_json(ordered_json::parse(text), false) == text);
    // Not run: backtranslation fields are null, the options are echoed.
    CHECK(parsed["backtranslation"]["run"] == false);
    CHECK(parsed["backtranslation"]["accuracy"].is_null());
    CHECK(parsed["backtranslation"]["threshold"] == 0.9);
    CHECK(parsed["backtranslation"]["label"] == "A");
}

TEST_CASE("test_input_from_json reads every field", "[cli][format]") {
    const json document = json::parse(R"({
        "label": "Pos", "labels": ["Pos", "Neg"],
        "passage": [1, 0.5],
        "pools": {"Pos": [[1, 0], [0.9, 0.1]], "Neg": [[0, 1], [0.1, 0.9], [0.2, 0.8]]},
        "backtranslation": {"Pos": ["Pos", "Neg"]},
        "paper_reference": {"Neg": [[0.3, 0.7]]},
        "alpha": 0.1, "threshold": 0.8, "seed": "12345678901234567890", "permutations": 49.0,
        "validation_method": "paper", "separation_method": "paper", "backtranslation_rule": "bound",
        "_comment": "ignored", "backtranslation_unused": null
    })");
    CHECK(error_code_of([&] { llmv::test_input_from_json(document); }) ==
          llmv::code::invalid_argument);  // backtranslation_unused is not a field
    json valid = document;
    valid.erase("backtranslation_unused");
    const llmv::stats::TestInput input = llmv::test_input_from_json(valid);
    CHECK(input.label == "Pos");
    CHECK(input.labels == std::vector<std::string>{"Pos", "Neg"});
    CHECK(input.passage.size() == 2);
    CHECK(input.passage(1) == 0.5);
    REQUIRE(input.pools.at("Neg").rows() == 3);
    CHECK(input.pools.at("Neg").cols() == 2);
    CHECK(input.pools.at("Neg")(2, 1) == 0.8);
    CHECK(input.backtranslation.at("Pos") == std::vector<std::string>{"Pos", "Neg"});
    CHECK(input.paper_reference.at("Neg")(0, 0) == 0.3);
    CHECK(input.options.alpha == 0.1);
    CHECK(input.options.threshold == 0.8);
    CHECK(input.options.seed == 12345678901234567890ULL);
    CHECK(input.options.permutations == 49);
    CHECK(input.options.validation_method == "paper");
    CHECK(input.options.separation_method == "paper");
    CHECK(input.options.backtranslation_rule == "bound");

    // Defaults, and null meaning "use the default".
    json minimal = valid;
    for (const char* field :
         {"backtranslation", "paper_reference", "threshold", "seed", "permutations",
          "validation_method", "separation_method", "backtranslation_rule"})
        minimal.erase(field);
    minimal["alpha"] = nullptr;
    const llmv::stats::TestInput defaults = llmv::test_input_from_json(minimal);
    CHECK(defaults.options.alpha == 0.05);
    CHECK(defaults.options.threshold == 0.9);
    CHECK(defaults.options.seed == 1);
    CHECK(defaults.options.permutations == 999);
    CHECK(defaults.options.validation_method == "exact");
    CHECK(defaults.options.separation_method == "permutation");
    CHECK(defaults.options.backtranslation_rule == "point");
    CHECK(defaults.backtranslation.empty());
}
