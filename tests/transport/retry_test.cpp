// The pure retry rules: server-requested waits, backoff, token buckets. No network, no sleep.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "llmvalidate/error.hpp"
#include "transport/retry.hpp"

TEST_CASE("Retry-After is read as seconds or as an HTTP-date") {
    const double now = 1445412480.0;  // Wed, 21 Oct 2015 07:28:00 GMT (date -u -d ... +%s)
    CHECK(*llmv::parse_retry_after("120", now) == 120.0);
    CHECK(*llmv::parse_retry_after(" 0.5 ", now) == 0.5);
    CHECK(*llmv::parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now) == Approx(30.0));
    CHECK(*llmv::parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now) == 0.0);  // past
    CHECK_FALSE(llmv::parse_retry_after("soon", now));
    CHECK_FALSE(llmv::parse_retry_after("-5", now));
    CHECK_FALSE(llmv::parse_retry_after("", now));
}

TEST_CASE("HTTP-dates and RFC 3339 timestamps convert to Unix seconds") {
    CHECK(*llmv::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT") == 1445412480.0);
    CHECK(*llmv::parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT") == 0.0);
    CHECK_FALSE(llmv::parse_http_date("Wed, 21 Foo 2015 07:28:00 GMT"));
    CHECK_FALSE(llmv::parse_http_date("Wed, 21 Oct 2015 25:28:00 GMT"));
    // date -u -d "2024-01-01T00:00:30Z" +%s
    CHECK(*llmv::parse_rfc3339("2024-01-01T00:00:30Z") == 1704067230.0);
    CHECK(*llmv::parse_rfc3339("2024-01-01T00:00:30.25Z") == Approx(1704067230.25));
    CHECK(*llmv::parse_rfc3339("2024-01-01T01:00:30+01:00") == 1704067230.0);
    CHECK(*llmv::parse_rfc3339("2023-12-31T23:00:30-01:00") == 1704067230.0);
    CHECK_FALSE(llmv::parse_rfc3339("2024-01-01 garbage"));
    CHECK_FALSE(llmv::parse_rfc3339("2024-01-01T00:00:30"));  // no zone
}

TEST_CASE("Go-style durations of OpenAI's reset headers") {
    CHECK(*llmv::parse_go_duration("1s") == 1.0);
    CHECK(*llmv::parse_go_duration("6m0s") == 360.0);
    CHECK(*llmv::parse_go_duration("250ms") == Approx(0.25));
    CHECK(*llmv::parse_go_duration("1h2m3.5s") == Approx(3723.5));
    CHECK(*llmv::parse_go_duration("17ms") == Approx(0.017));
    CHECK(*llmv::parse_go_duration("2") == 2.0);
    CHECK_FALSE(llmv::parse_go_duration("6 minutes"));
    CHECK_FALSE(llmv::parse_go_duration("s"));
}

TEST_CASE("The server's wait: Retry-After first, then the reset of the exhausted limit") {
    const double now = 1704067200.0;  // 2024-01-01T00:00:00Z
    CHECK(*llmv::server_requested_wait({{"retry-after", "7"}, {"x-ratelimit-reset-requests", "1s"}},
                                       now) == 7.0);
    CHECK(*llmv::server_requested_wait({{"retry-after-ms", "1500"}}, now) == 1.5);
    // OpenAI: the tokens limit is the exhausted one.
    CHECK(*llmv::server_requested_wait({{"x-ratelimit-remaining-requests", "10"},
                                        {"x-ratelimit-reset-requests", "1s"},
                                        {"x-ratelimit-remaining-tokens", "0"},
                                        {"x-ratelimit-reset-tokens", "6m0s"}},
                                       now) == 360.0);
    CHECK(*llmv::server_requested_wait({{"x-ratelimit-remaining-requests", "0"},
                                        {"x-ratelimit-reset-requests", "2s"},
                                        {"x-ratelimit-remaining-tokens", "500"},
                                        {"x-ratelimit-reset-tokens", "6m0s"}},
                                       now) == 2.0);
    // No remaining header says which: the longest reset.
    CHECK(*llmv::server_requested_wait(
              {{"x-ratelimit-reset-requests", "2s"}, {"x-ratelimit-reset-tokens", "3s"}}, now) ==
          3.0);
    // Anthropic: RFC 3339 reset times.
    CHECK(*llmv::server_requested_wait(
              {{"anthropic-ratelimit-requests-remaining", "0"},
               {"anthropic-ratelimit-requests-reset", "2024-01-01T00:00:12Z"},
               {"anthropic-ratelimit-tokens-remaining", "9000"},
               {"anthropic-ratelimit-tokens-reset", "2024-01-01T00:01:00Z"}},
              now) == 12.0);
    // The rule goes by the headers' shape, not a vendor's name: a provider of one's own with
    // its own prefix is read the same way, a duration or a time, the exhausted limit first.
    CHECK(*llmv::server_requested_wait({{"acme-ratelimit-output-tokens-remaining", "0"},
                                        {"acme-ratelimit-output-tokens-reset", "45s"},
                                        {"acme-ratelimit-requests-remaining", "3"},
                                        {"acme-ratelimit-requests-reset", "2024-01-01T00:02:00Z"}},
                                       now) == 45.0);
    CHECK_FALSE(llmv::server_requested_wait({{"acme-ratelimit-limit-tokens", "9000"}}, now));
    CHECK_FALSE(llmv::server_requested_wait({{"content-type", "application/json"}}, now));
}

TEST_CASE("Statuses map to retry decisions and stable error codes") {
    llmv::RetryPolicy policy;
    for (long status : {429L, 500L, 502L, 503L, 504L, 529L}) {
        CHECK(llmv::is_retryable_status(policy, status));
    }
    for (long status : {200L, 400L, 401L, 403L, 404L, 422L}) {
        CHECK_FALSE(llmv::is_retryable_status(policy, status));
    }
    CHECK(std::string(llmv::error_code_for_status(200)).empty());
    CHECK(std::string(llmv::error_code_for_status(400)) == llmv::code::provider_bad_request);
    CHECK(std::string(llmv::error_code_for_status(401)) == llmv::code::provider_auth);
    CHECK(std::string(llmv::error_code_for_status(403)) == llmv::code::provider_auth);
    CHECK(std::string(llmv::error_code_for_status(404)) == llmv::code::provider_not_found);
    CHECK(std::string(llmv::error_code_for_status(429)) == llmv::code::provider_rate_limited);
    CHECK(std::string(llmv::error_code_for_status(529)) == llmv::code::provider_server);
}

TEST_CASE("Backoff grows exponentially, is capped at 60 s, and its jitter is seeded") {
    llmv::RetryPolicy policy;  // 1 s, x2, cap 60 s, jitter 0.5
    llmv::Backoff first(policy), second(policy);
    for (int retry = 1; retry <= 12; ++retry) {
        const double nominal = std::min(60.0, std::pow(2.0, retry - 1));
        const double delay = first.delay(retry);
        CHECK(delay <= nominal);
        CHECK(delay >= 0.5 * nominal);
        CHECK(second.delay(retry) == delay);  // same seed, same draws
    }
    policy.jitter_seed = 99;
    llmv::Backoff other_seed(policy), reference(llmv::RetryPolicy{});
    bool any_different = false;
    for (int retry = 1; retry <= 5; ++retry) {
        any_different |= other_seed.delay(retry) != reference.delay(retry);
    }
    CHECK(any_different);

    policy.jitter = 0;
    llmv::Backoff exact(policy);
    CHECK(exact.delay(1) == 1.0);
    CHECK(exact.delay(3) == 4.0);
    CHECK(exact.delay(30) == 60.0);
}

TEST_CASE("Token bucket paces takes and lets an oversized take through when full") {
    llmv::TokenBucket bucket(10.0, 5.0, 0.0);  // 10/s, holds 5
    CHECK(bucket.wait_seconds(1, 0.0) == 0.0);
    for (int i = 0; i < 5; ++i) bucket.take(1, 0.0);
    CHECK(bucket.wait_seconds(1, 0.0) == Approx(0.1));
    CHECK(bucket.wait_seconds(1, 0.05) == Approx(0.05));
    CHECK(bucket.wait_seconds(1, 0.1) == Approx(0.0));
    // Refill stops at the capacity.
    CHECK(bucket.level(100.0) == 5.0);
    // 20 > capacity: allowed once full, then the debt must be paid back.
    CHECK(bucket.wait_seconds(20, 100.0) == 0.0);
    bucket.take(20, 100.0);
    CHECK(bucket.level(100.0) == -15.0);
    CHECK(bucket.wait_seconds(1, 100.0) == Approx(1.6));
}
