// The configuration of one validation (or one batch: every passage shares it), and its check
// (pipeline.hpp, the umbrella, says what the pipeline is).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "llmvalidate/settings.hpp"
#include "llmvalidate/stats.hpp"

namespace llmv::pipeline {

// The `simulated` provider's data-generating process (docs/simulated.md). Synthetic: every
// result produced with it says so (PassageResult::synthetic).
struct SimulatedDgp {
    // Probability that a generated text is written in the requested label; otherwise its
    // latent label is drawn uniformly from the other labels of S.
    double follow_probability = 0.97;
    // Share of a generated text's words drawn from its latent label's lexicon (the rest come
    // from the topic vocabulary). 0: the label leaves no trace in the text.
    double label_signal = 0.3;
    // The annotator: P(answer = S[b] | latent label = S[a]) = confusion[a][b]. Empty: the
    // diagonal is annotator_accuracy and the rest is spread evenly over the other labels.
    std::vector<std::vector<double>> confusion;
    double annotator_accuracy = 0.97;
    // Probability that an answer is not valid JSON (exercises the parse-retry path).
    double unparseable_probability = 0.0;
    // Words per generated text; 0: the word count of y ({length}), at least 20.
    int words = 0;
    // Where topic words come from; empty: the passage y itself (as if the simulation prompt
    // described y's content, as the paper's Section 4 prompts do).
    std::string topic;
    // Seeds every draw of the DGP (with the request's draw index); power analysis varies it.
    std::uint64_t seed = 0;
};

// Configuration of one validation (or one batch: every passage shares it). The defaults below
// are the only place they are written; llmvalidate/settings.hpp names, ranges and documents
// every setting (and says how to add one), visit_settings() below binds its fields.
struct ValidationConfig {
    // The task (prompts/*.toml): label set, annotation and simulation templates, per-label
    // instructions. One of the two: a file path, or the file's text.
    std::string task_path;
    std::string task_source;
    // Values of user-defined placeholders shared by every passage (PassageInput::variables
    // override them).
    std::map<std::string, std::string> variables;

    // Chat model: a provider of the registry (provider.hpp), "simulated" (no network, a
    // synthetic DGP: only when named), or "auto" (from the environment, resolution.hpp).
    std::string provider = "auto";
    std::string model;     // empty: the provider's documented default
    // Whose names the rows' error messages use for settings (`--encoding`, `encoding()`).
    settings::FrontEnd messages_for = settings::FrontEnd::engine;
    std::string base_url;  // empty: the provider's default / environment variable
    std::string api_key;   // empty: the provider's environment variable; never printed
    std::map<std::string, std::string> provider_options;
    // Embedding model: empty provider means "the same family as the chat provider" where it has
    // one (openai -> openai, bedrock -> bedrock-titan, simulated -> hashed), else an error.
    std::string embedding_provider;
    std::string embedding_model;
    // Each credential goes only to its own vendor: the embedding provider inherits base_url and
    // api_key only when it is the chat provider's own family (openai -> openai, bedrock ->
    // bedrock-titan). Otherwise these two apply, and an empty key means the embedding
    // provider's own environment variable (OPENAI_API_KEY, ...), never the chat key.
    std::string embedding_base_url;
    std::string embedding_api_key;  // never printed

    int m = 100;                 // M: pool size per label
    int n = 10;                  // passages asked for per simulation call
    int annotation_repeats = 1;  // R: annotations of y; β̂ is the modal label
    // The statistics' settings (alpha, threshold, methods, permutations, seed): one struct,
    // shared with `llmvalidate test`. Ranges and front-end names: llmvalidate/settings.hpp.
    stats::TestOptions tests;
    // Paper methods: N texts per pool (0: M) and B extra reference texts per label, drawn as
    // further draws of the same pool (draw keys continue after the pool's).
    int paper_n = 0;
    int paper_b = 100;
    bool backtranslate_all_labels = false;  // annotate every pool, not only β̂'s

    std::string cache_path;  // SQLite file; empty: nothing is cached (a re-run pays again)
    // How long a cache write waits for another process holding the file's lock before the
    // passages whose answers it holds fail with llmv.cache.failed.
    int cache_busy_timeout_ms = 30000;
    int concurrency = 16;      // requests in flight
    double rpm = 0;            // requests per minute; 0: unlimited
    double tpm = 0;            // tokens per minute; 0: unlimited
    double temperature = 1.0;  // the paper's setting
    // How an answer's JSON shape is asked for: "schema" (the API's structured output: OpenAI's
    // json_schema, a forced tool where the model supports one), "prompt" (the JSON Schema
    // appended to the prompt, no API feature), or "none" (the paper's way: the task's prompt
    // alone as one user message, JSON read from the free-text answer).
    std::string structured_output = "schema";
    // Whether the prompts end with the task's answer-format instructions ("Answer with a JSON
    // object ..."): "auto" leaves them out when structured_output is "schema" and the request
    // goes to an API (the JSON Schema travels with it: a fifth to a third of a call's input tokens
    // saved); "always" keeps them, as every version before did, so that a cache filled by an
    // earlier version serves its answers again.
    std::string answer_format = "auto";
    std::optional<double> top_p;
    std::optional<int> max_tokens;
    // Reasoning effort: "auto" (the lowest level the model takes for text generation, sent only
    // to models that reason by default; none to others), or a level the model takes ("none",
    // "minimal", "low", "medium", "high", "xhigh", "max"; its levels: docs/providers.md).
    std::string reasoning_effort = "auto";
    int parse_retry_limit = 3;      // redraws of an unparseable / out-of-set answer
    int max_transport_retries = 5;  // 429/5xx/transport failures per request (RetryPolicy)
    long connect_timeout_ms = 10000;
    long total_timeout_ms = 300000;  // one request, retries apart
    // After a cancellation (Ctrl-C, SIGTERM, R's interrupt, Stata's Break): no new request
    // starts, and the requests in flight get this long to finish and be cached (they are paid
    // for); then the rest are aborted.
    double drain_seconds = 10;
    // Batch-API runs: seconds between two polls of a provider batch in progress (the wait
    // looks at the interrupt check several times a second, whatever this is).
    double poll_interval_seconds = 30;
    // How the passages' bytes are read: "utf-8" (a passage that is not valid UTF-8 fails on its
    // own row, llmv.input.invalid_encoding) or "latin1" (each byte is one ISO 8859-1 character).
    std::string input_encoding = "utf-8";
    // The largest passage, in bytes (after decoding): a larger one fails on its own row, naming
    // it, before any request (a 50 MB field would otherwise be sent, and held, whole).
    int max_passage_bytes = 1000000;
    bool dry_run = false;  // count the calls and tokens, make none
    // The route of a run (pipeline::run, llmvalidate/run.hpp): through the vendor's batch API
    // (half the price, hours) instead of synchronous requests; with `wait` false, submit the
    // next phase's batches (or poll those out once) and return a waiting outcome.
    bool batch_api = false;
    bool wait = true;
    // The price table (prompts/prices.csv's columns) for the dry run's and the run's dollars;
    // empty: LLMV_PRICE_TABLE, else the shipped prompts/prices.csv.
    std::string price_table;
    bool keep_texts = false;  // PassageResult keeps the generated texts and answers
    // Reading a finished run back (read_generations): every chat answer comes from the cache
    // (or from the simulated provider, which recomputes it); a request the cache does not hold
    // fails its passage with llmv.cache.failed instead of being sent. Nothing is embedded and
    // no test is run.
    bool replay_only = false;

    SimulatedDgp simulated;  // used when provider == "simulated"
};

// The settings table's names of ValidationConfig's fields (llmvalidate/settings.hpp: get, set,
// check); `scale` 1000: a field in milliseconds of a setting in seconds.
template <typename Config, typename Visit>
void visit_config(Config& config, Visit&& visit) {
    visit("provider", config.provider);
    visit("dry_run", config.dry_run);
    visit("batch_api", config.batch_api);
    visit("wait", config.wait);
    visit("M", config.m);
    visit("n", config.n);
    visit("repeats", config.annotation_repeats);
    stats::visit_test_options(config.tests, visit);
    visit("paper_n", config.paper_n);
    visit("paper_b", config.paper_b);
    visit("backtranslate_all", config.backtranslate_all_labels);
    visit("concurrency", config.concurrency);
    visit("rpm", config.rpm);
    visit("tpm", config.tpm);
    visit("temperature", config.temperature);
    visit("structured_output", config.structured_output);
    visit("answer_format", config.answer_format);
    visit("top_p", config.top_p);
    visit("max_tokens", config.max_tokens);
    visit("reasoning_effort", config.reasoning_effort);
    visit("parse_retries", config.parse_retry_limit);
    visit("max_retries", config.max_transport_retries);
    visit("timeout", config.total_timeout_ms, 1000.0);
    visit("drain", config.drain_seconds);
    visit("poll_interval", config.poll_interval_seconds);
    visit("input_encoding", config.input_encoding);
    visit("max_passage_bytes", config.max_passage_bytes);
    visit("cache_busy_timeout_ms", config.cache_busy_timeout_ms);
    visit("follow_probability", config.simulated.follow_probability);
    visit("label_signal", config.simulated.label_signal);
    visit("annotator_accuracy", config.simulated.annotator_accuracy);
    visit("unparseable_probability", config.simulated.unparseable_probability);
    visit("words", config.simulated.words);
    visit("dgp_seed", config.simulated.seed);
}
template <typename Visit>
void visit_settings(ValidationConfig& config, Visit&& visit) {
    visit_config(config, visit);
}
template <typename Visit>
void visit_settings(const ValidationConfig& config, Visit&& visit) {
    visit_config(config, visit);
}

// The default of a setting of the table, as a user would type it ("0.05", "999", "exact"):
// its field's initial value (ValidationConfig, PowerConfig), else the table's words for it
// ("" for an optional one left unset).
std::string setting_default(const settings::Setting& setting);

// Checks every field (names the field, the value received and what is allowed); throws
// llmv::Error. Called by the functions below before any call is made.
void check_config(const ValidationConfig& config);

}  // namespace llmv::pipeline
