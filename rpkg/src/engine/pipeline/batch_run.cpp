// Batch-API runs (pipeline.hpp, validate_with_batch_api). Each pass runs the pipeline over
// every passage without sending anything (run_engine with DeferredCalls): the answers the
// provider batches gave are consumed and cached as synchronous ones, and the requests still
// missing are collected. Those are submitted as the next provider batch (or, when only a few
// retries remain, sent synchronously), and the pass is repeated until nothing is missing; the
// last run reads every answer from the cache. Submitted batches are recorded in the cache file
// and always read back before anything new is collected, so no request is submitted twice.
#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <limits>
#include <thread>

#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llm/provider.hpp"
#include "llm/provider_batch.hpp"
#include "llmvalidate/resolution.hpp"
#include "core/sha256.hpp"
#include "transport/transport.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/providers.hpp"

namespace llmv::pipeline {

namespace {

using nlohmann::json;

constexpr std::size_t max_lines_per_batch = 50000;  // both APIs' limit

class BatchRunner {
  public:
    BatchRunner(const ValidationConfig& config, const std::vector<PassageInput>& passages,
                const BatchCallbacks& callbacks, const BatchApiOptions& options, BatchApiReport& report)
        : config_(config), passages_(passages), callbacks_(callbacks), options_(options), report_(report) {
        if (config_.cache_path.empty() || config_.cache_path == ":memory:") {
            throw_invalid(code::invalid_argument, "cache", config_.cache_path.empty() ? "none" : config_.cache_path,
                          "a cache file: a batch-API run keeps its batches' ids and answers there, "
                          "and resumes from them");
        }
        const ResolvedProviders resolved = resolve_providers(config_);
        if (resolved.synthetic_chat || (resolved.chat_provider != "openai" && resolved.chat_provider != "anthropic")) {
            throw_invalid(code::invalid_argument, "batch_api", resolved.chat_provider,
                          "a chat provider with a batch API: openai or anthropic (Bedrock's batch "
                          "inference needs S3 and is not supported; the simulated provider needs none)");
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
        for (int pass = 1; pass <= 1000; ++pass) {
            if (cancelled()) break;
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
            for (const auto& [model, usage] : pass_result.usage) usage_[model] += usage;
            for (ProviderBatchRecord& record : fetched_) {
                record.state = "done";
                registry_->put_provider_batch(record);
            }
            fetched_.clear();
            answered_.clear();
            vectors_.clear();
            if (deferred.missing.empty() && deferred.missing_texts.empty()) break;
            status("phase " + std::to_string(report_.phases) + ": " + std::to_string(deferred.missing.size()) +
                   " chat requests and " + std::to_string(deferred.missing_texts.size()) + " texts to embed");
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
        result.cost = cost_of_usage(result.usage, table.get(), resolved.chat_provider, resolved.chat_model,
                                    resolved.embedding_provider, resolved.embedding_model);
        return result;
    }

  private:
    bool cancelled() const { return callbacks_.cancel && callbacks_.cancel->load(); }

    void status(const std::string& line) {
        if (options_.on_status) options_.on_status(line);
    }

    BatchResult run_pass(DeferredCalls& deferred) {
        std::size_t next = 0;
        const PassageSource source = [&](PassageInput& out) {
            if (next >= passages_.size()) return false;
            out = passages_[next++];
            return true;
        };
        return run_engine(config_, source, BatchCallbacks(), false, passages_.size(), &deferred);
    }

    // Sends requests (polls, uploads, retries) with the run's retry policy: 429s and 5xx are
    // retried with backoff by the transport.
    std::vector<JobResult> send(const std::vector<HttpRequest>& requests) {
        TransportOptions options;
        options.max_concurrency = static_cast<std::size_t>(std::max(1, config_.concurrency));
        options.retry.max_retries = config_.max_transport_retries;
        options.cancel = callbacks_.cancel;
        std::vector<JobResult> results(requests.size());
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
        if (!result.ok() && result.response.status / 100 != 2) {
            throw Error(result.error_code.empty() ? code::provider_server : result.error_code,
                        what + ": " + result.error_message);
        }
        return result.response;
    }

    // The batches recorded as submitted: polled until they end (submit_only: once), their
    // answers read into answered_ / vectors_. Returns true when submit_only finds one running.
    bool read_back_submitted() {
        for (const ProviderBatchRecord& record : registry_->provider_batches("submitted")) {
            const json request_info = json::parse(record.request);
            HttpRequest synchronous = template_request(record.kind);
            const BatchApiKind kind = record.api == "anthropic" ? BatchApiKind::anthropic : BatchApiKind::openai;
            BatchStatus state;
            while (true) {
                state = parse_batch_status(kind, send_one(batch_poll(synchronous, record.id), "polling batch " + record.id));
                status("batch " + record.id + " (" + record.kind + "): " + state.status + ", " +
                       std::to_string(state.succeeded) + " done, " + std::to_string(state.failed_lines) +
                       " failed of " + std::to_string(state.total));
                if (state.ended) break;
                if (options_.submit_only) return true;
                if (cancelled()) throw Error(code::cancelled, "cancelled while waiting for batch " + record.id +
                                                                  "; the same command resumes from it");
                std::this_thread::sleep_for(std::chrono::duration<double>(options_.poll_interval_seconds));
            }
            if (state.failed) {
                // Refused as a whole (no line ran): sending it again would be refused again.
                ProviderBatchRecord failed = record;
                failed.state = "failed";
                registry_->put_provider_batch(failed);
                throw Error(code::provider_server, "the provider refused batch " + record.id + ": " +
                                                       (state.message.empty() ? state.status : state.message));
            }
            BatchResults results;
            if (kind == BatchApiKind::anthropic) {
                if (!state.failed) results = anthropic_batch_results(send_one(batch_results_request(synchronous, state), "batch results").body);
            } else {
                const std::string output = state.output_file.empty() ? "" : send_one(openai_file_content(synchronous, state.output_file), "batch output file").body;
                const std::string errors = state.error_file.empty() ? "" : send_one(openai_file_content(synchronous, state.error_file), "batch error file").body;
                results = openai_batch_results(output, errors);
            }
            const json lines = json::parse(record.lines);
            std::size_t ok = 0;
            for (const BatchLineResult& line : results.lines) {
                if (!line.ok || !lines.contains(line.custom_id)) continue;
                ++ok;
                if (record.kind == "chat") {
                    answered_[lines[line.custom_id].get<std::string>()] = line.response;
                } else {
                    const auto texts = lines[line.custom_id].get<std::vector<std::string>>();
                    const EmbeddingResult vectors = embedder_->parse_response(line.response, texts.size());
                    if (!vectors.ok) continue;
                    for (std::size_t i = 0; i < texts.size(); ++i) vectors_[texts[i]] = vectors.vectors[i];
                }
            }
            if (ok < lines.size()) {
                status("batch " + record.id + ": " + std::to_string(lines.size() - ok) +
                       " lines failed or were not in its results; they are asked again");
            }
            for (const BatchLineResult& line : results.lines) {
                if (line.ok || !lines.contains(line.custom_id)) continue;
                failed_.insert(line.custom_id);
                // A line that keeps failing (a request the provider refuses) is not sent forever.
                if (++failures_[line.custom_id] > std::max(1, config_.max_transport_retries)) {
                    throw Error(code::provider_server,
                                "a request failed in " + std::to_string(failures_[line.custom_id]) +
                                    " provider batches (the last: " + line.error +
                                    "); the answers so far are in the cache, and the same command resumes");
                }
            }
            fetched_.push_back(record);
            (void)request_info;
        }
        return false;
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

    std::vector<std::vector<std::string>> embedding_groups(const std::vector<std::string>& texts) const {
        std::vector<std::vector<std::string>> groups;
        const std::size_t size = std::max<std::size_t>(1, std::min<std::size_t>(embedder_->max_batch_size(), 256));
        for (std::size_t i = 0; i < texts.size(); i += size)
            groups.emplace_back(texts.begin() + static_cast<std::ptrdiff_t>(i),
                                texts.begin() + static_cast<std::ptrdiff_t>(std::min(texts.size(), i + size)));
        return groups;
    }

    void submit(const DeferredCalls& deferred) {
        // Chat: one line per request, custom_id its cache key's hash.
        for (std::size_t from = 0; from < deferred.missing.size(); from += max_lines_per_batch) {
            std::vector<BatchLine> lines;
            json map = json::object();
            for (std::size_t i = from; i < std::min(deferred.missing.size(), from + max_lines_per_batch); ++i) {
                lines.push_back({deferred.missing[i].hash, deferred.missing[i].request});
                map[deferred.missing[i].hash] = deferred.missing[i].hash;
            }
            submit_lines("chat", lines, map);
        }
        if (deferred.missing_texts.empty()) return;
        if (!embeddings_by_batch()) {
            // No batch API for this embedding provider: its texts go synchronously.
            std::vector<HttpRequest> requests;
            const auto groups = embedding_groups(deferred.missing_texts);
            for (const auto& group : groups) {
                EmbeddingRequest request;
                request.model = embedding_model_;
                request.inputs = group;
                requests.push_back(embedder_->build_request(request));
            }
            const std::vector<JobResult> results = send(requests);
            report_.synchronous_requests += static_cast<std::int64_t>(requests.size());
            for (std::size_t i = 0; i < results.size(); ++i) {
                if (!results[i].ok()) continue;
                const EmbeddingResult vectors = embedder_->parse_response(results[i].response, groups[i].size());
                if (!vectors.ok) continue;
                for (std::size_t j = 0; j < groups[i].size(); ++j) vectors_[groups[i][j]] = vectors.vectors[j];
            }
            return;
        }
        std::vector<BatchLine> lines;
        json map = json::object();
        for (const auto& group : embedding_groups(deferred.missing_texts)) {
            EmbeddingRequest request;
            request.model = embedding_model_;
            request.inputs = group;
            std::string joined;
            for (const std::string& text : group) joined += sha256_hex(text);
            const std::string id = "emb-" + sha256_hex(joined).substr(0, 40);
            lines.push_back({id, embedder_->build_request(request)});
            map[id] = group;
        }
        submit_lines("embedding", lines, map);
    }

    void submit_lines(const std::string& kind, const std::vector<BatchLine>& lines, const json& map) {
        if (lines.empty()) return;
        const HttpRequest& synchronous = lines.front().request;
        const BatchApiKind api = batch_api_for(synchronous);
        HttpResponse created;
        if (api == BatchApiKind::anthropic) {
            created = send_one(anthropic_batch_create(lines), "creating a message batch");
        } else {
            const std::string file = openai_uploaded_file_id(send_one(openai_batch_upload(lines), "uploading a batch file"));
            created = send_one(openai_batch_create(synchronous, file), "creating a batch");
        }
        const BatchStatus state = parse_batch_status(api, created);
        // Recorded at once: from here on a stopped run resumes from it.
        ProviderBatchRecord record;
        record.id = state.id;
        record.api = api == BatchApiKind::anthropic ? "anthropic" : "openai";
        record.kind = kind;
        record.state = "submitted";
        record.lines = map.dump();
        record.request = json({{"url", synchronous.url}}).dump();
        record.created_unix = static_cast<std::int64_t>(std::time(nullptr));
        registry_->put_provider_batch(record);
        report_.submitted.push_back(state.id);
        report_.batch_requests += static_cast<std::int64_t>(lines.size());
        status("submitted " + record.api + " batch " + state.id + ": " + std::to_string(lines.size()) + " " +
               kind + " requests");
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
    std::set<std::string> failed_;  // custom_ids of lines a batch did not answer
    std::map<std::string, int> failures_;  // how often each of them failed
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
