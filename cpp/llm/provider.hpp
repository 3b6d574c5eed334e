// Chat and embedding providers: they turn a request into an HttpRequest and an HttpResponse
// into a result. They never open a socket (cpp/transport/ does that) and never sleep or
// retry (the pipeline does that, guided by the hints in ProviderError).
//
// One file per provider in cpp/llm/, one line per provider in cpp/llm/registry.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/http.hpp"
#include "llmvalidate/provider_config.hpp"
#include "llm/embedding_limits.hpp"

namespace llmv {

// The classification of a failed call. `code` is one of llmv::code::provider_* (or transport /
// timeout for status 0), so the bindings can map it; `message` is the provider's own message,
// already redacted.
struct ProviderError {
    std::string code;
    std::string message;
    std::string provider_type;  // the provider's own error type, e.g. "overloaded_error"
    long http_status = 0;
    bool retryable = false;  // 429, 408, 5xx, 529, transport failures, malformed bodies
    // From Retry-After (seconds or HTTP date), retry-after-ms, or the provider's rate-limit
    // reset headers; unset when the response gave no hint.
    std::optional<double> retry_after_seconds;
};

// ---------------------------------------------------------------------------------------------
// Chat.

struct ChatMessage {
    std::string role;  // "user" or "assistant" ("system" goes in ChatRequest::system)
    std::string content;
};

struct ChatRequest {
    std::string model;
    std::string system;                 // optional system prompt
    std::vector<ChatMessage> messages;  // the conversation; see user_prompt()
    double temperature = 1.0;           // the paper's setting
    std::optional<double> top_p;
    std::optional<int>
        max_tokens;  // unset: the provider default (anthropic/bedrock need one: 4096)
    std::optional<std::int64_t> seed;  // sent where the API has one (openai); ignored elsewhere
    // A JSON Schema (JSON text) for structured output; empty: free text. `schema_name`
    // names it where the API wants a name (OpenAI json_schema.name, the tool name).
    std::string json_schema;
    std::string schema_name = "answer";
    // How the schema is asked for: "" (the model's first mode, model_rules.hpp), or the mode a
    // run switched to after the model refused the first: "json_schema" (the API's JSON-schema
    // output) or "prompt" (the schema in the system prompt).
    std::string structured_mode;
    // Sent where the model takes an effort (OpenAI reasoning_effort, Anthropic
    // output_config.effort); "": none.
    std::string reasoning_effort;
    // False after the model refused a temperature: none is sent (its own sampling).
    bool send_temperature = true;
    // How many leading characters of the first message are shared by many requests of a run
    // (a simulation prompt sent for every call of a pool, the annotation template before the
    // text a backtranslation quotes). Providers with explicit prompt caching mark it (Anthropic:
    // cache_control on a first content block holding it); 0: none. Not in canonical_json(): it
    // changes how the request is billed, not what the model reads, so the cache keys stay.
    std::size_t cache_prefix = 0;
    // Not part of the wire request: the draw index lives in the cache key only.

    // Convenience: a one-message request.
    static ChatRequest user_prompt(std::string model, std::string prompt);
    // Every field above in one canonical JSON text (sorted keys), for cache keys.
    std::string canonical_json() const;
};

struct ChatResult {
    bool ok = false;
    std::string text;  // the answer (for tool-based structured output: the tool input as JSON)
    std::string
        finish_reason;     // the provider's own word: "stop", "end_turn", "length", "refusal", ...
    bool refused = false;  // the model declined (OpenAI `refusal`, Anthropic stop_reason "refusal")
    std::string model;     // the model the provider says answered
    std::int64_t input_tokens = 0;  // every input token, those read from the prompt cache included
    std::int64_t cached_input_tokens = 0;  // of them, read from the provider's prompt cache
    std::int64_t cache_write_input_tokens = 0;  // of them, written to it (Anthropic: 1.25x input)
    std::int64_t output_tokens = 0;
    std::int64_t reasoning_tokens = 0;  // of output_tokens, the model's reasoning (thinking)
    ProviderError error;  // meaningful when !ok
};

// What a 400 refused: nothing known (an ordinary bad request), a feature of the request the
// model does not take, or the model itself (an id the vendor no longer serves).
enum class RefusedFeature {
    none,
    forced_tool,   // tool_choice / toolChoice
    json_schema,   // response_format, output_config.format, outputConfig.textFormat
    temperature,
    top_p,
    reasoning_effort,  // reasoning_effort, output_config.effort, thinking
    model,             // the model id is invalid or past its end of life
};
const char* refused_feature_name(RefusedFeature feature);

class ChatProvider {
  public:
    virtual ~ChatProvider() = default;
    virtual std::string name() const = 0;  // the registry name, e.g. "openai"
    // Printable: name, base URL, region, auth scheme; never a credential.
    virtual std::string description() const = 0;
    // Identifies the endpoint for cache keys: name + base URL (+ region), no credential.
    virtual std::string endpoint_identity() const = 0;
    // Throws llmv::Error(code::invalid_argument / provider_config) for a request the
    // provider cannot express (e.g. empty model).
    virtual HttpRequest build_request(const ChatRequest& request) const = 0;
    // Never throws for a bad response: returns !ok with a classified error.
    virtual ChatResult parse_response(const HttpResponse& response) const = 0;
    // The error classifier: what a refused request (HTTP 400) says in the vendor's words, read
    // by the vendor's own provider. The run falls back once for a refused feature and stops at
    // a model the vendor does not serve.
    virtual RefusedFeature refused_feature(const HttpResponse& response) const;

    // Providers that answer without the network (the `simulated` provider) return true and
    // implement respond_locally(); the pipeline then skips the transport.
    virtual bool is_local() const { return false; }
    virtual HttpResponse respond_locally(const HttpRequest& request) const;
};

// ---------------------------------------------------------------------------------------------
// Embeddings.

struct EmbeddingRequest {
    std::string model;
    std::vector<std::string> inputs;  // at most max_batch_size() per request
    std::optional<int> dimensions;    // where the API lets one choose
    bool normalize =
        true;  // bedrock-titan's `normalize`; vectors are L2-normalised anyway by the pipeline

    std::string canonical_json() const;
};

struct EmbeddingResult {
    bool ok = false;
    std::vector<std::vector<double>> vectors;  // one per input, in input order
    std::int64_t input_tokens = 0;
    std::string model;
    ProviderError error;
};

class EmbeddingProvider {
  public:
    virtual ~EmbeddingProvider() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual std::string endpoint_identity() const = 0;
    virtual std::size_t max_batch_size() const = 0;
    // What one request may carry, as the vendor declares it: texts, estimated tokens summed and
    // per text (embedding_limits.hpp). The pipeline packs requests and batch-file lines within
    // them and refuses a text over a per-text cap before any paid call of its passage.
    virtual EmbeddingLimits limits() const {
        EmbeddingLimits limits;
        limits.max_inputs = max_batch_size();
        return limits;
    }
    virtual HttpRequest build_request(const EmbeddingRequest& request) const = 0;
    // `n_inputs`: how many vectors the request asked for (a short answer is an error).
    virtual EmbeddingResult parse_response(const HttpResponse& response,
                                           std::size_t n_inputs) const = 0;

    virtual bool is_local() const { return false; }
    virtual HttpResponse respond_locally(const HttpRequest& request) const;
};

// ---------------------------------------------------------------------------------------------
// The registry. Built-in providers are one line each in cpp/llm/registry.cpp; code outside
// cpp/llm/ (e.g. the simulated provider, tests) may add more at run time.

using ChatProviderFactory = std::function<std::unique_ptr<ChatProvider>(const ProviderConfig&)>;
using EmbeddingProviderFactory =
    std::function<std::unique_ptr<EmbeddingProvider>(const ProviderConfig&)>;

// Throws llmv::Error(code::invalid_argument) naming the value and the known providers.
std::unique_ptr<ChatProvider> make_chat_provider(const std::string& name,
                                                 const ProviderConfig& config = {});
std::unique_ptr<EmbeddingProvider> make_embedding_provider(const std::string& name,
                                                           const ProviderConfig& config = {});
std::vector<std::string> chat_provider_names();
std::vector<std::string> embedding_provider_names();
// Adds or replaces a provider (thread-safe).
void register_chat_provider(const std::string& name, ChatProviderFactory factory);
void register_embedding_provider(const std::string& name, EmbeddingProviderFactory factory);

// ---------------------------------------------------------------------------------------------
// Helpers every provider uses; public so that the transport and the pipeline agree.

// Classifies a non-2xx (or status 0) response: code, retryable, retry_after_seconds (the
// wait server_requested_wait() of core/http_status.hpp reads). The message and provider_type
// are filled by the provider from its own error body.
ProviderError classify_http_failure(const HttpResponse& response);

}  // namespace llmv
