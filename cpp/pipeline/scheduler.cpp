// The scheduler: every passage in flight is a small state machine (passage_flow.cpp), and
// every request any of them needs goes into one queue that the transport drains with
// `concurrency` requests on the wire. Cache hits and the simulated provider are answered
// inline, without the transport.
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
#include "pipeline/test_worker.hpp"
#include "transport/transport.hpp"

namespace llmv::pipeline {

namespace {

// The placeholder for a missing key when reading back sends nothing (the providers refuse to
// be built without one).
RunProviders open_run_providers(const ValidationConfig& config,
                                const std::vector<std::string>& labels) {
    return open_providers(config, resolve_providers(config), labels,
                          config.replay_only ? "replay-only-no-key" : "");
}

class Engine : private PassageFlow::Requests {
  public:
    Engine(const ValidationConfig& config, const BatchCallbacks& callbacks, bool keep_results,
           std::size_t passages_total, DeferredCalls* deferred)
        : config_(config),
          callbacks_(callbacks),
          keep_results_(keep_results),
          deferred_(deferred),
          task_(std::make_shared<const Task>(load_config_task(config_))),
          providers_(open_run_providers(config_, task_->labels())),
          keys_(config_, providers_, task_->labels()),
          cache_(config_, cache_needed(), secrets_, callbacks_.cancel),
          reporter_(callbacks_, tally_),
          flow_(config_, task_, providers_.resolved, tally_, secrets_, *this),
          embeddings_(config_, providers_, keys_, cache_, tally_, accounting_, flow_, deferred_),
          fallback_(config_, providers_.resolved.chat_provider, chat_model()) {
        // The cache's write buffer reports passages once their answers are written.
        cache_.on_written([this]() { report_written(); });
        // Before any call: a price table the user names must load (its prices are for the end).
        price_table_ = price_table_for(config_.price_table);
        // A tiered price: the accounting counts the requests over its threshold apart.
        if (const ModelPrice* row =
                price_table_ ? price_table_->find(providers_.resolved.chat_provider, chat_model())
                             : nullptr)
            accounting_.set_tier_threshold(chat_model(),
                                           static_cast<std::uint64_t>(row->tier.threshold));
        tally_.progress.passages_total = passages_total;
        max_passages_in_flight_ =
            static_cast<std::size_t>(std::max(4, 4 * std::max(1, config_.concurrency) + 8));
        if (config_.api_key.size()) secrets_.push_back(config_.api_key);
        if (config_.embedding_api_key.size()) secrets_.push_back(config_.embedding_api_key);
        restore_learned();
    }

    BatchResult run(const PassageSource& source) {
        // The tests computed on this thread stop too on a cancellation.
        const stats::InterruptScope interrupts(callbacks_.cancel);
        // Before the first call (a batch-API run's passes: its runner said them once).
        if (!deferred_) warn_before_first_call(config_, providers_, callbacks_);
        try {
            return run_and_flush(source);
        } catch (...) {
            cache_.flush();  // what was paid for stays in the cache, whatever went wrong
            cache_.collect_written(/*wait=*/true);
            try {
                cache_.write_side_file(batch_, cancelled());
            } catch (...) {
                // The original error is the one to report.
            }
            throw;
        }
    }

  private:
    // No cache path: nothing is stored on disk; identical requests are still sent once in the
    // run (those in flight together join, later ones are answered from RunMemo, bounded).
    // The simulated provider and the local embedder bypass the cache on purpose: an answer is a
    // pure function of its request (like a cached one), costs microseconds (less than the
    // SQLite lookup), and a re-run reproduces every number bit for bit without it. Storing them
    // would only fill a user's cache, which may be shared with real runs, with synthetic rows.
    // Their calls are counted as calls of the simulated provider on every run (never as cache
    // hits): counters report what was computed, and nothing is paid.
    bool cache_needed() const {
        const bool needed = !synthetic_chat() || !local_embedding();
        if (config_.replay_only && !synthetic_chat() && config_.cache_path.empty()) {
            throw_invalid(code::invalid_argument, "cache", "none",
                          "the cache file of the run: the texts and answers of a provider other "
                          "than the simulated one are read back from it");
        }
        return needed;
    }
    bool synthetic_chat() const { return providers_.resolved.synthetic_chat; }
    bool local_embedding() const { return providers_.resolved.local_embedding; }
    const std::string& chat_model() const { return providers_.resolved.chat_model; }

    BatchResult run_and_flush(const PassageSource& source) {
        source_ = &source;
        reporter_.start();
        if (!deferred_) {
            // The tests run off this thread, which drives curl (test_worker.hpp); with the
            // simulated provider too, whose answers this thread computes meanwhile. (A pass of a
            // batch-API run sends nothing: its tests stay inline.)
            test_worker_ = std::make_unique<TestWorker>();
            flow_.set_test_runner([this](const PassagePtr& passage, stats::TestInput input) {
                const std::uint64_t ticket = next_test_ticket_++;
                testing_.emplace(ticket, passage);
                test_worker_->submit(ticket, std::move(input));
            });
        }
        if (needs_transport()) {
            TransportOptions options;
            options.max_concurrency = static_cast<std::size_t>(std::max(1, config_.concurrency));
            options.retry.max_retries = config_.max_transport_retries;
            options.rate_limits.requests_per_minute = config_.rpm;
            options.rate_limits.tokens_per_minute = config_.tpm;
            options.cancel = callbacks_.cancel;
            options.drain_seconds = config_.drain_seconds;
            options.accounting = &accounting_;
            // The write buffer is flushed on time also while every slot is busy: what a
            // SIGKILL can lose is bounded (CacheBuffer::batch_seconds, batch_size).
            options.tick = [this]() {
                cache_.maybe_flush();
                cache_.collect_written(/*wait=*/false);
                collect_tests();
            };
            add_debug_trace(options);
            Transport transport(options);
            const RunSummary summary =
                transport.run([this]() { return next_job(); },
                              [this](JobResult result) { on_done(std::move(result)); });
            batch_.cancelled = summary.cancelled || cancelled();
        } else {
            // Everything is answered inline: next_job only returns when no work is left.
            while (auto job = next_job()) {
                throw Error(code::internal, "a local provider produced a network request");
            }
            batch_.cancelled = cancelled();
        }
        flow_.set_test_runner(nullptr);
        test_worker_.reset();  // a passage still being tested was cut short: end_run fails it
        cache_.flush();
        cache_.collect_written(/*wait=*/true);
        cache_.write_side_file(batch_, batch_.cancelled);
        // Passages still open were cut short by a cancellation, a cache that could not be
        // written (or a transport shutdown). In a pass of a batch-API run they wait for their
        // provider batches instead: no row, and the next pass takes them up.
        if (!deferred_ || batch_.cancelled || cache_.stopped())
            flow_.end_run(batch_.cancelled, cache_.stopped() ? cache_.failure() : std::string());
        reporter_.report(true, flow_.admitted());
        batch_.progress = tally_.progress;
        batch_.calls = tally_.totals;
        batch_.synthetic = synthetic_chat() || local_embedding();
        batch_.summary = reporter_.summary(flow_.labels());
        batch_.usage = accounting_.by_model();
        batch_.cost = cost_of_usage(
            batch_.usage, price_table_.get(), providers_.resolved.chat_provider, chat_model(),
            providers_.resolved.embedding_provider, providers_.resolved.embedding_model);
        batch_.cost.paid_through = "synchronous";
        if (keep_results_) {
            std::sort(
                batch_.passages.begin(), batch_.passages.end(),
                [](const PassageResult& a, const PassageResult& b) { return a.index < b.index; });
        }
        return std::move(batch_);
    }

    // ---- admission and the queue ----------------------------------------------------------------
    bool needs_transport() const { return !deferred_ && (!synthetic_chat() || !local_embedding()); }
    bool cancelled() const { return cancel_requested(callbacks_.cancel); }

    std::optional<Job> next_job() {
        // The run's first chat request and its first embedding request each go alone: a model
        // the vendor does not serve (404) then stops the run after exactly one request of its
        // kind, before anything else is paid.
        if (first_answer_pending_) return std::nullopt;
        while (true) {
            if (cancelled()) return std::nullopt;
            reporter_.report(false, flow_.admitted());
            cache_.maybe_flush();
            cache_.collect_written(/*wait=*/false);
            // A cache write failed for a reason other than a lock (disk full, read-only): no
            // answer could be kept there, so nothing more is paid for.
            if (cache_.stopped()) return std::nullopt;
            collect_tests();
            admit();
            // Embeddings must not starve behind a long chat queue: a passage holds its pools in
            // memory until its texts are embedded.
            const bool embeddings_due =
                embeddings_.queued() > 0 &&
                (chat_queue_.empty() || embeddings_.queued() >= embeddings_.batch_size() ||
                 chat_since_embedding_ >=
                     static_cast<std::size_t>(std::max(4, config_.concurrency)));
            if (embeddings_due) {
                chat_since_embedding_ = 0;
                if (auto job = embeddings_.issue(next_job_id_, [this](const std::string& secret) {
                        remember_secret(secret);
                    }))
                    return sent(std::move(job), /*chat=*/false);
                continue;
            }
            if (!chat_queue_.empty()) {
                ChatUnit unit = pop_chat();
                if (auto job = issue_chat(std::move(unit))) {
                    ++chat_since_embedding_;
                    return sent(std::move(job), /*chat=*/true);
                }
                continue;
            }
            if (can_admit()) continue;
            // A batch-API pass: with nothing queued, every open passage waits for a provider
            // batch (its requests are recorded as missing). They leave memory, so that the
            // next passages are admitted; the next pass starts them again from the cache.
            if (deferred_ && !source_done_ && chat_queue_.empty() && embeddings_.queued() == 0 &&
                flow_.open_count() > 0) {
                embeddings_.drop_waiting();
                flow_.release_waiting();
                continue;
            }
            // Only tests left to finish: with nothing in flight the transport would end the run
            // at this nullopt, so wait here (a cancellation is seen within 0.25 s).
            if (test_worker_ && test_worker_->pending() > 0 && inflight_.empty() &&
                embeddings_.in_flight() == 0) {
                test_worker_->wait(0.25);
                collect_tests();
                continue;
            }
            return std::nullopt;
        }
    }

    std::optional<Job> sent(std::optional<Job> job, bool chat) {
        if (!kind_answered_[chat ? 1 : 0]) {
            first_answer_pending_ = true;
            first_job_id_ = job->id;
            first_job_chat_ = chat;
        }
        return job;
    }

    // A 404 names a model (or a path) the vendor does not serve, as does a 400 the provider
    // reads as refusing the model (Bedrock: an id past its end of life), or any 400 of the
    // first chat call that refuses no feature: every further call would fail the same way, so
    // the run stops here, with what was paid for already in the cache.
    void stop_if_model_unavailable(const JobResult& result, bool chat_job, bool first_chat,
                                   RefusedFeature feature) {
        const long status = result.response.status;
        if (result.ok() || (status != 404 && status != 400)) return;
        std::string vendor_message;
        if (chat_job)
            vendor_message = providers_.chat->parse_response(result.response).error.message;
        if (status == 400 && !chat_job) return;
        const std::string& provider =
            chat_job ? providers_.resolved.chat_provider : providers_.resolved.embedding_provider;
        const std::string& model = chat_job ? chat_model() : providers_.resolved.embedding_model;
        if (auto message =
                first_call_stop(feature, first_chat, provider, model, status, vendor_message)) {
            throw Error(status == 404 || feature == RefusedFeature::model
                            ? code::provider_not_found
                            : code::provider_bad_request,
                        redact(*message, secrets_));
        }
    }

    // The outcomes the worker has ready: each passage finished (and reported) here.
    void collect_tests() {
        if (!test_worker_) return;
        for (auto& [ticket, outcome] : test_worker_->take_done()) {
            const auto found = testing_.find(ticket);
            if (found == testing_.end()) continue;
            PassagePtr passage = std::move(found->second);
            testing_.erase(found);
            flow_.tests_done(passage, std::move(outcome));
        }
    }

    bool can_admit() const {
        return !source_done_ && flow_.open_count() < max_passages_in_flight_ &&
               chat_queue_.size() < static_cast<std::size_t>(2 * std::max(1, config_.concurrency));
    }

    void admit() {
        while (can_admit()) {
            PassageInput input;
            bool have = false;
            try {
                have = (*source_)(input);
            } catch (const Error&) {
                source_done_ = true;
                throw;
            }
            if (!have) {
                source_done_ = true;
                if (tally_.progress.passages_total == 0)
                    tally_.progress.passages_total = flow_.admitted();
                return;
            }
            flow_.start(std::move(input));
        }
    }

    ChatUnit pop_chat() {
        const auto top = chat_queue_.begin();
        ChatUnit unit = std::move(top->second);
        chat_queue_.erase(top);
        return unit;
    }

    // ---- what the passages ask for (PassageFlow::Requests) -------------------------------------
    void chat(ChatUnit unit) override {
        const std::size_t sequence = unit.passage->sequence;
        // Older passages first, then annotation before simulation before backtranslation.
        chat_queue_.emplace(std::make_tuple(sequence, static_cast<int>(unit.kind), unit_counter_++),
                            std::move(unit));
    }

    void embedding(const std::string& text, EmbedTarget target) override {
        embeddings_.push(text, std::move(target));
    }

    bool keeps_answers() const override { return cache_.enabled(); }

    void reject_embedding(const std::string& text, std::size_t dimension,
                          std::size_t majority) override {
        embeddings_.reject(text, dimension, majority);
    }

    // Its answers reach the cache before the passage is reported. (A write that fails keeps
    // them in memory, retried, and in the side file at the end: CacheBuffer.)
    void finished(const PassagePtr& passage) override {
        cache_.flush();
        // With the writer thread, its answers are in batches up to the last one submitted: it
        // is reported when the writer has written that one (report_written).
        if (cache_.has_writer() && cache_.batches_submitted() > cache_.batches_written()) {
            awaiting_write_.push_back({passage, cache_.batches_submitted()});
            return;
        }
        report(passage);
    }

    void report_written() {
        while (!awaiting_write_.empty() &&
               awaiting_write_.front().second <= cache_.batches_written()) {
            PassagePtr passage = std::move(awaiting_write_.front().first);
            awaiting_write_.pop_front();
            report(passage);
        }
    }

    void report(const PassagePtr& passage) {
        PassageResult& result = passage->result;
        reporter_.record(result);
        if (callbacks_.on_passage) callbacks_.on_passage(result);
        if (keep_results_) batch_.passages.push_back(std::move(result));
        passage->result = PassageResult();
    }

    // ---- chat calls -----------------------------------------------------------------------------
    struct InFlight {
        CacheKey key;
        std::string hash;  // key.hash(), computed once
        std::vector<ChatUnit> units;
        int generation = 0;  // ModelFallback::generation() when it was built
    };

    ChatRequest build_chat_request(const ChatUnit& unit) const {
        ChatRequest request = keys_.chat_request(unit.kind == Kind::simulate, unit.prompt,
                                                 unit.position, unit.count, unit.attempt);
        request.cache_prefix = shared_prefix(unit, config_.annotation_repeats);
        fallback_.apply(request);
        return request;
    }

    ParsedAnswer parse(const ChatUnit& unit, const std::string& text, bool refused) const {
        return parse_answer(unit.kind, unit.count, text, refused, flow_.labels());
    }

    std::optional<Job> issue_chat(ChatUnit unit) {
        if (unit.passage->finished) return std::nullopt;
        const ChatRequest request = build_chat_request(unit);
        if (synthetic_chat()) {
            answer_simulated(unit, request);
            return std::nullopt;
        }
        const CacheKey key = keys_.chat_key(request, unit.position, unit.attempt);
        const std::string hash = key.hash();
        if (auto found = inflight_by_key_.find(hash); found != inflight_by_key_.end()) {
            inflight_[found->second].units.push_back(std::move(unit));
            return std::nullopt;
        }
        if (auto entry = cache_.lookup(hash)) {
            const ParsedAnswer parsed =
                parse(unit, entry->text, entry->status == cache_status::refused);
            ++tally_.totals.cache_hits;
            ++tally_.progress.cache_hits;
            unit.passage->result.calls.cache_hits += 1;
            tally_.progress.calls_done += 1;
            accounting_.add_cache_hit(chat_model());
            flow_.deliver(unit, parsed, /*from_cache=*/true);
            return std::nullopt;
        }
        if (const MemoAnswer* kept = memo_.find(hash)) {
            answer_from_memo(unit, *kept);
            return std::nullopt;
        }
        if (deferred_) return defer_chat(std::move(unit), request, key, hash);
        if (config_.replay_only) {
            flow_.fail(unit.passage, code::cache,
                       "passage " + unit.passage->input.id + ": the cache holds no answer to its " +
                           kind_name(unit.kind) + " call (draw " + std::to_string(unit.position) +
                           (unit.label.empty() ? "" : ", label " + unit.label) +
                           "); run the validation with the same settings and cache first");
            return std::nullopt;
        }
        Job job;
        job.id = next_job_id_++;
        job.request = providers_.chat->build_request(request);
        job.model = chat_model();
        job.accept = is_json_body;
        add_encoding_override(job.request);
        job.estimated_tokens =
            static_cast<double>(unit.prompt.size()) / 4.0 +
            (config_.max_tokens ? *config_.max_tokens
                                : (unit.kind == Kind::simulate ? 200.0 * unit.count : 20.0));
        for (const auto& secret : job.request.secrets) remember_secret(secret);
        track_in_flight(job.id, key, hash, std::move(unit));
        return job;
    }

    // An answer this run received already, without a cache (RunMemo): shared, as a request in
    // flight is; delivered as a cached answer is (an unusable one is redrawn, as from the cache).
    void answer_from_memo(ChatUnit& unit, const MemoAnswer& kept) {
        const ParsedAnswer parsed = parse(unit, kept.text, kept.refused);
        ++tally_.totals.shared;
        unit.passage->result.calls.shared += 1;
        tally_.progress.calls_done += 1;
        flow_.deliver(unit, parsed, /*from_cache=*/true);
    }

    // Every random choice of the DGP is fixed by the request (prompt, draw index, attempt), the
    // passage, the topic and the DGP's own seed: like a cached LLM answer, and every passage
    // gets pools of its own.
    void answer_simulated(ChatUnit& unit, const ChatRequest& request) {
        const SimulatedModel& simulated = *providers_.simulated;
        const std::string& topic =
            config_.simulated.topic.empty() ? unit.passage->input.text : config_.simulated.topic;
        const std::uint64_t draw_seed =
            mix_seed(stable_hash(keys_.chat_key(request, unit.position, unit.attempt).canonical()),
                     mix_seed(config_.simulated.seed,
                              stable_hash(topic) ^ (stable_hash(unit.passage->input.text) << 1)));
        std::string answer;
        if (unit.kind == Kind::simulate) {
            answer = simulated.generate(unit.label, unit.count, topic, draw_seed);
        } else {
            const std::string& text = unit.kind == Kind::annotate
                                          ? unit.passage->input.text
                                          : unit.passage->pools[unit.label]
                                                .texts[static_cast<std::size_t>(unit.position)];
            answer = simulated.annotate(text, draw_seed);
        }
        const ParsedAnswer parsed = parse(unit, answer, false);
        ++tally_.totals.chat_calls;
        unit.passage->result.calls.chat_calls += 1;
        tally_.progress.calls_done += 1;
        flow_.deliver(unit, parsed, /*from_cache=*/false);
    }

    // A job's first unit; later units with the same cache key join it (shared calls).
    void track_in_flight(std::uint64_t job_id, const CacheKey& key, const std::string& hash,
                         ChatUnit unit) {
        InFlight flight;
        flight.key = key;
        flight.hash = hash;
        flight.units.push_back(std::move(unit));
        flight.generation = fallback_.generation();
        inflight_by_key_[hash] = job_id;
        inflight_[job_id] = std::move(flight);
    }

    // A chat request the model refused for a feature: switched once (ModelFallback), and the
    // refused request, with those waiting on it, goes again; the next one goes alone again,
    // so that a second refusal costs one call too. True when the units were queued again.
    bool fall_back(InFlight& flight, RefusedFeature feature) {
        if (flight.generation == fallback_.generation()) {
            const auto warning = fallback_.switch_for(feature);
            if (!warning) return false;
            batch_.setting_changes = fallback_.changes();
            warn(*warning);
            kind_answered_[1] = false;
            if (cache_.enabled()) {  // the next run on this cache starts switched
                CacheKey key = learned_key();
                std::string hash = key.hash();
                CacheEntry entry;
                entry.text = fallback_.learned();
                cache_.store(std::move(key), std::move(hash), std::move(entry));
            }
        }
        for (ChatUnit& unit : flight.units) chat(std::move(unit));
        return true;
    }

    CacheKey learned_key() const {
        return ModelFallback::key(providers_.resolved.chat_provider, providers_.chat_endpoint,
                                  chat_model());
    }

    // A switch an earlier run on this cache made for the model applies from the first request.
    void restore_learned() {
        if (!cache_.enabled() || synthetic_chat() || !providers_.chat) return;
        const auto entry = cache_.lookup(learned_key().hash());
        if (!entry) return;
        const std::string warning = fallback_.restore(entry->text);
        if (warning.empty()) return;
        batch_.setting_changes = fallback_.changes();
        warn(warning);
    }

    void warn(const std::string& warning) {
        batch_.warnings.push_back(warning);
        if (callbacks_.on_warning) callbacks_.on_warning({"fallback", warning});
    }

    // Batch-API mode: the answer a provider batch gave goes the way of a synchronous one (the
    // same parsing, cache entry and redraws); a request no batch answered yet is recorded and
    // its passage waits for the next pass.
    std::optional<Job> defer_chat(ChatUnit unit, const ChatRequest& request, const CacheKey& key,
                                  const std::string& hash) {
        std::optional<HttpResponse> answer;
        if (deferred_->answer) answer = deferred_->answer(hash);
        if (!answer) {
            if (deferred_->missing_request)
                deferred_->missing_request(hash, providers_.chat->build_request(request),
                                           unit.attempt);
            return std::nullopt;
        }
        ++deferred_->consumed;
        JobResult result;
        result.id = next_job_id_++;
        result.response = std::move(*answer);
        result.attempts = 1;
        track_in_flight(result.id, key, hash, std::move(unit));
        on_done(std::move(result));
        return std::nullopt;
    }

    void remember_secret(const std::string& secret) {
        if (!secret.empty() &&
            std::find(secrets_.begin(), secrets_.end(), secret) == secrets_.end()) {
            secrets_.push_back(secret);
        }
    }

    void on_done(JobResult result) {
        // Answers from the cache come here too; only the network's first answer opens the gate.
        const bool chat_job = inflight_.count(result.id) > 0;
        const bool first_chat = !kind_answered_[1] && first_answer_pending_ &&
                                result.id == first_job_id_ && first_job_chat_ &&
                                fallback_.generation() == 0;
        if (first_answer_pending_ && result.id == first_job_id_) {
            first_answer_pending_ = false;
            kind_answered_[first_job_chat_ ? 1 : 0] = true;
        }
        const RefusedFeature refused = chat_job && result.response.status == 400
                                           ? providers_.chat->refused_feature(result.response)
                                           : RefusedFeature::none;
        stop_if_model_unavailable(result, chat_job, first_chat, refused);
        if (embeddings_.done(result)) {
            reporter_.report(false, flow_.admitted());
            return;
        }
        const auto found = inflight_.find(result.id);
        if (found == inflight_.end()) return;
        InFlight flight = std::move(found->second);
        inflight_.erase(found);
        inflight_by_key_.erase(flight.hash);
        Progress& progress = tally_.progress;
        CallCounts& totals = tally_.totals;
        if (result.attempts > 1) {
            const std::int64_t retries = result.attempts - 1;
            totals.transport_retries += retries;
            progress.retries += retries;
            for (ChatUnit& unit : flight.units)
                unit.passage->result.calls.transport_retries += retries;
        }
        const ChatProvider& provider = *providers_.chat;
        if (!result.ok() && refused != RefusedFeature::none && fall_back(flight, refused)) return;
        if (!result.ok()) {
            const std::string message =
                result.error_code == code::cancelled
                    ? result.error_message
                    : failure_message(result.error_message, result.response, provider);
            for (ChatUnit& unit : flight.units) {
                flow_.fail(unit.passage, result.error_code,
                           "passage " + unit.passage->input.id + ", " + kind_name(unit.kind) +
                               " call: " + message);
            }
            return;
        }
        const ChatResult answer = provider.parse_response(result.response);
        if (!answer.ok) {
            // A 2xx whose body the provider cannot read (truncated, not JSON): not an answer of
            // the model, so it is not cached; the same request is sent again.
            for (ChatUnit& unit : flight.units) {
                if (unit.transport_attempt < config_.max_transport_retries &&
                    answer.error.retryable) {
                    ++unit.transport_attempt;
                    ++totals.transport_retries;
                    ++progress.retries;
                    unit.passage->result.calls.transport_retries += 1;
                    chat(std::move(unit));
                } else {
                    flow_.fail(
                        unit.passage,
                        answer.error.code.empty() ? code::provider_server : answer.error.code,
                        "passage " + unit.passage->input.id + ", " + kind_name(unit.kind) +
                            " call: " + answer.error.message);
                }
            }
            return;
        }
        const ParsedAnswer parsed = parse(flight.units.front(), answer.text, answer.refused);
        const auto tokens = [](std::int64_t count) {
            return static_cast<std::uint64_t>(std::max<std::int64_t>(0, count));
        };
        CacheEntry entry;
        entry.status = cache_status_of(parsed, answer.refused);
        entry.body = result.response.body;
        entry.text = answer.text;
        entry.response_model = answer.model;
        entry.input_tokens = tokens(answer.input_tokens);
        entry.output_tokens = tokens(answer.output_tokens);
        if (cache_.enabled())
            cache_.store(std::move(flight.key), std::move(flight.hash), std::move(entry));
        else
            memo_.keep(flight.hash, MemoAnswer{answer.text, answer.refused, {}});
        accounting_.add_tokens(chat_model(), tokens(answer.input_tokens),
                               tokens(answer.output_tokens), tokens(answer.cached_input_tokens),
                               tokens(answer.cache_write_input_tokens),
                               tokens(answer.reasoning_tokens));
        if (!parsed.ok) accounting_.add_invalid_answer(chat_model());
        ++totals.chat_calls;
        totals.input_tokens += answer.input_tokens;
        totals.output_tokens += answer.output_tokens;
        progress.input_tokens += answer.input_tokens;
        progress.output_tokens += answer.output_tokens;
        bool first_unit = true;
        for (ChatUnit& unit : flight.units) {
            progress.calls_done += 1;
            if (first_unit) {
                unit.passage->result.calls.chat_calls += 1;
                unit.passage->result.calls.input_tokens += answer.input_tokens;
                unit.passage->result.calls.output_tokens += answer.output_tokens;
            } else {
                unit.passage->result.calls.shared += 1;
                ++totals.shared;
            }
            flow_.deliver(unit, parsed, /*from_cache=*/false);
            first_unit = false;
        }
        reporter_.report(false, flow_.admitted());
    }

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
    std::unique_ptr<TestWorker> test_worker_;  // while a run (not a batch-API pass) goes on
    std::unordered_map<std::uint64_t, PassagePtr> testing_;  // handed to the worker, by ticket
    std::uint64_t next_test_ticket_ = 0;
    BatchResult batch_;
};

}  // namespace

BatchResult run_engine(const ValidationConfig& config, const PassageSource& source,
                       const BatchCallbacks& callbacks, bool keep_results,
                       std::size_t passages_total, DeferredCalls* deferred) {
    Engine engine(config, callbacks, keep_results, passages_total, deferred);
    return engine.run(source);
}

}  // namespace llmv::pipeline
