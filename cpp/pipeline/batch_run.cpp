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
#include <ctime>
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
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/resolution.hpp"
#include "pipeline/debug_env.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/providers.hpp"
#include "transport/retry.hpp"
#include "transport/transport.hpp"

namespace llmv::pipeline {

namespace {

using nlohmann::json;

constexpr int max_result_reads = 6;  // reads of one batch's results before taking them as they are
constexpr std::int64_t clock_skew_seconds = 600;  // between our clock and the vendor's

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
            throw_invalid(
                code::invalid_argument, "batch_api", resolved.chat_provider,
                "a chat provider with a batch API: " + batch_api_provider_names() +
                    " (Bedrock's batch inference needs S3 and is not supported; the simulated "
                    "provider needs none)");
        }
        // The run's own providers (open_providers(), as the scheduler and the dry run).
        providers_ = open_providers(config_, resolved, {}, "");
        chat_ = providers_.chat.get();
        embedder_ = providers_.embedder.get();
        chat_model_ = providers_.resolved.chat_model;
        if (embedder_) embedding_model_ = providers_.resolved.embedding_model;
        prepare_cache_directory(config_.cache_path);
        registry_ = std::make_unique<Cache>(config_.cache_path, config_.cache_busy_timeout_ms);
    }

    BatchResult run(bool keep_results) {
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
        for (int pass = 1; pass <= 1000; ++pass) {
            check_cancel("before the provider batches were read back");
            resolve_intents();
            const bool waiting = read_back_submitted();
            if (waiting) {  // submit_only: a batch is still out
                report_.waiting = true;
                return BatchResult();
            }
            DeferredCalls deferred;
            deferred.answered = std::move(answered_);
            deferred.vectors = std::move(vectors_);
            ++report_.phases;
            const BatchResult pass_result = run_pass(deferred);
            // Interrupted while the answers were cached: the batches stay "submitted", and a
            // resume reads them again (no request is sent again).
            check_cancel("while the batches' answers were cached");
            for (const auto& [model, usage] : pass_result.usage) usage_[model] += usage;
            for (ProviderBatchRecord& record : fetched_) {
                record.state = "done";
                registry_->put_provider_batch(record);
            }
            fetched_.clear();
            answered_.clear();
            vectors_.clear();
            if (deferred.missing.empty() && deferred.missing_texts.empty()) break;
            debug_kill_point("between_phases");
            check_cancel("before the next provider batch was submitted");
            status("phase " + std::to_string(report_.phases) + ": " +
                   std::to_string(deferred.missing.size()) + " chat requests and " +
                   std::to_string(deferred.missing_texts.size()) + " texts to embed");
            if (only_few_retries(deferred)) {
                send_synchronously(deferred);
                continue;
            }
            submit(deferred);
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

    // The caps of one provider batch: the vendor's, or smaller ones a test asked for.
    BatchCaps caps_for(BatchApiKind api) const {
        BatchCaps caps = vendor_batch_caps(api);
        const DebugBatchCaps debug = debug_batch_caps();
        const auto lower = [](std::size_t& cap, std::size_t wanted) {
            if (wanted > 0 && (cap == 0 || wanted < cap)) cap = wanted;
        };
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
    BatchResult run_pass(DeferredCalls& deferred, const BatchCallbacks& callbacks = BatchCallbacks()) {
        std::size_t next = 0;
        const PassageSource source = [&](PassageInput& out) {
            if (next >= passages_.size()) return false;
            out = passages_[next++];
            return true;
        };
        return run_engine(config_, source, callbacks, false, passages_.size(), &deferred);
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
        const BatchApiKind api =
            intent.api == "anthropic" ? BatchApiKind::anthropic : BatchApiKind::openai;
        const std::int64_t since = info.value("created_unix", std::int64_t{0}) - clock_skew_seconds;
        const std::string input_file = info.value("input_file", "");
        const std::size_t line_count = json::parse(intent.lines).size();
        std::optional<BatchStatus> candidate;
        std::string after;
        for (int page = 0; page < 50; ++page) {
            const BatchList list = parse_batch_list(
                api, send_one(batch_list(synchronous, after), "listing the provider's batches"));
            bool older = false;
            for (const BatchStatus& batch : list.batches) {
                const std::int64_t created = created_unix_of(batch);
                if (created != 0 && created < since) {
                    older = true;  // newest first: the rest are older still
                    break;
                }
                if (known_ids.count(batch.id)) continue;
                if (api == BatchApiKind::openai) {
                    // The uploaded file (ours alone) or the intent in the metadata identify it.
                    if ((!input_file.empty() && batch.input_file == input_file) ||
                        batch.intent == intent.id)
                        return batch;
                } else if (batch.total == line_count) {
                    // Anthropic keeps no metadata: a batch of this size created since the intent
                    // (the oldest such; its results are checked line by line when read).
                    candidate = batch;
                }
            }
            if (older || !list.has_more || list.last_id.empty()) break;
            after = list.last_id;
        }
        return candidate;
    }

    // The results of an ended batch, read until whole: a download cut short (a line that does
    // not parse, fewer lines than the batch's counts) is read again; the same text twice is
    // taken as what the vendor holds.
    BatchResults fetch_whole(BatchApiKind kind, const HttpRequest& synchronous,
                             const std::string& batch_id, const BatchStatus& state) {
        const std::size_t expected = state.succeeded + state.failed_lines;
        std::string previous;
        for (int read = 1;; ++read) {
            debug_kill_point("downloading");
            std::string text;
            BatchResults results;
            if (kind == BatchApiKind::anthropic) {
                text = send_one(batch_results_request(synchronous, state),
                                "reading the results of batch " + batch_id)
                           .body;
                results = anthropic_batch_results(text);
            } else {
                const std::string output =
                    state.output_file.empty()
                        ? ""
                        : send_one(openai_file_content(synchronous, state.output_file),
                                   "reading the output file of batch " + batch_id)
                              .body;
                const std::string errors =
                    state.error_file.empty()
                        ? ""
                        : send_one(openai_file_content(synchronous, state.error_file),
                                   "reading the error file of batch " + batch_id)
                              .body;
                results = openai_batch_results(output, errors);
                text = output + '\n' + errors;
            }
            if (results.unreadable == 0 && results.lines.size() >= expected) return results;
            const std::string counts =
                std::to_string(results.lines.size()) + " readable lines of " +
                std::to_string(expected) +
                (results.unreadable > 0 ? ", " + std::to_string(results.unreadable) + " cut short"
                                        : "");
            if ((read > 1 && text == previous) || read >= max_result_reads) {
                status("batch " + batch_id + ": its results hold " + counts +
                       ", the same at each of " + std::to_string(read) +
                       " reads; the requests missing from them are asked again");
                return results;
            }
            previous = std::move(text);
            status("batch " + batch_id + ": the download of its results was cut short (" + counts +
                   "); read again");
            const double pause = read == 1 ? 0.0 : static_cast<double>(1 << (read - 2));
            if (!interruptible_wait(pause, callbacks_.cancel))
                check_cancel("while reading the results of batch " + batch_id);
        }
    }

    // The batches recorded as submitted: polled until they end (submit_only: once), their
    // answers read into answered_ / vectors_. Returns true when submit_only finds one running.
    bool read_back_submitted() {
        for (const ProviderBatchRecord& record : registry_->provider_batches("submitted")) {
            const HttpRequest synchronous = template_request(record.kind);
            const BatchApiKind kind =
                record.api == "anthropic" ? BatchApiKind::anthropic : BatchApiKind::openai;
            BatchStatus state;
            while (true) {
                debug_kill_point("polling");
                state = parse_batch_status(kind, send_one(batch_poll(synchronous, record.id),
                                                          "polling batch " + record.id));
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
            const BatchResults results = fetch_whole(kind, synchronous, record.id, state);
            read_lines(record, results);
        }
        return false;
    }

    // A batch's lines, each checked against the custom ids submitted in it.
    void read_lines(ProviderBatchRecord record, const BatchResults& results) {
        const json lines = json::parse(record.lines);
        std::set<std::string> seen;
        std::size_t foreign = 0, failed = 0;
        for (const BatchLineResult& line : results.lines) {
            if (!lines.contains(line.custom_id)) {
                ++foreign;
                continue;
            }
            if (!seen.insert(line.custom_id).second)
                continue;  // a duplicate line: the first counts
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
                continue;
            }
            if (record.kind == "chat") {
                answered_[lines[line.custom_id].get<std::string>()] = line.response;
                continue;
            }
            const auto texts = lines[line.custom_id].get<std::vector<std::string>>();
            const EmbeddingResult vectors = embedder_->parse_response(line.response, texts.size());
            if (!vectors.ok) {
                failed_.insert(line.custom_id);
                ++failed;
                continue;
            }
            for (std::size_t i = 0; i < texts.size(); ++i) vectors_[texts[i]] = vectors.vectors[i];
            // The batch's embedding tokens, counted and priced like the chat answers'.
            usage_[embedding_model_].input_tokens +=
                static_cast<std::uint64_t>(std::max<std::int64_t>(0, vectors.input_tokens));
        }
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
                   " requests are missing from its results although they were read whole; each is "
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
        fetched_.push_back(std::move(record));
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

    bool embeddings_by_batch() const {
        if (!embedder_) return false;
        try {
            return batch_api_for(template_request("embedding")) == BatchApiKind::openai;
        } catch (const Error&) {
            return false;
        }
    }

    bool only_few_retries(const DeferredCalls& deferred) const {
        const std::size_t count = deferred.missing.size() + deferred.missing_texts.size();
        if (static_cast<int>(count) > options_.sync_retry_max) return false;
        for (const auto& missing : deferred.missing)
            if (missing.attempt == 0 && !failed_.count(missing.hash)) return false;
        return deferred.missing_texts.empty();
    }

    void send_synchronously(const DeferredCalls& deferred) {
        std::vector<HttpRequest> requests;
        for (const auto& missing : deferred.missing) requests.push_back(missing.request);
        const std::vector<JobResult> results = send(requests);
        report_.synchronous_requests += static_cast<std::int64_t>(requests.size());
        status(std::to_string(requests.size()) + " retries sent synchronously");
        for (std::size_t i = 0; i < results.size(); ++i) {
            if (results[i].ok()) answered_[deferred.missing[i].hash] = results[i].response;
        }
    }

    std::vector<std::vector<std::string>> embedding_groups(const std::vector<std::string>& texts,
                                                           std::size_t max_inputs) const {
        std::vector<std::vector<std::string>> groups;
        std::size_t size =
            std::max<std::size_t>(1, std::min<std::size_t>(embedder_->max_batch_size(), 256));
        if (max_inputs > 0) size = std::min(size, max_inputs);
        for (std::size_t i = 0; i < texts.size(); i += size)
            groups.emplace_back(
                texts.begin() + static_cast<std::ptrdiff_t>(i),
                texts.begin() + static_cast<std::ptrdiff_t>(std::min(texts.size(), i + size)));
        return groups;
    }

    void submit(const DeferredCalls& deferred) {
        // Chat: one line per request, custom_id its cache key's hash.
        std::vector<PlannedLine> chat;
        for (const auto& missing : deferred.missing)
            chat.push_back({{missing.hash, missing.request}, missing.hash, 1});
        submit_split("chat", chat);
        if (deferred.missing_texts.empty()) return;
        if (!embeddings_by_batch()) {
            // No batch API for this embedding provider: its texts go synchronously.
            std::vector<HttpRequest> requests;
            const auto groups = embedding_groups(deferred.missing_texts, 0);
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
                    vectors_[groups[i][j]] = vectors.vectors[j];
            }
            return;
        }
        std::vector<PlannedLine> embeddings;
        for (const auto& group : embedding_groups(
                 deferred.missing_texts, caps_for(BatchApiKind::openai).embedding_inputs)) {
            EmbeddingRequest request;
            request.model = embedding_model_;
            request.inputs = group;
            std::string joined;
            for (const std::string& text : group) joined += sha256_hex(text);
            const std::string id = "emb-" + sha256_hex(joined).substr(0, 40);
            embeddings.push_back({{id, embedder_->build_request(request)}, group, group.size()});
        }
        submit_split("embedding", embeddings);
    }

    // The lines as provider batches, each within the vendor's caps (requests, embedding inputs,
    // bytes); each is recorded, so a stopped run resumes with the rest.
    void submit_split(const std::string& kind, const std::vector<PlannedLine>& planned) {
        if (planned.empty()) return;
        const BatchApiKind api = batch_api_for(planned.front().line.request);
        const BatchCaps caps = caps_for(api);
        std::vector<BatchLine> lines;
        json map = json::object();
        std::size_t inputs = 0, bytes = batch_framing_bytes;
        const auto flush = [&]() {
            if (lines.empty()) return;
            submit_lines(kind, lines, map);
            lines.clear();
            map = json::object();
            inputs = 0;
            bytes = batch_framing_bytes;
        };
        for (const PlannedLine& line : planned) {
            const std::size_t size = batch_line_bytes(api, line.line);
            const bool full = (caps.requests > 0 && lines.size() + 1 > caps.requests) ||
                              (kind == "embedding" && caps.embedding_inputs > 0 &&
                               inputs + line.inputs > caps.embedding_inputs) ||
                              (caps.bytes > 0 && bytes + size > caps.bytes);
            if (full) flush();
            lines.push_back(line.line);
            map[line.line.custom_id] = line.mapped;
            inputs += line.inputs;
            bytes += size;
        }
        flush();
    }

    void submit_lines(const std::string& kind, const std::vector<BatchLine>& lines,
                      const json& map) {
        if (lines.empty()) return;
        // After an interrupt nothing new is submitted (the batches already out are recorded).
        check_cancel("before a provider batch was submitted");
        const HttpRequest& synchronous = lines.front().request;
        const BatchApiKind api = batch_api_for(synchronous);
        std::string ids;
        for (const BatchLine& line : lines) ids += line.custom_id + ",";
        const std::int64_t now = unix_now();
        ProviderBatchRecord intent;
        intent.id =
            "intent-" +
            sha256_hex(kind + ids +
                       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()))
                .substr(0, 40);
        intent.api = api == BatchApiKind::anthropic ? "anthropic" : "openai";
        intent.kind = kind;
        intent.state = "intent";
        intent.lines = map.dump();
        intent.created_unix = now;
        json info = {{"url", synchronous.url},
                     {"intent", intent.id},
                     {"phase", report_.phases},
                     {"created_unix", now}};
        std::string file;
        if (api == BatchApiKind::openai) {
            file = openai_uploaded_file_id(
                send_one(openai_batch_upload(lines), "uploading a batch file"));
            debug_kill_point("after_upload");
            info["input_file"] = file;
        }
        // The intent, before the batch exists: a run stopped from here on finds the batch again.
        intent.request = info.dump();
        registry_->put_provider_batch(intent);
        debug_kill_point("after_intent");
        HttpResponse created;
        if (api == BatchApiKind::anthropic) {
            created = send_one(anthropic_batch_create(lines), "creating a message batch");
        } else {
            created =
                send_one(openai_batch_create(synchronous, file,
                                             json({{batch_intent_metadata_key, intent.id}}).dump()),
                         "creating a batch");
        }
        debug_kill_point("after_create");
        const BatchStatus state = parse_batch_status(api, created);
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
               std::to_string(lines.size()) + " " + kind + " requests");
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
    std::unordered_map<std::string, HttpResponse> answered_;
    std::unordered_map<std::string, std::vector<double>> vectors_;
    std::set<std::string> failed_;          // custom_ids of lines a batch did not answer
    std::map<std::string, int> failures_;   // how often each of them failed
    std::set<std::string> missing_before_;  // missing once from a whole results file
    std::vector<ProviderBatchRecord> fetched_;
    std::map<std::string, ModelUsage> usage_;
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
