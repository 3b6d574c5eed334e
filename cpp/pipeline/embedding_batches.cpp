// Embedding batches (embedding_batches.hpp).
#include "pipeline/embedding_batches.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/float32.hpp"
#include "llmvalidate/error.hpp"
#include "pipeline/debug_env.hpp"
#include "pipeline/simulated.hpp"

namespace llmv::pipeline {

EmbeddingBatches::EmbeddingBatches(const ValidationConfig& config, const RunProviders& providers,
                                   const RequestKeys& keys, CacheBuffer& cache, Tally& tally,
                                   Accounting& accounting, PassageFlow& flow,
                                   DeferredCalls* deferred)
    : config_(config),
      providers_(providers),
      keys_(keys),
      cache_(cache),
      tally_(tally),
      accounting_(accounting),
      flow_(flow),
      deferred_(deferred) {
    if (providers_.embedder) {
        batch_size_ = std::max<std::size_t>(1, providers_.embedder->max_batch_size());
        limits_ = providers_.embedder->limits();
        limits_.max_inputs = batch_size_;
    }
}

void EmbeddingBatches::push(const std::string& text, EmbedTarget target) {
    if (!providers_.embedder) {
        const std::vector<double> vector = shared_embedder().embed(text);
        ++tally_.totals.embedded_texts;
        target.passage->result.calls.embedded_texts += 1;
        tally_.progress.calls_done += 1;
        flow_.store_embedding(target, vector);
        return;
    }
    // A text the provider would refuse: its passage fails here, before anything is sent for it.
    if (const auto refusal =
            embedding_input_refusal(limits_, providers_.resolved.embedding_model, text)) {
        if (target.passage->finished) return;
        const PassageState& passage = *target.passage;
        const std::string which = target.label.empty()
                                      ? "the passage's text"
                                      : "a text generated for label " + target.label + " (draw " +
                                            std::to_string(target.row + 1) +
                                            "; its chat answers are in the cache)";
        flow_.fail(target.passage, code::invalid_argument,
                   "row " + std::to_string(passage.index + 1) + ", " + which +
                       " cannot be embedded: " + *refusal +
                       ". Shorten or split the text, or embed with a model that takes longer "
                       "texts; no embedding request was sent for it");
        return;
    }
    auto pending = targets_.find(text);
    if (pending != targets_.end()) {
        pending->second.push_back(std::move(target));
        return;
    }
    targets_[text].push_back(std::move(target));
    queue_.push_back(text);
}

std::optional<Job> EmbeddingBatches::issue(
    std::uint64_t& next_job_id, const std::function<void(const std::string&)>& remember_secret) {
    std::vector<std::string> batch;
    std::vector<std::string> batch_hashes;
    EmbeddingRequestPacker packer(limits_);
    const std::string& model = providers_.resolved.embedding_model;
    while (!queue_.empty() && batch.size() < batch_size_) {
        std::string text = std::move(queue_.front());
        queue_.pop_front();
        auto targets = targets_.find(text);
        if (targets == targets_.end()) continue;
        // Drop targets of passages that already failed.
        auto& list = targets->second;
        list.erase(std::remove_if(list.begin(), list.end(),
                                  [](const EmbedTarget& t) { return t.passage->finished; }),
                   list.end());
        if (list.empty()) {
            targets_.erase(targets);
            continue;
        }
        std::optional<CacheEntry> entry;
        std::string hash;
        if (cache_.enabled()) {
            hash = keys_.embedding_key(text).hash();
            entry = cache_.lookup(hash);
        } else {
            // No cache: a text this run embedded already is not paid for again (RunMemo).
            hash = keys_.embedding_key(text).hash();
            if (const MemoAnswer* kept = memo_.find(hash)) {
                const std::vector<double> vector = to_double(kept->vector);
                std::vector<EmbedTarget> waiting = std::move(list);
                targets_.erase(targets);
                for (const EmbedTarget& target : waiting) {
                    target.passage->result.calls.embedded_texts += 1;
                    tally_.progress.calls_done += 1;
                    flow_.store_embedding(target, vector);
                }
                continue;
            }
        }
        if (entry && entry->status == cache_status::ok) {
            // The stored float32 numbers, widened: the values the first run's statistics saw.
            const std::vector<double> vector = to_double(entry->vector);
            if (!vector.empty()) {
                std::vector<EmbedTarget> waiting = std::move(list);
                targets_.erase(targets);
                ++tally_.totals.cache_hits;
                ++tally_.progress.cache_hits;
                accounting_.add_cache_hit(model);
                for (const EmbedTarget& target : waiting) {
                    target.passage->result.calls.embedded_texts += 1;
                    target.passage->result.calls.cache_hits += 1;
                    tally_.progress.calls_done += 1;
                    flow_.store_embedding(target, vector);
                }
                continue;
            }
        }
        // Full by its estimated tokens: the text opens the next request.
        if (!packer.fits(text)) {
            queue_.push_front(std::move(text));
            break;
        }
        packer.add(text);
        batch.push_back(std::move(text));
        batch_hashes.push_back(std::move(hash));
    }
    if (batch.empty()) return std::nullopt;
    if (deferred_) {
        for (std::string& text : batch) {
            std::optional<std::vector<double>> vector;
            if (deferred_->vector) vector = deferred_->vector(text);
            if (!vector) {
                // Its targets wait in targets_ until the pass releases their passages.
                if (deferred_->missing_text) deferred_->missing_text(text);
                continue;
            }
            ++deferred_->consumed;
            deliver_vector(text, *vector);
        }
        return std::nullopt;
    }
    EmbeddingRequest request;
    request.model = model;
    request.inputs = batch;
    Job job;
    job.id = next_job_id++;
    job.request = providers_.embedder->build_request(request);
    job.model = model;
    job.accept = is_json_body;
    add_encoding_override(job.request);
    std::size_t chars = 0;
    for (const auto& text : batch) chars += text.size();
    job.estimated_tokens = static_cast<double>(chars) / 4.0;
    for (const auto& secret : job.request.secrets) remember_secret(secret);
    Flight flight;
    flight.texts = std::move(batch);
    flight.hashes = std::move(batch_hashes);
    in_flight_[job.id] = std::move(flight);
    ++tally_.totals.embedding_requests;
    return job;
}

void EmbeddingBatches::drop_waiting() {
    targets_.clear();
    queue_.clear();
}

bool EmbeddingBatches::done(const JobResult& result) {
    const auto found = in_flight_.find(result.id);
    if (found == in_flight_.end()) return false;
    Flight flight = std::move(found->second);
    in_flight_.erase(found);
    if (result.attempts > 1) {
        tally_.totals.transport_retries += result.attempts - 1;
        tally_.progress.retries += result.attempts - 1;
    }
    EmbeddingResult parsed;
    // A 400 or 422 is read by the provider too: it may ask for the request again in another form
    // (openai: a server that refuses encoding_format base64 is asked for numbers).
    const bool bad_request =
        !result.ok() && (result.response.status == 400 || result.response.status == 422);
    if (result.ok() || bad_request)
        parsed = providers_.embedder->parse_response(result.response, flight.texts.size());
    if (!result.ok() || !parsed.ok) {
        const std::string error_code =
            !result.ok() ? result.error_code
                         : (parsed.error.code.empty() ? code::provider_server : parsed.error.code);
        const std::string message = !result.ok() ? result.error_message : parsed.error.message;
        const bool retry = (result.ok() || bad_request) && parsed.error.retryable &&
                           retries_[flight.texts.front()]++ < config_.max_transport_retries;
        for (const std::string& text : flight.texts) {
            auto targets = targets_.find(text);
            if (targets == targets_.end()) continue;
            if (retry) {
                queue_.push_front(text);
                continue;
            }
            std::vector<EmbedTarget> waiting = std::move(targets->second);
            targets_.erase(targets);
            for (const EmbedTarget& target : waiting) {
                // fail() names the passage: "passage 3: embedding request: ...".
                flow_.fail(target.passage, error_code, "embedding request: " + message);
            }
        }
        return true;
    }
    for (std::size_t i = 0; cache_.enabled() && i < flight.texts.size(); ++i) {
        CacheEntry entry;
        entry.status = cache_status::ok;
        entry.vector = to_float32(parsed.vectors[i]);  // exact: parse_response rounded them
        entry.response_model = parsed.model;
        if (i == 0)
            entry.input_tokens =
                static_cast<std::uint64_t>(std::max<std::int64_t>(0, parsed.input_tokens));
        CacheKey key = keys_.embedding_key(flight.texts[i]);
        std::string hash = i < flight.hashes.size() ? std::move(flight.hashes[i]) : key.hash();
        cache_.store(std::move(key), std::move(hash), std::move(entry));
    }
    for (std::size_t i = 0; !cache_.enabled() && i < flight.hashes.size(); ++i)
        memo_.keep(flight.hashes[i], MemoAnswer{"", false, to_float32(parsed.vectors[i])});
    accounting_.add_tokens(
        providers_.resolved.embedding_model,
        static_cast<std::uint64_t>(std::max<std::int64_t>(0, parsed.input_tokens)), 0);
    tally_.totals.input_tokens += parsed.input_tokens;
    tally_.progress.input_tokens += parsed.input_tokens;
    for (std::size_t i = 0; i < flight.texts.size(); ++i)
        deliver_to_waiting(flight.texts[i], parsed.vectors[i]);
    return true;
}

// Hands one text's vector to every passage waiting for it, counted once per text.
void EmbeddingBatches::deliver_to_waiting(const std::string& text,
                                          const std::vector<double>& vector) {
    auto targets = targets_.find(text);
    if (targets == targets_.end()) return;
    std::vector<EmbedTarget> waiting = std::move(targets->second);
    targets_.erase(targets);
    ++tally_.totals.embedded_texts;
    for (const EmbedTarget& target : waiting) {
        target.passage->result.calls.embedded_texts += 1;
        tally_.progress.calls_done += 1;
        flow_.store_embedding(target, vector);
    }
}

// One text's vector from a provider batch: cached and delivered as done() does.
void EmbeddingBatches::deliver_vector(const std::string& text, const std::vector<double>& vector) {
    if (cache_.enabled()) {
        CacheEntry entry;
        entry.status = cache_status::ok;
        entry.vector = to_float32(vector);
        entry.response_model = providers_.resolved.embedding_model;
        CacheKey key = keys_.embedding_key(text);
        std::string hash = key.hash();
        cache_.store(std::move(key), std::move(hash), std::move(entry));
    }
    deliver_to_waiting(text, vector);
}

void EmbeddingBatches::reject(const std::string& text, std::size_t dimension,
                              std::size_t majority) {
    if (!cache_.enabled()) return;
    CacheKey key = keys_.embedding_key(text);
    std::string hash = key.hash();
    CacheEntry entry;
    entry.status = cache_status::rejected;
    entry.body = "an embedding of " + std::to_string(dimension) +
                 " dimensions where the model's others have " + std::to_string(majority);
    cache_.store(std::move(key), std::move(hash), std::move(entry));
}

}  // namespace llmv::pipeline
