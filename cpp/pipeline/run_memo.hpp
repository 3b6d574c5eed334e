// The answers of a run without a cache (R `cache = FALSE`, the CLI's --no-cache, Stata's
// nocache), kept in memory for that run alone (private to cpp/pipeline/). A request asked again
// later in the run (a pool that several passages share, the backtranslation of a shared text,
// two identical passages) is answered from here as the cache would answer it, not paid again:
// a run pays the same calls with a cache or without one. Requests asked while the first is in
// flight join it (the scheduler's in-flight map); this keeps what came back.
//
// Bounded: past `budget_bytes` the answers used least recently go first (a shared pool is used
// again and again, so it stays), so memory stays flat on a long run whose passages share nothing.
#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace llmv::pipeline {

struct MemoAnswer {
    std::string text;           // a chat answer's text
    bool refused = false;       // the model declined (as cache_status::refused)
    std::vector<float> vector;  // an embedding (the provider's numbers are float32)
};

class RunMemo {
  public:
    explicit RunMemo(std::size_t budget_bytes = default_budget_bytes);

    // The answer kept for `hash` (a cache key's hash), or null; it becomes the most recent.
    const MemoAnswer* find(const std::string& hash);
    void keep(const std::string& hash, MemoAnswer answer);

    std::size_t size() const { return index_.size(); }
    std::size_t bytes() const { return bytes_; }

    static constexpr std::size_t default_budget_bytes = std::size_t{64} << 20;

  private:
    using Entry = std::pair<std::string, MemoAnswer>;
    static std::size_t bytes_of(const Entry& entry);

    std::size_t budget_bytes_;
    std::size_t bytes_ = 0;
    std::list<Entry> order_;  // the most recently used first
    std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace llmv::pipeline
