// The scheduler's engine (private to cpp/pipeline/): one run, from the passages admitted to the
// answers delivered. scheduler.cpp holds the run, the admission of passages, the queue and what
// the passages ask for; scheduler_chat.cpp holds the chat calls (a request built, answered from
// the cache, the run's memory, the simulated provider or a provider batch, or sent) and what
// comes back from the transport.
#pragma once

#include "pipeline/engine.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "llm/model_rules.hpp"
#include "llm/provider.hpp"
#include "llmvalidate/accounting.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/text.hpp"
#include "pipeline/cache_buffer.hpp"
#include "pipeline/debug_env.hpp"
#include "pipeline/embedding_batches.hpp"
#include "pipeline/model_fallback.hpp"
#include "pipeline/passage_flow.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/providers.hpp"
#include "pipeline/requests.hpp"
#include "pipeline/run_memo.hpp"
#include "pipeline/simulated.hpp"
#include "pipeline/stats_worker.hpp"
#include "transport/transport.hpp"

namespace llmv::pipeline {

class Engine : private PassageFlow::Requests {
  public:
    Engine(const ValidationConfig& config, const BatchCallbacks& callbacks, bool keep_results,
           std::size_t passages_total, DeferredCalls* deferred);

    BatchResult run(const PassageSource& source);

  private:
    // No cache path: nothing is stored on disk; identical requests are still sent once in the
    // run (those in flight together join, later ones are answered from RunMemo, bounded).
    // The simulated provider and the local embedder bypass the cache on purpose: an answer is a
    // pure function of its request (like a cached one), costs microseconds (less than the
    // SQLite lookup), and a re-run reproduces every number bit for bit without it. Storing them
    // would only fill a user's cache, which may be shared with real runs, with synthetic rows.
    // Their calls are counted as calls of the simulated provider on every run (never as cache
    // hits): counters report what was computed, and nothing is paid.
    bool cache_needed() const;
    bool synthetic_chat() const { return providers_.resolved.synthetic_chat; }
    bool local_embedding() const { return providers_.resolved.local_embedding; }
    const std::string& chat_model() const { return providers_.resolved.chat_model; }

    BatchResult run_and_flush(const PassageSource& source);

    // ---- admission and the queue ----------------------------------------------------------------
    bool needs_transport() const { return !deferred_ && (!synthetic_chat() || !local_embedding()); }
    bool cancelled() const { return cancel_requested(callbacks_.cancel); }

    std::optional<Job> next_job();

    std::optional<Job> sent(std::optional<Job> job, bool chat);

    // A 404 names a model (or a path) the vendor does not serve, as does a 400 the provider
    // reads as refusing the model (Bedrock: an id past its end of life), or any 400 of the
    // first chat call that refuses no feature: every further call would fail the same way, so
    // the run stops here, with what was paid for already in the cache.
    void stop_if_model_unavailable(const JobResult& result, bool chat_job, bool first_chat,
                                   RefusedFeature feature);

    // The outcomes the worker has ready: each passage finished (and reported) here.
    void collect_tests();

    bool can_admit() const;

    void admit();

    ChatUnit pop_chat();

    // ---- what the passages ask for (PassageFlow::Requests) -------------------------------------
    void chat(ChatUnit unit) override;

    void embedding(const std::string& text, EmbedTarget target) override {
        embeddings_.push(text, std::move(target));
    }

    bool keeps_answers() const override { return cache_.enabled(); }

    void reject_embedding(const std::string& text, std::size_t dimension,
                          std::size_t majority) override;

    // Its answers reach the cache before the passage is reported. (A write that fails keeps
    // them in memory, retried, and in the side file at the end: CacheBuffer.)
    void finished(const PassagePtr& passage) override;

    void report_written();

    void report(const PassagePtr& passage);

    // ---- chat calls -----------------------------------------------------------------------------
    struct InFlight {
        CacheKey key;
        std::string hash;  // key.hash(), computed once
        std::vector<ChatUnit> units;
        int generation = 0;  // ModelFallback::generation() when it was built
    };

    ChatRequest build_chat_request(const ChatUnit& unit) const;

    ParsedAnswer parse(const ChatUnit& unit, const std::string& text, bool refused) const {
        return parse_answer(unit.kind, unit.count, text, refused, flow_.labels());
    }

    std::optional<Job> issue_chat(ChatUnit unit);

    // An answer this run received already, without a cache (RunMemo): shared, as a request in
    // flight is; delivered as a cached answer is (an unusable one is redrawn, as from the cache).
    void answer_from_memo(ChatUnit& unit, const MemoAnswer& kept);

    // Every random choice of the DGP is fixed by the request (prompt, draw index, attempt), the
    // passage, the topic and the DGP's own seed: like a cached LLM answer, and every passage
    // gets pools of its own.
    void answer_simulated(ChatUnit& unit, const ChatRequest& request);

    // A job's first unit; later units with the same cache key join it (shared calls).
    void track_in_flight(std::uint64_t job_id, const CacheKey& key, const std::string& hash,
                         ChatUnit unit);

    // A chat request the model refused for a feature: switched once (ModelFallback), and the
    // refused request, with those waiting on it, goes again; the next one goes alone again,
    // so that a second refusal costs one call too. True when the units were queued again.
    bool fall_back(InFlight& flight, RefusedFeature feature);

    CacheKey learned_key() const;

    // A switch an earlier run on this cache made for the model applies from the first request.
    void restore_learned();

    void warn(const std::string& warning);

    // Batch-API mode: the answer a provider batch gave goes the way of a synchronous one (the
    // same parsing, cache entry and redraws); a request no batch answered yet is recorded and
    // its passage waits for the next pass.
    std::optional<Job> defer_chat(ChatUnit unit, const ChatRequest& request, const CacheKey& key,
                                  const std::string& hash);

    void remember_secret(const std::string& secret);

    void on_done(JobResult result);

    // Members in the order they are built (the constructor's list relies on it).
    const ValidationConfig& config_;
    const BatchCallbacks& callbacks_;
    bool keep_results_;
    DeferredCalls* deferred_ = nullptr;
    std::vector<std::string> secrets_;  // redacted from messages and cache writes
    Tally tally_;
    Accounting accounting_;
    std::shared_ptr<const Task> task_;
    RunProviders providers_;
    RequestKeys keys_;
    CacheBuffer cache_;
    ProgressReporter reporter_;
    PassageFlow flow_;
    EmbeddingBatches embeddings_;
    ModelFallback fallback_;
    std::unique_ptr<PriceTable> price_table_;

    const PassageSource* source_ = nullptr;
    bool source_done_ = false;
    std::size_t max_passages_in_flight_ = 16;
    std::map<std::tuple<std::size_t, int, std::uint64_t>, ChatUnit> chat_queue_;
    std::uint64_t unit_counter_ = 0;
    std::size_t chat_since_embedding_ = 0;
    std::unordered_map<std::uint64_t, InFlight> inflight_;
    std::unordered_map<std::string, std::uint64_t> inflight_by_key_;
    RunMemo memo_;  // without a cache: the answers this run received
    std::uint64_t next_job_id_ = 1;
    bool kind_answered_[2] = {false, false};  // an embedding / a chat request has come back
    bool first_answer_pending_ = false;       // the first of its kind is out, and goes alone
    std::uint64_t first_job_id_ = 0;
    bool first_job_chat_ = false;
    // Finished passages waiting for the write of their answers: (passage, batch to wait for).
    std::deque<std::pair<PassagePtr, std::uint64_t>> awaiting_write_;
    std::unique_ptr<StatsWorker> test_worker_;  // while a run (not a batch-API pass) goes on
    std::unordered_map<std::uint64_t, PassagePtr> testing_;  // handed to the worker, by ticket
    std::uint64_t next_test_ticket_ = 0;
    BatchResult batch_;
};

}  // namespace llmv::pipeline
