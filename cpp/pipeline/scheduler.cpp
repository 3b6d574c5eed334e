// The scheduler: every passage in flight is a small state machine (passage_flow.cpp), and
// every request any of them needs goes into one queue that the transport drains with
// `concurrency` requests on the wire. Cache hits and the simulated provider are answered
// inline, without the transport.
#include "pipeline/scheduler.hpp"
#include "pipeline/input_order.hpp"

#include <algorithm>
#include <exception>
#include <limits>

namespace llmv::pipeline {

namespace {

// The placeholder for a missing key when reading back sends nothing (the providers refuse to
// be built without one).
RunProviders open_run_providers(const ValidationConfig& config,
                                const std::vector<std::string>& labels) {
    return open_providers(config, resolve_providers(config), labels,
                          config.replay_only ? "replay-only-no-key" : "");
}

}  // namespace

Engine::Engine(const ValidationConfig& config, const BatchCallbacks& callbacks, bool keep_results,
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

BatchResult Engine::run(const PassageSource& source) {
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

bool Engine::cache_needed() const {
    const bool needed = !synthetic_chat() || !local_embedding();
    if (config_.replay_only && !synthetic_chat() && config_.cache_path.empty()) {
        throw_invalid(code::invalid_argument, "cache", "none",
                      "the cache file of the run: the texts and answers of a provider other "
                      "than the simulated one are read back from it");
    }
    return needed;
}

BatchResult Engine::run_and_flush(const PassageSource& source) {
    source_ = &source;
    reporter_.start();
    if (!deferred_) {
        // The tests run off this thread, which drives curl (stats_worker.hpp); with the
        // simulated provider too, whose answers this thread computes meanwhile. (A pass of a
        // batch-API run sends nothing: its tests stay inline.)
        test_worker_ = std::make_unique<StatsWorker>();
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
    batch_.cost = cost_of_usage(batch_.usage, price_table_.get(), providers_.resolved.chat_provider,
                                chat_model(), providers_.resolved.embedding_provider,
                                providers_.resolved.embedding_model);
    batch_.cost.paid_through = "synchronous";
    if (keep_results_) {
        std::sort(batch_.passages.begin(), batch_.passages.end(),
                  [](const PassageResult& a, const PassageResult& b) { return a.index < b.index; });
    }
    return std::move(batch_);
}

std::optional<Job> Engine::next_job() {
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
             chat_since_embedding_ >= static_cast<std::size_t>(std::max(4, config_.concurrency)));
        if (embeddings_due) {
            chat_since_embedding_ = 0;
            if (auto job = embeddings_.issue(
                    next_job_id_, [this](const std::string& secret) { remember_secret(secret); }))
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

std::optional<Job> Engine::sent(std::optional<Job> job, bool chat) {
    if (!kind_answered_[chat ? 1 : 0]) {
        first_answer_pending_ = true;
        first_job_id_ = job->id;
        first_job_chat_ = chat;
    }
    return job;
}

void Engine::collect_tests() {
    if (!test_worker_) return;
    for (auto& [ticket, outcome] : test_worker_->take_done()) {
        const auto found = testing_.find(ticket);
        if (found == testing_.end()) continue;
        PassagePtr passage = std::move(found->second);
        testing_.erase(found);
        flow_.tests_done(passage, std::move(outcome));
    }
}

bool Engine::can_admit() const {
    return !source_done_ && flow_.open_count() < max_passages_in_flight_ &&
           chat_queue_.size() < static_cast<std::size_t>(2 * std::max(1, config_.concurrency));
}

void Engine::admit() {
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

ChatUnit Engine::pop_chat() {
    const auto top = chat_queue_.begin();
    ChatUnit unit = std::move(top->second);
    chat_queue_.erase(top);
    return unit;
}

void Engine::chat(ChatUnit unit) {
    const std::size_t sequence = unit.passage->sequence;
    // Older passages first, then annotation before simulation before backtranslation.
    chat_queue_.emplace(std::make_tuple(sequence, static_cast<int>(unit.kind), unit_counter_++),
                        std::move(unit));
}

void Engine::reject_embedding(const std::string& text, std::size_t dimension,
                              std::size_t majority) {
    embeddings_.reject(text, dimension, majority);
}

void Engine::finished(const PassagePtr& passage) {
    cache_.flush();
    // With the writer thread, its answers are in batches up to the last one submitted: it
    // is reported when the writer has written that one (report_written).
    if (cache_.has_writer() && cache_.batches_submitted() > cache_.batches_written()) {
        awaiting_write_.push_back({passage, cache_.batches_submitted()});
        return;
    }
    report(passage);
}

void Engine::report_written() {
    while (!awaiting_write_.empty() && awaiting_write_.front().second <= cache_.batches_written()) {
        PassagePtr passage = std::move(awaiting_write_.front().first);
        awaiting_write_.pop_front();
        report(passage);
    }
}

void Engine::report(const PassagePtr& passage) {
    PassageResult& result = passage->result;
    reporter_.record(result, passage->input.text);
    if (callbacks_.on_passage) callbacks_.on_passage(result);
    if (keep_results_) batch_.passages.push_back(std::move(result));
    passage->result = PassageResult();
}

void Engine::remember_secret(const std::string& secret) {
    if (!secret.empty() && std::find(secrets_.begin(), secrets_.end(), secret) == secrets_.end()) {
        secrets_.push_back(secret);
    }
}

BatchResult run_engine(const ValidationConfig& config, const PassageSource& source,
                       const BatchCallbacks& callbacks, bool keep_results,
                       std::size_t passages_total, DeferredCalls* deferred) {
    // Rows go to the front end in input order on every path (synchronous, the batch API's
    // read-back, a failed run's finished rows): passages finish in any order.
    InputOrder order(callbacks.on_passage);
    const BatchCallbacks ordered = in_input_order(callbacks, order);
    BatchResult result;
    std::exception_ptr failure;
    {
        Engine engine(config, ordered, keep_results, passages_total, deferred);
        try {
            result = engine.run(source);
        } catch (...) {
            failure = std::current_exception();
        }
    }               // the engine is gone: no row comes after this
    order.flush();  // on a failure too: the rows finished before it are still written
    if (failure) std::rethrow_exception(failure);
    return result;
}

}  // namespace llmv::pipeline
