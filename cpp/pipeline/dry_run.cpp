// The dry run (dry_run.hpp, dry_run()): what a run would cost, following the cache as the run
// would. Its requests and cache keys come from the run's own code (open_providers(),
// RequestKeys), so that the keys it looks up are the keys the run writes.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "llm/model_rules.hpp"
#include "llm/structured_output.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/resolution.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/model_lifecycle_check.hpp"
#include "pipeline/providers.hpp"
#include "pipeline/requests.hpp"

namespace llmv::pipeline {

namespace {

// Follows the cache the way the scheduler would, request by request: an answer the cache holds
// is read and parsed as the run would (an unusable one leads to the redraw the run would make,
// attempt + 1), so that the requests whose prompts quote earlier answers (backtranslation of
// the pool of β̂) and the texts to embed are known wherever the cache holds their sources.
class CacheWalk {
  public:
    CacheWalk(const std::vector<std::string>& labels, Cache& cache, const RequestKeys& keys,
              DryRunReport& report)
        : labels_(labels), cache_(cache), keys_(keys), report_(report) {}

    // One request unit (a draw with its redraws). Returns the accepted (or last, unusable)
    // answer when the cache serves the whole chain, nullopt when a call would be made.
    struct Answer {
        bool ok = false;
        std::string label;                  // annotation: the label of S
        std::vector<std::string> passages;  // simulation: the passages
    };

    // What a unit is, for pricing: each kind's tokens are priced by the share of its own calls
    // still to make (a shared simulation call is not a shared annotation).
    enum Kind { annotation = 0, simulation = 1, backtranslation = 2 };
    std::int64_t not_made[3] = {0, 0, 0};  // cached or shared calls, by kind

    std::optional<Answer> unit(bool simulate, const std::string& prompt, int position, int count,
                               std::string* identity = nullptr, Kind kind = annotation) {
        if (simulate) kind = simulation;
        const std::string first_hash = key(simulate, prompt, position, count, 0).hash();
        if (identity) *identity += first_hash;
        if (auto seen = seen_.find(first_hash); seen != seen_.end()) {
            ++report_.calls.shared;  // the same request as an earlier unit's: sent (or read) once
            ++not_made[kind];
            return seen->second;
        }
        std::optional<Answer> outcome;
        // Cached unusable draws are redrawn without using up the redraw budget (the engine's
        // rule): the chain ends at the first usable or missing draw.
        for (int attempt = 0; attempt < max_cached_attempts; ++attempt) {
            // Status and text only: a chat row's body is not needed to follow the chain.
            const auto entry = cache_.get_answer(
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
        if (outcome) {
            ++report_.cached_calls;
            ++not_made[kind];
        }
        seen_.emplace(first_hash, outcome);
        return outcome;
    }

    // A request whose prompt is not known yet (it quotes an answer the cache does not hold),
    // named by what it derives from: the same identity twice is one request made once.
    void unknown_unit(const std::string& identity) {
        if (!seen_unknown_.insert(identity).second) {
            ++report_.calls.shared;
            ++not_made[backtranslation];
        }
    }

    // A passage whose label β̂ is not known yet backtranslates the pool of one of the K labels.
    // Passages with the same pools (a simulation prompt that does not quote the passage) share
    // those backtranslations: among them at most K distinct ones are made, one per label, and
    // the rest are counted shared. An estimate, exact when their labels cover the K labels.
    void unknown_label_backtranslation(const std::string& pools, std::size_t k, int m) {
        std::size_t& passages = unknown_labels_[pools];
        if (passages >= k) {
            report_.calls.shared += m;
            not_made[backtranslation] += m;
        }
        ++passages;
    }

    void unknown_embedding(const std::string& identity) {
        if (!seen_unknown_.insert(identity).second) ++report_.shared_embedded_texts;
    }

    void embedding(const std::string& text) {
        if (!seen_texts_.insert(text).second) {
            ++report_.shared_embedded_texts;
        } else if (cache_.has_ok(keys_.embedding_key(text).hash())) {  // a presence test
            ++report_.cached_embedded_texts;
        }
    }

  private:
    CacheKey key(bool simulate, const std::string& prompt, int position, int count,
                 int attempt) const {
        return keys_.chat_key(keys_.chat_request(simulate, prompt, position, count, attempt),
                              position, attempt);
    }

    const std::vector<std::string>& labels_;
    Cache& cache_;
    const RequestKeys& keys_;
    DryRunReport& report_;
    std::unordered_map<std::string, std::optional<Answer>> seen_;
    std::set<std::string> seen_texts_;
    std::set<std::string> seen_unknown_;
    std::map<std::string, std::size_t> unknown_labels_;
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
    std::string pools_identity;  // every label's pool requests
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
                          count, &pool_identity, CacheWalk::simulation);
            if (!answer || !answer->ok) {
                pool_known = false;
                continue;
            }
            for (const std::string& text : answer->passages) {
                if (static_cast<int>(texts.size()) < total) texts.push_back(text);
            }
        }
        pools_identity += label + "=" + pool_identity + ";";
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
                      j, 0, nullptr, CacheWalk::backtranslation);
        }
    }
    if (!beta_known && !config.backtranslate_all_labels) {
        walk.unknown_label_backtranslation(pools_identity, labels.size(), m);
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
    if (draws_reference("validation", config.tests.validation_method))
        add("the paper's validation test cannot decide", "B", "reference texts", config.paper_b,
            every);
    else
        add("the exact validation test cannot reject", "M", "pool texts", pool_size(config), every);
    if (draws_reference("separation", config.tests.separation_method))
        add("the paper's separation test cannot decide", "B", "reference texts", config.paper_b,
            every);
    else
        add("the separation test cannot pass", "R", "permutations", config.tests.permutations,
            every);
    for (std::string& warning : warnings) warning[0] = static_cast<char>(std::toupper(warning[0]));
    return warnings;
}

namespace {

bool file_exists(const std::string& path) {
    struct stat status {};
    return path == ":memory:" || stat(path.c_str(), &status) == 0;
}

}  // namespace

std::string cache_warning_for(const ValidationConfig& config, const ResolvedProviders& resolved) {
    if (!config.cache_path.empty()) return "";
    if (resolved.synthetic_chat && resolved.local_embedding) return "";
    return "No cache: every answer of this run is paid for and kept nowhere, so a re-run (or an "
           "interrupted run) pays again for all of it. Give a cache file, or leave the default (" +
           default_cache_path() + ").";
}

std::string cache_warning(const ValidationConfig& config) {
    if (!config.cache_path.empty()) return "";
    ResolveOptions options;
    options.allow_synthetic_fallback = true;  // only whether anything is paid matters here
    return cache_warning_for(config, resolve_providers(config, options));
}

namespace {
// The per-passage counts as a formula, with the paper's reference draws when its tests need
// them (L of the K labels draw B texts more: their pools take ceil((M+B)/n) calls).
std::string count_formula(const ValidationConfig& config, int k) {
    const int l = per_passage_reference_labels(config, k);
    std::string chat = "R + ";
    if (l == 0) {
        chat += "K*ceil(M/n)";
    } else if (l == k) {
        chat += "K*ceil((M+B)/n)";
    } else {
        chat += "(K-L)*ceil(M/n) + L*ceil((M+B)/n)";
    }
    chat += config.backtranslate_all_labels ? " + K*M" : " + M";
    std::string formula = "Counts are exact: " + chat + " chat calls and K*M" +
                          (l == 0   ? ""
                           : l == k ? " + K*B"
                                    : " + L*B") +
                          " + 1 embedded texts per passage";
    if (l > 0)
        formula += " (the paper's tests draw B = " + std::to_string(config.paper_b) +
                   " reference texts for " +
                   (l == k ? std::string("every one") : "L = " + std::to_string(l)) +
                   " of the K = " + std::to_string(k) + " labels)";
    return formula + ", plus parse retries of new answers, which depend on them. ";
}
}  // namespace

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
    // The simulated provider never reads or writes the cache (scheduler.cpp says why): every one of
    // its calls is computed, none is paid.
    const bool synthetic = resolved.synthetic_chat;
    std::unique_ptr<Cache> cache;
    if (!synthetic && !config.cache_path.empty()) {
        // A cache file not created yet holds nothing: an empty one in memory stands in, so that
        // the dry run creates no file (the requests it would share are still counted).
        cache =
            std::make_unique<Cache>(file_exists(config.cache_path) ? config.cache_path : ":memory:",
                                    config.cache_busy_timeout_ms);
    }
    std::unique_ptr<RunProviders> providers;
    std::unique_ptr<RequestKeys> keys;
    std::unique_ptr<CacheWalk> walk;
    bool embeddings_cached = false;  // false: embedded locally, never cached
    if (cache) {
        // The run's providers and request keys. A dry run sends nothing: a placeholder stands
        // in for a key not set yet (the endpoint's identity, part of every cache key, does not
        // depend on the key).
        providers = std::make_unique<RunProviders>(
            open_providers(config, resolved, labels, "dry-run-no-key"));
        keys = std::make_unique<RequestKeys>(config, *providers, labels);
        walk = std::make_unique<CacheWalk>(labels, *cache, *keys, report);
        embeddings_cached = !resolved.local_embedding;
    }
    const int m = pool_size(config);
    struct Tokens {
        std::int64_t input = 0;
        std::int64_t output = 0;
    };
    Tokens kind_tokens[3];  // annotation, simulation, backtranslation (CacheWalk::Kind)
    const auto tokens = [](const std::string& text) {
        return static_cast<std::int64_t>((text.size() + 3) / 4);
    };
    // What a request carries beside the prompt and is billed as input: the answer's JSON Schema
    // (the API's structured output, a forced tool, or appended to the prompt), and the system
    // prompt a vendor adds to a forced tool (the model's rules: Claude's tool-use prompt). The
    // simulated provider sends nothing; structured output none sends the prompt alone. The same
    // for every passage: computed once, the simulation schema once per count of texts.
    const bool sends_schema = !synthetic && config.structured_output != "none";
    const ModelRules rules = model_rules(resolved.chat_provider, resolved.chat_model);
    const std::int64_t tool_prompt =
        config.structured_output == "schema" && rules.forced_tool ? rules.tool_prompt_tokens : 0;
    // A reasoning model writes reasoning tokens before each answer, billed as output: the
    // assumption per answer at the effort the requests carry (reasoning_tokens_estimate(),
    // docs/providers.md), within max_tokens where the user caps an answer.
    const std::int64_t reasoning =
        synthetic
            ? 0
            : reasoning_tokens_estimate(rules, effort_to_send(rules, config.reasoning_effort));
    const auto with_reasoning = [&](std::int64_t answer) {
        const std::int64_t out = answer + reasoning;
        return config.max_tokens ? std::min<std::int64_t>(out, *config.max_tokens) : out;
    };
    const auto schema_overhead = [&](const std::string& schema) -> std::int64_t {
        return sends_schema ? tokens(schema) + 10 + tool_prompt : 0;  // 10: its name, wrapper
    };
    const std::int64_t label_overhead = schema_overhead(label_json_schema(labels));
    std::map<int, std::int64_t> simulation_overhead;  // by the texts a call asks for
    const auto pool_call_overhead = [&](int count) {
        const auto found = simulation_overhead.find(count);
        if (found != simulation_overhead.end()) return found->second;
        return simulation_overhead[count] =
                   schema_overhead(passages_json_schema(static_cast<std::size_t>(count)));
    };
    for (const PassageInput& passage : passages) {
        CallCounts& calls = report.calls;
        calls.annotation_calls += per_passage.annotation_calls;
        calls.simulation_calls += per_passage.simulation_calls;
        calls.backtranslation_calls += per_passage.backtranslation_calls;
        calls.chat_calls += per_passage.chat_calls;
        calls.embedded_texts += per_passage.embedded_texts;
        const Task task =
            passage.simulation_template.empty() ? base : task_for_input(base, passage);
        const TaskVariables variables = passage_variables(config, passage);
        const std::string annotation = task.render_annotation(passage.text, variables);
        // A generated passage is about as long as y (the simulation prompts ask for y's
        // length), at least 15 tokens; a simulation answer is its n passages in a JSON array
        // (a few tokens each for the quotes and commas) and a label answer ~10 tokens. Where
        // max_tokens caps an answer, the cap.
        const std::int64_t passage_tokens = std::max<std::int64_t>(15, tokens(passage.text));
        const std::int64_t label_output = with_reasoning(10);
        report.estimated_input_tokens +=
            config.annotation_repeats * (tokens(annotation) + label_overhead);
        report.estimated_output_tokens += config.annotation_repeats * label_output;
        kind_tokens[0].input += config.annotation_repeats * (tokens(annotation) + label_overhead);
        kind_tokens[0].output += config.annotation_repeats * label_output;
        // The simulation calls of one label's pool of `texts` texts: their input and output tokens.
        const auto pool_tokens = [&](const std::string& label, int texts) {
            std::pair<std::int64_t, std::int64_t> sum{0, 0};
            for (int c = 0; c < calls_for(texts, config.n); ++c) {
                const int count = std::min(config.n, texts - c * config.n);
                sum.first += tokens(task.render_simulation(label, count, passage.text, variables)) +
                             pool_call_overhead(count);
                const std::int64_t out = with_reasoning(4 + count * (passage_tokens + 2));
                sum.second += out;
            }
            return sum;
        };
        // The paper's tests draw B reference texts more for some labels (β̂'s, the others'):
        // with both paper tests every label, else one of K, whose label β̂ decides; its tokens
        // are then the labels' average.
        const std::int64_t labels_with_reference = per_passage_reference_labels(config, k);
        for (const std::string& label : labels) {
            const auto pool = pool_tokens(label, m);
            report.estimated_input_tokens += pool.first;
            report.estimated_output_tokens += pool.second;
            kind_tokens[1].input += pool.first;
            kind_tokens[1].output += pool.second;
            if (labels_with_reference == 0) continue;
            const auto with_reference = pool_tokens(label, m + config.paper_b);
            const std::int64_t reference_input =
                (with_reference.first - pool.first) * labels_with_reference / k;
            const std::int64_t reference_output =
                (with_reference.second - pool.second) * labels_with_reference / k;
            report.estimated_input_tokens += reference_input;
            report.estimated_output_tokens += reference_output;
            kind_tokens[1].input += reference_input;
            kind_tokens[1].output += reference_output;
        }
        // Backtranslation prompts quote texts not written yet: the template with a generated
        // passage in place of y.
        report.estimated_input_tokens +=
            per_passage.backtranslation_calls *
            (tokens(annotation) - tokens(passage.text) + passage_tokens + label_overhead);
        report.estimated_output_tokens += per_passage.backtranslation_calls * label_output;
        kind_tokens[2].input +=
            per_passage.backtranslation_calls *
            (tokens(annotation) - tokens(passage.text) + passage_tokens + label_overhead);
        kind_tokens[2].output += per_passage.backtranslation_calls * label_output;
        report.estimated_embedding_tokens +=
            tokens(passage.text) + (per_passage.embedded_texts - 1) * passage_tokens;
        if (walk) walk_passage(*walk, config, task, labels, passage, variables, embeddings_cached);
    }
    report.chat_calls_to_make = report.calls.chat_calls - report.cached_calls - report.calls.shared;
    report.estimated_reasoning_tokens =
        report.calls.chat_calls *
        (config.max_tokens ? std::min<std::int64_t>(reasoning, *config.max_tokens) : reasoning);
    report.texts_to_embed =
        report.calls.embedded_texts - report.cached_embedded_texts - report.shared_embedded_texts;
    report.calls.embedding_requests = -1;  // depends on the provider's batch size and on sharing
    {
        // Dollars for what is still to be made: the estimated tokens in the share of calls and
        // texts neither cached nor shared.
        const auto share = [](std::int64_t part, std::int64_t whole) {
            return whole > 0 ? static_cast<double>(std::max<std::int64_t>(0, part)) /
                                   static_cast<double>(whole)
                             : 0.0;
        };
        const double text_share = share(report.texts_to_embed, report.calls.embedded_texts);
        const auto scaled = [](std::int64_t count, double by) {
            return static_cast<std::int64_t>(std::llround(static_cast<double>(count) * by));
        };
        // Each kind of call by the share of its own calls still to make: the shared calls are
        // mostly simulations, whose answers are the longest.
        const std::int64_t kind_calls[3] = {report.calls.annotation_calls,
                                            report.calls.simulation_calls,
                                            report.calls.backtranslation_calls};
        std::int64_t input_to_make = 0;
        std::int64_t output_to_make = 0;
        for (int kind = 0; kind < 3; ++kind) {
            const std::int64_t not_made = walk ? walk->not_made[kind] : 0;
            const double kind_share = share(kind_calls[kind] - not_made, kind_calls[kind]);
            input_to_make += scaled(kind_tokens[kind].input, kind_share);
            output_to_make += scaled(kind_tokens[kind].output, kind_share);
        }
        const auto table = price_table_for(config.price_table);
        report.cost =
            cost_of(table.get(), resolved.chat_provider, resolved.chat_model, input_to_make, 0,
                    output_to_make, resolved.embedding_provider, resolved.embedding_model,
                    scaled(report.estimated_embedding_tokens, text_share));
    }
    report.warnings = size_warnings(config);
    if (const std::string warning = cache_warning_for(config, resolved); !warning.empty())
        report.warnings.push_back(warning);
    for (std::string& warning : check_model_lifecycles(config, resolved, /*may_fetch=*/false))
        report.warnings.push_back(std::move(warning));
    report.note =
        std::string(synthetic
                        ? "Synthetic: the simulated provider makes no network call, costs nothing "
                          "and does not use the cache (its answers are fixed by the request). "
                        : "") +
        count_formula(config, k) +
        "The cache is followed as the run "
        "would follow it: cached annotations give the label whose pool is backtranslated, cached "
        "pools give the backtranslation prompts and the texts to embed. 'Shared' requests are "
        "identical to an earlier passage's (a simulation prompt that does not quote the passage) "
        "and are made once; where a passage's label is not cached yet, passages with the same "
        "pools are taken to backtranslate at most one pool per label, so 'to be made' is then an "
        "estimate. Tokens are estimates (4 characters a token) for every call, made or cached; "
        "the price is of the calls and texts to be made." +
        (reasoning > 0
             ? " Output tokens include " + std::to_string(reasoning) +
                   " reasoning tokens a call (an assumption for the reasoning effort " +
                   effort_to_send(rules, config.reasoning_effort) + ", docs/providers.md)."
             : std::string());
    return report;
}

}  // namespace llmv::pipeline
