// Batch-API runs (pipeline.hpp, validate_with_batch_api). Each pass runs the pipeline over
// every passage without sending anything (run_engine with DeferredCalls): the answers the
// provider batches gave are consumed and cached as synchronous ones, and the requests still
// missing are collected. Those are submitted as the next provider batches (split at the
// vendors' caps), or, when only a few retries remain, sent synchronously; the pass is repeated
// until nothing is missing, and the last run reads every answer from the cache.
//
// Nothing is paid twice:
//   - Before a batch is created its intent (the uploaded file, the custom ids, the phase) is
//     recorded in the cache file; the batch's id is recorded as soon as the provider gives it.
//     A run stopped between the two (kill -9 right after "created") finds the batch again on
//     resume through the vendor's list endpoint (OpenAI: its input file and metadata;
//     Anthropic: its size and creation time) and reads it back instead of submitting again.
//   - A batch's results are read until whole: a download cut short is read again. Each line
//     is checked against the custom ids submitted; a line still missing from a whole file is
//     asked again alone, once (a second time is an error, not a loop).
//   - Every wait (polls, re-reads, the transport's back-off) looks at the front end's
//     interrupt check (llmvalidate/interrupt.hpp); after an interrupt no batch is submitted,
//     and the run ends with llmv.cancelled; the same command resumes.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "core/http_status.hpp"  // parse_rfc3339
#include "core/sha256.hpp"
#include "llm/provider.hpp"
#include "llm/provider_batch.hpp"
#include "llm/provider_spec.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/resolution.hpp"
#include "pipeline/debug_env.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/providers.hpp"
#include "pipeline/run_files.hpp"
#include "transport/retry.hpp"
#include "transport/transport.hpp"

namespace llmv::pipeline {

namespace {

using nlohmann::json;

constexpr int max_result_reads = 6;  // reads of one batch's results before taking them as they are
constexpr std::int64_t clock_skew_seconds = 600;  // between our clock and the vendor's
// Rows written to, and read from, the cache file's batch tables at a time: what a run holds of
// a phase's requests and answers.
constexpr std::size_t pending_flush_size = 2000;
constexpr std::size_t staged_flush_size = 500;
constexpr std::size_t pending_read_size = 2000;
// The bytes of one provider batch the run builds (its lines and the upload or request body are
// held in memory while it is submitted): below the vendors' caps (200 MB, 256 MB), so that a
// run's memory does not grow with the corpus. A larger corpus makes more batches, submitted
// together: the same round trips.
constexpr std::size_t held_batch_bytes = 8'000'000;

std::int64_t unix_now() { return static_cast<std::int64_t>(std::time(nullptr)); }

// When the vendor created a batch (Unix seconds; 0: unknown).
std::int64_t created_unix_of(const BatchStatus& status) {
    if (status.created_at.empty()) return 0;
    if (status.created_at.find('T') != std::string::npos) {
        const auto seconds = parse_rfc3339(status.created_at);
        return seconds ? static_cast<std::int64_t>(*seconds) : 0;
    }
    try {
        return std::stoll(status.created_at);
    } catch (const std::exception&) {
        return 0;
    }
}

// One line of a batch still to be submitted, with what its custom id stands for.
struct PlannedLine {
    BatchLine line;
    json mapped;             // the cache key hash (chat) or the texts (embedding)
    std::size_t inputs = 1;  // embedding inputs it carries
};

class BatchRunner {
  public:
    BatchRunner(const ValidationConfig& config, const std::vector<PassageInput>& passages,
                const BatchCallbacks& callbacks, const BatchApiOptions& options,
                BatchApiReport& report)
        : config_(config),
          passages_(passages),
          callbacks_(callbacks),
          options_(options),
          report_(report) {
        if (config_.cache_path.empty() || config_.cache_path == ":memory:") {
            throw_invalid(code::invalid_argument, "cache",
                          config_.cache_path.empty() ? "none" : config_.cache_path,
                          "a cache file: a batch-API run keeps its batches' ids and answers there, "
                          "and resumes from them");
        }
        const ResolvedProviders resolved = resolve_providers(config_);
        if (resolved.synthetic_chat || !has_batch_api(resolved.chat_provider)) {
            // Why the others have none, as their specs say.
            std::string why;
            for (const ProviderDefaults& row : provider_defaults()) {
                if (row.kind == "chat" && !row.no_batch_api.empty()) why += row.no_batch_api + "; ";
            }
            throw_invalid(code::invalid_argument, "batch_api", resolved.chat_provider,
                          "a chat provider with a batch API: " + batch_api_provider_names() + " (" +
                              why + "the simulated provider needs none)");
        }
        // The run's own providers (open_providers(), as the scheduler and the dry run).
        providers_ = open_providers(config_, resolved, {}, "");
        chat_ = providers_.chat.get();
        embedder_ = providers_.embedder.get();
        chat_model_ = providers_.resolved.chat_model;
        if (embedder_) embedding_model_ = providers_.resolved.embedding_model;
        prepare_cache_directory(config_.cache_path);
        registry_ = std::make_unique<Cache>(config_.cache_path, config_.cache_busy_timeout_ms);
        // The phase's staged answers and pending requests: a file of the run's own beside the
        // cache, so that the cache keeps only answers (nothing in it is needed by a later run).
        // Files a killed run left (its work file, its downloads) go first; a run still going
        // on this cache keeps its own (the process id in the name).
        remove_files_of_ended_runs(config_.cache_path, {".batch-work-", ".download-"});
        work_path_ = config_.cache_path + ".batch-work-" + run_token_;
        work_ = std::make_unique<Cache>(work_path_, config_.cache_busy_timeout_ms);
    }

    ~BatchRunner() {
        work_.reset();
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            std::remove((work_path_ + suffix).c_str());
    }

    BatchResult run(bool keep_results) {
        if (callbacks_.on_warning)  // before the first batch is submitted
            for (const std::string& warning : providers_.warnings)
                callbacks_.on_warning({"model_retiring", warning});
        try {
            return run_phases(keep_results);
        } catch (const Error& error) {
            // A failure (not an interrupt, which should end at once) still gives the rows of
            // the passages whose answers are all in the cache, as a synchronous run writes
            // each passage when it is done.
            if (error.code() != code::cancelled) write_finished_rows();
            throw;
        }
    }

  private:
    BatchResult run_phases(bool keep_results) {
        load_missing_before();
        // The work file is the run's own; emptied here all the same (a pass may start again).
        work_->clear_batch_staged();
        work_->clear_batch_pending();
        for (int pass = 1; pass <= 1000; ++pass) {
            check_cancel("before the provider batches were read back");
            resolve_intents();
            const bool waiting = read_back_submitted();
            if (waiting) {  // submit_only: a batch is still out
                report_.waiting = true;
                return BatchResult();
            }
            DeferredCalls deferred = deferred_calls();
            ++report_.phases;
            const BatchResult pass_result = run_pass(deferred);
            flush_pending();
            // Interrupted while the answers were cached: the batches stay "submitted", and a
            // resume reads them again (no request is sent again).
            check_cancel("while the batches' answers were cached");
            for (const auto& [model, usage] : pass_result.usage) usage_[model] += usage;
            for (const auto& [id, request] : fetched_)
                registry_->set_provider_batch_state(id, "done", request);
            fetched_.clear();
            work_->clear_batch_staged();
            const std::uint64_t chat_missing = work_->count_batch_pending("chat");
            const std::uint64_t texts_missing = work_->count_batch_pending("embedding");
            if (chat_missing == 0 && texts_missing == 0) break;
            debug_kill_point("between_phases");
            check_cancel("before the next provider batch was submitted");
            status("phase " + std::to_string(report_.phases) + ": " + std::to_string(chat_missing) +
                   (chat_missing == 1 ? " chat request and " : " chat requests and ") +
                   std::to_string(texts_missing) +
                   (texts_missing == 1 ? " text to embed" : " texts to embed"));
            if (only_few_retries(chat_missing, texts_missing)) {
                send_synchronously();
                work_->clear_batch_pending();
                continue;
            }
            submit();
            work_->clear_batch_pending();
            if (options_.submit_only) {
                report_.waiting = true;
                status("submitted; run the same command again to collect the answers and go on");
                return BatchResult();
            }
        }
        // Everything is in the cache: the run reads it (no call).
        BatchResult result = validate_batch(config_, passages_, callbacks_, keep_results);
        // What the batches' answers counted, priced (cost.batch_dollars is what was paid).
        for (const auto& [model, usage] : usage_) result.usage[model] += usage;
        const ResolvedProviders& resolved = providers_.resolved;
        const auto table = price_table_for(config_.price_table);
        result.cost =
            cost_of_usage(result.usage, table.get(), resolved.chat_provider, resolved.chat_model,
                          resolved.embedding_provider, resolved.embedding_model);
        result.cost.paid_through = "batch";
        return result;
    }

    bool cancelled() const { return cancel_requested(callbacks_.cancel); }

    // A pass that sends nothing: every passage whose answers are all in the cache is finished
    // and handed to on_passage; the others wait, without a row, for the run that resumes.
    void write_finished_rows() {
        if (!callbacks_.on_passage) return;
        std::size_t written = 0;
        BatchCallbacks rows;
        rows.cancel = callbacks_.cancel;
        rows.on_passage = [&](const PassageResult& result) {
            ++written;
            callbacks_.on_passage(result);
        };
        try {
            DeferredCalls deferred;
            run_pass(deferred, rows);
        } catch (const std::exception&) {
            // The run's own failure is the one to report; these rows are a courtesy.
        }
        status("the run failed: the " + std::to_string(written) + " of " +
               std::to_string(passages_.size()) +
               " passages whose answers were all received are written; the same command "
               "resumes the others");
    }

    void check_cancel(const std::string& when) const {
        if (!cancelled()) return;
        throw Error(code::cancelled, "cancelled " + when +
                                         "; every answer received is in the cache, and the same "
                                         "command resumes without submitting anything twice");
    }

    void status(const std::string& line) {
        if (options_.on_status) options_.on_status(line);
    }

    // The caps of one provider batch: the vendor's, the run's own on bytes held, or smaller ones
    // a test asked for.
    BatchCaps caps_for(const BatchApi& api) const {
        BatchCaps caps = api.caps();
        const DebugBatchCaps debug = debug_batch_caps();
        const auto lower = [](std::size_t& cap, std::size_t wanted) {
            if (wanted > 0 && (cap == 0 || wanted < cap)) cap = wanted;
        };
        lower(caps.bytes, held_batch_bytes);
        lower(caps.requests, options_.max_requests_per_batch);
        lower(caps.requests, debug.requests);
        lower(caps.embedding_inputs, options_.max_embedding_inputs_per_batch);
        lower(caps.embedding_inputs, debug.embedding_inputs);
        lower(caps.bytes, options_.max_bytes_per_batch);
        lower(caps.bytes, debug.bytes);
        return caps;
    }

    // One pass over every passage that sends nothing (`deferred` collects what is missing);
    // `callbacks`: none for a phase, on_passage for the rows of a failed run.
    BatchResult run_pass(DeferredCalls& deferred,
                         const BatchCallbacks& callbacks = BatchCallbacks()) {
        std::size_t next = 0;
        const PassageSource source = [&](PassageInput& out) {
            if (next >= passages_.size()) return false;
            out = passages_[next++];
            return true;
        };
        return run_engine(config_, source, callbacks, false, passages_.size(), &deferred);
    }

    // What a pass asks of the provider batches' answers (staged in the run's work file by
    // read_lines), and where it leaves what they did not answer (pending rows, written in
    // transactions of pending_flush_size).
    DeferredCalls deferred_calls() {
        DeferredCalls deferred;
        deferred.answer = [this](const std::string& hash) -> std::optional<HttpResponse> {
            std::optional<BatchStaged> staged = work_->batch_staged(hash);
            if (!staged) return std::nullopt;
            HttpResponse response;
            response.status = staged->status;
            response.body = std::move(staged->body);
            return response;
        };
        deferred.vector = [this](const std::string& text) -> std::optional<std::vector<double>> {
            const std::optional<BatchStaged> staged = work_->batch_staged(text_id(text));
            if (!staged || staged->vector.empty()) return std::nullopt;
            return std::vector<double>(staged->vector.begin(), staged->vector.end());
        };
        deferred.missing_request = [this](const std::string& hash, const HttpRequest& request,
                                          int attempt) {
            pending_.push_back({hash, "chat", attempt, request.url, request.body});
            if (pending_.size() >= pending_flush_size) flush_pending();
        };
        deferred.missing_text = [this](const std::string& text) {
            pending_.push_back({text, "embedding", 0, "", ""});
            if (pending_.size() >= pending_flush_size) flush_pending();
        };
        return deferred;
    }

    static std::string text_id(const std::string& text) { return "text:" + sha256_hex(text); }

    void flush_pending() {
        if (pending_.empty()) return;
        work_->put_batch_pending(pending_);
        pending_.clear();
    }

    void stage(BatchStaged answer) {
        staged_.push_back(std::move(answer));
        if (staged_.size() >= staged_flush_size) flush_staged();
    }

    void flush_staged() {
        if (staged_.empty()) return;
        work_->put_batch_staged(staged_);
        staged_.clear();
    }

    // The pending requests of `kind`, in order, a chunk at a time (`each` sees every row).
    void for_each_pending(const std::string& kind, const std::function<void(BatchPending&)>& each) {
        std::int64_t after = 0;
        while (true) {
            std::vector<BatchPending> chunk = work_->batch_pending(kind, after, pending_read_size);
            if (chunk.empty()) return;
            for (BatchPending& row : chunk) each(row);
        }
    }

    // A pending chat request as the synchronous request it was (its credentials from the
    // provider again: the pending row holds none).
    HttpRequest chat_request_of(const BatchPending& row) {
        // Built once: a submission asks for one per pending row.
        if (!chat_template_) chat_template_ = template_request("chat");
        HttpRequest request = *chat_template_;
        request.url = row.url;
        request.body = row.body;
        return request;
    }

    // Sends requests (polls, uploads, retries) with the run's retry policy: 429s and 5xx are
    // retried with backoff by the transport, whose waits look at the interrupt check. A
    // request in flight when the user interrupts gets the drain to finish (a batch being
    // created is then recorded, not lost).
    std::vector<JobResult> send(const std::vector<HttpRequest>& requests) {
        TransportOptions options;
        options.max_concurrency = static_cast<std::size_t>(std::max(1, config_.concurrency));
        options.retry.max_retries = config_.max_transport_retries;
        options.cancel = callbacks_.cancel;
        options.drain_seconds = config_.drain_seconds;
        std::vector<JobResult> results(requests.size());
        for (JobResult& result : results) {
            result.error_code = code::cancelled;  // until the transport says otherwise
            result.error_message = "cancelled before the request was sent";
        }
        std::size_t next = 0;
        Transport transport(options);
        transport.run(
            [&]() -> std::optional<Job> {
                if (next >= requests.size()) return std::nullopt;
                Job job;
                job.id = next;
                job.request = requests[next++];
                return job;
            },
            [&](JobResult result) { results[result.id] = std::move(result); });
        return results;
    }

    HttpResponse send_one(const HttpRequest& request, const std::string& what) {
        JobResult result = send({request}).front();
        const bool answered = result.response.status / 100 == 2;
        if (!answered && (result.error_code == code::cancelled || cancelled()))
            check_cancel("while " + what);
        if (!result.ok() && !answered) {
            throw Error(result.error_code.empty() ? code::provider_server : result.error_code,
                        what + ": " + result.error_message);
        }
        return result.response;
    }

    // The custom ids that were missing from a whole results file once already (recorded with
    // their batches): missing again, they are an error rather than a loop.
    void load_missing_before() {
        for (const ProviderBatchRecord& record : registry_->provider_batches("done")) {
            const json info = json::parse(record.request, nullptr, false);
            if (info.is_object() && info.contains("missing") && info["missing"].is_array())
                for (const json& id : info["missing"])
                    if (id.is_string()) missing_before_.insert(id.get<std::string>());
        }
    }

    // Intents recorded but never followed by their batch's id (a run stopped between the
    // provider's "created" and the record): the vendor's list says whether the batch exists.
    void resolve_intents() {
        const std::vector<ProviderBatchRecord> intents = registry_->provider_batches("intent");
        if (intents.empty()) return;
        std::set<std::string> known_ids, recorded_intents;
        for (const ProviderBatchRecord& record : registry_->provider_batches()) {
            known_ids.insert(record.id);
            const json info = json::parse(record.request, nullptr, false);
            if (record.state != "intent" && info.is_object() && info.contains("intent") &&
                info["intent"].is_string())
                recorded_intents.insert(info["intent"].get<std::string>());
        }
        for (ProviderBatchRecord intent : intents) {
            const json info = json::parse(intent.request);
            bool found = recorded_intents.count(intent.id) > 0;
            if (!found) {
                const std::optional<BatchStatus> batch =
                    find_unrecorded_batch(intent, info, known_ids);
                if (batch) {
                    ProviderBatchRecord record = intent;
                    record.id = batch->id;
                    record.state = "submitted";
                    registry_->put_provider_batch(record);
                    known_ids.insert(batch->id);
                    found = true;
                    status("found " + intent.api + " batch " + batch->id +
                           ", created by a run that stopped before recording it: it is read back, "
                           "not submitted again");
                } else {
                    status("the " + intent.kind +
                           " batch a stopped run was about to create was never created; its "
                           "requests are asked again");
                }
            }
            intent.state = found ? "resolved" : "abandoned";
            registry_->put_provider_batch(intent);
        }
    }

    std::optional<BatchStatus> find_unrecorded_batch(const ProviderBatchRecord& intent,
                                                     const json& info,
                                                     const std::set<std::string>& known_ids) {
        const HttpRequest synchronous = template_request(intent.kind);
        const BatchApi& api = recorded_api(intent.kind, intent.api);
        const std::int64_t since = info.value("created_unix", std::int64_t{0}) - clock_skew_seconds;
        const std::string input_file = info.value("input_file", "");
        const std::size_t line_count = json::parse(intent.lines).size();
        std::optional<BatchStatus> candidate;
        std::string after;
        for (int page = 0; page < 50; ++page) {
            const BatchList list = api.parse_list(
                send_one(api.list(synchronous, after), "listing the provider's batches"));
            bool older = false;
            for (const BatchStatus& batch : list.batches) {
                const std::int64_t created = created_unix_of(batch);
                if (created != 0 && created < since) {
                    older = true;  // newest first: the rest are older still
                    break;
                }
                if (known_ids.count(batch.id)) continue;
                // The API says how it knows its batch: by the uploaded file (ours alone) or the
                // intent in its metadata for sure, or only by its size (the oldest such created
                // since the intent; its results are checked line by line when read).
                const BatchApi::Match match = api.matches(batch, intent.id, input_file, line_count);
                if (match == BatchApi::Match::sure) return batch;
                if (match == BatchApi::Match::candidate) candidate = batch;
            }
            if (older || !list.has_more || list.last_id.empty()) break;
            after = list.last_id;
        }
        return candidate;
    }

    // A batch's results, downloaded into files beside the cache: they are read a line at a
    // time and never held whole (an embeddings batch's results run to hundreds of megabytes).
    struct Downloaded {
        const BatchApi* api = nullptr;
        std::vector<std::string> files;
        std::size_t readable = 0, unreadable = 0;
        std::string digest;  // of every line read, to tell one download from the next
    };

    // Beside the cache, named for this run (two runs on one cache do not share them).
    std::string download_path(const std::string& what) const {
        return config_.cache_path + ".download-" + run_token_ + "-" + what;
    }

    // Every line of the downloaded files, read with `each` (nothing is kept).
    static void each_downloaded_line(const Downloaded& downloaded,
                                     const std::function<void(const BatchLineRead&)>& each) {
        for (const std::string& file : downloaded.files) {
            std::ifstream in(file, std::ios::binary);
            std::string line;
            while (std::getline(in, line)) each(downloaded.api->read_line(line));
        }
    }

    void remove_downloads(const Downloaded& downloaded) const {
        for (const std::string& file : downloaded.files) std::remove(file.c_str());
    }

    // The results of an ended batch, read until whole: a download cut short (a line that does
    // not parse, fewer lines than the batch's counts) is read again; the same lines twice are
    // taken as what the vendor holds.
    Downloaded fetch_whole(const BatchApi& api, const HttpRequest& synchronous,
                           const std::string& batch_id, const BatchStatus& state) {
        const std::size_t expected = state.succeeded + state.failed_lines;
        std::string previous;
        for (int read = 1;; ++read) {
            debug_kill_point("downloading");
            Downloaded downloaded;
            downloaded.api = &api;
            const auto download = [&](HttpRequest request, const std::string& what,
                                      const std::string& description) {
                request.body_file = download_path(what);
                downloaded.files.push_back(request.body_file);
                send_one(request, description);
            };
            for (auto& [what, request] : api.result_downloads(synchronous, state)) {
                download(std::move(request), what, "reading the " + what + " of batch " + batch_id);
            }
            Sha256 digest;
            each_downloaded_line(downloaded, [&](const BatchLineRead& line) {
                if (line.unreadable) ++downloaded.unreadable;
                if (line.result) ++downloaded.readable;
                digest.update(line.result ? line.result->custom_id + '\n' : std::string("?\n"));
                if (line.result) digest.update(line.result->response.body + line.result->error);
            });
            downloaded.digest = digest.hex_digest();
            if (downloaded.unreadable == 0 && downloaded.readable >= expected) return downloaded;
            const std::string counts =
                std::to_string(downloaded.readable) + " readable lines of " +
                std::to_string(expected) +
                (downloaded.unreadable > 0
                     ? ", " + std::to_string(downloaded.unreadable) + " cut short"
                     : "");
            if ((read > 1 && downloaded.digest == previous) || read >= max_result_reads) {
                status("batch " + batch_id + ": its results hold " + counts +
                       ", the same at each of " + std::to_string(read) +
                       " reads; the requests missing from them are asked again");
                return downloaded;
            }
            previous = downloaded.digest;
            remove_downloads(downloaded);
            status("batch " + batch_id + ": the download of its results was cut short (" + counts +
                   "); read again");
            const double pause = read == 1 ? 0.0 : static_cast<double>(1 << (read - 2));
            if (!interruptible_wait(pause, callbacks_.cancel))
                check_cancel("while reading the results of batch " + batch_id);
        }
    }

    // The batches recorded as submitted: polled until they end (submit_only: once), their
    // answers staged in the cache file (read_lines). Returns true when submit_only finds one
    // running.
    bool read_back_submitted() {
        for (const std::string& id : registry_->provider_batch_ids("submitted")) {
            const std::optional<ProviderBatchRecord> found = registry_->provider_batch(id);
            if (!found) continue;
            const ProviderBatchRecord& record = *found;
            const HttpRequest synchronous = template_request(record.kind);
            const BatchApi& api = recorded_api(record.kind, record.api);
            BatchStatus state;
            while (true) {
                debug_kill_point("polling");
                state = api.parse_status(
                    send_one(api.poll(synchronous, record.id), "polling batch " + record.id));
                status("batch " + record.id + " (" + record.kind + "): " + state.status + ", " +
                       std::to_string(state.succeeded) + " done, " +
                       std::to_string(state.failed_lines) + " failed of " +
                       std::to_string(state.total));
                if (state.ended) break;
                if (options_.submit_only) return true;
                if (!interruptible_wait(config_.poll_interval_seconds, callbacks_.cancel))
                    check_cancel("while waiting for batch " + record.id);
            }
            if (state.failed) {
                // Refused as a whole (no line ran): sending it again would be refused again.
                ProviderBatchRecord failed = record;
                failed.state = "failed";
                registry_->put_provider_batch(failed);
                throw Error(code::provider_server,
                            "the provider refused batch " + record.id + ": " +
                                (state.message.empty() ? state.status : state.message));
            }
            const Downloaded results = fetch_whole(api, synchronous, record.id, state);
            read_lines(record, results);
            flush_staged();
            remove_downloads(results);
        }
        return false;
    }

    // A batch's lines, each checked against the custom ids submitted in it.
    void read_lines(ProviderBatchRecord record, const Downloaded& results) {
        const json lines = json::parse(record.lines);
        std::set<std::string> seen;
        std::size_t foreign = 0, failed = 0;
        each_downloaded_line(results, [&](const BatchLineRead& read) {
            if (!read.result) return;
            const BatchLineResult& line = *read.result;
            if (!lines.contains(line.custom_id)) {
                ++foreign;
                return;
            }
            if (!seen.insert(line.custom_id).second) return;  // a duplicate line: the first counts
            if (!line.ok) {
                ++failed;
                failed_.insert(line.custom_id);
                // A line that keeps failing (a request the provider refuses) is not sent forever.
                if (++failures_[line.custom_id] > std::max(1, config_.max_transport_retries)) {
                    throw Error(
                        code::provider_server,
                        "a request failed in " + std::to_string(failures_[line.custom_id]) +
                            " provider batches (the last: " + line.error +
                            "); the answers so far are in the cache, and the same command resumes");
                }
                return;
            }
            if (record.kind == "chat") {
                stage({lines[line.custom_id].get<std::string>(),
                       line.response.status,
                       line.response.body,
                       {}});
                return;
            }
            const auto texts = lines[line.custom_id].get<std::vector<std::string>>();
            const EmbeddingResult vectors = embedder_->parse_response(line.response, texts.size());
            if (!vectors.ok) {
                failed_.insert(line.custom_id);
                ++failed;
                return;
            }
            for (std::size_t i = 0; i < texts.size(); ++i)
                stage({text_id(texts[i]), 0, "",
                       std::vector<float>(vectors.vectors[i].begin(), vectors.vectors[i].end())});
            // The batch's embedding tokens, counted and priced like the chat answers'.
            usage_[embedding_model_].input_tokens +=
                static_cast<std::uint64_t>(std::max<std::int64_t>(0, vectors.input_tokens));
        });
        json missing = json::array();
        for (const auto& entry : lines.items()) {
            if (seen.count(entry.key())) continue;
            if (missing_before_.count(entry.key())) {
                throw Error(
                    code::provider_server,
                    "request " + entry.key() + " was missing from the results of batch " +
                        record.id +
                        " as from an earlier batch's, although each was read whole; it is not "
                        "asked a third time. The answers so far are in the cache, and the same "
                        "command resumes");
            }
            missing.push_back(entry.key());
            failed_.insert(entry.key());
        }
        if (!missing.empty()) {
            status("batch " + record.id + ": " + std::to_string(missing.size()) +
                   (missing.size() == 1 ? " request is" : " requests are") +
                   " missing from its results although they were read whole; each is "
                   "asked again, alone and once");
        }
        if (failed > 0) {
            status("batch " + record.id + ": " + std::to_string(failed) +
                   " lines failed; they are asked again");
        }
        if (foreign > 0) {
            status("batch " + record.id + ": " + std::to_string(foreign) +
                   " lines with custom ids not submitted in it were ignored");
        }
        json info = json::parse(record.request, nullptr, false);
        if (!info.is_object()) info = json::object();
        info["missing"] = missing;
        for (const json& id : missing) missing_before_.insert(id.get<std::string>());
        record.request = info.dump();
        fetched_.emplace_back(record.id, record.request);
    }

    // A synchronous request of this kind (its URL and credentials lead to the batch API).
    HttpRequest template_request(const std::string& kind) const {
        if (kind == "embedding") {
            EmbeddingRequest request;
            request.model = embedding_model_;
            request.inputs = {"x"};
            return embedder_->build_request(request);
        }
        return chat_->build_request(ChatRequest::user_prompt(chat_model_, "x"));
    }

    // The batch API of the provider of `kind` ("chat" or "embedding"), as its spec declares
    // it for the run's endpoint (provider_spec.hpp); null: none.
    std::shared_ptr<const BatchApi> batch_api_for_kind(const std::string& kind) const {
        if (kind == "embedding" && !embedder_) return nullptr;
        return batch_api_of(kind,
                            kind == "embedding" ? providers_.resolved.embedding_provider
                                                : providers_.resolved.chat_provider,
                            template_request(kind));
    }

    // The batch API a recorded batch was submitted through (`name`, as recorded): the one the
    // run's provider of that kind has, which must be the same.
    const BatchApi& recorded_api(const std::string& kind, const std::string& name) {
        std::shared_ptr<const BatchApi>& api = apis_[kind];
        if (!api) api = batch_api_for_kind(kind);
        if (!api || api->name() != name) {
            throw_invalid(code::invalid_argument, "batch_api",
                          "a cache holding " + name + " batches",
                          "the provider they were submitted to (" +
                              (api ? api->name() + " batches are what this one runs"
                                   : "this one has no batch API") +
                              "), or another cache file");
        }
        return *api;
    }

    // The batch API lines of `kind` go to (the provider must have one: the run checked).
    const BatchApi& submitting_api(const std::string& kind) {
        std::shared_ptr<const BatchApi>& api = apis_[kind];
        if (!api) api = batch_api_for_kind(kind);
        if (!api) {
            throw_invalid(code::invalid_argument, "batch_api",
                          kind == "embedding" ? providers_.resolved.embedding_provider
                                              : providers_.resolved.chat_provider,
                          "a provider whose endpoint has a batch API");
        }
        return *api;
    }

    bool embeddings_by_batch() const {
        const std::shared_ptr<const BatchApi> api = batch_api_for_kind("embedding");
        return api && api->caps().embedding_inputs > 0;
    }

    // Only redraws and requests a batch failed, few enough to send synchronously.
    bool only_few_retries(std::uint64_t chat_missing, std::uint64_t texts_missing) {
        if (texts_missing > 0 ||
            chat_missing > static_cast<std::uint64_t>(std::max(0, options_.sync_retry_max)))
            return false;
        bool retries = true;
        for_each_pending("chat", [&](BatchPending& row) {
            if (row.attempt == 0 && !failed_.count(row.id)) retries = false;
        });
        return retries;
    }

    void send_synchronously() {
        std::vector<HttpRequest> requests;
        std::vector<std::string> hashes;
        for_each_pending("chat", [&](BatchPending& row) {
            requests.push_back(chat_request_of(row));
            hashes.push_back(row.id);
        });
        const std::vector<JobResult> results = send(requests);
        report_.synchronous_requests += static_cast<std::int64_t>(requests.size());
        status(std::to_string(requests.size()) + " retries sent synchronously");
        for (std::size_t i = 0; i < results.size(); ++i)
            if (results[i].ok())
                stage({hashes[i], results[i].response.status, results[i].response.body, {}});
        flush_staged();
    }

    // Texts per embedding request: the provider's own limit, at most 256, and within a batch's
    // cap on inputs.
    std::size_t embedding_group_size(std::size_t max_inputs) const {
        std::size_t size =
            std::max<std::size_t>(1, std::min<std::size_t>(embedder_->max_batch_size(), 256));
        if (max_inputs > 0) size = std::min(size, max_inputs);
        return size;
    }

    void submit() {
        // Chat: one line per request, custom_id its cache key's hash.
        {
            BatchSplitter chat(*this, "chat");
            for_each_pending("chat", [&](BatchPending& row) {
                const std::string id = row.id;
                chat.add({{id, chat_request_of(row)}, id, 1});
            });
            chat.finish();
        }
        if (work_->count_batch_pending("embedding") == 0) return;
        const bool by_batch = embeddings_by_batch();
        const std::size_t group_size = embedding_group_size(
            by_batch ? caps_for(*batch_api_for_kind("embedding")).embedding_inputs : 0);
        BatchSplitter embeddings(*this, "embedding");
        // Each request (a batch file's line, or a synchronous request) within the provider's
        // caps on texts and on estimated tokens (llm/embedding_limits.hpp).
        EmbeddingLimits limits = embedder_->limits();
        limits.max_inputs = group_size;
        EmbeddingRequestPacker packer(limits);
        std::vector<std::string> group;
        std::vector<std::vector<std::string>> synchronous;  // groups to send together
        const std::size_t together = static_cast<std::size_t>(2 * std::max(1, config_.concurrency));
        const auto flush_group = [&]() {
            if (group.empty()) return;
            if (by_batch) {
                EmbeddingRequest request;
                request.model = embedding_model_;
                request.inputs = group;
                std::string joined;
                for (const std::string& text : group) joined += sha256_hex(text);
                const std::string id = "emb-" + sha256_hex(joined).substr(0, 40);
                embeddings.add({{id, embedder_->build_request(request)}, group, group.size()});
            } else {
                synchronous.push_back(group);
                if (synchronous.size() >= together) {
                    embed_synchronously(synchronous);
                    synchronous.clear();
                }
            }
            group.clear();
            packer.clear();
        };
        for_each_pending("embedding", [&](BatchPending& row) {
            // A text over the cap on one text is never pending (its passage fails when the
            // pass pushes it); one recorded by an older version waits, unsent.
            if (embedding_input_refusal(limits, embedding_model_, row.id)) return;
            if (!packer.fits(row.id)) flush_group();
            packer.add(row.id);
            group.push_back(std::move(row.id));
            if (group.size() >= group_size) flush_group();
        });
        flush_group();
        if (!synchronous.empty()) embed_synchronously(synchronous);
        embeddings.finish();
        flush_staged();
    }

    // No batch API for this embedding provider: its texts go synchronously (several requests at
    // once, the run's concurrency), staged for the next pass like a batch's answers.
    void embed_synchronously(const std::vector<std::vector<std::string>>& groups) {
        std::vector<HttpRequest> requests;
        for (const auto& group : groups) {
            EmbeddingRequest request;
            request.model = embedding_model_;
            request.inputs = group;
            requests.push_back(embedder_->build_request(request));
        }
        const std::vector<JobResult> results = send(requests);
        check_cancel("while the texts were embedded");
        report_.synchronous_requests += static_cast<std::int64_t>(requests.size());
        for (std::size_t i = 0; i < results.size(); ++i) {
            if (!results[i].ok()) continue;
            const EmbeddingResult vectors =
                embedder_->parse_response(results[i].response, groups[i].size());
            if (!vectors.ok) continue;
            for (std::size_t j = 0; j < groups[i].size(); ++j)
                stage({text_id(groups[i][j]), 0, "",
                       std::vector<float>(vectors.vectors[j].begin(), vectors.vectors[j].end())});
        }
    }

    // Lines gathered into provider batches as they come, each batch within the vendor's caps
    // (requests, embedding inputs, bytes) and submitted as soon as it is full: only one batch's
    // lines are held at a time. Each is recorded, so a stopped run resumes with the rest.
    class BatchSplitter {
      public:
        BatchSplitter(BatchRunner& runner, std::string kind)
            : runner_(runner), kind_(std::move(kind)) {}
        void add(const PlannedLine& line) {
            if (!started_) {
                api_ = &runner_.submitting_api(kind_);
                caps_ = runner_.caps_for(*api_);
                started_ = true;
            }
            const std::size_t size = api_->line_bytes(line.line);
            const bool full = (caps_.requests > 0 && lines_.size() + 1 > caps_.requests) ||
                              (kind_ == "embedding" && caps_.embedding_inputs > 0 &&
                               inputs_ + line.inputs > caps_.embedding_inputs) ||
                              (caps_.bytes > 0 && bytes_ + size > caps_.bytes);
            if (full) flush();
            lines_.push_back(line.line);
            map_[line.line.custom_id] = line.mapped;
            inputs_ += line.inputs;
            bytes_ += size;
        }
        void finish() { flush(); }

      private:
        void flush() {
            if (lines_.empty()) return;
            runner_.submit_lines(kind_, lines_, map_);
            lines_.clear();
            map_ = json::object();
            inputs_ = 0;
            bytes_ = batch_framing_bytes;
        }
        BatchRunner& runner_;
        std::string kind_;
        bool started_ = false;
        const BatchApi* api_ = nullptr;
        BatchCaps caps_;
        std::vector<BatchLine> lines_;
        json map_ = json::object();
        std::size_t inputs_ = 0, bytes_ = batch_framing_bytes;
    };

    void submit_lines(const std::string& kind, const std::vector<BatchLine>& lines,
                      const json& map) {
        if (lines.empty()) return;
        // After an interrupt nothing new is submitted (the batches already out are recorded).
        check_cancel("before a provider batch was submitted");
        const HttpRequest& synchronous = lines.front().request;
        const BatchApi& api = submitting_api(kind);
        std::string ids;
        for (const BatchLine& line : lines) ids += line.custom_id + ",";
        const std::int64_t now = unix_now();
        ProviderBatchRecord intent;
        intent.id =
            "intent-" +
            sha256_hex(kind + ids +
                       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()))
                .substr(0, 40);
        intent.api = api.name();
        intent.kind = kind;
        intent.state = "intent";
        intent.lines = map.dump();
        intent.created_unix = now;
        json info = {{"url", synchronous.url},
                     {"intent", intent.id},
                     {"phase", report_.phases},
                     {"created_unix", now}};
        std::string file;
        if (std::optional<HttpRequest> upload = api.upload(lines)) {
            file = api.uploaded_file_id(send_one(*upload, "uploading a batch file"));
            debug_kill_point("after_upload");
            info["input_file"] = file;
        }
        // The intent, before the batch exists: a run stopped from here on finds the batch again.
        intent.request = info.dump();
        registry_->put_provider_batch(intent);
        debug_kill_point("after_intent");
        const HttpResponse created =
            send_one(api.create(synchronous, lines, file, intent.id), "creating a batch");
        debug_kill_point("after_create");
        const BatchStatus state = api.parse_status(created);
        // Recorded at once: from here on a stopped run resumes from it.
        ProviderBatchRecord record = intent;
        record.id = state.id;
        record.state = "submitted";
        registry_->put_provider_batch(record);
        intent.state = "resolved";
        registry_->put_provider_batch(intent);
        debug_kill_point("after_record");
        report_.submitted.push_back(state.id);
        report_.batch_requests += static_cast<std::int64_t>(lines.size());
        status("submitted " + record.api + " batch " + state.id + ": " +
               std::to_string(lines.size()) + " " + kind +
               (lines.size() == 1 ? " request" : " requests"));
    }

    const ValidationConfig& config_;
    const std::vector<PassageInput>& passages_;
    const BatchCallbacks& callbacks_;
    const BatchApiOptions& options_;
    BatchApiReport& report_;
    RunProviders providers_;
    const ChatProvider* chat_ = nullptr;
    const EmbeddingProvider* embedder_ = nullptr;  // null: the local embedder
    std::string chat_model_, embedding_model_;
    std::unique_ptr<Cache> registry_;
    std::optional<HttpRequest> chat_template_;  // chat_request_of()
    std::string work_path_;
    std::unique_ptr<Cache> work_;  // batch_staged and batch_pending (Cache's batch tables)
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

}  // namespace

BatchResult validate_with_batch_api(const ValidationConfig& config,
                                    const std::vector<PassageInput>& passages,
                                    const BatchCallbacks& callbacks, const BatchApiOptions& options,
                                    BatchApiReport* report, bool keep_results) {
    check_config(config);
    for (std::size_t i = 0; i < passages.size(); ++i) check_passage_text(passages[i], i);
    BatchApiReport local;
    BatchRunner runner(config, passages, callbacks, options, report ? *report : local);
    return runner.run(keep_results);
}

}  // namespace llmv::pipeline
