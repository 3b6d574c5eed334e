// Retry rules, server-requested waits and the rate limiters. No curl here: pure functions
// of their inputs, so they are tested without a network and without sleeping.
#include "transport/retry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "llmvalidate/error.hpp"

namespace llmv {

bool is_retryable_status(const RetryPolicy& policy, long status) {
    return std::find(policy.retry_statuses.begin(), policy.retry_statuses.end(), status) !=
           policy.retry_statuses.end();
}

Backoff::Backoff(const RetryPolicy& policy) : policy_(policy), rng_(policy.jitter_seed) {}

double Backoff::delay(int retry) {
    const int exponent = std::max(0, retry - 1);
    double base = policy_.initial_backoff_seconds *
                  std::pow(policy_.backoff_multiplier, static_cast<double>(exponent));
    base = std::min(base, policy_.max_backoff_seconds);
    const double jitter = std::clamp(policy_.jitter, 0.0, 1.0);
    return base * (1.0 - jitter * rng_.uniform());
}

TokenBucket::TokenBucket(double rate_per_second, double capacity, double now)
    : rate_(rate_per_second), capacity_(capacity), level_(capacity), last_(now) {}

void TokenBucket::refill(double now) {
    if (now > last_) {
        level_ = std::min(capacity_, level_ + (now - last_) * rate_);
        last_ = now;
    }
}

double TokenBucket::wait_seconds(double amount, double now) {
    refill(now);
    const double needed = std::min(amount, capacity_);
    if (level_ >= needed) return 0;
    return (needed - level_) / rate_;
}

void TokenBucket::take(double amount, double now) {
    refill(now);
    level_ -= amount;
}

double TokenBucket::level(double now) {
    refill(now);
    return level_;
}

}  // namespace llmv
