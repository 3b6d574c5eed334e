// What a run cost: requests, retries, cache hits, failures and tokens per model, and dollars
// when the user gives prices. There is no built-in price list: prices go stale.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace llmv {

struct ModelUsage {
    std::uint64_t requests = 0;             // HTTP requests sent, retries included
    std::uint64_t retries = 0;              // requests beyond the first for a job
    std::uint64_t cache_hits = 0;           // answers served from the cache (no request)
    std::uint64_t failures = 0;             // jobs that ended without a usable response
    std::uint64_t invalid_answers = 0;      // paid-for answers that did not parse or were outside S
    std::uint64_t input_tokens = 0;         // every input token, cached ones included
    std::uint64_t cached_input_tokens = 0;  // of them, read from the provider's prompt cache
    std::uint64_t cache_write_input_tokens = 0;  // of them, written to it (Anthropic bills more)
    std::uint64_t output_tokens = 0;
    // Of the tokens above, those of requests whose prompt was over the model's tier threshold
    // (Accounting::set_tier_threshold; a price table's tier_threshold), priced at other rates.
    std::uint64_t tier_input_tokens = 0, tier_cached_input_tokens = 0,
                  tier_cache_write_input_tokens = 0, tier_output_tokens = 0;
    // Of output_tokens, the model's reasoning (OpenAI completion_tokens_details.
    // reasoning_tokens, Anthropic output_tokens_details.thinking_tokens): billed as output.
    std::uint64_t reasoning_tokens = 0;

    ModelUsage& operator+=(const ModelUsage& other);
};

// US dollars per million tokens.
struct TokenPrice {
    double input_per_million = 0;
    double output_per_million = 0;
};

struct CostReport {
    double total_dollars = 0;
    std::map<std::string, double> dollars_by_model;
    // Models with tokens but no price: their cost is not in the total.
    std::vector<std::string> unpriced_models;
};

// Thread-safe: the transport and the pipeline both record into one object.
class Accounting {
  public:
    void add_request(const std::string& model, std::uint64_t count = 1);
    void add_retry(const std::string& model, std::uint64_t count = 1);
    void add_cache_hit(const std::string& model, std::uint64_t count = 1);
    void add_failure(const std::string& model, std::uint64_t count = 1);
    void add_invalid_answer(const std::string& model, std::uint64_t count = 1);
    void add_tokens(const std::string& model, std::uint64_t input_tokens,
                    std::uint64_t output_tokens, std::uint64_t cached_input_tokens = 0,
                    std::uint64_t cache_write_input_tokens = 0,
                    std::uint64_t reasoning_tokens = 0);
    // A request of `model` whose input tokens (cached and written ones included) are over
    // `prompt_tokens` is also counted in the usage's tier_* fields; 0: none.
    void set_tier_threshold(const std::string& model, std::uint64_t prompt_tokens);
    void merge(const Accounting& other);
    void clear();

    std::map<std::string, ModelUsage> by_model() const;
    ModelUsage total() const;
    CostReport cost(const std::map<std::string, TokenPrice>& prices) const;
    // A few human-readable lines (one per model, then the total and the cost if priced).
    std::string summary(const std::map<std::string, TokenPrice>& prices = {}) const;

  private:
    mutable std::mutex mutex_;
    std::map<std::string, ModelUsage> usage_;
    std::map<std::string, std::uint64_t> tier_thresholds_;
};

}  // namespace llmv
