// The cache's write buffer (private to cpp/pipeline/). Answers are written in batches, one
// transaction each (one SQLite commit per answer was a large share of the client thread's CPU
// at 600 requests/s). A batch is written before any passage is reported (an output row implies
// its answers are in the cache), when it holds `batch_size` entries, after `batch_seconds`,
// and when the run ends, also by cancellation or an error. Lookups see the buffer first.
//
// Every answer is first appended to a journal beside the cache (<cache>.journal-<pid>-<n>.jsonl,
// one side_file_line() each, handed to the kernel before the answer counts as received), so a
// SIGKILL or a second Ctrl-C loses no answer: the next run with that cache folds the journals of
// ended processes into it. A run that ends with everything written removes its journal. The
// journal is cut into parts of journal_part_bytes (<cache>.journal-<pid>-<n>-<part>.jsonl), and a
// part goes as soon as every answer in it is in the cache, so that a long run's journal takes
// tens of megabytes of disk, not as much as the answers it wrote.
//
// A write that fails because another process holds the file's lock (past
// cache_busy_timeout_ms, or until the run is cancelled) loses nothing: its answers stay in
// memory, visible to lookups, and are written again with exponential backoff (0.5 s doubling to
// 8 s). A write that fails for another reason (disk full, read-only, I/O error) stops the
// spending: stopped() turns true and the run sends no new request. Whatever is still unwritten
// when the run ends goes to a side file that `llmvalidate cache --import` adds later (BatchResult
// says where and why): beside the cache when it was locked, else in another writable folder
// ($TMPDIR, the per-user cache folder); the journal moves there too when its own disk fails.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
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
    // `cancel` (may be null) ends a wait for another process's lock early.
    CacheBuffer(const ValidationConfig& config, bool needed, const std::vector<std::string>& secrets,
                const std::atomic<bool>* cancel = nullptr);
    ~CacheBuffer();
    CacheBuffer(const CacheBuffer&) = delete;
    CacheBuffer& operator=(const CacheBuffer&) = delete;

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
    // At the end of the run: one last write (none after a cancellation or a failure that is not
    // a lock), then the side file for what is left (named in `batch`, with the reason). Throws
    // when the side file cannot be written anywhere (the journals then keep the answers).
    void write_side_file(BatchResult& batch, bool cancelled = false);
    // A write failed for a reason other than a lock: no new request may be sent.
    bool stopped() const { return stopped_; }
    // What failed, for messages: "disk full (database or disk is full)", ...; empty when none.
    const std::string& failure() const { return failure_; }

    static constexpr std::size_t batch_size = 256;
    // Bytes of a journal part before the next starts (LLMV_DEBUG_JOURNAL_BYTES sets another).
    static constexpr std::size_t journal_part_bytes = std::size_t{64} << 20;
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
    void enqueue(CacheKey key, std::string hash, CacheEntry entry);  // store() without the journal
    void journal(const CacheKey& key, const CacheEntry& entry);
    bool open_journal(const std::string& path);
    void close_journal(bool remove_files);
    void next_journal_part();       // the current part is full: its answers go to the writer
    void remove_written_journals();  // parts whose answers are all in the cache
    void fold_old_journals();

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
    std::string failure_;   // what failed last, in words (see failure())
    bool stopped_ = false;  // a write failed for a reason other than a lock
    bool locked_only_ = true;
    std::string journal_id_;  // <pid>-<run of this process>
    std::FILE* journal_ = nullptr;
    std::vector<std::string> journal_paths_;  // this run's journals (the first beside the cache)
    std::size_t journal_bytes_ = 0;           // in the current part
    std::size_t journal_part_ = 0;
    std::size_t journal_limit_ = journal_part_bytes;
    struct FullJournal {
        std::string path;
        std::uint64_t batch;  // its last answers went to the writer in this batch
    };
    std::vector<FullJournal> full_journals_;  // parts that go once their batch is written
    std::unique_ptr<Cache> cache_;
};

}  // namespace llmv::pipeline
