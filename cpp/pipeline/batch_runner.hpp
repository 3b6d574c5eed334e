// The batch-API run's worker (private to cpp/pipeline/): one object per run of
// validate_with_batch_api(), its jobs in four files:
//   batch_run.cpp        the phases: read back, pass, submit, until nothing is missing
//   batch_requests.cpp   the run's work file (staged answers, pending requests) and its sends
//   batch_read_back.cpp  the batches recorded: found again, polled, downloaded, read line by line
//   batch_submit.cpp     the pending requests, split into provider batches and submitted
// How a run avoids paying twice is told at the top of batch_run.cpp.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cache/batch_ledger.hpp"
#include "core/sha256.hpp"
#include "llm/provider.hpp"
#include "llm/provider_batch.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/pipeline.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/providers.hpp"
#include "pipeline/run_files.hpp"
#include "transport/transport.hpp"

namespace llmv::pipeline {

class BatchRunner {
  public:
    BatchRunner(const ValidationConfig& config, const std::vector<PassageInput>& passages,
                const BatchCallbacks& callbacks, const BatchApiOptions& options,
                BatchApiReport& report);

    ~BatchRunner();

    BatchResult run(bool keep_results);

  private:
    BatchResult run_phases(bool keep_results);

    bool cancelled() const { return cancel_requested(callbacks_.cancel); }

    // A pass that sends nothing: every passage whose answers are all in the cache is finished
    // and handed to on_passage; the others wait, without a row, for the run that resumes.
    void write_finished_rows();

    void check_cancel(const std::string& when) const;

    void status(const std::string& line);

    // The caps of one provider batch: the vendor's, the run's own on bytes held, or smaller ones
    // a test asked for.
    BatchCaps caps_for(const BatchApi& api) const;

    // One pass over every passage that sends nothing (`deferred` collects what is missing);
    // `callbacks`: none for a phase, on_passage for the rows of a failed run.
    BatchResult run_pass(DeferredCalls& deferred,
                         const BatchCallbacks& callbacks = BatchCallbacks());

    // What a pass asks of the provider batches' answers (staged in the run's work file by
    // read_lines), and where it leaves what they did not answer (pending rows, written in
    // transactions of pending_flush_size).
    DeferredCalls deferred_calls();

    static std::string text_id(const std::string& text) { return "text:" + sha256_hex(text); }

    void flush_pending();

    void stage(BatchStaged answer);

    void flush_staged();

    // The pending requests of `kind`, in order, a chunk at a time (`each` sees every row).
    void for_each_pending(const std::string& kind, const std::function<void(BatchPending&)>& each);

    // A pending chat request as the synchronous request it was (its credentials from the
    // provider again: the pending row holds none).
    HttpRequest chat_request_of(const BatchPending& row);

    // Sends requests (polls, uploads, retries) with the run's retry policy: 429s and 5xx are
    // retried with backoff by the transport, whose waits look at the interrupt check. A
    // request in flight when the user interrupts gets the drain to finish (`drain`: the run's
    // drain setting; the synchronous retries are paid for, so they are drained), then it is
    // aborted.
    std::vector<JobResult> send(const std::vector<HttpRequest>& requests);
    std::vector<JobResult> send(const std::vector<HttpRequest>& requests, double drain);

    // One request of the batch API itself (an upload, a create, a poll, a list, a download):
    // none is paid for, and each is reconciled by the next run (a batch's intent is recorded
    // before it is created, and found again through the vendor's list), so an interrupt aborts
    // it at once (issue 42, item 16) instead of waiting for it up to the drain or the timeout.
    HttpResponse send_one(const HttpRequest& request, const std::string& what);

    // The custom ids that were missing from a whole results file once already (recorded with
    // their batches): missing again, they are an error rather than a loop.
    void load_missing_before();

    // Intents recorded but never followed by their batch's id (a run stopped between the
    // provider's "created" and the record): the vendor's list says whether the batch exists.
    void resolve_intents();

    std::optional<BatchStatus> find_unrecorded_batch(const ProviderBatchRecord& intent,
                                                     const nlohmann::json& info,
                                                     const std::set<std::string>& known_ids);
    // A batch known only by its size: polled until it ends, then true when every line of its
    // results carries one of `lines`' custom ids (this intent's).
    bool holds_lines_of(const BatchApi& api, const HttpRequest& synchronous,
                        const BatchStatus& listed, const nlohmann::json& lines);

    // A batch's results, downloaded into files beside the cache: they are read a line at a
    // time and never held whole (an embeddings batch's results run to hundreds of megabytes).
    struct Downloaded {
        const BatchApi* api = nullptr;
        std::vector<std::string> files;
        std::size_t readable = 0, unreadable = 0;
        std::string digest;  // of every line read, to tell one download from the next
    };

    // Beside the cache, named for this run (two runs on one cache do not share them).
    std::string download_path(const std::string& what) const;

    // Every line of the downloaded files, read with `each` (nothing is kept).
    static void each_downloaded_line(const Downloaded& downloaded,
                                     const std::function<void(const BatchLineRead&)>& each);

    void remove_downloads(const Downloaded& downloaded) const;

    // The results of an ended batch, read until whole: a download cut short (a line that does
    // not parse, fewer lines than the batch's counts) is read again; the same lines twice are
    // taken as what the vendor holds.
    Downloaded fetch_whole(const BatchApi& api, const HttpRequest& synchronous,
                           const std::string& batch_id, const BatchStatus& state);

    // The batches recorded as submitted: polled until they end (submit_only: once), their
    // answers staged in the cache file (read_lines). Returns true when submit_only finds one
    // running.
    bool read_back_submitted();

    // A batch's lines, each checked against the custom ids submitted in it.
    void read_lines(ProviderBatchRecord record, const Downloaded& results);

    // A synchronous request of this kind (its URL and credentials lead to the batch API).
    HttpRequest template_request(const std::string& kind) const;

    // The batch API of the provider of `kind` ("chat" or "embedding"), as its spec declares
    // it for the run's endpoint (provider_spec.hpp); null: none.
    std::shared_ptr<const BatchApi> batch_api_for_kind(const std::string& kind) const;

    // The batch API a recorded batch was submitted through (`name`, as recorded): the one the
    // run's provider of that kind has, which must be the same.
    const BatchApi& recorded_api(const std::string& kind, const std::string& name);

    // The batch API lines of `kind` go to (the provider must have one: the run checked).
    const BatchApi& submitting_api(const std::string& kind);

    bool embeddings_by_batch() const;

    // Only redraws and requests a batch failed, few enough to send synchronously.
    bool only_few_retries(std::uint64_t chat_missing, std::uint64_t texts_missing);

    void send_synchronously();

    // Texts per embedding request: the provider's own limit, at most 256, and within a batch's
    // cap on inputs.
    std::size_t embedding_group_size(std::size_t max_inputs) const;

    void submit();

    // No batch API for this embedding provider: its texts go synchronously (several requests at
    // once, the run's concurrency), staged for the next pass like a batch's answers.
    void embed_synchronously(const std::vector<std::vector<std::string>>& groups);

    // Lines gathered into provider batches within the vendor's caps (batch_submit.cpp).
    class BatchSplitter;

    void submit_lines(const std::string& kind, const std::vector<BatchLine>& lines,
                      const nlohmann::json& map);

    const ValidationConfig& config_;
    const std::vector<PassageInput>& passages_;
    std::string run_key_;  // work_key() of this run, recorded with each batch's intent
    const BatchCallbacks& callbacks_;
    const BatchApiOptions& options_;
    BatchApiReport& report_;
    RunProviders providers_;
    const ChatProvider* chat_ = nullptr;
    const EmbeddingProvider* embedder_ = nullptr;  // null: the local embedder
    std::string chat_model_, embedding_model_;
    std::unique_ptr<Cache> registry_cache_;
    std::unique_ptr<BatchLedger> registry_;     // the provider batches, in the cache file
    std::optional<HttpRequest> chat_template_;  // chat_request_of()
    std::string work_path_;
    std::unique_ptr<Cache> work_cache_;
    std::unique_ptr<BatchLedger> work_;  // batch_staged and batch_pending (the ledger's tables)
    // <pid>-<hex>: the process id tells a later run whether the files named with it are left
    // over (run_files.hpp).
    const std::string run_token_ =
        process_id() + "-" +
        sha256_hex(std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()))
            .substr(0, 12);
    std::vector<BatchPending> pending_;     // missing requests not yet written (flush_pending)
    std::vector<BatchStaged> staged_;       // batch answers not yet written (flush_staged)
    std::set<std::string> failed_;          // custom_ids of lines a batch did not answer
    std::map<std::string, int> failures_;   // how often each of them failed
    std::set<std::string> missing_before_;  // missing once from a whole results file
    // The batches read back in this phase (id, request information): "done" once their answers
    // are cached.
    std::vector<std::pair<std::string, std::string>> fetched_;
    std::map<std::string, ModelUsage> usage_;
    // The batch API of each kind of request, once chosen (provider_spec.hpp).
    std::map<std::string, std::shared_ptr<const BatchApi>> apis_;
};

}  // namespace llmv::pipeline
