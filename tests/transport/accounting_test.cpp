#include <catch2/catch.hpp>

#include "llmvalidate/accounting.hpp"

TEST_CASE("Accounting adds up per model and prices only what the user priced") {
    llmv::Accounting accounting;
    accounting.add_request("gpt-4o", 10);
    accounting.add_retry("gpt-4o", 2);
    accounting.add_cache_hit("gpt-4o", 5);
    accounting.add_tokens("gpt-4o", 1'000'000, 200'000);
    accounting.add_tokens("gpt-4o", 500'000, 0);
    accounting.add_request("claude", 3);
    accounting.add_failure("claude");
    accounting.add_invalid_answer("claude", 2);
    accounting.add_tokens("claude", 2'000, 3'000);

    const auto usage = accounting.by_model();
    CHECK(usage.at("gpt-4o").requests == 10);
    CHECK(usage.at("gpt-4o").retries == 2);
    CHECK(usage.at("gpt-4o").cache_hits == 5);
    CHECK(usage.at("gpt-4o").input_tokens == 1'500'000);
    CHECK(usage.at("gpt-4o").output_tokens == 200'000);
    CHECK(usage.at("claude").failures == 1);
    CHECK(usage.at("claude").invalid_answers == 2);
    const auto total = accounting.total();
    CHECK(total.requests == 13);
    CHECK(total.input_tokens == 1'502'000);
    CHECK(total.output_tokens == 203'000);

    // $2.50 / $10 per million: 1.5 * 2.5 + 0.2 * 10 = 5.75.
    const auto priced = accounting.cost({{"gpt-4o", {2.5, 10.0}}});
    CHECK(priced.total_dollars == Approx(5.75));
    CHECK(priced.dollars_by_model.at("gpt-4o") == Approx(5.75));
    CHECK(priced.unpriced_models == std::vector<std::string>{"claude"});
    // $3 / $15 per million: 0.002 * 3 + 0.003 * 15 = 0.051.
    const auto both = accounting.cost({{"gpt-4o", {2.5, 10.0}}, {"claude", {3.0, 15.0}}});
    CHECK(both.total_dollars == Approx(5.801));
    CHECK(both.unpriced_models.empty());
    CHECK(accounting.cost({}).total_dollars == 0.0);

    const std::string summary = accounting.summary({{"gpt-4o", {2.5, 10.0}}});
    CHECK_THAT(summary, Catch::Contains("gpt-4o: 10 requests (2 retries), 5 cache hits"));
    CHECK_THAT(summary, Catch::Contains("cost: $5.7500 (no price given for claude)"));

    llmv::Accounting other;
    other.add_cache_hit("gpt-4o", 1);
    other.add_tokens("mistral", 1, 1);
    accounting.merge(other);
    CHECK(accounting.by_model().at("gpt-4o").cache_hits == 6);
    CHECK(accounting.by_model().count("mistral") == 1);
    accounting.clear();
    CHECK(accounting.total().requests == 0);
}
