#include "llmvalidate/accounting.hpp"

#include <cstdio>
#include <sstream>

namespace llmv {

ModelUsage& ModelUsage::operator+=(const ModelUsage& other) {
    requests += other.requests;
    retries += other.retries;
    cache_hits += other.cache_hits;
    failures += other.failures;
    invalid_answers += other.invalid_answers;
    input_tokens += other.input_tokens;
    cached_input_tokens += other.cached_input_tokens;
    cache_write_input_tokens += other.cache_write_input_tokens;
    output_tokens += other.output_tokens;
    tier_input_tokens += other.tier_input_tokens;
    tier_cached_input_tokens += other.tier_cached_input_tokens;
    tier_cache_write_input_tokens += other.tier_cache_write_input_tokens;
    tier_output_tokens += other.tier_output_tokens;
    reasoning_tokens += other.reasoning_tokens;
    return *this;
}

void Accounting::add_request(const std::string& model, std::uint64_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    usage_[model].requests += count;
}

void Accounting::add_retry(const std::string& model, std::uint64_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    usage_[model].retries += count;
}

void Accounting::add_cache_hit(const std::string& model, std::uint64_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    usage_[model].cache_hits += count;
}

void Accounting::add_failure(const std::string& model, std::uint64_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    usage_[model].failures += count;
}

void Accounting::add_invalid_answer(const std::string& model, std::uint64_t count) {
    std::lock_guard<std::mutex> lock(mutex_);
    usage_[model].invalid_answers += count;
}

void Accounting::add_tokens(const std::string& model, std::uint64_t input_tokens,
                            std::uint64_t output_tokens, std::uint64_t cached_input_tokens,
                            std::uint64_t cache_write_input_tokens,
                            std::uint64_t reasoning_tokens) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& usage = usage_[model];
    usage.reasoning_tokens += reasoning_tokens;
    usage.input_tokens += input_tokens;
    usage.cached_input_tokens += cached_input_tokens;
    usage.cache_write_input_tokens += cache_write_input_tokens;
    usage.output_tokens += output_tokens;
    // A long prompt: every token of the request at the tier's rates.
    const auto threshold = tier_thresholds_.find(model);
    if (threshold != tier_thresholds_.end() && threshold->second > 0 &&
        input_tokens > threshold->second) {
        usage.tier_input_tokens += input_tokens;
        usage.tier_cached_input_tokens += cached_input_tokens;
        usage.tier_cache_write_input_tokens += cache_write_input_tokens;
        usage.tier_output_tokens += output_tokens;
    }
}

void Accounting::set_tier_threshold(const std::string& model, std::uint64_t prompt_tokens) {
    std::lock_guard<std::mutex> lock(mutex_);
    tier_thresholds_[model] = prompt_tokens;
}

void Accounting::merge(const Accounting& other) {
    if (&other == this) return;
    const auto theirs = other.by_model();
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [model, usage] : theirs) usage_[model] += usage;
}

void Accounting::clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    usage_.clear();
}

std::map<std::string, ModelUsage> Accounting::by_model() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return usage_;
}

ModelUsage Accounting::total() const {
    std::lock_guard<std::mutex> lock(mutex_);
    ModelUsage sum;
    for (const auto& entry : usage_) sum += entry.second;
    return sum;
}

CostReport Accounting::cost(const std::map<std::string, TokenPrice>& prices) const {
    CostReport report;
    for (const auto& [model, usage] : by_model()) {
        if (usage.input_tokens == 0 && usage.output_tokens == 0) continue;
        auto price = prices.find(model);
        if (price == prices.end()) {
            report.unpriced_models.push_back(model);
            continue;
        }
        const double dollars =
            static_cast<double>(usage.input_tokens) * price->second.input_per_million / 1e6 +
            static_cast<double>(usage.output_tokens) * price->second.output_per_million / 1e6;
        report.dollars_by_model[model] = dollars;
        report.total_dollars += dollars;
    }
    return report;
}

std::string Accounting::summary(const std::map<std::string, TokenPrice>& prices) const {
    std::ostringstream out;
    auto line = [&](const std::string& name, const ModelUsage& usage) {
        out << name << ": " << usage.requests << " requests (" << usage.retries << " retries), "
            << usage.cache_hits << " cache hits, " << usage.failures << " failures, "
            << usage.invalid_answers << " invalid answers, " << usage.input_tokens
            << " input tokens, " << usage.output_tokens << " output tokens\n";
    };
    for (const auto& [model, usage] : by_model()) line(model.empty() ? "(no model)" : model, usage);
    line("total", total());
    if (!prices.empty()) {
        const CostReport report = cost(prices);
        char dollars[64];
        std::snprintf(dollars, sizeof dollars, "%.4f", report.total_dollars);
        out << "cost: $" << dollars;
        if (!report.unpriced_models.empty()) {
            out << " (no price given for";
            for (const auto& model : report.unpriced_models) out << " " << model;
            out << ")";
        }
        out << "\n";
    }
    return out.str();
}

}  // namespace llmv
