// The scheduler's chat calls (scheduler.hpp): the request of a unit, answered from the cache,
// from the run's memory without a cache (RunMemo), by the simulated provider or a provider batch
// (batch-API passes), or sent; and what the transport brings back, a chat answer or an
// embedding batch's, with the first-call gate, the refused feature's fallback and the cache
// entry.
#include "pipeline/scheduler.hpp"

#include <algorithm>

namespace llmv::pipeline {

void Engine::stop_if_model_unavailable(const JobResult& result, bool chat_job, bool first_chat,
                                       RefusedFeature feature) {
    const long status = result.response.status;
    if (result.ok() || (status != 404 && status != 400)) return;
    std::string vendor_message;
    if (chat_job) vendor_message = providers_.chat->parse_response(result.response).error.message;
    if (status == 400 && !chat_job) return;
    const std::string& provider =
        chat_job ? providers_.resolved.chat_provider : providers_.resolved.embedding_provider;
    const std::string& model = chat_job ? chat_model() : providers_.resolved.embedding_model;
    if (auto message = first_call_stop(feature, first_chat, provider, model, status, vendor_message,
                                       config_.messages_for)) {
        throw Error(status == 404 || feature == RefusedFeature::model ? code::provider_not_found
                                                                      : code::provider_bad_request,
                    redact(*message, secrets_));
    }
}

ChatRequest Engine::build_chat_request(const ChatUnit& unit) const {
    ChatRequest request = keys_.chat_request(unit.kind == Kind::simulate, unit.prompt,
                                             unit.position, unit.count, unit.attempt);
    request.cache_prefix = shared_prefix(unit, config_.annotation_repeats);
    fallback_.apply(request);
    return request;
}

std::optional<Job> Engine::issue_chat(ChatUnit unit) {
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
                   std::string("the cache holds no answer to its ") + kind_name(unit.kind) +
                       " call (draw " + std::to_string(unit.position) +
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

void Engine::answer_from_memo(ChatUnit& unit, const MemoAnswer& kept) {
    const ParsedAnswer parsed = parse(unit, kept.text, kept.refused);
    ++tally_.totals.shared;
    unit.passage->result.calls.shared += 1;
    tally_.progress.calls_done += 1;
    flow_.deliver(unit, parsed, /*from_cache=*/true);
}

void Engine::answer_simulated(ChatUnit& unit, const ChatRequest& request) {
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
        const std::string& text =
            unit.kind == Kind::annotate
                ? unit.passage->input.text
                : unit.passage->pools[unit.label].texts[static_cast<std::size_t>(unit.position)];
        answer = simulated.annotate(text, draw_seed);
    }
    const ParsedAnswer parsed = parse(unit, answer, false);
    ++tally_.totals.chat_calls;
    unit.passage->result.calls.chat_calls += 1;
    tally_.progress.calls_done += 1;
    flow_.deliver(unit, parsed, /*from_cache=*/false);
}

void Engine::track_in_flight(std::uint64_t job_id, const CacheKey& key, const std::string& hash,
                             ChatUnit unit) {
    InFlight flight;
    flight.key = key;
    flight.hash = hash;
    flight.units.push_back(std::move(unit));
    flight.generation = fallback_.generation();
    inflight_by_key_[hash] = job_id;
    inflight_[job_id] = std::move(flight);
}

bool Engine::fall_back(InFlight& flight, RefusedFeature feature) {
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

CacheKey Engine::learned_key() const {
    return ModelFallback::key(providers_.resolved.chat_provider, providers_.chat_endpoint,
                              chat_model());
}

void Engine::restore_learned() {
    if (!cache_.enabled() || synthetic_chat() || !providers_.chat) return;
    const auto entry = cache_.lookup(learned_key().hash());
    if (!entry) return;
    const std::string warning = fallback_.restore(entry->text);
    if (warning.empty()) return;
    batch_.setting_changes = fallback_.changes();
    warn(warning);
}

void Engine::warn(const std::string& warning) {
    batch_.warnings.push_back(warning);
    if (callbacks_.on_warning) callbacks_.on_warning({"fallback", warning});
}

std::optional<Job> Engine::defer_chat(ChatUnit unit, const ChatRequest& request,
                                      const CacheKey& key, const std::string& hash) {
    std::optional<HttpResponse> answer;
    if (deferred_->answer) answer = deferred_->answer(hash);
    if (!answer) {
        if (deferred_->missing_request)
            deferred_->missing_request(hash, providers_.chat->build_request(request), unit.attempt);
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

void Engine::on_done(JobResult result) {
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
        for (ChatUnit& unit : flight.units) unit.passage->result.calls.transport_retries += retries;
    }
    const ChatProvider& provider = *providers_.chat;
    if (!result.ok() && refused != RefusedFeature::none && fall_back(flight, refused)) return;
    if (!result.ok()) {
        const std::string message =
            result.error_code == code::cancelled
                ? result.error_message
                : failure_message(result.error_message, result.response, provider);
        for (ChatUnit& unit : flight.units) {
            // fail() names the passage: "passage 3: annotation call: ...".
            flow_.fail(unit.passage, result.error_code,
                       std::string(kind_name(unit.kind)) + " call: " + message);
        }
        return;
    }
    const ChatResult answer = provider.parse_response(result.response);
    if (!answer.ok) {
        // A 2xx whose body the provider cannot read (truncated, not JSON): not an answer of
        // the model, so it is not cached; the same request is sent again.
        for (ChatUnit& unit : flight.units) {
            if (unit.transport_attempt < config_.max_transport_retries && answer.error.retryable) {
                ++unit.transport_attempt;
                ++totals.transport_retries;
                ++progress.retries;
                unit.passage->result.calls.transport_retries += 1;
                chat(std::move(unit));
            } else {
                flow_.fail(unit.passage,
                           answer.error.code.empty() ? code::provider_server : answer.error.code,
                           std::string(kind_name(unit.kind)) + " call: " + answer.error.message);
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
    accounting_.add_tokens(chat_model(), tokens(answer.input_tokens), tokens(answer.output_tokens),
                           tokens(answer.cached_input_tokens),
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

}  // namespace llmv::pipeline
