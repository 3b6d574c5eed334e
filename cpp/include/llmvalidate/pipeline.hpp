// The validation pipeline: passages in, one verdict per passage out, with every number behind
// it, at the lowest possible number of paid calls (../shared/METHOD.md, "A validation of one
// passage costs ...").
//
// This is the API that the CLI, the R package and the Stata plugin call. It is binding
// friendly on purpose: plain structs, std::function callbacks, a cancellation flag, and no
// exception for a passage that fails (its PassageResult carries the error code and message).
// Only a bad configuration (an unknown provider, M < 1, a task file that does not load) throws
// llmv::Error, before any call is made.
//
// How a batch runs. A batch is one stream of requests, not a loop over passages. Each passage
// is a small dependency graph:
//
//   annotate y (R draws)  ->  simulate the pools of the labels the tests need (β̂ first)
//                         ->  annotate the β̂ pool (backtranslation), embed y and the pools
//                         ->  stats::run_tests  ->  verdict
//
// and every ready request of every passage in flight is handed to the transport, which keeps
// up to `concurrency` of them on the wire. Passages are admitted from the input as capacity
// frees up, so memory does not grow with the number of rows when results are streamed
// (BatchCallbacks::on_passage, keep_results = false).
//
// Draw indices. The j-th draw of a pool is its own cached request: the cache key
// (llmvalidate/cache.hpp) holds the provider, endpoint, model, every generation parameter,
// the full prompt, a draw index and an attempt number:
//   annotation of y          draw index r = 0..R-1
//   simulation of a pool     draw index c = 0..⌈M/n⌉-1 (the c-th call of that label's pool)
//   backtranslation          draw index j = the position of the text in its pool
// (the prompts of the three kinds differ, so their indices never collide), so a re-run with
// the same cache makes zero calls, and two draws within a run are never the same cached
// response. An answer that cannot be parsed, or whose label is outside S, is cached and
// counted like any other answer, then redrawn with the same draw index and attempt
// a = 1..parse_retry_limit (the attempt number is the retry namespace): a re-run replays the
// same failures and the same retries from the cache, reproduces every number and still
// makes zero calls. Embeddings are cached per text (no draw index: they are deterministic).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "llmvalidate/accounting.hpp"
#include "llmvalidate/pricing.hpp"
#include "llmvalidate/stats.hpp"

namespace llmv::pipeline {

// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
// Configuration of one validation (or one batch: every passage shares it). The defaults below
// are the only place they are written; llmvalidate/settings.hpp names, ranges and documents
// every setting (and says how to add one).
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
    int concurrency = 16;    // requests in flight
    double rpm = 0;          // requests per minute; 0: unlimited
    double tpm = 0;          // tokens per minute; 0: unlimited
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
    int parse_retry_limit = 3;  // redraws of an unparseable / out-of-set answer
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
    bool dry_run = false;  // count the calls and tokens, make none
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

// ---------------------------------------------------------------------------------------------
struct PassageInput {
    std::string id;
    std::string text;
    std::string human_label;  // empty: none
    std::map<std::string, std::string> variables;  // user placeholders for this passage
    // A simulation template written for this passage (prompts/passages/*.toml, Section 4);
    // empty: the task's.
    std::string simulation_template;
    // A row of the input that could not be read (a ragged CSV row, a malformed JSON line, a
    // text that is not a string): why, with its line. Such a passage fails alone, with this
    // message and code (default llmv.input.invalid_argument), before any request.
    std::string input_error = {};
    std::string input_error_code = {};
};

// Requests and texts of one passage (or of a whole batch / dry run).
struct CallCounts {
    std::int64_t chat_calls = 0;             // answered by the provider (cache misses)
    std::int64_t annotation_calls = 0;       // of y (R per passage)
    std::int64_t simulation_calls = 0;       // K·⌈M/n⌉ per passage (+ paper reference draws)
    std::int64_t backtranslation_calls = 0;  // M per passage (K·M with backtranslate_all)
    std::int64_t embedding_requests = 0;
    std::int64_t embedded_texts = 0;         // K·M + 1 per passage
    std::int64_t cache_hits = 0;             // chat + embedding requests answered by the cache
    std::int64_t shared = 0;                 // identical requests of other passages reused
    std::int64_t transport_retries = 0;      // 429/5xx/transport failures retried
    std::int64_t parse_retries = 0;          // redraws after unparseable / out-of-set answers
    std::int64_t unparseable = 0;            // answers that were not valid JSON / not n texts
    std::int64_t out_of_set = 0;             // labels outside S
    std::int64_t input_tokens = 0;
    std::int64_t output_tokens = 0;
};

struct PassageResult {
    std::size_t index = 0;  // position in the input, 0-based
    std::string id;
    bool ok = false;          // false: error_code / error_message say why; no verdict
    std::string error_code;   // llmv::code::*
    std::string error_message;

    std::string label;                     // β̂
    std::vector<std::string> annotations;  // the R answers (normalised), in draw order
    double annotation_stability = 0;       // modal count / R
    std::string human_label;
    stats::TestOutput tests;  // every statistic, critical value, p-value, pass/fail
    stats::Verdict verdict = stats::Verdict::inconclusive;
    std::string verdict_name;  // "valid" | "invalid" | "inconclusive" | "error"

    // Provenance: everything needed to reproduce the numbers.
    std::vector<std::string> label_set;
    std::string task_name;
    std::string provider, model, embedding_provider, embedding_model;
    bool synthetic = false;  // true: the simulated provider, not an LLM
    std::map<std::string, std::string> prompt_hashes;  // "annotation", "simulation:<label>"
    int m = 0, n = 0, repeats = 0;
    double alpha = 0, threshold = 0;
    int permutations = 0;  // R of the permutation test (B of the paper's: paper_reference)
    std::string validation_method, separation_method, backtranslation_rule;
    std::uint64_t seed = 0;
    CallCounts calls;

    // With keep_texts: the passage, label -> generated texts, label -> backtranslation answers.
    std::string passage_text;
    std::map<std::string, std::vector<std::string>> pool_texts;
    std::map<std::string, std::vector<std::string>> backtranslation_answers;
};

struct Progress {
    std::int64_t calls_total = 0;  // chat + embedding requests the batch needs (so far known)
    std::int64_t calls_done = 0;
    std::int64_t cache_hits = 0;
    std::int64_t retries = 0;  // transport + parse retries
    std::int64_t input_tokens = 0;
    std::int64_t output_tokens = 0;
    std::size_t passages_total = 0;  // 0 while a streamed input is still being read
    std::size_t passages_done = 0;
    std::size_t passages_failed = 0;
    double elapsed_seconds = 0;
    double eta_seconds = -1;  // -1: unknown yet
};

// A warning of a run, typed so that each front end can show it in its own way.
struct RunWarning {
    // "model_retiring": before the first call, a model retiring within 60 days, with the date
    // and the vendor's replacement (the dry run's are in DryRunReport::warnings).
    // "fallback": the model refused a feature and the run switched once
    // (BatchResult::setting_changes; the text is also in BatchResult::warnings).
    // "cannot_decide": before the first call, a test that cannot reach its decision at this
    // alpha and size (size_warnings()): every verdict of the run will be "inconclusive".
    std::string kind;
    std::string text;
};

struct BatchCallbacks {
    // Called from the calling thread, at most every `progress_interval_seconds` and once at the end.
    std::function<void(const Progress&)> on_progress;
    double progress_interval_seconds = 0.2;
    // Each passage as soon as it is finished (completion order, see PassageResult::index).
    std::function<void(const PassageResult&)> on_passage;
    // A warning, from the calling thread, when it arises; every front end shows it as its
    // warnings (R: a condition of class llmvalidate_warning_<kind>).
    std::function<void(const RunWarning&)> on_warning;
    // Set to true from any thread (R interrupt, Stata Break, SIGINT): requests in flight are
    // abandoned, nothing half-written reaches the cache, unfinished passages are reported with
    // error_code llmv.cancelled, and a re-run resumes from the cache with zero repeated calls.
    std::atomic<bool>* cancel = nullptr;
};

// What a run would cost. Exact call and text counts; tokens are estimated (characters / 4 of
// every prompt, and max_tokens or a per-answer estimate for the output).
struct DryRunReport {
    std::size_t passages = 0;
    std::string providers;  // ResolvedProviders::description(): what the run would call
    CallCounts calls;                    // what the run would make, before the cache
    std::int64_t cached_calls = 0;       // of which the cache already holds (would not be made)
    // Embedded texts the cache already holds, and texts embedded once for several passages.
    std::int64_t cached_embedded_texts = 0;
    std::int64_t shared_embedded_texts = 0;
    // What would be sent: chat calls (before parse retries of new answers, which depend on
    // them) and texts to embed. calls.chat_calls - cached_calls - calls.shared, and so on.
    // Exact where every passage's annotation is cached; otherwise an upper bound (a passage
    // may share its backtranslation with another once its label is known).
    std::int64_t chat_calls_to_make = 0;
    std::int64_t texts_to_embed = 0;
    std::int64_t estimated_input_tokens = 0;
    std::int64_t estimated_output_tokens = 0;
    // Of them, a reasoning model's reasoning tokens (an assumption per effort level,
    // docs/providers.md); 0 for a model that does not reason.
    std::int64_t estimated_reasoning_tokens = 0;
    std::int64_t estimated_embedding_tokens = 0;  // of every text embedded, made or cached
    // The price of the calls and texts still to be made (the estimated tokens in the share not
    // cached nor shared), synchronously and with the batch API, at the price table's prices.
    CostEstimate cost;
    // Calls whose count depends on answers not yet known (β̂ decides which pool is
    // backtranslated): the counts above assume each passage's R annotations are made.
    std::string note;
    // size_warnings(config): tests that cannot decide at this α and size.
    std::vector<std::string> warnings;
};

struct BatchSummary {
    stats::PassageSummary summary;  // Table 9 (and Table 10 when human labels are given)
    std::vector<std::string> ids;   // passages with a verdict, in input order
    std::vector<double> p_values;   // validation p-values, input order
    std::vector<double> p_bh;       // Benjamini-Hochberg adjusted
    std::size_t n_passages = 0;
    std::size_t n_failed = 0;
    std::size_t n_valid = 0, n_invalid = 0, n_inconclusive = 0;
};

// A setting the run changed on its way, after the model refused what it asked for: the
// setting's engine name, its value before and after, and why.
struct SettingChange {
    std::string setting;
    std::string from;
    std::string to;
    std::string reason;
};

struct BatchResult {
    std::vector<PassageResult> passages;  // input order; empty when keep_results = false
    BatchSummary summary;
    CallCounts calls;   // totals
    Progress progress;  // final
    bool cancelled = false;
    bool synthetic = false;
    // Answers the cache could not take (another process held its file's lock through every
    // retry, or its disk failed) are written to this JSON-lines side file instead;
    // `llmvalidate cache --import` (R: llm_cache_import()) adds them to a cache. Empty when
    // every answer reached the cache.
    std::string unwritten_file;
    std::size_t unwritten_answers = 0;
    // Why, in words: "locked by another process (...)", "disk full (...)", "read-only (...)".
    std::string unwritten_reason = {};
    // A write failed for a reason other than a lock: no new request was sent after it, and the
    // passages not finished then failed with llmv.cache.failed. A re-run after the import
    // pays only for what is missing.
    bool cache_stopped = false;
    // Tokens per model as the providers reported them (cache hits cost nothing), and what they
    // cost at the price table's prices (synchronous APIs).
    std::map<std::string, ModelUsage> usage;
    CostEstimate cost;
    // The settings the run used differ from those it was given where the model refused one
    // (each switch once, with its warning in `warnings`).
    std::vector<SettingChange> setting_changes = {};
    std::vector<std::string> warnings = {};
};

// Pulls the next passage into `out`; returns false at the end of the input. Lets a batch read
// a 20,000-row file without holding it.
using PassageSource = std::function<bool(PassageInput& out)>;

// Checks every field (names the field, the value received and what is allowed); throws
// llmv::Error. Called by the functions below before any call is made.
void check_config(const ValidationConfig& config);

// Every passage needs text to annotate: an empty or white-space-only passage is refused with
// llmv.input.invalid_argument, naming the passage (its id and position) and the value
// received. validate_batch(), dry_run() and read_generations() check every passage with it
// before any call, so one blank row stops the run before anything is paid for; a streamed
// batch (validate_stream) and validate_passage() fail such a row alone, with no call. The CLI, R and Stata reach it
// through these functions.
void check_passage_text(const PassageInput& passage, std::size_t index);

// One passage. Never throws for a failed passage (see PassageResult::ok).
PassageResult validate_passage(const ValidationConfig& config, const PassageInput& passage,
                               const BatchCallbacks& callbacks = {});

// Many passages, one stream of requests.
BatchResult validate_batch(const ValidationConfig& config, const std::vector<PassageInput>& passages,
                           const BatchCallbacks& callbacks = {}, bool keep_results = true);
BatchResult validate_stream(const ValidationConfig& config, const PassageSource& source,
                            const BatchCallbacks& callbacks = {}, bool keep_results = false);

// ---------------------------------------------------------------------------------------------
// Batch-API runs (pipeline/batch_run.cpp): the same validation through the providers' batch
// APIs (OpenAI chat completions and embeddings, Anthropic messages) at their batch prices. A
// run is a sequence of provider batches, one per phase of the pipeline (annotation,
// simulation, backtranslation with the embeddings), each covering every passage. Each batch's
// id goes into the cache file as soon as the provider gives it, and its answers into the cache
// under the synchronous requests' keys: the same command resumes a stopped run without
// submitting any request twice, and a later synchronous run reads everything free.
struct BatchApiOptions {
    // (The poll interval is a setting: ValidationConfig::poll_interval_seconds.)
    // Submit the next phase's batches (or poll those already submitted, once) and return:
    // BatchApiReport::waiting says a batch is still out; run again to continue.
    bool submit_only = false;
    // Requests that failed inside a batch (errored, expired, cancelled lines, lines missing from
    // a results file cut short) and redraws of unusable answers are sent in the next phase's
    // batch, or synchronously when no first request is waiting and at most this many remain.
    int sync_retry_max = 10;
    // Each provider batch stays within the vendor's documented caps (OpenAI: 50,000 requests,
    // 50,000 embedding inputs, 200 MB; Anthropic: 100,000 requests, 256 MB; see
    // llm/provider_batch.hpp); a run that needs more submits several. Smaller caps (0: the
    // vendor's) split a small run the same way, for tests.
    std::size_t max_requests_per_batch = 0;
    std::size_t max_embedding_inputs_per_batch = 0;
    std::size_t max_bytes_per_batch = 0;
    std::function<void(const std::string&)> on_status;  // one line per phase and state
};

struct BatchApiReport {
    bool waiting = false;  // submit_only: a batch is still in progress; no result yet
    std::vector<std::string> submitted;  // provider batch ids submitted by this call
    std::int64_t batch_requests = 0;     // chat requests and embedding requests sent in batches
    std::int64_t synchronous_requests = 0;  // retries sent synchronously
    int phases = 0;                          // passes over the passages
};

// Needs a cache file and a chat provider with a batch API (openai, anthropic; Bedrock's needs
// S3 and is not supported): llmv.input.invalid_argument otherwise. Embeddings go through the
// OpenAI batch API when the embedding provider is openai, else synchronously.
BatchResult validate_with_batch_api(const ValidationConfig& config,
                                    const std::vector<PassageInput>& passages,
                                    const BatchCallbacks& callbacks, const BatchApiOptions& options,
                                    BatchApiReport* report = nullptr, bool keep_results = true);

// The exact number of calls and texts, and estimated tokens; makes no call.
DryRunReport dry_run(const ValidationConfig& config, const std::vector<PassageInput>& passages);

// ---------------------------------------------------------------------------------------------
// The audit trail: what the model wrote and answered for each passage, as rows.
struct GenerationRow {
    std::size_t index = 0;  // the passage's position in the input, 0-based
    std::string passage_id;
    std::string kind;   // "annotation" (of the passage y) or "simulation" (a text of a pool)
    std::string label;  // simulation: the label the text was written for; annotation: ""
    int draw = 0;       // annotation: r = 0..R-1; simulation: the text's position j in its pool
                        // (j >= M: a reference text of the paper methods)
    std::string text;   // simulation: the generated text; annotation: the passage
    // annotation: the label read from the answer ("" when no answer gave a label of S);
    // simulation: the backtranslated label ("" when the pool was not backtranslated).
    std::string answer;
    std::string model;
    std::string prompt_hash;  // of the annotation prompt / of the label's simulation prompt
};

// The rows of one passage that ran with keep_texts (annotations, then the pools in the order
// of S, each in draw order). A failed passage gives the rows it has.
std::vector<GenerationRow> generation_rows(const PassageResult& result);

// The rows as CSV (RFC 4180): the header, and one line per row (no newline), with the passage's
// index and the draw counted from 1. The CLI's --save-generations and Stata's saving() write it.
std::string generations_csv_header();
std::string generation_csv_line(const GenerationRow& row);
// One CSV line of the fields, quoted where needed (no newline).
std::string csv_line(const std::vector<std::string>& fields);

struct Generations {
    std::vector<GenerationRow> rows;    // input order
    std::vector<PassageResult> failed;  // passages the cache cannot serve (error_code/message)
    bool synthetic = false;             // the simulated provider recomputed the answers
};

// Reads back what a run with the same configuration and passages received, from its cache:
// makes no call (replay_only). Throws llmv::Error for a bad configuration, or when a real
// provider is configured without a cache file (there is then nothing to read).
Generations read_generations(const ValidationConfig& config, const std::vector<PassageInput>& passages);

// One sentence per test of this configuration that cannot reach its decision at its α with
// its size (M, R or B below stats::smallest_deciding_size(α)), so that every verdict would be
// "inconclusive"; empty when all can. The dry run carries them and every front end shows them
// before power runs (METHOD.md, "Verdict").
std::vector<std::string> size_warnings(const ValidationConfig& config);

// A run that would pay for answers and keep none (no cache): the warning every front end shows
// before the first call; empty when there is a cache or nothing is paid (simulated provider,
// local embedder).
std::string cache_warning(const ValidationConfig& config);

// The per-passage cost formula of METHOD.md, for the given configuration and label-set size K:
// R + K·⌈M/n⌉ + M chat calls (paper methods add their reference draws), K·M + 1 texts.
CallCounts expected_calls_per_passage(const ValidationConfig& config, int label_count);
// Of the K labels, how many draw B reference texts besides their pool: β̂ for the paper's
// validation test, the K - 1 others for the paper's separation test.
int per_passage_reference_labels(const ValidationConfig& config, int label_count);

// Summaries over finished passages (Table 9/10, BH). Failed passages are counted, not summarised.
BatchSummary summarize(const std::vector<PassageResult>& results,
                       const std::vector<std::string>& label_set);

// ---------------------------------------------------------------------------------------------
// Power analysis with the simulated provider (`llmvalidate power`): in each replication, y is
// one generated text of `true_label` (so β̂ is valid exactly when the annotator returns
// true_label), the pipeline runs as usual, and every outcome is tallied.
struct PowerConfig {
    PowerConfig() { validation.provider = "simulated"; }
    ValidationConfig validation;  // provider must be "simulated"
    std::string true_label;       // empty: the first label of S
    int replications = 200;
};

struct PowerResult {
    int replications = 0;
    double share_annotation_correct = 0;  // β̂ == true_label
    double share_validation_not_rejected = 0;
    double share_backtranslation_pass = 0;
    double share_separation_all_pass = 0;
    double share_valid = 0, share_invalid = 0, share_inconclusive = 0;
    // Among replications whose β̂ is correct / wrong.
    double share_valid_given_correct = 0;
    double share_invalid_given_wrong = 0;
    int n_correct = 0, n_wrong = 0;
    double monte_carlo_se = 0;  // of share_valid
};

PowerResult estimate_power(const PowerConfig& config, const BatchCallbacks& callbacks = {});

}  // namespace llmv::pipeline
