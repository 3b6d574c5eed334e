// A fake LLM / embedding provider on 127.0.0.1 for tests and benchmarks. It speaks the wire
// formats of OpenAI-compatible chat + embeddings, Anthropic Messages, Bedrock Converse + Titan
// embeddings (checking SigV4 signatures) and Ollama /api/embed. Answers come from the
// deterministic generator and embedder of the engine (llmv::SyntheticText, HashedEmbedder).
// Faults can be scripted per endpoint; every request is counted.
//
// Endpoint names used by counters and faults:
//   "openai.chat"        POST /v1/chat/completions (also /openai/deployments/{d}/chat/completions)
//   "openai.embeddings"  POST /v1/embeddings
//   "anthropic.messages" POST /v1/messages
//   "bedrock.converse"   POST /model/{modelId}/converse
//   "bedrock.invoke"     POST /model/{modelId}/invoke   (Titan text embeddings v2)
//   "ollama.embed"       POST /api/embed
//   "openai.files"       POST /v1/files (multipart upload), GET /v1/files/{id}/content
//   "openai.batches"     POST /v1/batches, GET /v1/batches/{id}, POST /v1/batches/{id}/cancel
//   "openai.batches"     also GET /v1/batches?limit=&after= (the list, newest first)
//   "anthropic.batches"  POST /v1/messages/batches, GET .../{id}, GET .../{id}/results,
//                        POST .../{id}/cancel; GET /v1/messages/batches?limit=&after_id=&before_id=
//                        (the list, newest first)
//   "openai.models"      GET /v1/models (without an anthropic-version header)
//   "anthropic.models"   GET /v1/models (with one)
//   "bedrock.models"     GET /foundation-models, GET /inference-profiles (control plane)
//   "*"                  (faults only) whichever endpoint comes next
//
// Models: the catalogue (options.catalogue) is what GET /v1/models and the Bedrock lists serve,
// each vendor the ids of its own shape. A chat or embedding request for a model listed in
// options.unavailable_models, or whose id contains "retired", is answered 404 in the vendor's
// words (as a vendor answers for a retired model); a forced tool sent to a model in
// options.forced_tool_refused_models is answered 400 in the vendor's words. Anthropic's
// output_config.format and Bedrock's outputConfig.textFormat (JSON-schema output) are answered
// with the JSON as the text; OpenAI requests with a reasoning_effort other than none report
// reasoning tokens (usage.completion_tokens_details.reasoning_tokens, 50 a call).
//
// Provider batches: a batch is answered when it is polled (GET) after `polls_in_progress`
// polls that said "in progress"; each line is answered as the synchronous endpoint would
// (and recorded in served() with its batch's id), unless the batch's script says otherwise
// (BatchScript: expired part-done, errored lines, cancelled from outside, a results file cut
// short). 429s on polling are ordinary faults of "openai.batches" / "anthropic.batches".
//
// Control endpoints (for the executable; not counted):
//   POST /_control/faults   {"endpoint": "openai.chat", "faults": [{"kind": "http_error",
//                            "status": 429, "retry_after": "1"}, {"kind": "none"}, ...]}
//   GET  /_control/counters {"total": n, "openai.chat": n, ...}
//   GET  /_control/served   [{"endpoint": ..., "request": body, "response": body}, ...]: every
//                            answer given without a fault, in order (prompts and what was served)
//   GET  /_control/batches  {"batches": [{"id", "lines"}...], "custom_ids": {id: times submitted}}
//   POST /_control/batch_polls {"polls": N}: every batch (those out too) ends after N in-progress polls
//   POST /_control/reset    counters and fault queues cleared
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace llmv::fake {

struct Fault {
    enum class Kind {
        none,               // answer normally (useful inside a scripted sequence)
        http_error,         // `status` with the provider's error body, Retry-After if set
        slow,               // answer normally after `delay_ms`
        drop_connection,    // close the socket without an answer
        truncated_body,     // a 200 whose JSON body is cut in half
        malformed_json,     // a 200 whose body is not JSON
        refusal,            // a 200 whose answer text is a refusal (OpenAI: message.refusal)
        label_outside_set,  // a 200 whose label answer is not in S
        prose,              // a 200 whose answer text is prose without JSON (OpenAI chat)
        empty_passages,     // a 200 whose simulation answer is {"passages": []} (OpenAI chat)
        wrong_dimension,    // a 200 whose first embedding has one dimension too many (OpenAI)
    };
    Kind kind = Kind::none;
    int status = 500;
    std::string retry_after;  // Retry-After header value ("2" or an HTTP date); empty: none
    int delay_ms = 0;
    std::string message;  // error message / refusal text; empty: a default

    static Fault http(int status, std::string retry_after = "") {
        Fault fault;
        fault.kind = Kind::http_error;
        fault.status = status;
        fault.retry_after = std::move(retry_after);
        return fault;
    }
    static Fault of(Kind kind) {
        Fault fault;
        fault.kind = kind;
        return fault;
    }
    static Fault slow(int delay_ms) {
        Fault fault;
        fault.kind = Kind::slow;
        fault.delay_ms = delay_ms;
        return fault;
    }
};

// Parses "http_error", "slow", ... (throws std::invalid_argument naming the allowed kinds).
Fault::Kind fault_kind_from_string(const std::string& name);
const char* to_string(Fault::Kind kind);

struct FakeServerOptions {
    int port = 0;        // 0: any free port (see FakeServer::port())
    int threads = 64;    // one per open keep-alive connection (cpp-httplib)
    int latency_ms = 0;  // added to every answer (benchmarks)
    // Credentials the server accepts. Empty api_key: OpenAI and Anthropic requests need no key
    // (like a local llama-server). AWS keys: SigV4 requests must be signed with these.
    std::string api_key = "test-key";
    std::string aws_access_key_id = "AKIDEXAMPLE";
    std::string aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    std::string bedrock_api_key = "bedrock-test-key";  // accepted as "Authorization: Bearer"
    // The label set S, for requests whose schema has no label enum (every simulation request,
    // and annotation requests without a schema): set it to the task's labels. A simulation
    // request writes for the label of S its prompt mentions first.
    std::vector<std::string> labels = {"Positive", "Neutral", "Negative"};
    double annotation_error_rate = 0.0;  // share of annotations given a wrong (in-S) label
    std::size_t embedding_dimensions = 64;
    // Refuse `encoding_format: "base64"` with a 400 naming the field, as an OpenAI-compatible
    // server without it may (the client then asks for numbers).
    bool refuse_base64 = false;
    // Simulation answers: passages of the length the prompt asks for ("around 25 words"), as a
    // model that follows the instruction would write (else 24 words each). Token estimates are
    // tested against it.
    bool follow_length = false;
    // With follow_length: the words a prompt's "around N tokens" asks for, per token. 1 reads
    // tokens as words; 0.75 is the vendors' rule of thumb (100 tokens, about 75 English words),
    // for benchmarks that compare prompts asking in words with prompts asking in tokens.
    double words_per_token = 1.0;
    // Answers to requests without a schema come wrapped in prose and a code fence, like a
    // chatty model's (the client must dig the JSON out). False: the bare JSON, as a model that
    // obeys "respond with only a JSON object" writes it (benchmarks that count its tokens).
    bool chatty = true;
    std::uint64_t seed = 0;
    // When set, one line per request is appended to this file: the endpoint, then each
    // credential header received (authorization, x-api-key, api-key) as name=value, tab
    // separated. Tests read it to prove which key reached which endpoint.
    std::string credential_log;
    // The vendors' model lists: ids starting with "claude-" are Anthropic's, ids with a '.'
    // Bedrock's ("us."/"global." ones are inference profiles), the others OpenAI's.
    std::vector<std::string> catalogue = {
        "fake-chat",          "fake-embedding",
        "gpt-6-luna",         "text-embedding-3-small",
        "claude-haiku-5-5",   "claude-sonnet-4-6",
        "claude-opus-4-8",    "anthropic.claude-sonnet-4-6",
        "global.anthropic.claude-sonnet-4-6", "meta.llama3-8b-instruct-v1:0",
        "amazon.titan-embed-text-v2:0"};
    std::vector<std::string> unavailable_models;
    // Adds to the catalogue, per vendor, a model retiring 30 days after the server's start and
    // one retired 30 days before it (fake_lifecycle.hpp). Every listed model carries the
    // vendors' lifecycle fields either way.
    bool lifecycle_models = false;
    // Models that refuse forced tool use with a 400 in the vendor's words (Anthropic:
    // invalid_request_error "tool_choice: type "tool" and "any" are not supported for this
    // model."; Bedrock: ValidationException "This model doesn't support the toolChoice field.
    // ..."), as Claude Sonnet 5.5 does; their other requests are answered.
    std::vector<std::string> forced_tool_refused_models;
    // Provider batches. Polls answered "in progress" before a batch ends, unless its
    // BatchScript says otherwise (a delay for interrupt tests).
    int batch_polls_in_progress = 1;
    // The first GET of every output/error file (OpenAI) and results stream (Anthropic) stops
    // mid-line (a 200 with the text cut short, as a dropped download reads); later GETs are whole.
    bool truncate_first_downloads = false;
    // The vendors' caps on one batch (0: the vendor's documented one: OpenAI 50,000 requests,
    // 50,000 embedding inputs, 200 MB; Anthropic 100,000 requests, 256 MB). A batch over a cap
    // is refused as the vendor would: OpenAI's ends "failed", Anthropic's create is a 400/413.
    std::size_t batch_max_requests = 0;
    std::size_t batch_max_embedding_inputs = 0;
    std::size_t batch_max_bytes = 0;
};

// How the next provider batch created behaves; scripts are consumed one per batch, in order.
struct BatchScript {
    enum class Kind {
        complete,           // every line answered
        expire_part,        // the batch expires with the first `done_share` of its lines answered
        errored_lines,      // every `every`-th line (1st, 1+every-th, ...) errors (HTTP 500)
        cancelled,          // cancelled from outside (the console) with `done_share` answered
        truncated_results,  // complete, but the output file / results stream is cut mid-line
    };
    Kind kind = Kind::complete;
    int polls_in_progress = 1;  // polls answered "in progress" before the batch ends
    std::size_t every = 3;
    double done_share = 0.5;
};

// What the server saw, for assertions on headers and bodies.
struct RecordedRequest {
    std::string endpoint;
    std::string method;
    std::string path;                            // as received, with the query string
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
};

// An answer the server gave (without a fault): the request and response bodies as sent.
struct ServedAnswer {
    std::string endpoint;
    std::string batch_id;  // the provider batch whose line this was; empty: a synchronous call
    std::string request_body;
    std::string response_body;
};

class FakeServer {
  public:
    explicit FakeServer(FakeServerOptions options = {});
    ~FakeServer();  // stops
    FakeServer(const FakeServer&) = delete;
    FakeServer& operator=(const FakeServer&) = delete;

    void start();  // binds 127.0.0.1, returns once the server accepts connections
    void stop();
    int port() const;
    std::string base_url() const;  // "http://127.0.0.1:<port>"

    // Faults for the next requests to `endpoint` (or "*"), consumed one per request in order.
    void push_faults(const std::string& endpoint, const std::vector<Fault>& faults);
    void clear_faults();

    std::size_t count(const std::string& endpoint) const;  // requests received on endpoint
    std::size_t total_count() const;
    std::map<std::string, std::size_t> counts() const;
    void reset_counters();
    // The last `max` requests received (oldest first).
    std::vector<RecordedRequest> recorded(std::size_t max = 100) const;
    // Every answer served without a fault since the start or the last reset_counters().
    std::vector<ServedAnswer> served() const;

    const FakeServerOptions& options() const;

    void push_batch_scripts(const std::vector<BatchScript>& scripts);
    // From now on every batch (those already created too) ends after `polls` in-progress polls.
    void set_batch_polls_in_progress(int polls);
    // Batches created so far (ids, in order of creation) and how many lines each had.
    std::vector<std::pair<std::string, std::size_t>> batches() const;
    // How many times each custom id was submitted in a batch the server accepted (created):
    // a value above 1 is a request paid twice.
    std::map<std::string, std::size_t> submitted_custom_ids() const;
    // Embedding inputs of each embeddings batch created (OpenAI), in order of creation.
    std::vector<std::size_t> embedding_batch_inputs() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace llmv::fake
