// Embedding requests (private to cpp/pipeline/): the texts the passages need embedded are
// queued once per distinct text, answered from the cache where it holds them, and sent in
// requests within the provider's declared limits (texts, and tokens estimated from above:
// llm/embedding_limits.hpp); the local embedder answers at once. A text over the provider's cap
// on one text fails its passage when it is pushed, which for the passage's own text is before
// any of the passage's chat calls is sent.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "llmvalidate/accounting.hpp"
#include "pipeline/cache_buffer.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/passage_flow.hpp"
#include "pipeline/providers.hpp"
#include "pipeline/run_memo.hpp"
#include "transport/transport.hpp"

namespace llmv::pipeline {

class EmbeddingBatches {
  public:
    // `deferred`: a batch-API pass (engine.hpp), which sends nothing.
    EmbeddingBatches(const ValidationConfig& config, const RunProviders& providers,
                     const RequestKeys& keys, CacheBuffer& cache, Tally& tally,
                     Accounting& accounting, PassageFlow& flow, DeferredCalls* deferred);

    void push(const std::string& text, EmbedTarget target);
    std::size_t queued() const { return queue_.size(); }
    std::size_t in_flight() const { return in_flight_.size(); }
    std::size_t batch_size() const { return batch_size_; }
    // The next batch to send, after every queued text the cache or a provider batch answers;
    // nullopt when none is left to send. `remember_secret` sees the request's secrets.
    std::optional<Job> issue(std::uint64_t& next_job_id,
                             const std::function<void(const std::string&)>& remember_secret);
    // A batch's answer; false when `result` is not one of this class's jobs.
    bool done(const JobResult& result);
    // A batch-API pass: forgets the texts waiting for a provider batch and the passages they
    // were for (PassageFlow::release_waiting()).
    void drop_waiting();
    // A vector of another dimension than the passage's others: marked rejected in the cache.
    void reject(const std::string& text, std::size_t dimension, std::size_t majority);

  private:
    struct Flight {
        std::vector<std::string> texts;   // in order
        std::vector<std::string> hashes;  // their cache keys' hashes
    };
    void deliver_to_waiting(const std::string& text, const std::vector<double>& vector);
    void deliver_vector(const std::string& text, const std::vector<double>& vector);

    const ValidationConfig& config_;
    const RunProviders& providers_;
    const RequestKeys& keys_;
    CacheBuffer& cache_;
    Tally& tally_;
    Accounting& accounting_;
    PassageFlow& flow_;
    DeferredCalls* deferred_;
    std::size_t batch_size_ = 64;
    EmbeddingLimits limits_;
    std::deque<std::string> queue_;
    std::unordered_map<std::string, std::vector<EmbedTarget>> targets_;
    std::unordered_map<std::string, int> retries_;
    std::unordered_map<std::uint64_t, Flight> in_flight_;
    RunMemo memo_;  // without a cache: the vectors this run received
};

}  // namespace llmv::pipeline
