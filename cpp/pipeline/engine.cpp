// The scheduler: every passage in flight is a small state machine, and every request any of
// them needs goes into one queue that the transport drains with `concurrency` requests on the
// wire. Cache hits and the simulated provider are answered inline, without the transport.
#include "pipeline/engine.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <unordered_map>

#include "llmvalidate/accounting.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llm/provider.hpp"
#include "llmvalidate/resolution.hpp"
#include "llm/structured_output.hpp"
#include "transport/transport.hpp"
#include "core/utf8.hpp"
#include "cache/cache_writer.hpp"
#include "pipeline/simulated.hpp"

namespace llmv::pipeline {

namespace {

enum class Kind { annotate, simulate, backtranslate };

const char* kind_name(Kind kind) {
    switch (kind) {
        case Kind::annotate: return "annotation";
        case Kind::simulate: return "simulation";
        case Kind::backtranslate: return "backtranslation";
    }
    return "?";
}

struct PoolState {
    int total = 0;      // texts wanted: M (+ B reference texts)
    int calls = 0;
    int calls_pending = 0;
    std::vector<std::vector<std::string>> call_texts;  // by call index
    std::vector<std::string> texts;                    // assembled when every call is back
    Eigen::MatrixXd embeddings;                        // rows = texts
    bool generated = false;
};

struct PassageState {
    std::size_t index = 0;
    std::size_t sequence = 0;  // admission order: older passages are served first
    PassageInput input;
    std::shared_ptr<const Task> task;  // the task's or the passage's own simulation template
    TaskVariables variables;
    PassageResult result;
    bool finished = false;

    std::vector<std::string> annotation_answers;  // by draw; "" while pending or failed
    int annotations_pending = 0;
    std::string beta;
    std::vector<std::string> reference;  // labels needing paper reference draws

    std::map<std::string, PoolState> pools;
    int pools_pending = 0;
    std::map<std::string, std::vector<std::string>> backtranslation;  // label -> answers by position
    int backtranslations_pending = 0;

    bool reported = false;   // on_passage has seen it

    Eigen::VectorXd passage_embedding;
    bool passage_embedded = false;
    // The dimension of every vector received -> (pool label, row); row -1: the passage's own.
    // More than one dimension: the odd ones are rejected (check_dimensions).
    std::map<std::size_t, std::vector<std::pair<std::string, int>>> vector_dimensions;
    int embeddings_pending = 0;
};
using PassagePtr = std::shared_ptr<PassageState>;

struct ChatUnit {
    PassagePtr passage;
    Kind kind = Kind::annotate;
    std::string label;  // simulate: the pool's label; backtranslate: the pool annotated
    int position = 0;   // draw index: r, the call index c, or the text's position j
    int count = 0;      // simulate: texts asked for
    int attempt = 0;    // parse retries so far (the draw's cache key)
    int paid_redraws = 0;  // of them, after an answer paid for in this run (max_cached_attempts)
    int transport_attempt = 0;
    std::string prompt;
};

struct EmbedTarget {
    PassagePtr passage;
    std::string label;  // "" for y
    int row = 0;
};

// What an answer says, parsed once and shared by every unit waiting on it.
struct ParsedAnswer {
    bool ok = false;
    bool unparseable = false;  // else: label outside S or wrong passage count
    bool out_of_set = false;
    std::string label;      // ok label (spelled as in S)
    std::string raw_label;  // what the model wrote, when a label was read
    std::vector<std::string> passages;
    std::string problem;
};

double now_seconds() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

// An embedding as the JSON array the cache stores ("[0.125,-0.5,...]", shortest round-trip
// digits). Written directly: building a json value of every number first was a visible share
// of the client thread's CPU with a cache (tens of thousands of vectors per batch).
std::string vector_json(const std::vector<double>& vector) {
#if defined(__cpp_lib_to_chars)
    std::string out;
    out.reserve(vector.size() * 24 + 2);
    out += '[';
    char buffer[32];
    for (std::size_t i = 0; i < vector.size(); ++i) {
        if (!std::isfinite(vector[i])) return nlohmann::json(vector).dump();  // null, as json does
        if (i) out += ',';
        const auto written = std::to_chars(buffer, buffer + sizeof buffer, vector[i]);
        out.append(buffer, written.ptr);
    }
    out += ']';
    return out;
#else
    return nlohmann::json(vector).dump();
#endif
}

std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
    std::uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

class Engine {
public:
    Engine(const ValidationConfig& config, const BatchCallbacks& callbacks, bool keep_results,
           std::size_t passages_total, DeferredCalls* deferred = nullptr)
        : config_(config), callbacks_(callbacks), keep_results_(keep_results), deferred_(deferred) {
        task_ = std::make_shared<const Task>(load_config_task(config_));
        labels_ = task_->labels();
        m_ = pool_size(config_);
        const ResolvedProviders resolved = resolve_providers(config_);
        chat_provider_ = resolved.chat_provider;
        synthetic_chat_ = resolved.synthetic_chat;
        local_embedding_ = resolved.local_embedding;
        embedding_name_ = resolved.embedding_provider;
        embedding_model_ = resolved.embedding_model;
        if (synthetic_chat_) {
            simulated_ = std::make_unique<SimulatedModel>(config_.simulated, labels_);
            chat_model_ = simulated_model_name;
        } else {
            ProviderConfig provider_config = resolved.chat;
            // Reading back sends nothing, so it needs no key: a placeholder stands in for a
            // missing one (the providers refuse to be built without).
            if (config_.replay_only && provider_config.api_key.empty())
                provider_config.api_key = "replay-only-no-key";
            chat_ = make_chat_provider(resolved.chat_provider, provider_config);
            chat_model_ = resolved.chat_model;
        }
        if (!local_embedding_) {
            ProviderConfig provider_config = resolved.embedding;
            if (provider_config.api_key.empty() && config_.replay_only)
                provider_config.api_key = "replay-only-no-key";
            embedder_ = make_embedding_provider(embedding_name_, provider_config);
            embedding_batch_ = std::max<std::size_t>(1, embedder_->max_batch_size());
        }
        // No cache path: nothing is stored (memory stays flat); identical requests in flight
        // at the same time are still sent once.
        // The simulated provider and the local embedder bypass the cache on purpose: an answer
        // is a pure function of its request (like a cached one), costs microseconds (less than
        // the SQLite lookup), and a re-run reproduces every number bit for bit without it.
        // Storing them would only fill a user's cache, which may be shared with real runs, with
        // synthetic rows. Their calls are counted as calls of the simulated provider on every
        // run (never as cache hits): counters report what was computed, and nothing is paid.
        const bool needs_cache = !synthetic_chat_ || !local_embedding_;
        if (config_.replay_only && !synthetic_chat_ && config_.cache_path.empty()) {
            throw_invalid(code::invalid_argument, "cache", "none",
                          "the cache file of the run: the texts and answers of a provider other "
                          "than the simulated one are read back from it");
        }
        if (needs_cache && !config_.cache_path.empty()) {
            prepare_cache_directory(config_.cache_path);
            cache_ = std::make_unique<Cache>(config_.cache_path, config_.cache_busy_timeout_ms);
            // A second connection to ":memory:" would be another database: written inline.
            // LLMV_CACHE_INLINE_WRITES=1: inline too, for bench/pipeline_batch.sh's comparison.
            const char* inline_writes = std::getenv("LLMV_CACHE_INLINE_WRITES");
            if (config_.cache_path != ":memory:" && !(inline_writes && *inline_writes == '1'))
                cache_writer_ =
                    std::make_unique<CacheWriter>(config_.cache_path, config_.cache_busy_timeout_ms);
        }
        // Before any call: a price table the user names must load (its prices are for the end).
        price_table_ = price_table_for(config_.price_table);
        progress_.passages_total = passages_total;
        max_passages_in_flight_ =
            static_cast<std::size_t>(std::max(4, 4 * std::max(1, config_.concurrency) + 8));
        // A batch-API pass holds every passage (they wait for the provider's batch).
        if (deferred_) max_passages_in_flight_ = std::numeric_limits<std::size_t>::max();
        if (config_.api_key.size()) secrets_.push_back(config_.api_key);
        if (config_.embedding_api_key.size()) secrets_.push_back(config_.embedding_api_key);
    }

    BatchResult run(const PassageSource& source) {
        try {
            return run_and_flush(source);
        } catch (...) {
            flush_cache();  // what was paid for stays in the cache, whatever went wrong
            if (cache_writer_) collect_written(/*wait=*/true);
            try {
                write_side_file();
            } catch (...) {
                // The original error is the one to report.
            }
            throw;
        }
    }

  private:
    BatchResult run_and_flush(const PassageSource& source) {
        source_ = &source;
        start_time_ = now_seconds();
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
            // SIGKILL can lose is bounded (cache_batch_seconds, cache_batch_size).
            options.tick = [this]() {
                maybe_flush_cache();
                collect_written(/*wait=*/false);
            };
#ifndef LLMV_NO_STDERR  // the R package: R CMD check rightly refuses writes to stderr
            if (std::getenv("LLMV_DEBUG_TRANSPORT")) {
                options.progress = [](const TransportProgress& p) {
                    std::fprintf(stderr, "transport: %.2f s, in flight %llu, waiting %llu, completed %llu\n",
                                 p.elapsed_seconds, static_cast<unsigned long long>(p.in_flight),
                                 static_cast<unsigned long long>(p.waiting),
                                 static_cast<unsigned long long>(p.completed));
                };
            }
            if (std::getenv("LLMV_DEBUG_TRANSPORT")) {
                options.trace = [](const TraceEvent& event) {
                    // LLMV_DEBUG_TRANSPORT=all: every answer's time (the profile in
                    // bench/pipeline_batch.md).
                    static const bool every_answer =
                        std::string(std::getenv("LLMV_DEBUG_TRANSPORT")) == "all";
                    if (every_answer && event.kind == TraceEvent::Kind::response) {
                        std::fprintf(stderr, "answer: %.6f %s %.4f s\n", now_seconds(),
                                     event.url.c_str(), event.elapsed_seconds);
                    }
                    const bool retry_or_failure = event.kind == TraceEvent::Kind::retry_scheduled ||
                                                  event.kind == TraceEvent::Kind::failed;
                    if (retry_or_failure ||
                        (event.kind != TraceEvent::Kind::request && event.elapsed_seconds > 0.5)) {
                        std::fprintf(stderr, "slow: %s\n", format_trace(event).c_str());
                    }
                };
            }
#endif
            Transport transport(options);
            transport_ = &transport;
            const RunSummary summary = transport.run([this]() { return next_job(); },
                                                     [this](JobResult result) { on_done(std::move(result)); });
            transport_ = nullptr;
            batch_.cancelled = summary.cancelled || cancelled();
        } else {
            // Everything is answered inline: next_job only returns when no work is left.
            while (auto job = next_job()) {
                throw Error(code::internal, "a local provider produced a network request");
            }
            batch_.cancelled = cancelled();
        }
        flush_cache();
        collect_written(/*wait=*/true);
        write_side_file();
        // Passages still open were cut short by a cancellation (or a transport shutdown).
        std::vector<PassagePtr> open;
        for (auto& entry : open_) open.push_back(entry.second);
        std::sort(open.begin(), open.end(),
                  [](const PassagePtr& a, const PassagePtr& b) { return a->index < b->index; });
        for (const PassagePtr& passage : open) {
            fail(passage, batch_.cancelled ? code::cancelled : code::internal,
                 batch_.cancelled ? "cancelled before this passage finished; a re-run with the "
                                    "same cache resumes without repeating any call"
                                  : "the run ended before this passage finished");
        }
        report_progress(true);
        batch_.progress = progress_;
        batch_.calls = totals_;
        batch_.synthetic = synthetic_chat_ || local_embedding_;
        batch_.summary = summary_from_compact();
        batch_.usage = accounting_.by_model();
        batch_.cost = cost_of_usage(batch_.usage, price_table_.get(), chat_provider_, chat_model_,
                                    embedding_name_, embedding_model_);
        if (keep_results_) {
            std::sort(batch_.passages.begin(), batch_.passages.end(),
                      [](const PassageResult& a, const PassageResult& b) { return a.index < b.index; });
        }
        return std::move(batch_);
    }

    // ---- driving ------------------------------------------------------------------------------
    bool needs_transport() const { return !deferred_ && (!synthetic_chat_ || !local_embedding_); }
    bool cancelled() const { return callbacks_.cancel && callbacks_.cancel->load(); }

    std::optional<Job> next_job() {
        while (true) {
            if (cancelled()) return std::nullopt;
            report_progress(false);
            maybe_flush_cache();
            collect_written(/*wait=*/false);
            admit();
            // Embeddings must not starve behind a long chat queue: a passage holds its pools in
            // memory until its texts are embedded.
            const bool embeddings_due =
                !embed_queue_.empty() &&
                (chat_queue_.empty() || embed_queue_.size() >= embedding_batch_ ||
                 chat_since_embedding_ >= static_cast<std::size_t>(std::max(4, config_.concurrency)));
            if (embeddings_due) {
                chat_since_embedding_ = 0;
                if (auto job = issue_embeddings()) return job;
                continue;
            }
            if (!chat_queue_.empty()) {
                ChatUnit unit = pop_chat();
                if (auto job = issue_chat(std::move(unit))) {
                    ++chat_since_embedding_;
                    return job;
                }
                continue;
            }
            if (can_admit()) continue;
            return std::nullopt;
        }
    }

    bool can_admit() const {
        return !source_done_ && open_.size() < max_passages_in_flight_ &&
               chat_queue_.size() < static_cast<std::size_t>(2 * std::max(1, config_.concurrency));
    }

    void admit() {
        while (can_admit()) {
            PassageInput input;
            bool have = false;
            try {
                have = (*source_)(input);
            } catch (const Error& error) {
                source_error_ = error.code() + ": " + error.what();
                source_done_ = true;
                throw;
            }
            if (!have) {
                source_done_ = true;
                if (progress_.passages_total == 0) progress_.passages_total = admitted_;
                return;
            }
            start_passage(std::move(input));
        }
    }

    ChatUnit pop_chat() {
        const auto top = chat_queue_.begin();
        ChatUnit unit = std::move(top->second);
        chat_queue_.erase(top);
        return unit;
    }

    void push_chat(ChatUnit unit) {
        const std::size_t sequence = unit.passage->sequence;
        // Older passages first, then annotation before simulation before backtranslation.
        chat_queue_.emplace(std::make_tuple(sequence, static_cast<int>(unit.kind), unit_counter_++),
                            std::move(unit));
    }

    // ---- passages -----------------------------------------------------------------------------
    void start_passage(PassageInput input) {
        auto passage = std::make_shared<PassageState>();
        passage->index = admitted_;
        passage->sequence = admitted_;
        ++admitted_;
        passage->input = std::move(input);
        if (passage->input.id.empty()) passage->input.id = std::to_string(passage->index + 1);
        fill_provenance(*passage);
        open_[passage->index] = passage;
        const CallCounts expected = expected_calls_per_passage(config_, static_cast<int>(labels_.size()));
        progress_.calls_total += expected.annotation_calls + expected.simulation_calls +
                                 expected.backtranslation_calls + expected.embedded_texts;

        if (!decode_input(passage)) return;
        // Checked before any request: a blank passage would pay for a pool it cannot use.
        if (is_blank(passage->input.text)) {
            fail(passage, code::invalid_argument,
                 "passage " + passage->input.id + ": the text is " +
                     (passage->input.text.empty() ? "empty" : "only whitespace") +
                     "; every passage needs text");
            return;
        }
        try {
            passage->task = passage->input.simulation_template.empty()
                                ? task_
                                : std::make_shared<const Task>(task_for_input(*task_, passage->input));
            passage->variables = passage_variables(config_, passage->input);
            const std::string prompt = passage->task->render_annotation(passage->input.text, passage->variables);
            PassageResult& result = passage->result;
            result.prompt_hashes["task"] = passage->task->definition_hash();
            result.prompt_hashes["annotation"] = prompt_hash(prompt);
            for (const std::string& label : labels_) {
                result.prompt_hashes["simulation:" + label] = prompt_hash(
                    passage->task->render_simulation(label, config_.n, passage->input.text, passage->variables));
            }
            passage->annotation_answers.assign(static_cast<std::size_t>(config_.annotation_repeats), "");
            passage->annotations_pending = config_.annotation_repeats;
            for (int r = 0; r < config_.annotation_repeats; ++r) {
                ChatUnit unit;
                unit.passage = passage;
                unit.kind = Kind::annotate;
                unit.position = r;
                unit.prompt = prompt;
                push_chat(std::move(unit));
            }
        } catch (const Error& error) {
            fail(passage, error.code(), "passage " + passage->input.id + ": " + error.what());
            return;
        }
        if (config_.replay_only) return;  // reading texts back: nothing to embed
        passage->embeddings_pending += 1;
        push_embedding(passage->input.text, EmbedTarget{passage, "", 0});
    }

    // Request bodies are JSON, which must be UTF-8: with input_encoding "latin1" every field is
    // decoded; otherwise a field that is not UTF-8 fails this passage alone (false), with the
    // id and label shown in its output row made valid.
    bool decode_input(const PassagePtr& passage) {
        PassageInput& input = passage->input;
        if (config_.input_encoding == "latin1") {
            for (std::string* field : {&input.text, &input.id, &input.human_label}) *field = latin1_to_utf8(*field);
            for (auto& variable : input.variables) variable.second = latin1_to_utf8(variable.second);
            passage->result.id = input.id;
            passage->result.human_label = input.human_label;
            return true;
        }
        std::vector<std::pair<std::string, const std::string*>> fields = {
            {"text", &input.text}, {"id", &input.id}, {"human label", &input.human_label}};
        for (const auto& variable : input.variables) fields.emplace_back("variable " + variable.first, &variable.second);
        for (const auto& [what, value] : fields) {
            const std::size_t at = first_invalid_utf8(*value);
            if (at == std::string::npos) continue;
            passage->result.id = utf8_replace_invalid(input.id);
            passage->result.human_label = utf8_replace_invalid(input.human_label);
            char byte[8];
            std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>((*value)[at])));
            const std::size_t from = at > 20 ? at - 20 : 0;
            fail(passage, code::invalid_encoding,
                 "passage " + passage->result.id + ": the " + what + " is not valid UTF-8 (byte " + byte +
                     " at byte " + std::to_string(at + 1) + ", near \"" +
                     utf8_replace_invalid(value->substr(from, at - from + 20)) +
                     "\"); input_encoding takes utf-8 or latin1 (ISO 8859-1, e.g. the original "
                     "Financial PhraseBank files)");
            return false;
        }
        return true;
    }

    void fill_provenance(PassageState& passage) {
        PassageResult& result = passage.result;
        result.index = passage.index;
        result.id = passage.input.id;
        result.human_label = passage.input.human_label;
        if (config_.keep_texts) result.passage_text = passage.input.text;
        result.label_set = labels_;
        result.task_name = task_->name();
        result.provider = chat_provider_;
        result.model = chat_model_;
        result.embedding_provider = embedding_name_;
        result.embedding_model = embedding_model_;
        result.synthetic = synthetic_chat_ || local_embedding_;
        result.m = m_;
        result.n = config_.n;
        result.repeats = config_.annotation_repeats;
        result.alpha = config_.tests.alpha;
        result.threshold = config_.tests.threshold;
        result.validation_method = config_.tests.validation_method;
        result.separation_method = config_.tests.separation_method;
        result.backtranslation_rule = config_.tests.backtranslation_rule;
        result.seed = config_.tests.seed;
        result.verdict_name = "error";
    }

    void annotations_done(const PassagePtr& passage) {
        std::map<std::string, int> votes;
        for (const std::string& answer : passage->annotation_answers) {
            if (!answer.empty()) ++votes[answer];
        }
        if (votes.empty()) {
            fail(passage, code::provider_unparseable,
                 "passage " + passage->input.id + ": none of the " +
                     std::to_string(config_.annotation_repeats) +
                     " annotations of the passage gave a label of the task's set (after " +
                     std::to_string(config_.parse_retry_limit) +
                     " retries each); the answers are kept in the cache as unusable, and a re-run "
                     "asks again for exactly these draws");
            return;
        }
        // Modal label; ties go to the label that comes first in S.
        int best = 0;
        for (const std::string& label : labels_) {
            const auto found = votes.find(label);
            if (found != votes.end() && found->second > best) {
                best = found->second;
                passage->beta = label;
            }
        }
        passage->result.label = passage->beta;
        passage->result.annotations = passage->annotation_answers;
        passage->result.annotation_stability =
            static_cast<double>(best) / static_cast<double>(config_.annotation_repeats);
        passage->reference = reference_labels(config_, labels_, passage->beta);

        // β̂'s pool first: it also feeds backtranslation, the longest chain.
        std::vector<std::string> order = {passage->beta};
        for (const std::string& label : labels_) {
            if (label != passage->beta) order.push_back(label);
        }
        passage->pools_pending = static_cast<int>(order.size());
        for (const std::string& label : order) {
            PoolState& pool = passage->pools[label];
            const bool with_reference = std::find(passage->reference.begin(), passage->reference.end(),
                                                  label) != passage->reference.end();
            pool.total = m_ + (with_reference ? config_.paper_b : 0);
            pool.calls = calls_for(pool.total, config_.n);
            pool.calls_pending = pool.calls;
            pool.call_texts.assign(static_cast<std::size_t>(pool.calls), {});
            try {
                for (int c = 0; c < pool.calls; ++c) {
                    ChatUnit unit;
                    unit.passage = passage;
                    unit.kind = Kind::simulate;
                    unit.label = label;
                    unit.position = c;
                    unit.count = std::min(config_.n, pool.total - c * config_.n);
                    unit.prompt = passage->task->render_simulation(label, unit.count, passage->input.text,
                                                                   passage->variables);
                    push_chat(std::move(unit));
                }
            } catch (const Error& error) {
                fail(passage, error.code(), "passage " + passage->input.id + ": " + error.what());
                return;
            }
        }
        // The calls_total estimate assumed no reference draws beyond the formula; fix it now.
        const CallCounts expected = expected_calls_per_passage(config_, static_cast<int>(labels_.size()));
        std::int64_t actual = 0;
        for (const auto& entry : passage->pools) actual += entry.second.calls;
        progress_.calls_total += actual - expected.simulation_calls;
    }

    void pool_generated(const PassagePtr& passage, const std::string& label) {
        PoolState& pool = passage->pools[label];
        for (auto& texts : pool.call_texts) {
            for (auto& text : texts) {
                if (static_cast<int>(pool.texts.size()) < pool.total) pool.texts.push_back(std::move(text));
            }
        }
        pool.call_texts.clear();
        pool.generated = true;
        --passage->pools_pending;
        if (config_.keep_texts) passage->result.pool_texts[label] = pool.texts;
        if (!config_.replay_only) {
            pool.embeddings.resize(static_cast<Eigen::Index>(pool.texts.size()), 0);
            passage->embeddings_pending += static_cast<int>(pool.texts.size());
            for (std::size_t j = 0; j < pool.texts.size(); ++j) {
                push_embedding(pool.texts[j], EmbedTarget{passage, label, static_cast<int>(j)});
            }
        }
        if (label == passage->beta || config_.backtranslate_all_labels) {
            auto& answers = passage->backtranslation[label];
            answers.assign(static_cast<std::size_t>(m_), "");
            passage->backtranslations_pending += m_;
            for (int j = 0; j < m_; ++j) {
                ChatUnit unit;
                unit.passage = passage;
                unit.kind = Kind::backtranslate;
                unit.label = label;
                unit.position = j;
                try {
                    unit.prompt = passage->task->render_annotation(pool.texts[static_cast<std::size_t>(j)],
                                                                   passage->variables);
                } catch (const Error& error) {
                    fail(passage, error.code(), "passage " + passage->input.id + ": " + error.what());
                    return;
                }
                push_chat(std::move(unit));
            }
        }
        maybe_finish(passage);
    }

    void maybe_finish(const PassagePtr& passage) {
        if (passage->finished) return;
        if (passage->annotations_pending > 0 || passage->beta.empty()) return;
        if (passage->pools_pending > 0 || passage->backtranslations_pending > 0 ||
            passage->embeddings_pending > 0) {
            return;
        }
        if (config_.replay_only) {
            passage->result.ok = true;
            passage->result.verdict_name = "";
            passage->result.backtranslation_answers = passage->backtranslation;
            finish(passage);
            return;
        }
        if (!check_dimensions(passage)) return;
        stats::TestInput input;
        input.label = passage->beta;
        input.labels = labels_;
        input.passage = passage->passage_embedding;
        for (const auto& entry : passage->pools) {
            const PoolState& pool = entry.second;
            input.pools[entry.first] = pool.embeddings.topRows(std::min<Eigen::Index>(m_, pool.embeddings.rows()));
            if (pool.total > m_) {
                input.paper_reference[entry.first] = pool.embeddings.bottomRows(pool.embeddings.rows() - m_);
            }
        }
        input.backtranslation = passage->backtranslation;
        input.options = config_.tests;
        PassageResult& result = passage->result;
        try {
            result.tests = stats::run_tests(input);
        } catch (const Error& error) {
            fail(passage, error.code(), "passage " + passage->input.id + ": " + error.what());
            return;
        } catch (const std::exception& error) {
            fail(passage, code::internal, "passage " + passage->input.id + ": " + error.what());
            return;
        }
        result.ok = true;
        result.verdict = result.tests.verdict;
        result.verdict_name = stats::verdict_name(result.verdict);
        if (config_.keep_texts) result.backtranslation_answers = passage->backtranslation;
        finish(passage);
    }

    void fail(const PassagePtr& passage, const std::string& error_code, const std::string& message) {
        if (passage->finished) return;
        mark_failed(passage->result, error_code, message);
        finish(passage);
    }

    // The result becomes the error row (and is counted as failed once).
    void mark_failed(PassageResult& result, const std::string& error_code, const std::string& message) {
        result.ok = false;
        result.error_code = error_code;
        result.error_message = redact(message, secrets_);
        result.verdict_name = "error";
        ++progress_.passages_failed;
    }

    void finish(const PassagePtr& passage) {
        // Its answers reach the cache before the passage is reported. (A write that fails keeps
        // them in memory, retried, and in the side file at the end: keep_unwritten.)
        if (passage->finished) return;
        if (cache_writer_) {
            // Its answers are in batches up to the last one submitted: it is reported when the
            // writer has written that one (collect_written), and waits here until then.
            flush_cache();
            passage->finished = true;
            open_.erase(passage->index);
            release_pools(passage);
            if (batches_submitted_ > batches_written_) {
                awaiting_write_.push_back({passage, batches_submitted_});
                return;
            }
            report(passage);
            return;
        }
        if (!pending_writes_.empty()) flush_cache();  // a failed write keeps its answers
        passage->finished = true;
        open_.erase(passage->index);
        release_pools(passage);
        report(passage);
    }

    // Texts and answers are no longer needed once the result holds the numbers; the passage
    // may still be referenced by queued units.
    static void release_pools(const PassagePtr& passage) {
        passage->pools.clear();
        passage->backtranslation.clear();
    }

    void report(const PassagePtr& passage) {
        passage->reported = true;
        ++progress_.passages_done;
        PassageResult& result = passage->result;
        add_counts(totals_passages_, result.calls);
        CompactResult compact;
        compact.index = result.index;
        compact.id = result.id;
        compact.ok = result.ok;
        compact.label = result.label;
        compact.verdict = result.verdict;
        compact.human_label = result.human_label;
        compact.p_value = result.ok ? result.tests.validation.p_value
                                    : std::numeric_limits<double>::quiet_NaN();
        compact_.push_back(std::move(compact));
        if (callbacks_.on_passage) callbacks_.on_passage(result);
        if (keep_results_) batch_.passages.push_back(std::move(result));
        passage->result = PassageResult();
    }

    // ---- chat requests ------------------------------------------------------------------------
    std::string chat_endpoint() const {
        return synthetic_chat_ ? std::string("simulated://dgp") : chat_->endpoint_identity();
    }

    ChatRequest build_chat_request(const ChatUnit& unit) const {
        ChatRequest request = chat_request_for(config_, chat_model_, labels_, unit.kind == Kind::simulate,
                                               unit.prompt, unit.position, unit.count, unit.attempt);
        request.cache_prefix = shared_prefix(unit);
        return request;
    }

    // The part of a unit's prompt that other requests of the run repeat (provider prompt
    // caching): a simulation prompt is sent for every call of its pool, the annotation
    // template before the quoted text for every backtranslation of a pool (and the whole
    // annotation prompt for R > 1 draws).
    std::size_t shared_prefix(const ChatUnit& unit) const {
        switch (unit.kind) {
            case Kind::simulate:
                return unit.prompt.size();
            case Kind::annotate:
                return config_.annotation_repeats > 1 ? unit.prompt.size() : 0;
            case Kind::backtranslate: {
                const auto pool = unit.passage->pools.find(unit.label);
                if (pool == unit.passage->pools.end() ||
                    unit.position >= static_cast<int>(pool->second.texts.size()))
                    return 0;
                const std::size_t at =
                    unit.prompt.find(pool->second.texts[static_cast<std::size_t>(unit.position)]);
                return at == std::string::npos ? 0 : at;
            }
        }
        return 0;
    }

    CacheKey chat_cache_key(const ChatUnit& unit, const ChatRequest& request) const {
        CacheKey key = chat_key_for(chat_provider_, chat_endpoint(), request, unit.position, unit.attempt);
        if (synthetic_chat_) key.parameters["dgp"] = dgp_parameters();
        return key;
    }

    nlohmann::json dgp_parameters() const {
        const SimulatedDgp& dgp = config_.simulated;
        return {{"follow_probability", dgp.follow_probability},
                {"label_signal", dgp.label_signal},
                {"confusion", simulated_->confusion()},
                {"unparseable_probability", dgp.unparseable_probability},
                {"words", dgp.words}};
    }

    ParsedAnswer parse_answer(Kind kind, int count, const std::string& text, bool refused) const {
        ParsedAnswer parsed;
        if (refused) {
            parsed.unparseable = true;
            parsed.problem = "the model declined to answer";
            return parsed;
        }
        if (kind == Kind::simulate) {
            PassagesAnswer answer = parse_passages_answer(text, static_cast<std::size_t>(count));
            if (answer.status == AnswerStatus::ok) {
                parsed.ok = true;
                parsed.passages = std::move(answer.passages);
            } else {
                parsed.unparseable = true;
                parsed.problem = answer.problem;
            }
            return parsed;
        }
        LabelAnswer answer = parse_label_answer(text, labels_);
        if (answer.status == AnswerStatus::ok) {
            parsed.ok = true;
            parsed.label = answer.label;
        } else if (answer.status == AnswerStatus::label_outside_set) {
            parsed.out_of_set = true;
            parsed.raw_label = answer.raw_label;
            parsed.problem = answer.problem;
        } else {
            parsed.unparseable = true;
            parsed.problem = answer.problem;
        }
        return parsed;
    }

    static const char* cache_status_of(const ParsedAnswer& parsed, bool refused) {
        if (parsed.ok) return cache_status::ok;
        if (refused) return cache_status::refused;
        return parsed.out_of_set ? cache_status::invalid : cache_status::unparseable;
    }

    struct InFlight {
        CacheKey key;
        std::string hash;  // key.hash(), computed once
        std::vector<ChatUnit> units;
        bool embedding = false;
        std::vector<std::string> texts;   // embedding requests: the texts, in order
        std::vector<std::string> hashes;  // and their cache keys' hashes (with a cache)
    };

    std::optional<Job> issue_chat(ChatUnit unit) {
        if (unit.passage->finished) return std::nullopt;
        const ChatRequest request = build_chat_request(unit);
        if (synthetic_chat_) {
            // Every random choice of the DGP is fixed by the request (prompt, draw index,
            // attempt), the passage, the topic and the DGP's own seed: like a cached LLM
            // answer, and every passage gets pools of its own.
            const std::string& topic =
                config_.simulated.topic.empty() ? unit.passage->input.text : config_.simulated.topic;
            const std::uint64_t draw_seed =
                mix_seed(stable_hash(chat_cache_key(unit, request).canonical()),
                         mix_seed(config_.simulated.seed,
                                  stable_hash(topic) ^ (stable_hash(unit.passage->input.text) << 1)));
            std::string answer;
            if (unit.kind == Kind::simulate) {
                answer = simulated_->generate(unit.label, unit.count, topic, draw_seed);
            } else {
                const std::string& text = unit.kind == Kind::annotate
                                              ? unit.passage->input.text
                                              : unit.passage->pools[unit.label].texts[static_cast<std::size_t>(unit.position)];
                answer = simulated_->annotate(text, draw_seed);
            }
            const ParsedAnswer parsed = parse_answer(unit.kind, unit.count, answer, false);
            ++totals_.chat_calls;
            unit.passage->result.calls.chat_calls += 1;
            progress_.calls_done += 1;
            deliver(unit, parsed, /*from_cache=*/false, /*shared=*/false, 0, 0);
            return std::nullopt;
        }
        const CacheKey key = chat_cache_key(unit, request);
        const std::string hash = key.hash();
        if (auto found = inflight_by_key_.find(hash); found != inflight_by_key_.end()) {
            inflight_[found->second].units.push_back(std::move(unit));
            return std::nullopt;
        }
        if (auto entry = cache_lookup(hash)) {
            const bool refused = entry->status == cache_status::refused;
            const ParsedAnswer parsed = parse_answer(unit.kind, unit.count, entry->text, refused);
            ++totals_.cache_hits;
            ++progress_.cache_hits;
            unit.passage->result.calls.cache_hits += 1;
            progress_.calls_done += 1;
            accounting_.add_cache_hit(chat_model_);
            deliver(unit, parsed, true, false, 0, 0);
            return std::nullopt;
        }
        if (deferred_) return defer_chat(std::move(unit), request, key, hash);
        if (config_.replay_only) {
            fail(unit.passage, code::cache,
                 "passage " + unit.passage->input.id + ": the cache holds no answer to its " +
                     kind_name(unit.kind) + " call (draw " + std::to_string(unit.position) +
                     (unit.label.empty() ? "" : ", label " + unit.label) +
                     "); run the validation with the same settings and cache first");
            return std::nullopt;
        }
        Job job;
        job.id = next_job_id_++;
        job.request = chat_->build_request(request);
        job.model = chat_model_;
        job.accept = is_json_body;
        add_encoding_override(job.request);
        job.estimated_tokens =
            static_cast<double>(unit.prompt.size()) / 4.0 +
            (config_.max_tokens ? *config_.max_tokens : (unit.kind == Kind::simulate ? 200.0 * unit.count : 20.0));
        for (const auto& secret : job.request.secrets) remember_secret(secret);
        InFlight flight;
        flight.key = key;
        flight.hash = hash;
        flight.units.push_back(std::move(unit));
        inflight_by_key_[hash] = job.id;
        inflight_[job.id] = std::move(flight);
        return job;
    }

    // Batch-API mode: the answer a provider batch gave goes the way of a synchronous one (the
    // same parsing, cache entry and redraws); a request no batch answered yet is recorded and
    // its passage waits for the next pass.
    std::optional<Job> defer_chat(ChatUnit unit, const ChatRequest& request, const CacheKey& key,
                                  const std::string& hash) {
        const auto found = deferred_->answered.find(hash);
        if (found == deferred_->answered.end()) {
            if (deferred_->seen.insert(hash).second)
                deferred_->missing.push_back({hash, chat_->build_request(request), unit.attempt});
            return std::nullopt;
        }
        ++deferred_->consumed;
        JobResult result;
        result.id = next_job_id_++;
        result.response = found->second;
        result.attempts = 1;
        InFlight flight;
        flight.key = key;
        flight.hash = hash;
        flight.units.push_back(std::move(unit));
        inflight_by_key_[hash] = result.id;
        inflight_[result.id] = std::move(flight);
        on_done(std::move(result));
        return std::nullopt;
    }

    // Every provider answers JSON: a cut or malformed 2xx body is retried by the transport,
    // with its backoff and in its retry budget, like a 5xx.
    static bool is_json_body(const HttpResponse& response) { return nlohmann::json::accept(response.body); }

    // LLMV_ACCEPT_ENCODING=identity: benchmarks against cpp-httplib servers, which would
    // brotli-compress every answer at quality 11 (a server cost that is no part of ours).
    static void add_encoding_override(HttpRequest& request) {
        const char* encoding = std::getenv("LLMV_ACCEPT_ENCODING");
        if (encoding && *encoding) request.headers.emplace_back("Accept-Encoding", encoding);
    }

    void remember_secret(const std::string& secret) {
        if (!secret.empty() && std::find(secrets_.begin(), secrets_.end(), secret) == secrets_.end()) {
            secrets_.push_back(secret);
        }
    }

    void on_done(JobResult result) {
        const auto found = inflight_.find(result.id);
        if (found == inflight_.end()) return;
        InFlight flight = std::move(found->second);
        inflight_.erase(found);
        if (flight.embedding) {
            embeddings_done(std::move(flight), result);
            report_progress(false);
            return;
        }
        inflight_by_key_.erase(flight.hash);
        if (result.attempts > 1) {
            const std::int64_t retries = result.attempts - 1;
            totals_.transport_retries += retries;
            progress_.retries += retries;
            for (ChatUnit& unit : flight.units) unit.passage->result.calls.transport_retries += retries;
        }
        if (!result.ok()) {
            std::string message = result.error_message;
            // The provider's own message is in the body of an HTTP error; a transport error's
            // is already in result.error_message.
            if (result.error_code != code::cancelled && result.response.status != 0) {
                const ChatResult parsed = chat_->parse_response(result.response);
                if (!parsed.error.message.empty()) message += ": " + parsed.error.message;
            }
            for (ChatUnit& unit : flight.units) {
                fail(unit.passage, result.error_code,
                     "passage " + unit.passage->input.id + ", " + kind_name(unit.kind) + " call: " + message);
            }
            return;
        }
        const ChatResult chat = chat_->parse_response(result.response);
        if (!chat.ok) {
            // A 2xx whose body the provider cannot read (truncated, not JSON): not an answer of
            // the model, so it is not cached; the same request is sent again.
            for (ChatUnit& unit : flight.units) {
                if (unit.transport_attempt < config_.max_transport_retries && chat.error.retryable) {
                    ++unit.transport_attempt;
                    ++totals_.transport_retries;
                    ++progress_.retries;
                    unit.passage->result.calls.transport_retries += 1;
                    push_chat(std::move(unit));
                } else {
                    fail(unit.passage, chat.error.code.empty() ? code::provider_server : chat.error.code,
                         "passage " + unit.passage->input.id + ", " + kind_name(unit.kind) +
                             " call: " + chat.error.message);
                }
            }
            return;
        }
        const ChatUnit& first = flight.units.front();
        const ParsedAnswer parsed = parse_answer(first.kind, first.count, chat.text, chat.refused);
        CacheEntry entry;
        entry.status = cache_status_of(parsed, chat.refused);
        entry.body = result.response.body;
        entry.text = chat.text;
        entry.response_model = chat.model;
        entry.input_tokens = static_cast<std::uint64_t>(std::max<std::int64_t>(0, chat.input_tokens));
        entry.output_tokens = static_cast<std::uint64_t>(std::max<std::int64_t>(0, chat.output_tokens));
        if (cache_) cache_store(std::move(flight.key), std::move(flight.hash), std::move(entry));
        accounting_.add_tokens(
            chat_model_, static_cast<std::uint64_t>(std::max<std::int64_t>(0, chat.input_tokens)),
            static_cast<std::uint64_t>(std::max<std::int64_t>(0, chat.output_tokens)),
            static_cast<std::uint64_t>(std::max<std::int64_t>(0, chat.cached_input_tokens)));
        if (!parsed.ok) accounting_.add_invalid_answer(chat_model_);
        ++totals_.chat_calls;
        totals_.input_tokens += chat.input_tokens;
        totals_.output_tokens += chat.output_tokens;
        progress_.input_tokens += chat.input_tokens;
        progress_.output_tokens += chat.output_tokens;
        bool first_unit = true;
        for (ChatUnit& unit : flight.units) {
            progress_.calls_done += 1;
            if (first_unit) {
                unit.passage->result.calls.chat_calls += 1;
                unit.passage->result.calls.input_tokens += chat.input_tokens;
                unit.passage->result.calls.output_tokens += chat.output_tokens;
            } else {
                unit.passage->result.calls.shared += 1;
                ++totals_.shared;
            }
            deliver(unit, parsed, false, !first_unit, 0, 0);
            first_unit = false;
        }
        report_progress(false);
    }

    // One answer for one unit: record it, or redraw it (attempt + 1), or give up on it.
    void deliver(ChatUnit& unit, const ParsedAnswer& parsed, bool from_cache, bool shared,
                 std::int64_t, std::int64_t) {
        (void)shared;
        const PassagePtr passage = unit.passage;
        if (passage->finished) return;
        CallCounts& counts = passage->result.calls;
        if (unit.attempt == 0) {
            if (unit.kind == Kind::annotate) ++counts.annotation_calls;
            if (unit.kind == Kind::simulate) ++counts.simulation_calls;
            if (unit.kind == Kind::backtranslate) ++counts.backtranslation_calls;
            if (unit.kind == Kind::annotate) ++totals_.annotation_calls;
            if (unit.kind == Kind::simulate) ++totals_.simulation_calls;
            if (unit.kind == Kind::backtranslate) ++totals_.backtranslation_calls;
        }
        if (!parsed.ok) {
            if (parsed.out_of_set) {
                ++counts.out_of_set;
                ++totals_.out_of_set;
            } else {
                ++counts.unparseable;
                ++totals_.unparseable;
            }
            // A cached unusable answer never ends the chain: the redraw budget is for answers
            // paid for in this run (see max_cached_attempts).
            if ((from_cache && unit.attempt + 1 < max_cached_attempts) ||
                unit.paid_redraws < config_.parse_retry_limit) {
                if (!from_cache) ++unit.paid_redraws;
                ++unit.attempt;
                ++counts.parse_retries;
                ++totals_.parse_retries;
                ++progress_.retries;
                ++progress_.calls_total;
                push_chat(std::move(unit));
                return;
            }
        }
        switch (unit.kind) {
            case Kind::annotate:
                passage->annotation_answers[static_cast<std::size_t>(unit.position)] = parsed.ok ? parsed.label : "";
                if (--passage->annotations_pending == 0) annotations_done(passage);
                break;
            case Kind::simulate: {
                if (!parsed.ok) {
                    fail(passage, code::provider_unparseable,
                         "passage " + passage->input.id + ": simulation call " +
                             std::to_string(unit.position + 1) + " of label '" + unit.label +
                             "' gave no usable passages after " +
                             std::to_string(config_.parse_retry_limit) +
                             " retries (" + parsed.problem + "); the answers are kept in the cache as "
                             "unusable, and a re-run asks again for exactly these draws");
                    return;
                }
                PoolState& pool = passage->pools[unit.label];
                pool.call_texts[static_cast<std::size_t>(unit.position)] = parsed.passages;
                if (--pool.calls_pending == 0) pool_generated(passage, unit.label);
                break;
            }
            case Kind::backtranslate: {
                // A final failure is recorded as what came back: it counts as a wrong label.
                std::string answer = parsed.ok ? parsed.label
                                               : (parsed.out_of_set && !parsed.raw_label.empty()
                                                      ? parsed.raw_label
                                                      : std::string("<unparseable>"));
                passage->backtranslation[unit.label][static_cast<std::size_t>(unit.position)] = std::move(answer);
                --passage->backtranslations_pending;
                maybe_finish(passage);
                break;
            }
        }
    }

    // ---- embeddings ---------------------------------------------------------------------------
    void push_embedding(const std::string& text, EmbedTarget target) {
        if (local_embedding_) {
            const std::vector<double> vector = shared_embedder().embed(text);
            ++totals_.embedded_texts;
            target.passage->result.calls.embedded_texts += 1;
            progress_.calls_done += 1;
            store_embedding(target, vector);
            return;
        }
        auto pending = embed_targets_.find(text);
        if (pending != embed_targets_.end()) {
            pending->second.push_back(std::move(target));
            return;
        }
        embed_targets_[text].push_back(std::move(target));
        embed_queue_.push_back(text);
    }

    void store_embedding(const EmbedTarget& target, const std::vector<double>& vector) {
        const PassagePtr& passage = target.passage;
        if (passage->finished) return;
        passage->vector_dimensions[vector.size()].emplace_back(target.label, target.label.empty() ? -1 : target.row);
        if (target.label.empty()) {
            passage->passage_embedding = Eigen::Map<const Eigen::VectorXd>(vector.data(),
                                                                           static_cast<Eigen::Index>(vector.size()));
            passage->passage_embedded = true;
        } else {
            PoolState& pool = passage->pools[target.label];
            if (pool.embeddings.cols() == 0) {
                pool.embeddings.resize(pool.embeddings.rows(), static_cast<Eigen::Index>(vector.size()));
            }
            // Another dimension: check_dimensions sorts it out once every vector is in.
            if (pool.embeddings.cols() == static_cast<Eigen::Index>(vector.size())) {
                pool.embeddings.row(target.row) = Eigen::Map<const Eigen::RowVectorXd>(
                    vector.data(), static_cast<Eigen::Index>(vector.size()));
            }
        }
        --passage->embeddings_pending;
        maybe_finish(passage);
    }

    // Every vector of a passage must have one dimension. When they differ, the dimension most
    // of them have is taken as the model's; the others are marked `rejected` in the cache (so
    // that no later run is served them as good, and a re-run asks again for exactly those)
    // and the passage fails.
    bool check_dimensions(const PassagePtr& passage) {
        const auto& dimensions = passage->vector_dimensions;
        if (dimensions.size() <= 1) return true;
        std::size_t majority = 0, most = 0;
        for (const auto& [dimension, vectors] : dimensions) {
            if (vectors.size() > most) {
                most = vectors.size();
                majority = dimension;
            }
        }
        std::size_t odd = 0;
        std::string odd_dimensions;
        for (const auto& [dimension, vectors] : dimensions) {
            if (dimension == majority) continue;
            odd += vectors.size();
            odd_dimensions += (odd_dimensions.empty() ? "" : ", ") + std::to_string(dimension);
            for (const auto& [label, row] : vectors) {
                const std::string& text = row < 0 ? passage->input.text
                                                  : passage->pools[label].texts[static_cast<std::size_t>(row)];
                if (!cache_) continue;
                CacheKey key = embedding_cache_key(text);
                std::string hash = key.hash();
                CacheEntry entry;
                entry.status = cache_status::rejected;
                entry.body = "an embedding of " + std::to_string(dimension) + " dimensions where the model's others have " +
                             std::to_string(majority);
                cache_store(std::move(key), std::move(hash), std::move(entry));
            }
        }
        fail(passage, code::dimension_mismatch,
             "passage " + passage->input.id + ": the embedding model returned " + std::to_string(odd) +
                 " vector(s) of " + odd_dimensions + " dimensions where the other " + std::to_string(most) +
                 " have " + std::to_string(majority) +
                 (cache_ ? "; they are marked rejected in the cache, and a re-run asks for exactly "
                           "those again"
                         : "; no cache is in use, so a re-run asks for every embedding again"));
        return false;
    }

    CacheKey embedding_cache_key(const std::string& text) const {
        return embedding_key_for(embedding_name_, embedder_->endpoint_identity(), embedding_model_,
                                 text);
    }

    std::optional<Job> issue_embeddings() {
        std::vector<std::string> batch;
        std::vector<std::string> batch_hashes;
        while (!embed_queue_.empty() && batch.size() < embedding_batch_) {
            std::string text = std::move(embed_queue_.front());
            embed_queue_.pop_front();
            auto targets = embed_targets_.find(text);
            if (targets == embed_targets_.end()) continue;
            // Drop targets of passages that already failed.
            auto& list = targets->second;
            list.erase(std::remove_if(list.begin(), list.end(),
                                      [](const EmbedTarget& t) { return t.passage->finished; }),
                       list.end());
            if (list.empty()) {
                embed_targets_.erase(targets);
                continue;
            }
            std::optional<CacheEntry> entry;
            std::string hash;
            if (cache_) {
                hash = embedding_cache_key(text).hash();
                entry = cache_lookup(hash);
            }
            if (entry && entry->status == cache_status::ok) {
                std::vector<double> vector;
                try {
                    vector = nlohmann::json::parse(entry->text).get<std::vector<double>>();
                } catch (const std::exception&) {
                    vector.clear();
                }
                if (!vector.empty()) {
                    std::vector<EmbedTarget> waiting = std::move(list);
                    embed_targets_.erase(targets);
                    ++totals_.cache_hits;
                    ++progress_.cache_hits;
                    accounting_.add_cache_hit(embedding_model_);
                    for (const EmbedTarget& target : waiting) {
                        target.passage->result.calls.embedded_texts += 1;
                        target.passage->result.calls.cache_hits += 1;
                        progress_.calls_done += 1;
                        store_embedding(target, vector);
                    }
                    continue;
                }
            }
            batch.push_back(std::move(text));
            if (cache_) batch_hashes.push_back(std::move(hash));
        }
        if (batch.empty()) return std::nullopt;
        if (deferred_) {
            for (std::string& text : batch) {
                const auto found = deferred_->vectors.find(text);
                if (found == deferred_->vectors.end()) {
                    // Its targets wait in embed_targets_ for the next pass.
                    if (deferred_->seen.insert("text:" + text).second) deferred_->missing_texts.push_back(text);
                    continue;
                }
                ++deferred_->consumed;
                deliver_vector(text, found->second);
            }
            return std::nullopt;
        }
        EmbeddingRequest request;
        request.model = embedding_model_;
        request.inputs = batch;
        Job job;
        job.id = next_job_id_++;
        job.request = embedder_->build_request(request);
        job.model = embedding_model_;
        job.accept = is_json_body;
        add_encoding_override(job.request);
        std::size_t chars = 0;
        for (const auto& text : batch) chars += text.size();
        job.estimated_tokens = static_cast<double>(chars) / 4.0;
        for (const auto& secret : job.request.secrets) remember_secret(secret);
        InFlight flight;
        flight.embedding = true;
        flight.texts = std::move(batch);
        flight.hashes = std::move(batch_hashes);
        flight.units.clear();
        inflight_[job.id] = std::move(flight);
        ++totals_.embedding_requests;
        return job;
    }

    void embeddings_done(InFlight flight, const JobResult& result) {
        if (result.attempts > 1) {
            totals_.transport_retries += result.attempts - 1;
            progress_.retries += result.attempts - 1;
        }
        EmbeddingResult parsed;
        if (result.ok()) parsed = embedder_->parse_response(result.response, flight.texts.size());
        if (!result.ok() || !parsed.ok) {
            const std::string error_code = !result.ok() ? result.error_code
                                                        : (parsed.error.code.empty() ? code::provider_server
                                                                                     : parsed.error.code);
            const std::string message = !result.ok() ? result.error_message : parsed.error.message;
            const bool retry = result.ok() && parsed.error.retryable &&
                               embedding_retries_[flight.texts.front()]++ < config_.max_transport_retries;
            for (const std::string& text : flight.texts) {
                auto targets = embed_targets_.find(text);
                if (targets == embed_targets_.end()) continue;
                if (retry) {
                    embed_queue_.push_front(text);
                    continue;
                }
                std::vector<EmbedTarget> waiting = std::move(targets->second);
                embed_targets_.erase(targets);
                for (const EmbedTarget& target : waiting) {
                    fail(target.passage, error_code,
                         "passage " + target.passage->input.id + ", embedding request: " + message);
                }
            }
            return;
        }
        for (std::size_t i = 0; cache_ && i < flight.texts.size(); ++i) {
            CacheEntry entry;
            entry.status = cache_status::ok;
            entry.text = vector_json(parsed.vectors[i]);
            entry.response_model = parsed.model;
            if (i == 0) entry.input_tokens = static_cast<std::uint64_t>(std::max<std::int64_t>(0, parsed.input_tokens));
            CacheKey key = embedding_cache_key(flight.texts[i]);
            std::string hash = i < flight.hashes.size() ? std::move(flight.hashes[i]) : key.hash();
            cache_store(std::move(key), std::move(hash), std::move(entry));
        }
        accounting_.add_tokens(embedding_model_, static_cast<std::uint64_t>(std::max<std::int64_t>(0, parsed.input_tokens)), 0);
        totals_.input_tokens += parsed.input_tokens;
        progress_.input_tokens += parsed.input_tokens;
        for (std::size_t i = 0; i < flight.texts.size(); ++i)
            deliver_to_waiting(flight.texts[i], parsed.vectors[i]);
    }

    // Hands one text's vector to every passage waiting for it, counted once per text.
    void deliver_to_waiting(const std::string& text, const std::vector<double>& vector) {
        auto targets = embed_targets_.find(text);
        if (targets == embed_targets_.end()) return;
        std::vector<EmbedTarget> waiting = std::move(targets->second);
        embed_targets_.erase(targets);
        ++totals_.embedded_texts;
        for (const EmbedTarget& target : waiting) {
            target.passage->result.calls.embedded_texts += 1;
            progress_.calls_done += 1;
            store_embedding(target, vector);
        }
    }

    // One text's vector from a provider batch: cached and delivered as embeddings_done does.
    void deliver_vector(const std::string& text, const std::vector<double>& vector) {
        if (cache_) {
            CacheEntry entry;
            entry.status = cache_status::ok;
            entry.text = vector_json(vector);
            entry.response_model = embedding_model_;
            CacheKey key = embedding_cache_key(text);
            std::string hash = key.hash();
            cache_store(std::move(key), std::move(hash), std::move(entry));
        }
        deliver_to_waiting(text, vector);
    }

    // ---- the cache's write buffer ---------------------------------------------------------------
    // Answers are written in batches, one transaction each (one SQLite commit per answer was a
    // large share of the client thread's CPU at 600 requests/s). A batch is written before
    // any passage is reported (an output row implies its answers are in the cache), when it
    // holds `cache_batch_size` entries, after `cache_batch_seconds`, and when the run ends,
    // also by cancellation or an error. Lookups see the buffer first.
    struct PendingWrite {
        CacheKey key;
        std::string hash;  // key.hash()
        CacheEntry entry;
    };

    std::optional<CacheEntry> cache_lookup(const std::string& hash) {
        if (auto pending = pending_by_hash_.find(hash); pending != pending_by_hash_.end()) {
            return pending_writes_[pending->second].entry;
        }
        if (auto kept = unwritten_by_hash_.find(hash); kept != unwritten_by_hash_.end()) {
            return unwritten_[kept->second].entry;
        }
        if (submitted_by_hash_.count(hash)) {
            // Rare (two passages asking the same request): the writer is waited for, rather
            // than every answer kept twice in memory until written.
            collect_written(/*wait=*/true);
        }
        return cache_ ? cache_->get(hash) : std::nullopt;
    }

    void cache_store(CacheKey key, std::string hash, CacheEntry entry) {
        if (!cache_) return;
        if (pending_writes_.empty()) first_pending_time_ = now_seconds();
        pending_by_hash_[hash] = pending_writes_.size();
        pending_writes_.push_back(
            PendingWrite{std::move(key), std::move(hash), std::move(entry)});
        if (pending_writes_.size() >= cache_batch_size) flush_cache();
    }

    void maybe_flush_cache() {
        if (!unwritten_.empty() && now_seconds() >= unwritten_retry_at_) retry_unwritten();
        if (!pending_writes_.empty() && now_seconds() - first_pending_time_ >= cache_batch_seconds)
            flush_cache();
    }

    // ---- answers the cache could not take --------------------------------------------------
    // A write that fails (another process holds the file's lock past cache_busy_timeout_ms)
    // loses nothing: its answers stay in memory, visible to lookups, and are written again with
    // exponential backoff (0.5 s doubling to 8 s). Whatever is still unwritten when the run ends
    // goes to a side file that `llmvalidate cache --import` adds later (BatchResult says where).
    void keep_unwritten(std::vector<std::pair<CacheKey, CacheEntry>> entries,
                        std::vector<std::string> hashes, const std::string& message) {
        for (std::size_t i = 0; i < entries.size(); ++i) {
            unwritten_by_hash_[hashes[i]] = unwritten_.size();
            unwritten_.push_back(PendingWrite{std::move(entries[i].first), std::move(hashes[i]),
                                              std::move(entries[i].second)});
        }
        last_write_error_ = message;
        unwritten_retry_at_ = now_seconds() + unwritten_backoff_;
        unwritten_backoff_ = std::min(8.0, unwritten_backoff_ * 2);
    }

    void retry_unwritten() {
        std::vector<PendingWrite> retry = std::move(unwritten_);
        unwritten_.clear();
        unwritten_by_hash_.clear();
        for (PendingWrite& write : retry)
            cache_store(std::move(write.key), std::move(write.hash), std::move(write.entry));
        flush_cache();
    }

    // At the end of the run: one last write, then the side file for what is left.
    void write_side_file() {
        if (unwritten_.empty()) return;
        retry_unwritten();
        collect_written(/*wait=*/true);
        if (unwritten_.empty()) return;
        const std::string path = config_.cache_path + ".unwritten-" +
                                 std::to_string(static_cast<long long>(std::time(nullptr))) + "-" +
                                 std::to_string(unwritten_.size()) + ".jsonl";
        std::ofstream out(path, std::ios::binary | std::ios::app);
        for (const PendingWrite& write : unwritten_) out << side_file_line(write.key, write.entry, secrets_) << "\n";
        out.flush();
        if (!out) {
            throw Error(code::cache, "the cache " + config_.cache_path + " stayed locked (" + last_write_error_ +
                                         ") and the side file " + path + " could not be written: " +
                                         std::to_string(unwritten_.size()) + " answers are lost");
        }
        batch_.unwritten_file = path;
        batch_.unwritten_answers = unwritten_.size();
        unwritten_.clear();
        unwritten_by_hash_.clear();
    }

    void flush_cache() {
        if (pending_writes_.empty() || !cache_) return;
        std::vector<PendingWrite> writes = std::move(pending_writes_);
        pending_writes_.clear();
        pending_by_hash_.clear();
        if (cache_writer_) {
            submit_writes(std::move(writes));
            return;
        }
        std::vector<std::pair<CacheKey, CacheEntry>> entries;
        std::vector<std::string> hashes;
        entries.reserve(writes.size());
        hashes.reserve(writes.size());
        for (PendingWrite& write : writes) {
            entries.emplace_back(std::move(write.key), std::move(write.entry));
            hashes.push_back(std::move(write.hash));
        }
        try {
            cache_->put_many(entries, secrets_, hashes);  // hashed once, at the lookup
        } catch (const Error& error) {
            keep_unwritten(std::move(entries), std::move(hashes), error.what());
        }
    }

    // With the writer thread: the batch is queued and stays visible to lookups until written.
    void submit_writes(std::vector<PendingWrite> writes) {
        CacheWriter::Batch batch;
        SubmittedBatch submitted;
        batch.entries.reserve(writes.size());
        batch.key_hashes.reserve(writes.size());
        for (PendingWrite& write : writes) {
            submitted.hashes.push_back(write.hash);
            batch.key_hashes.push_back(std::move(write.hash));
            batch.entries.emplace_back(std::move(write.key), std::move(write.entry));
        }
        batch.secrets = secrets_;
        batches_submitted_ = cache_writer_->submit(std::move(batch));
        for (const std::string& hash : submitted.hashes) submitted_by_hash_[hash] = batches_submitted_;
        submitted_batches_[batches_submitted_] = std::move(submitted);
    }

    // Takes the writer's news: written entries leave the lookup map (the cache file has them
    // now), a failed write fails the passages whose answers it held, and the passages whose
    // answers are all written are reported.
    void collect_written(bool wait) {
        if (!cache_writer_) return;
        if (!wait && batches_written_ == batches_submitted_) return;
        std::vector<CacheWriter::Written> written =
            wait ? cache_writer_->wait_all() : cache_writer_->take_written();
        for (CacheWriter::Written& outcome : written) {
            auto found = submitted_batches_.find(outcome.batch);
            if (found == submitted_batches_.end()) continue;
            SubmittedBatch submitted = std::move(found->second);
            submitted_batches_.erase(found);
            for (const std::string& hash : submitted.hashes) {
                auto entry = submitted_by_hash_.find(hash);
                // A later batch may carry a newer answer under the same key.
                if (entry != submitted_by_hash_.end() && entry->second == outcome.batch)
                    submitted_by_hash_.erase(entry);
            }
            batches_written_ = std::max(batches_written_, outcome.batch);
            if (outcome.ok || outcome.unwritten.empty()) continue;
            // Kept in memory and written again later (keep_unwritten): its passages go on.
            keep_unwritten(std::move(outcome.unwritten), std::move(outcome.unwritten_hashes), outcome.message);
        }
        while (!awaiting_write_.empty() && awaiting_write_.front().second <= batches_written_) {
            PassagePtr passage = std::move(awaiting_write_.front().first);
            awaiting_write_.pop_front();
            report(passage);
        }
    }

    struct SubmittedBatch {
        std::vector<std::string> hashes;
    };

    static constexpr std::size_t cache_batch_size = 256;
    static constexpr double cache_batch_seconds = 0.25;
    std::vector<PendingWrite> pending_writes_;
    std::unordered_map<std::string, std::size_t> pending_by_hash_;
    double first_pending_time_ = 0;
    std::unique_ptr<CacheWriter> cache_writer_;  // null: writes inline (no cache, ":memory:")
    std::uint64_t batches_submitted_ = 0;
    std::uint64_t batches_written_ = 0;
    std::map<std::uint64_t, SubmittedBatch> submitted_batches_;
    std::unordered_map<std::string, std::uint64_t> submitted_by_hash_;  // hash -> its batch
    // Finished passages waiting for the write of their answers: (passage, batch to wait for).
    std::deque<std::pair<PassagePtr, std::uint64_t>> awaiting_write_;
    std::vector<PendingWrite> unwritten_;  // failed writes, kept and retried (keep_unwritten)
    std::unordered_map<std::string, std::size_t> unwritten_by_hash_;
    double unwritten_retry_at_ = 0;
    double unwritten_backoff_ = 0.5;
    std::string last_write_error_;

    // ---- progress and summaries ---------------------------------------------------------------
    void report_progress(bool final_call) {
        if (!callbacks_.on_progress) return;
        const double now = now_seconds();
        if (!final_call && now - last_progress_ < callbacks_.progress_interval_seconds) return;
        last_progress_ = now;
        progress_.elapsed_seconds = now - start_time_;
        std::int64_t total = progress_.calls_total;
        if (progress_.passages_total > 0 && admitted_ > 0 && admitted_ < progress_.passages_total) {
            total = static_cast<std::int64_t>(static_cast<double>(total) *
                                              static_cast<double>(progress_.passages_total) /
                                              static_cast<double>(admitted_));
        }
        if (progress_.calls_done > 0 && total > progress_.calls_done) {
            progress_.eta_seconds = progress_.elapsed_seconds / static_cast<double>(progress_.calls_done) *
                                    static_cast<double>(total - progress_.calls_done);
        } else {
            progress_.eta_seconds = final_call ? 0 : -1;
        }
        Progress shown = progress_;
        shown.calls_total = std::max(total, progress_.calls_done);
        callbacks_.on_progress(shown);
    }

    struct CompactResult {
        std::size_t index = 0;
        std::string id;
        bool ok = false;
        std::string label;
        stats::Verdict verdict = stats::Verdict::inconclusive;
        std::string human_label;
        double p_value = 0;
    };

    static void add_counts(CallCounts& into, const CallCounts& from) {
        into.chat_calls += from.chat_calls;
        into.annotation_calls += from.annotation_calls;
        into.simulation_calls += from.simulation_calls;
        into.backtranslation_calls += from.backtranslation_calls;
        into.embedding_requests += from.embedding_requests;
        into.embedded_texts += from.embedded_texts;
        into.cache_hits += from.cache_hits;
        into.shared += from.shared;
        into.transport_retries += from.transport_retries;
        into.parse_retries += from.parse_retries;
        into.unparseable += from.unparseable;
        into.out_of_set += from.out_of_set;
        into.input_tokens += from.input_tokens;
        into.output_tokens += from.output_tokens;
    }

    // The summaries from the few fields kept per passage (not whole PassageResults: a
    // 20,000-row batch must not hold 20,000 results at the end either).
    BatchSummary summary_from_compact() {
        std::sort(compact_.begin(), compact_.end(),
                  [](const CompactResult& a, const CompactResult& b) { return a.index < b.index; });
        BatchSummary summary;
        stats::PassageSummaryInput input;
        bool any_human = false;
        for (const CompactResult& compact : compact_) {
            if (compact.ok && !compact.human_label.empty()) any_human = true;
        }
        for (CompactResult& compact : compact_) {
            ++summary.n_passages;
            if (!compact.ok) {
                ++summary.n_failed;
                continue;
            }
            summary.ids.push_back(std::move(compact.id));
            summary.p_values.push_back(compact.p_value);
            input.llm_label.push_back(std::move(compact.label));
            input.verdict.push_back(compact.verdict);
            if (any_human) input.human_label.push_back(std::move(compact.human_label));
            switch (compact.verdict) {
                case stats::Verdict::valid: ++summary.n_valid; break;
                case stats::Verdict::invalid: ++summary.n_invalid; break;
                case stats::Verdict::inconclusive: ++summary.n_inconclusive; break;
            }
        }
        compact_.clear();
        compact_.shrink_to_fit();
        summary.p_bh = stats::benjamini_hochberg(summary.p_values);
        if (!input.llm_label.empty()) summary.summary = stats::summarize_passages(input, labels_);
        return summary;
    }

    const ValidationConfig& config_;
    const BatchCallbacks& callbacks_;
    bool keep_results_;
    DeferredCalls* deferred_ = nullptr;
    std::shared_ptr<const Task> task_;
    std::vector<std::string> labels_;
    int m_ = 0;
    bool synthetic_chat_ = false;
    bool local_embedding_ = false;
    std::string chat_provider_;  // resolved: never "auto"
    std::string chat_model_;
    std::string embedding_name_;
    std::string embedding_model_;
    std::size_t embedding_batch_ = 64;
    std::unique_ptr<SimulatedModel> simulated_;
    std::unique_ptr<ChatProvider> chat_;
    std::unique_ptr<EmbeddingProvider> embedder_;
    std::unique_ptr<Cache> cache_;
    Accounting accounting_;
    std::unique_ptr<PriceTable> price_table_;
    Transport* transport_ = nullptr;
    std::vector<std::string> secrets_;

    const PassageSource* source_ = nullptr;
    bool source_done_ = false;
    std::string source_error_;
    std::size_t admitted_ = 0;
    std::size_t max_passages_in_flight_ = 16;
    std::map<std::size_t, PassagePtr> open_;
    std::map<std::tuple<std::size_t, int, std::uint64_t>, ChatUnit> chat_queue_;
    std::uint64_t unit_counter_ = 0;
    std::size_t chat_since_embedding_ = 0;
    std::deque<std::string> embed_queue_;
    std::unordered_map<std::string, std::vector<EmbedTarget>> embed_targets_;
    std::unordered_map<std::string, int> embedding_retries_;
    std::unordered_map<std::uint64_t, InFlight> inflight_;
    std::unordered_map<std::string, std::uint64_t> inflight_by_key_;
    std::uint64_t next_job_id_ = 1;

    Progress progress_;
    CallCounts totals_;
    CallCounts totals_passages_;
    std::vector<CompactResult> compact_;
    BatchResult batch_;
    double start_time_ = 0;
    double last_progress_ = -1e300;
};

}  // namespace

ChatRequest chat_request_for(const ValidationConfig& config, const std::string& model,
                             const std::vector<std::string>& labels, bool simulate,
                             const std::string& prompt, int position, int count, int attempt) {
    ChatRequest request = ChatRequest::user_prompt(model, prompt);
    request.temperature = config.temperature;
    request.top_p = config.top_p;
    request.max_tokens = config.max_tokens;
    // A seed per draw where the API takes one: draws differ, a draw is reproducible.
    request.seed = static_cast<std::int64_t>(
        mix_seed(stable_hash(prompt),
                 (static_cast<std::uint64_t>(position) << 20) + static_cast<std::uint64_t>(attempt)) &
        0x7fffffffULL);
    if (config.structured_output == "none") return request;  // the prompt alone, as the paper
    const std::string schema = simulate ? passages_json_schema(static_cast<std::size_t>(count))
                                        : label_json_schema(labels);
    if (config.structured_output == "prompt") {
        request.messages.back().content +=
            "\n\nAnswer with JSON only, matching this JSON Schema:\n" + schema;
        return request;
    }
    request.json_schema = schema;
    request.schema_name = simulate ? "passages" : "label";
    return request;
}

CacheKey chat_key_for(const std::string& provider, const std::string& endpoint,
                      const ChatRequest& request, int position, int attempt) {
    CacheKey key;
    key.provider = provider;
    key.endpoint = endpoint;
    key.model = request.model;
    key.parameters = nlohmann::json::object();
    key.parameters["request"] = request.canonical_json();
    key.prompt = request.messages.empty() ? std::string() : request.messages.back().content;
    key.draw_index = static_cast<std::uint64_t>(position);
    key.attempt = static_cast<std::uint32_t>(attempt);
    return key;
}

CacheKey embedding_key_for(const std::string& provider, const std::string& endpoint,
                           const std::string& model, const std::string& text) {
    CacheKey key;
    key.provider = provider;
    key.endpoint = endpoint;
    key.model = model;
    key.parameters = nlohmann::json::object({{"kind", "embedding"}});
    key.prompt = text;
    return key;
}

int calls_for(int texts, int per_call) { return per_call <= 0 ? 0 : (texts + per_call - 1) / per_call; }

bool uses_paper_method(const ValidationConfig& config) {
    return config.tests.validation_method == "paper" || config.tests.separation_method == "paper";
}

int pool_size(const ValidationConfig& config) {
    return uses_paper_method(config) && config.paper_n > 0 ? config.paper_n : config.m;
}

std::vector<std::string> reference_labels(const ValidationConfig& config,
                                          const std::vector<std::string>& labels,
                                          const std::string& beta) {
    std::vector<std::string> out;
    for (const std::string& label : labels) {
        const bool for_validation = config.tests.validation_method == "paper" && label == beta;
        const bool for_separation = config.tests.separation_method == "paper" && label != beta;
        if (for_validation || for_separation) out.push_back(label);
    }
    return out;
}

BatchResult run_engine(const ValidationConfig& config, const PassageSource& source,
                       const BatchCallbacks& callbacks, bool keep_results, std::size_t passages_total,
                       DeferredCalls* deferred) {
    Engine engine(config, callbacks, keep_results, passages_total, deferred);
    return engine.run(source);
}

}  // namespace llmv::pipeline
