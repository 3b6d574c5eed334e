// The settings table and the error taxonomy (issue 10): one declaration in the engine that every
// front end reads.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/settings.hpp"

using namespace llmv;

namespace {

std::string message_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& error) {
        CHECK(error.code() == code::invalid_argument);
        return error.what();
    }
    FAIL("no error was thrown");
    return "";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A value just outside the setting's range (or not among its choices).
settings::Value outside(const settings::Setting& setting) {
    settings::Value value;
    switch (setting.kind) {
        case settings::Kind::integer:
        case settings::Kind::number:
            value.number = setting.high + (setting.kind == settings::Kind::integer ? 1 : 0.5);
            if (setting.high >= 1e9) value.number = setting.low - 1;
            break;
        case settings::Kind::choice:
            value.text = "no-such-choice";
            break;
        case settings::Kind::seed:
            value.text = "-1";
            break;
        case settings::Kind::flag:
            value.number = 2;
            break;
        case settings::Kind::text:
            break;
    }
    return value;
}

}  // namespace

// Every setting the table reads for a front end (not by hand) is a field of ValidationConfig
// (its statistics' ones of stats::TestOptions too), bound by visit_settings() next to it.
TEST_CASE("every setting has a unique name and spellings, a doc line and a field",
          "[settings]") {
    std::set<std::string> names, cli, r, stata;
    for (const settings::Setting& setting : settings::table()) {
        INFO(setting.name);
        CHECK(names.insert(setting.name).second);
        // R's embedding object carries the embedding provider and its model, and each provider
        // object its base_url: knobs read by hand may share R's spelling.
        if (!setting.cli.empty()) CHECK(cli.insert(setting.cli).second);
        if (!setting.r.empty() && !setting.by_hand) CHECK(r.insert(setting.r).second);
        if (!setting.stata.empty()) CHECK(stata.insert(setting.stata).second);
        CHECK(!setting.doc.empty());
        if (setting.by_hand) continue;
        CHECK(settings::binds(pipeline::ValidationConfig{}, setting.name));
        CHECK(settings::binds(stats::TestOptions{}, setting.name) == setting.statistics);
    }
}

TEST_CASE("the defaults of ValidationConfig pass the table's check", "[settings]") {
    CHECK_NOTHROW(settings::check(pipeline::ValidationConfig{}));
    CHECK_NOTHROW(settings::check(stats::TestOptions{}));
    CHECK(pipeline::setting_default(settings::setting("alpha")) == "0.05");
    CHECK(pipeline::setting_default(settings::setting("permutations")) == "999");
    CHECK(pipeline::setting_default(settings::setting("validation_method")) == "exact");
    CHECK(pipeline::setting_default(settings::setting("top_p")).empty());
    CHECK(pipeline::setting_default(settings::setting("timeout")) == "300");
    CHECK(pipeline::setting_default(settings::setting("provider")) == "auto");
    CHECK(pipeline::setting_default(settings::setting("replications")) == "200");
}

TEST_CASE("check() refuses a value outside the range of every setting, naming the front end's "
          "spelling",
          "[settings]") {
    for (const settings::Setting& setting : settings::table()) {
        INFO(setting.name);
        // Every uint64 is a seed and every bool a flag: parse() checks what a user types.
        if (setting.kind == settings::Kind::seed || setting.kind == settings::Kind::flag ||
            setting.by_hand)
            continue;
        pipeline::ValidationConfig config;
        settings::set(config, setting, outside(setting));
        const std::string engine = message_of([&] { settings::check(config); });
        CHECK(contains(engine, "`" + setting.name + "`"));
        CHECK(contains(engine, settings::allowed(setting)));
        if (!setting.stata.empty()) {
            const std::string stata =
                message_of([&] { settings::check(config, settings::FrontEnd::stata); });
            CHECK(contains(stata, "`" + setting.stata + "()`"));
        }
        if (!setting.cli.empty()) {
            const std::string cli =
                message_of([&] { settings::check(config, settings::FrontEnd::cli); });
            CHECK(contains(cli, "`" + setting.cli + "`"));
        }
    }
}

TEST_CASE("alpha is in [1e-06, 0.5] and permutations in 1..10^6 for the pipeline and for the tests "
          "alike",
          "[settings]") {
    stats::TestOptions options;
    options.alpha = 0.6;
    CHECK(message_of([&] { settings::check(options); }) ==
          "`alpha` must be a number in [1e-06, 0.5]; received 0.6.");
    options.alpha = 0.5;
    CHECK_NOTHROW(settings::check(options));
    options.permutations = 1000000000;
    CHECK(message_of([&] { settings::check(options); }) ==
          "`permutations` must be a whole number in 1..1000000; received 1000000000.");
    pipeline::ValidationConfig config;
    config.tests.alpha = 0.6;
    CHECK(message_of([&] { settings::check(config, settings::FrontEnd::stata); }) ==
          "`alpha()` must be a number in [1e-06, 0.5]; received 0.6.");
}

TEST_CASE("parse() reads what a user typed and names the setting when it is not a number",
          "[settings]") {
    const settings::Setting& alpha = settings::setting("alpha");
    CHECK(settings::parse(alpha, "0.1", settings::FrontEnd::cli).number == 0.1);
    CHECK(message_of([&] { settings::parse(alpha, "abc", settings::FrontEnd::cli); }) ==
          "`--alpha` must be a number in [1e-06, 0.5]; received \"abc\".");
    const settings::Setting& seed = settings::setting("seed");
    pipeline::ValidationConfig config;
    settings::set(config, seed, settings::parse(seed, "18446744073709551615", settings::FrontEnd::cli));
    CHECK(config.tests.seed == 18446744073709551615ULL);
    CHECK_THROWS_AS(settings::parse(seed, "18446744073709551616", settings::FrontEnd::cli), Error);
}

TEST_CASE("every stable error code has a category, unknown codes are internal", "[errors]") {
    std::set<std::string> seen;
    for (const std::string& error_code : all_error_codes()) {
        INFO(error_code);
        CHECK(seen.insert(error_code).second);
        const ErrorCategory category = error_category(error_code);
        const std::string name = category_name(category);
        if (error_code == code::internal) {
            CHECK(category == ErrorCategory::internal);
        } else {
            CHECK(category != ErrorCategory::internal);
        }
        CHECK(!name.empty());
    }
    CHECK(error_category(code::provider_malformed_response) == ErrorCategory::provider);
    CHECK(error_category(code::provider_label_outside_set) == ErrorCategory::provider);
    CHECK(error_category(code::timeout) == ErrorCategory::transport);
    CHECK(error_category(code::cache) == ErrorCategory::io);
    CHECK(error_category(code::usage) == ErrorCategory::usage);
    CHECK(error_category("llmv.something.new") == ErrorCategory::internal);
}

// Issue 25: every size a user gives bounds a loop (pool size, per-call n, repeats, permutations,
// reference texts, retries, concurrency, ...): each number of the table has a finite upper
// bound, and the value just above it is refused by every front end's check.
TEST_CASE("every number of the settings table has a finite range, enforced", "[settings]") {
    for (const settings::Setting& setting : settings::table()) {
        if (setting.kind != settings::Kind::integer && setting.kind != settings::Kind::number) continue;
        INFO(setting.name);
        CHECK(std::isfinite(setting.low));
        CHECK(std::isfinite(setting.high));
        const double above = setting.high + std::max(1.0, std::abs(setting.high) * 1e-9);
        CHECK_THROWS(settings::check_value(setting, settings::Value{true, above, {}}, settings::FrontEnd::cli));
        const double below = setting.low - std::max(1.0, std::abs(setting.low) * 1e-9);
        CHECK_THROWS(settings::check_value(setting, settings::Value{true, below, {}}, settings::FrontEnd::cli));
    }
    // alpha's lower end is where a test can still decide: 1/(size + 1) <= alpha with the largest
    // permutations the table allows.
    const settings::Setting& alpha = settings::setting("alpha");
    const settings::Setting& permutations = settings::setting("permutations");
    CHECK(1.0 / (permutations.high + 1) <= alpha.low);
    CHECK_THROWS_WITH(settings::check_value(alpha, settings::Value{true, 1e-20, {}}, settings::FrontEnd::r),
                      "`alpha` must be a number in [1e-06, 0.5]; received 1e-20.");
}
