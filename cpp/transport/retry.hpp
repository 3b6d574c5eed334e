// Retry and rate-limit policy for the transport: which failures are retried, how long to
// wait (exponential backoff with jitter, or what the server asked for), and the optional
// requests-per-minute / tokens-per-minute limiters. Everything here is pure: time is passed
// in as seconds, so the rules are tested without sleeping.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/http_status.hpp"  // statuses and server waits, shared with the providers
#include "llmvalidate/rng.hpp"

namespace llmv {

struct RetryPolicy {
    // Retries after the first attempt; a job is sent at most max_retries + 1 times.
    int max_retries = 5;
    // Backoff before retry k (k = 1, 2, ...): initial * multiplier^(k-1), capped, then
    // jittered to a uniform draw in [(1 - jitter) * d, d].
    double initial_backoff_seconds = 1.0;
    double backoff_multiplier = 2.0;
    double max_backoff_seconds = 60.0;
    double jitter = 0.5;
    // A server that asks for a longer wait than this (Retry-After, rate-limit reset headers)
    // has run out of quota for longer than a run should block: the job fails at once with
    // llmv.provider.rate_limited and the server's wait in the message.
    double max_server_wait_seconds = 600.0;
    // Tests shrink server-requested waits (Retry-After: 2 -> 20 ms with 0.01). Always 1 in use.
    double server_wait_scale = 1.0;
    // Retried statuses: by default the transient ones (core/http_status.hpp), which
    // classify_http_failure (provider.hpp) also reads.
    std::vector<long> retry_statuses = transient_statuses();
    bool retry_transport_errors = true;  // connection refused/reset, truncated body, ...
    bool retry_timeouts = true;
    std::uint64_t jitter_seed = 0x6c6c6d76;  // "llmv": jitter is reproducible
};

bool is_retryable_status(const RetryPolicy& policy, long status);

// Backoff delays with a seeded jitter source.
class Backoff {
  public:
    explicit Backoff(const RetryPolicy& policy);
    // Seconds to wait before retry number `retry` (1-based) when the server gave no wait.
    double delay(int retry);

  private:
    RetryPolicy policy_;
    Rng rng_;
};

// A token bucket: `rate_per_second` refill, holding at most `capacity`. A take larger than
// the capacity is allowed once the bucket is full (the level goes negative and later takes
// wait), so one big request never deadlocks.
class TokenBucket {
  public:
    TokenBucket(double rate_per_second, double capacity, double now);
    // Seconds from `now` until `amount` can be taken (0: now).
    double wait_seconds(double amount, double now);
    void take(double amount, double now);
    double level(double now);

  private:
    void refill(double now);
    double rate_;
    double capacity_;
    double level_;
    double last_;
};

// Optional client-side limits. A value <= 0 means no limit. The bucket holds
// `burst_seconds` worth of the rate (at least one request / one request's tokens).
struct RateLimits {
    double requests_per_minute = 0;
    double tokens_per_minute = 0;
    double burst_seconds = 1.0;
};

}  // namespace llmv
