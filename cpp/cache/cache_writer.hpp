// Writes batches of answers to the cache on a thread of its own, over a second connection to
// the same file. At several hundred answers a second, SQLite's work on the thread that also
// drives the transport delayed answers; here it overlaps the network instead.
//
// The caller keeps every submitted entry visible to its own lookups until take_written()
// reports the batch written (the writer's connection commits; the caller's reads then see it).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "llmvalidate/cache.hpp"

namespace llmv {

class CacheWriter {
  public:
    struct Batch {
        std::vector<std::pair<CacheKey, CacheEntry>> entries;
        std::vector<std::string> key_hashes;  // key_hashes[i] = entries[i].first.hash()
        std::vector<std::string> secrets;     // redacted from what is stored
    };
    struct Written {
        std::uint64_t batch = 0;  // the number submit() returned
        bool ok = true;
        std::string code;  // an llmv error code when !ok
        std::string message;
        // When !ok, the answers that were not written (on one of the batches written together),
        // handed back so that the caller keeps them: nothing paid for is dropped here.
        std::vector<std::pair<CacheKey, CacheEntry>> unwritten;
        std::vector<std::string> unwritten_hashes;
    };

    // Opens its own connection to `path` (not ":memory:", which would be another database);
    // throws llmv::Error like Cache's constructor. busy_timeout_ms as for Cache.
    // `cancel` (may be null): a wait for another process's lock ends when it turns true.
    explicit CacheWriter(const std::string& path, int busy_timeout_ms = 30000,
                         const std::atomic<bool>* cancel = nullptr);
    // Writes every batch already submitted, then stops.
    ~CacheWriter();
    CacheWriter(const CacheWriter&) = delete;
    CacheWriter& operator=(const CacheWriter&) = delete;

    // Queues a batch; returns its number (1, 2, ... in submission order).
    std::uint64_t submit(Batch batch);
    // The batches written (or failed) since the last call; never blocks on a write.
    std::vector<Written> take_written();
    // Blocks until every submitted batch is written, then returns as take_written().
    std::vector<Written> wait_all();

  private:
    void loop();

    Cache cache_;
    std::mutex mutex_;
    std::condition_variable work_ready_;
    std::condition_variable work_done_;
    std::deque<std::pair<std::uint64_t, Batch>> queue_;
    std::vector<Written> written_;
    std::uint64_t submitted_ = 0;
    std::uint64_t finished_ = 0;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace llmv
