// The cache's write buffer (private to cpp/pipeline/). Answers are written in batches, one
// transaction each (one SQLite commit per answer was a large share of the client thread's CPU
// at 600 requests/s). A batch is written before any passage is reported (an output row implies
// its answers are in the cache), when it holds `batch_size` entries, after `batch_seconds`,
// and when the run ends, also by cancellation or an error. Lookups see the buffer first.
//
// A write that fails (another process holds the file's lock past cache_busy_timeout_ms) loses
// nothing: its answers stay in memory, visible to lookups, and are written again with
// exponential backoff (0.5 s doubling to 8 s). Whatever is still unwritten when the run ends
// goes to a side file that `llmvalidate cache --import` adds later (BatchResult says where).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "llmvalidate/cache.hpp"
#include "llmvalidate/pipeline.hpp"
#include "cache/cache_writer.hpp"

namespace llmv::pipeline {

class CacheBuffer {
  public:
    // Opens config.cache_path when `needed` and a path is given (else nothing is stored).
    // `secrets` are redacted from every write; the caller may add to them later.
    CacheBuffer(const ValidationConfig& config, bool needed, const std::vector<std::string>& secrets);

    bool enabled() const { return cache_ != nullptr; }
    // With a writer thread, a finished passage is reported only once batches_written() reaches
    // the batch its answers went into (batches_submitted() after a flush()).
    bool has_writer() const { return writer_ != nullptr; }
    std::uint64_t batches_submitted() const { return batches_submitted_; }
    std::uint64_t batches_written() const { return batches_written_; }
    // Called at the end of every collect_written(): the passages waiting for a write go on.
    void on_written(std::function<void()> callback) { on_written_ = std::move(callback); }

    std::optional<CacheEntry> lookup(const std::string& hash);
    void store(CacheKey key, std::string hash, CacheEntry entry);
    void flush();
    void maybe_flush();  // on time, and the failed writes when their backoff is over
    // Takes the writer's news: written entries leave the lookup map (the cache file has them
    // now), a failed write keeps its answers in memory to be written again.
    void collect_written(bool wait);
    // At the end of the run: one last write, then the side file for what is left (named in
    // `batch`). Throws when the side file cannot be written either.
    void write_side_file(BatchResult& batch);

    static constexpr std::size_t batch_size = 256;
    static constexpr double batch_seconds = 0.25;

  private:
    struct PendingWrite {
        CacheKey key;
        std::string hash;  // key.hash()
        CacheEntry entry;
    };
    void keep_unwritten(std::vector<std::pair<CacheKey, CacheEntry>> entries,
                        std::vector<std::string> hashes, const std::string& message);
    void retry_unwritten();
    void submit(std::vector<PendingWrite> writes);

    const ValidationConfig& config_;
    const std::vector<std::string>& secrets_;
    std::function<void()> on_written_;
    std::vector<PendingWrite> pending_;
    std::unordered_map<std::string, std::size_t> pending_by_hash_;
    double first_pending_time_ = 0;
    std::unique_ptr<CacheWriter> writer_;  // null: writes inline (no cache, ":memory:")
    std::uint64_t batches_submitted_ = 0;
    std::uint64_t batches_written_ = 0;
    std::map<std::uint64_t, std::vector<std::string>> submitted_batches_;  // batch -> its hashes
    std::unordered_map<std::string, std::uint64_t> submitted_by_hash_;     // hash -> its batch
    std::vector<PendingWrite> unwritten_;  // failed writes, kept and retried (keep_unwritten)
    std::unordered_map<std::string, std::size_t> unwritten_by_hash_;
    double unwritten_retry_at_ = 0;
    double unwritten_backoff_ = 0.5;
    std::string last_write_error_;
    std::unique_ptr<Cache> cache_;
};

}  // namespace llmv::pipeline
