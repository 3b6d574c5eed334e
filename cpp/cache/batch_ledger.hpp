// The batch ledger (private to the engine): what a batch-API run (pipeline/batch_runner.hpp)
// keeps in a cache file besides the answers, through that Cache's connection. The cache file
// holds the provider batches submitted; a run's own work file beside it, the staged answers
// and pending requests of a phase. Only the batch-API run uses it, so the public cache.hpp
// names none of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "llmvalidate/cache.hpp"

namespace llmv {

// A provider batch submitted by a batch-API run (pipeline/batch_run.cpp), stored as soon as the
// provider gave its id: a run that is stopped resumes from these and never submits a request
// twice.
struct ProviderBatchRecord {
    std::string id;       // the provider's batch id
    std::string api;      // "openai" or "anthropic"
    std::string kind;     // "chat" or "embedding"
    std::string state;    // "submitted" (not read back yet) or "done" (its answers are cached)
    std::string lines;    // JSON: {custom_id: cache key hash (chat) or [texts] (embedding)}
    std::string request;  // JSON: the URL and headers' names of one synchronous request (no secret)
    std::int64_t created_unix = 0;
};

// A batch-API run's working rows (pipeline/batch_run.cpp), kept in the cache file beside the
// answers so that a run holds none of a phase's answers or requests in memory; neither kind is
// ever served as a cached answer.
// - Staged: what a provider batch answered, until a pass of the run has read it (and cached
//   the good answers as a synchronous run does): a chat answer (HTTP status and body) under its
//   cache key's hash, an embedding (float32) under "text:" + the SHA-256 of its text.
// - Pending: a request a pass found unanswered, until it is submitted: a chat request (the
//   URL and body of the synchronous request; never a header, so never a key) under its cache
//   key's hash, or a text to embed under the text itself.
struct BatchStaged {
    std::string id;
    long status = 0;
    std::string body;
    std::vector<float> vector;
};
struct BatchPending {
    std::string id;
    std::string kind;  // "chat" or "embedding"
    int attempt = 0;   // chat: > 0 for a redraw of an unusable answer
    std::string url;
    std::string body;
};

class BatchLedger {
  public:
    // A view of `cache`, which must outlive it.
    explicit BatchLedger(Cache& cache) : cache_(cache) {}

    // The staged answers and pending requests (BatchStaged, BatchPending; tables batch_staged
    // and batch_pending, created when first used). Each put is one transaction;
    // a pending id already there is left as it is.
    void put_batch_staged(const std::vector<BatchStaged>& answers);
    std::optional<BatchStaged> batch_staged(const std::string& id);
    void put_batch_pending(const std::vector<BatchPending>& requests);
    // Up to `limit` pending requests of `kind` after row `after` (0: from the first), in the
    // order they were found; `after` is moved past the last one returned.
    std::vector<BatchPending> batch_pending(const std::string& kind, std::int64_t& after,
                                            std::size_t limit);
    std::uint64_t count_batch_pending(const std::string& kind);
    // Empty them: the staged answers once a pass has read them, the pending requests once
    // they are submitted (and both when a run starts: a stopped run's are found again).
    void clear_batch_staged();
    void clear_batch_pending();
    // Provider batches (table provider_batches, created when first used).
    void put_provider_batch(const ProviderBatchRecord& record);
    std::vector<ProviderBatchRecord> provider_batches(const std::string& state = "");
    // The ids of the batches in `state`, oldest first, and one batch by id: a run reads one
    // batch's lines at a time (an embeddings batch's run to megabytes of texts).
    std::vector<std::string> provider_batch_ids(const std::string& state);
    std::optional<ProviderBatchRecord> provider_batch(const std::string& id);
    // A batch's new state and request information, its lines left as they are.
    void set_provider_batch_state(const std::string& id, const std::string& state,
                                  const std::string& request);

  private:
    Cache& cache_;
};

}  // namespace llmv
