// The public entry points of llmvalidate/pipeline.hpp around the scheduler (engine.cpp).
#include <algorithm>
#include <iterator>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sys/stat.h>
#include <unordered_map>

#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llm/provider.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/settings.hpp"
#include "llm/structured_output.hpp"
#include "core/utf8.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/simulated.hpp"

namespace llmv::pipeline {

Task load_config_task(const ValidationConfig& config) {
    if (!config.task_source.empty()) return Task::from_string(config.task_source, "<task_source>");
    if (config.task_path.empty()) {
        throw_invalid(code::invalid_argument, "task", "\"\"",
                      "a shipped task name (e.g. simple_sentiment) or the path of a task file");
    }
    return load_task(config.task_path);
}

Task task_for_input(const Task& task, const PassageInput& passage) {
    return task.with_simulation_template(passage.simulation_template);
}

TaskVariables passage_variables(const ValidationConfig& config, const PassageInput& passage) {
    TaskVariables variables = config.variables;
    for (const auto& entry : passage.variables) variables[entry.first] = entry.second;
    return variables;
}

void check_config(const ValidationConfig& config) {
    settings::check(config);  // every setting's range, one set of messages
    if (config.paper_n == 1) {
        throw_invalid(code::invalid_argument, "paper_n", "1",
                      "0 (use M) or a whole number in 2..100000");
    }
    // Provider and embedding names, models and keys: the run's own resolution (an unknown
    // name, or a server of your own without a model, fails here, before any call).
    (void)resolve_providers(config);
    const Task task = load_config_task(config);
    if (task.labels().size() < 2) {
        throw_invalid(code::task_invalid, "labels", std::to_string(task.labels().size()) + " label",
                      "at least two labels (the separation test needs another label)");
    }
    if (config.provider == simulated_provider_name) {
        SimulatedModel check(config.simulated, task.labels());
        (void)check;
    }
}

CallCounts expected_calls_per_passage(const ValidationConfig& config, int label_count) {
    const int m = pool_size(config);
    CallCounts counts;
    counts.annotation_calls = config.annotation_repeats;
    // Reference draws: β̂'s for the paper validation test, every other label's for the paper
    // separation test. They continue the pool's calls, so a label with references costs
    // ⌈(M + B)/n⌉ calls instead of ⌈M/n⌉.
    const int with_reference_validation = config.tests.validation_method == "paper" ? 1 : 0;
    const int with_reference_separation = config.tests.separation_method == "paper" ? label_count - 1 : 0;
    const int with_reference = with_reference_validation + with_reference_separation;
    const int without_reference = label_count - with_reference;
    counts.simulation_calls = static_cast<std::int64_t>(without_reference) * calls_for(m, config.n) +
                              static_cast<std::int64_t>(with_reference) * calls_for(m + config.paper_b, config.n);
    counts.backtranslation_calls =
        static_cast<std::int64_t>(m) * (config.backtranslate_all_labels ? label_count : 1);
    counts.chat_calls = counts.annotation_calls + counts.simulation_calls + counts.backtranslation_calls;
    counts.embedded_texts = static_cast<std::int64_t>(label_count) * m + 1 +
                            static_cast<std::int64_t>(with_reference) * config.paper_b;
    return counts;
}

namespace {

// A human label must be a label of the task (compared as labels are, ignoring case and white
// space) or empty: a label outside the set would silently fall out of Table 10.
class HumanLabelCheck {
  public:
    explicit HumanLabelCheck(const ValidationConfig& config)
        : labels_(load_config_task(config).labels()) {
        for (const std::string& label : labels_) keys_.push_back(normalize_label(label));
    }
    void operator()(const PassageInput& passage, std::size_t position) const {
        if (passage.human_label.empty()) return;
        const std::string key = normalize_label(passage.human_label);
        if (std::find(keys_.begin(), keys_.end(), key) != keys_.end()) return;
        std::string names;
        for (const std::string& label : labels_) names += (names.empty() ? "'" : ", '") + label + "'";
        const std::string id = passage.id.empty() ? std::to_string(position + 1) : passage.id;
        throw_invalid(code::unknown_label, "human label of passage " + id,
                      "'" + passage.human_label + "'",
                      "a label of the task (" + names + ") or empty");
    }

  private:
    std::vector<std::string> labels_;
    std::vector<std::string> keys_;
};

BatchResult run_checked(const ValidationConfig& config, const PassageSource& source,
                        const BatchCallbacks& callbacks, bool keep_results, std::size_t total) {
    check_config(config);
    // Streams are checked as they are read (like any malformed input line); passages given at
    // once are checked before any call, in validate_batch().
    const HumanLabelCheck check_human(config);
    std::size_t position = 0;
    const PassageSource checked = [&](PassageInput& out) {
        if (!source(out)) return false;
        check_human(out, position++);
        return true;
    };
    return run_engine(config, checked, callbacks, keep_results, total);
}

void check_human_labels(const ValidationConfig& config, const std::vector<PassageInput>& passages) {
    check_config(config);
    const HumanLabelCheck check_human(config);
    for (std::size_t i = 0; i < passages.size(); ++i) check_human(passages[i], i);
}

}  // namespace

void check_passage_text(const PassageInput& passage, std::size_t index) {
    if (!is_blank(passage.text)) return;
    const std::string name =
        "passage " + (passage.id.empty() ? std::to_string(index + 1) : "\"" + passage.id + "\"") +
        " (row " + std::to_string(index + 1) + ")";
    throw_invalid(code::invalid_argument, "text",
                  name + ": " + (passage.text.empty() ? "an empty text" : "only white space " + nlohmann::json(abbreviate(passage.text)).dump()),
                  "a passage with text to annotate (leave out the empty rows before the run; no call was made)");
}

namespace {
void check_passages(const std::vector<PassageInput>& passages) {
    for (std::size_t i = 0; i < passages.size(); ++i) check_passage_text(passages[i], i);
}

BatchResult run_passages(const ValidationConfig& config, const std::vector<PassageInput>& passages,
                         const BatchCallbacks& callbacks, bool keep_results) {
    check_human_labels(config, passages);
    std::size_t next = 0;
    const PassageSource source = [&](PassageInput& out) {
        if (next >= passages.size()) return false;
        out = passages[next++];
        return true;
    };
    return run_checked(config, source, callbacks, keep_results, passages.size());
}
}  // namespace

// One passage never throws for its own text: a blank one is its failed result (no call).
PassageResult validate_passage(const ValidationConfig& config, const PassageInput& passage,
                               const BatchCallbacks& callbacks) {
    BatchResult batch = run_passages(config, {passage}, callbacks, true);
    return std::move(batch.passages.front());
}

BatchResult validate_batch(const ValidationConfig& config, const std::vector<PassageInput>& passages,
                           const BatchCallbacks& callbacks, bool keep_results) {
    check_passages(passages);
    return run_passages(config, passages, callbacks, keep_results);
}

BatchResult validate_stream(const ValidationConfig& config, const PassageSource& source,
                            const BatchCallbacks& callbacks, bool keep_results) {
    return run_checked(config, source, callbacks, keep_results, 0);
}

std::vector<GenerationRow> generation_rows(const PassageResult& result) {
    std::vector<GenerationRow> rows;
    const auto hash_of = [&](const std::string& name) {
        const auto found = result.prompt_hashes.find(name);
        return found == result.prompt_hashes.end() ? std::string() : found->second;
    };
    const auto row = [&](const char* kind, const std::string& label, int draw) {
        GenerationRow out;
        out.index = result.index;
        out.passage_id = result.id;
        out.kind = kind;
        out.label = label;
        out.draw = draw;
        out.model = result.model;
        out.prompt_hash = hash_of(label.empty() ? "annotation" : "simulation:" + label);
        return out;
    };
    for (std::size_t r = 0; r < result.annotations.size(); ++r) {
        GenerationRow out = row("annotation", "", static_cast<int>(r));
        out.text = result.passage_text;
        out.answer = result.annotations[r];
        rows.push_back(std::move(out));
    }
    for (const std::string& label : result.label_set) {
        const auto pool = result.pool_texts.find(label);
        if (pool == result.pool_texts.end()) continue;
        const auto answers = result.backtranslation_answers.find(label);
        for (std::size_t j = 0; j < pool->second.size(); ++j) {
            GenerationRow out = row("simulation", label, static_cast<int>(j));
            out.text = pool->second[j];
            if (answers != result.backtranslation_answers.end() && j < answers->second.size()) {
                out.answer = answers->second[j];
            }
            rows.push_back(std::move(out));
        }
    }
    return rows;
}

std::string csv_line(const std::vector<std::string>& fields) {
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i) line += ',';
        const std::string& field = fields[i];
        if (field.find_first_of(",\"\n\r") == std::string::npos) {
            line += field;
            continue;
        }
        line += '"';
        for (char c : field) {
            if (c == '"') line += '"';
            line += c;
        }
        line += '"';
    }
    return line;
}

std::string generations_csv_header() {
    return csv_line({"index", "id", "kind", "label", "draw", "text", "answer", "model", "prompt_hash"});
}

std::string generation_csv_line(const GenerationRow& row) {
    return csv_line({std::to_string(row.index + 1), row.passage_id, row.kind, row.label,
                     std::to_string(row.draw + 1), row.text, row.answer, row.model, row.prompt_hash});
}

Generations read_generations(const ValidationConfig& config, const std::vector<PassageInput>& passages) {
    ValidationConfig replay = config;
    replay.replay_only = true;
    replay.keep_texts = true;
    replay.dry_run = false;
    Generations generations;
    BatchCallbacks callbacks;
    callbacks.on_passage = [&](const PassageResult& result) {
        if (!result.ok) generations.failed.push_back(result);
    };
    BatchResult batch = validate_batch(replay, passages, callbacks, /*keep_results=*/true);
    generations.synthetic = batch.synthetic;
    for (const PassageResult& result : batch.passages) {
        if (!result.ok) continue;
        std::vector<GenerationRow> rows = generation_rows(result);
        generations.rows.insert(generations.rows.end(), std::make_move_iterator(rows.begin()),
                                std::make_move_iterator(rows.end()));
    }
    std::sort(generations.failed.begin(), generations.failed.end(),
              [](const PassageResult& a, const PassageResult& b) { return a.index < b.index; });
    return generations;
}

BatchSummary summarize(const std::vector<PassageResult>& results,
                       const std::vector<std::string>& label_set) {
    BatchSummary summary;
    stats::PassageSummaryInput input;
    bool any_human = false;
    for (const PassageResult& result : results) {
        ++summary.n_passages;
        if (!result.ok) {
            ++summary.n_failed;
            continue;
        }
        if (!result.human_label.empty()) any_human = true;
    }
    for (const PassageResult& result : results) {
        if (!result.ok) continue;
        summary.ids.push_back(result.id);
        summary.p_values.push_back(result.tests.validation.p_value);
        input.llm_label.push_back(result.label);
        input.verdict.push_back(result.verdict);
        if (any_human) input.human_label.push_back(result.human_label);
        switch (result.verdict) {
            case stats::Verdict::valid: ++summary.n_valid; break;
            case stats::Verdict::invalid: ++summary.n_invalid; break;
            case stats::Verdict::inconclusive: ++summary.n_inconclusive; break;
        }
    }
    summary.p_bh = stats::benjamini_hochberg(summary.p_values);
    if (!input.llm_label.empty()) summary.summary = stats::summarize_passages(input, label_set);
    return summary;
}

namespace {

// Follows the cache the way the scheduler would, request by request: an answer the cache holds
// is read and parsed as the run would (an unusable one leads to the redraw the run would make,
// attempt + 1), so that the requests whose prompts quote earlier answers (backtranslation of
// the pool of β̂) and the texts to embed are known wherever the cache holds their sources.
class CacheWalk {
  public:
    CacheWalk(const ValidationConfig& config, const std::vector<std::string>& labels, Cache& cache,
              std::string chat_endpoint, std::string embedding_name, std::string embedding_endpoint,
              std::string embedding_model, DryRunReport& report)
        : config_(config),
          labels_(labels),
          cache_(cache),
          chat_endpoint_(std::move(chat_endpoint)),
          embedding_name_(std::move(embedding_name)),
          embedding_endpoint_(std::move(embedding_endpoint)),
          embedding_model_(std::move(embedding_model)),
          report_(report) {}

    // One request unit (a draw with its redraws). Returns the accepted (or last, unusable)
    // answer when the cache serves the whole chain, nullopt when a call would be made.
    struct Answer {
        bool ok = false;
        std::string label;                  // annotation: the label of S
        std::vector<std::string> passages;  // simulation: the passages
    };

    std::optional<Answer> unit(bool simulate, const std::string& prompt, int position, int count,
                               std::string* identity = nullptr) {
        const std::string first_hash = key(simulate, prompt, position, count, 0).hash();
        if (identity) *identity += first_hash;
        if (auto seen = seen_.find(first_hash); seen != seen_.end()) {
            ++report_.calls.shared;  // the same request as an earlier unit's: sent (or read) once
            return seen->second;
        }
        std::optional<Answer> outcome;
        // Cached unusable draws are redrawn without using up the redraw budget (the engine's
        // rule): the chain ends at the first usable or missing draw.
        for (int attempt = 0; attempt < max_cached_attempts; ++attempt) {
            const auto entry = cache_.get(
                attempt == 0 ? first_hash : key(simulate, prompt, position, count, attempt).hash());
            if (!entry) break;  // this draw would be requested
            Answer answer;
            if (entry->status != cache_status::refused) {
                if (simulate) {
                    PassagesAnswer parsed =
                        parse_passages_answer(entry->text, static_cast<std::size_t>(count));
                    answer.ok = parsed.status == AnswerStatus::ok;
                    answer.passages = std::move(parsed.passages);
                } else {
                    const LabelAnswer parsed = parse_label_answer(entry->text, labels_);
                    answer.ok = parsed.status == AnswerStatus::ok;
                    answer.label = parsed.label;
                }
            }
            if (answer.ok) {
                outcome = std::move(answer);
                break;
            }
        }
        if (outcome) ++report_.cached_calls;
        seen_.emplace(first_hash, outcome);
        return outcome;
    }

    // A request whose prompt is not known yet (it quotes an answer the cache does not hold),
    // named by what it derives from: the same identity twice is one request made once.
    void unknown_unit(const std::string& identity) {
        if (!seen_unknown_.insert(identity).second) ++report_.calls.shared;
    }

    void unknown_embedding(const std::string& identity) {
        if (!seen_unknown_.insert(identity).second) ++report_.shared_embedded_texts;
    }

    void embedding(const std::string& text) {
        if (!seen_texts_.insert(text).second) {
            ++report_.shared_embedded_texts;
        } else if (const auto entry = cache_.get(embedding_key_for(embedding_name_, embedding_endpoint_,
                                                                   embedding_model_, text)
                                                     .hash());
                   entry && entry->status == cache_status::ok) {
            ++report_.cached_embedded_texts;
        }
    }

  private:
    CacheKey key(bool simulate, const std::string& prompt, int position, int count,
                 int attempt) const {
        const ChatRequest request = chat_request_for(config_, config_.model, labels_, simulate,
                                                     prompt, position, count, attempt);
        return chat_key_for(config_.provider, chat_endpoint_, request, position, attempt);
    }

    const ValidationConfig& config_;
    const std::vector<std::string>& labels_;
    Cache& cache_;
    std::string chat_endpoint_;
    std::string embedding_name_;
    std::string embedding_endpoint_;
    std::string embedding_model_;
    DryRunReport& report_;
    std::unordered_map<std::string, std::optional<Answer>> seen_;
    std::set<std::string> seen_texts_;
    std::set<std::string> seen_unknown_;
};

// One passage through the cache: annotations, β̂, the pools, backtranslation of the pools whose
// texts the cache holds, and the embeddings of y and of those texts.
void walk_passage(CacheWalk& walk, const ValidationConfig& config, const Task& task,
                  const std::vector<std::string>& labels, const PassageInput& passage,
                  const TaskVariables& variables, bool embeddings_cached) {
    const std::string annotation = task.render_annotation(passage.text, variables);
    std::map<std::string, int> votes;
    bool beta_known = true;
    for (int r = 0; r < config.annotation_repeats; ++r) {
        const auto answer = walk.unit(false, annotation, r, 0);
        if (!answer) {
            beta_known = false;
        } else if (answer->ok) {
            ++votes[answer->label];
        }
    }
    std::string beta;  // modal label, ties to the first in S (as the scheduler)
    int best = 0;
    for (const std::string& label : labels) {
        const auto found = votes.find(label);
        if (found != votes.end() && found->second > best) {
            best = found->second;
            beta = label;
        }
    }
    if (!beta_known) beta.clear();
    const std::vector<std::string> reference =
        beta.empty() ? std::vector<std::string>() : reference_labels(config, labels, beta);
    const int m = pool_size(config);
    if (embeddings_cached) walk.embedding(passage.text);
    for (const std::string& label : labels) {
        const bool with_reference =
            std::find(reference.begin(), reference.end(), label) != reference.end();
        const int total = m + (with_reference ? config.paper_b : 0);
        std::vector<std::string> texts;
        bool pool_known = true;
        std::string pool_identity;  // the pool's requests: identical pools give identical texts
        for (int c = 0; c < calls_for(total, config.n); ++c) {
            const int count = std::min(config.n, total - c * config.n);
            const auto answer =
                walk.unit(true, task.render_simulation(label, count, passage.text, variables), c,
                          count, &pool_identity);
            if (!answer || !answer->ok) {
                pool_known = false;
                continue;
            }
            for (const std::string& text : answer->passages) {
                if (static_cast<int>(texts.size()) < total) texts.push_back(text);
            }
        }
        const bool backtranslated =
            config.backtranslate_all_labels || (!beta.empty() && label == beta);
        if (!pool_known) {
            // Its texts, their embeddings and their backtranslation are to be made, once for
            // every passage with the same pool requests (and, for backtranslation, the same β̂).
            if (backtranslated) {
                for (int j = 0; j < m; ++j)
                    walk.unknown_unit("backtranslation " + pool_identity + " " + std::to_string(j));
            }
            if (embeddings_cached) {
                for (int j = 0; j < total; ++j)
                    walk.unknown_embedding("pool " + pool_identity + " " + std::to_string(j));
            }
            continue;
        }
        if (embeddings_cached) {
            for (const std::string& text : texts) walk.embedding(text);
        }
        if (!backtranslated) continue;
        for (int j = 0; j < m && j < static_cast<int>(texts.size()); ++j) {
            walk.unit(false, task.render_annotation(texts[static_cast<std::size_t>(j)], variables),
                      j, 0);
        }
    }
}

}  // namespace

std::vector<std::string> size_warnings(const ValidationConfig& config) {
    check_config(config);
    std::vector<std::string> warnings;
    const int needed = stats::smallest_deciding_size(config.tests.alpha);
    const auto add = [&](const std::string& phrase, const std::string& symbol,
                         const std::string& unit, int size, const std::string& consequence) {
        if (size < needed)
            warnings.push_back(
                stats::cannot_decide_reason(phrase, symbol, unit, size, config.tests.alpha) + "; " +
                consequence + ".");
    };
    const std::string every = "every verdict will be \"inconclusive\"";
    if (config.tests.validation_method == "paper")
        add("the paper's validation test cannot decide", "B", "reference texts", config.paper_b,
            every);
    else
        add("the exact validation test cannot reject", "M", "pool texts", pool_size(config),
            every);
    if (config.tests.separation_method == "paper")
        add("the paper's separation test cannot decide", "B", "reference texts", config.paper_b,
            every);
    else
        add("the separation test cannot pass", "R", "permutations", config.tests.permutations, every);
    for (std::string& warning : warnings) warning[0] = static_cast<char>(std::toupper(warning[0]));
    return warnings;
}

namespace {

bool file_exists(const std::string& path) {
    struct stat status {};
    return path == ":memory:" || stat(path.c_str(), &status) == 0;
}

}  // namespace

std::string cache_warning(const ValidationConfig& config) {
    if (!config.cache_path.empty()) return "";
    ResolveOptions options;
    options.allow_synthetic_fallback = true;  // only whether anything is paid matters here
    const ResolvedProviders resolved = resolve_providers(config, options);
    if (resolved.synthetic_chat && resolved.local_embedding) return "";
    return "No cache: every answer of this run is paid for and kept nowhere, so a re-run (or an "
           "interrupted run) pays again for all of it. Give a cache file, or leave the default (" +
           default_cache_path() + ").";
}

DryRunReport dry_run(const ValidationConfig& given, const std::vector<PassageInput>& passages) {
    check_passages(passages);
    check_human_labels(given, passages);
    // The run's own resolution (auto, default models, each key to its vendor): the cache keys
    // counted here are the keys the run will look up.
    const ResolvedProviders resolved = resolve_providers(given);
    ValidationConfig config = given;
    apply_resolution(config, resolved);
    const Task base = load_config_task(config);
    const std::vector<std::string>& labels = base.labels();
    const int k = static_cast<int>(labels.size());
    const CallCounts per_passage = expected_calls_per_passage(config, k);
    DryRunReport report;
    report.passages = passages.size();
    report.providers = resolved.description();
    // The simulated provider never reads or writes the cache (engine.cpp says why): every one of
    // its calls is computed, none is paid.
    const bool synthetic = resolved.synthetic_chat;
    std::unique_ptr<Cache> cache;
    if (!synthetic && !config.cache_path.empty()) {
        // A cache file not created yet holds nothing: an empty one in memory stands in, so that
        // the dry run creates no file (the requests it would share are still counted).
        cache = std::make_unique<Cache>(file_exists(config.cache_path) ? config.cache_path : ":memory:",
                                        config.cache_busy_timeout_ms);
    }
    std::unique_ptr<CacheWalk> walk;
    bool embeddings_cached = false;  // false: embedded locally, never cached
    if (cache) {
        // A dry run sends nothing: a placeholder stands in for a key not set yet (the endpoint's
        // identity, part of every cache key, does not depend on the key).
        ProviderConfig chat_config = resolved.chat;
        if (chat_config.api_key.empty()) chat_config.api_key = "dry-run-no-key";
        const auto chat = make_chat_provider(resolved.chat_provider, chat_config);
        std::string embedding_endpoint;
        if (!resolved.local_embedding) {  // the local embedder computes, never caches
            ProviderConfig embedding_config = resolved.embedding;
            if (embedding_config.api_key.empty()) embedding_config.api_key = "dry-run-no-key";
            embedding_endpoint =
                make_embedding_provider(resolved.embedding_provider, embedding_config)->endpoint_identity();
        }
        walk = std::make_unique<CacheWalk>(config, labels, *cache, chat->endpoint_identity(),
                                           resolved.embedding_provider, embedding_endpoint,
                                           resolved.embedding_model, report);
        embeddings_cached = !resolved.local_embedding;
    }
    const int m = pool_size(config);
    for (const PassageInput& passage : passages) {
        CallCounts& calls = report.calls;
        calls.annotation_calls += per_passage.annotation_calls;
        calls.simulation_calls += per_passage.simulation_calls;
        calls.backtranslation_calls += per_passage.backtranslation_calls;
        calls.chat_calls += per_passage.chat_calls;
        calls.embedded_texts += per_passage.embedded_texts;
        const Task task = passage.simulation_template.empty() ? base : task_for_input(base, passage);
        const TaskVariables variables = passage_variables(config, passage);
        const std::string annotation = task.render_annotation(passage.text, variables);
        const auto tokens = [](const std::string& text) {
            return static_cast<std::int64_t>((text.size() + 3) / 4);
        };
        // A generated passage is about as long as y (the simulation prompts ask for y's
        // length), at least 15 tokens; a simulation answer is its n passages in a JSON array
        // (a few tokens each for the quotes and commas) and a label answer ~10 tokens. Where
        // max_tokens caps an answer, the cap.
        const std::int64_t passage_tokens = std::max<std::int64_t>(15, tokens(passage.text));
        const std::int64_t label_output =
            config.max_tokens ? std::min<std::int64_t>(10, *config.max_tokens) : 10;
        report.estimated_input_tokens += config.annotation_repeats * tokens(annotation);
        report.estimated_output_tokens += config.annotation_repeats * label_output;
        for (const std::string& label : labels) {
            const std::int64_t label_calls = calls_for(m, config.n);
            for (std::int64_t c = 0; c < label_calls; ++c) {
                const int count = std::min(config.n, m - static_cast<int>(c) * config.n);
                const std::string prompt = task.render_simulation(label, count, passage.text, variables);
                report.estimated_input_tokens += tokens(prompt);
                std::int64_t out = 4 + count * (passage_tokens + 2);
                if (config.max_tokens) out = std::min<std::int64_t>(out, *config.max_tokens);
                report.estimated_output_tokens += out;
            }
        }
        // Backtranslation prompts quote texts not written yet: the template with a generated
        // passage in place of y.
        report.estimated_input_tokens +=
            per_passage.backtranslation_calls * (tokens(annotation) - tokens(passage.text) + passage_tokens);
        report.estimated_output_tokens += per_passage.backtranslation_calls * label_output;
        report.estimated_embedding_tokens +=
            tokens(passage.text) + (per_passage.embedded_texts - 1) * passage_tokens;
        if (walk) walk_passage(*walk, config, task, labels, passage, variables, embeddings_cached);
    }
    report.chat_calls_to_make = report.calls.chat_calls - report.cached_calls - report.calls.shared;
    report.texts_to_embed =
        report.calls.embedded_texts - report.cached_embedded_texts - report.shared_embedded_texts;
    report.calls.embedding_requests = -1;  // depends on the provider's batch size and on sharing
    {
        // Dollars for what is still to be made: the estimated tokens in the share of calls and
        // texts neither cached nor shared.
        const auto share = [](std::int64_t part, std::int64_t whole) {
            return whole > 0 ? static_cast<double>(std::max<std::int64_t>(0, part)) / static_cast<double>(whole) : 0.0;
        };
        const double chat_share = share(report.chat_calls_to_make, report.calls.chat_calls);
        const double text_share = share(report.texts_to_embed, report.calls.embedded_texts);
        const auto scaled = [](std::int64_t tokens, double by) {
            return static_cast<std::int64_t>(std::llround(static_cast<double>(tokens) * by));
        };
        const auto table = price_table_for(config.price_table);
        report.cost = cost_of(table.get(), resolved.chat_provider, resolved.chat_model,
                              scaled(report.estimated_input_tokens, chat_share), 0,
                              scaled(report.estimated_output_tokens, chat_share),
                              resolved.embedding_provider, resolved.embedding_model,
                              scaled(report.estimated_embedding_tokens, text_share));
    }
    report.warnings = size_warnings(config);
    if (const std::string warning = cache_warning(config); !warning.empty())
        report.warnings.push_back(warning);
    report.note =
        std::string(synthetic
                        ? "Synthetic: the simulated provider makes no network call, costs nothing "
                          "and does not use the cache (its answers are fixed by the request). "
                        : "") +
        "Counts are exact: R + K*ceil(M/n) + M chat calls and K*M + 1 embedded texts per passage, "
        "plus parse retries of new answers, which depend on them. The cache is followed as the run "
        "would follow it: cached annotations give the label whose pool is backtranslated, cached "
        "pools give the backtranslation prompts and the texts to embed. 'Shared' requests are "
        "identical to an earlier passage's (a simulation prompt that does not quote the passage) "
        "and are made once; where a passage's label is not cached yet, its backtranslation may "
        "still "
        "turn out to be shared, so 'to be made' is then an upper bound. Tokens are estimates (4 "
        "characters a token) for every call, made or "
        "cached.";
    return report;
}

}  // namespace llmv::pipeline
