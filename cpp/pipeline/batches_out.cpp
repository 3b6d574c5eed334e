// Provider batches still out in a cache (batches_out.hpp).
#include "pipeline/batches_out.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "cache/batch_ledger.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/pending.hpp"

namespace llmv::pipeline {

namespace {

std::vector<ProviderBatchRecord> records_out(const ValidationConfig& config) {
    std::vector<ProviderBatchRecord> out;
    std::error_code ignored;
    if (config.cache_path.empty() || config.cache_path == ":memory:" ||
        !std::filesystem::exists(config.cache_path, ignored))
        return out;
    try {
        Cache cache(config.cache_path, config.cache_busy_timeout_ms);
        BatchLedger ledger(cache);
        for (const char* state : {"submitted", "intent"})
            for (ProviderBatchRecord& record : ledger.provider_batches(state))
                out.push_back(std::move(record));
    } catch (const std::exception&) {
        // A cache that cannot be read here fails the run itself, with its own message.
    }
    return out;
}

}  // namespace

std::string work_key(const ValidationConfig& config, const std::vector<PassageInput>& passages) {
    const ValidationConfig defaults;
    ValidationConfig work = config;
    work.concurrency = defaults.concurrency;
    work.rpm = defaults.rpm;
    work.tpm = defaults.tpm;
    work.max_transport_retries = defaults.max_transport_retries;
    work.total_timeout_ms = defaults.total_timeout_ms;
    work.drain_seconds = defaults.drain_seconds;
    work.poll_interval_seconds = defaults.poll_interval_seconds;
    work.cache_busy_timeout_ms = defaults.cache_busy_timeout_ms;
    work.price_table = defaults.price_table;
    work.keep_texts = defaults.keep_texts;
    return pending_key(work, passages);
}

bool cache_has_batches_out(const ValidationConfig& config) { return !records_out(config).empty(); }

std::vector<std::string> batches_out_of_run(const ValidationConfig& config,
                                            const std::vector<PassageInput>& passages) {
    std::vector<std::string> ids;
    const std::vector<ProviderBatchRecord> records = records_out(config);
    if (records.empty()) return ids;
    const std::string key = work_key(config, passages);
    for (const ProviderBatchRecord& record : records) {
        const nlohmann::json info = nlohmann::json::parse(record.request, nullptr, false);
        if (info.is_object() && info.value("run", std::string()) == key) ids.push_back(record.id);
    }
    return ids;
}

}  // namespace llmv::pipeline
