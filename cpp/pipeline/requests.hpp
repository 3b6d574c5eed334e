// Requests and answers (private to cpp/pipeline/): the chat request of one draw and its cache
// key, an embedding's cache key, and what an answer says. The run (scheduler.cpp) and the dry
// run (dry_run.cpp) build both through RequestKeys, so that they agree on what is cached.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "llmvalidate/cache.hpp"
#include "core/http.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llm/provider.hpp"
#include "pipeline/providers.hpp"

namespace llmv::pipeline {

// What a chat call asks for: the label of y, a pool's texts, the label of a pool's text.
enum class Kind { annotate, simulate, backtranslate };
const char* kind_name(Kind kind);  // "annotation", "simulation", "backtranslation"

std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b);

// The chat request of one draw (a per-draw API seed, the JSON schema of the answer) and its
// cache key.
ChatRequest chat_request_for(const ValidationConfig& config, const std::string& model,
                             const std::vector<std::string>& labels, bool simulate,
                             const std::string& prompt, int position, int count, int attempt);
CacheKey chat_key_for(const std::string& provider, const std::string& endpoint,
                      const ChatRequest& request, int position, int attempt);
// The cache key of one text's embedding.
CacheKey embedding_key_for(const std::string& provider, const std::string& endpoint,
                           const std::string& model, const std::string& text);

// The requests and cache keys of one run, from its providers (open_providers()).
class RequestKeys {
  public:
    RequestKeys(const ValidationConfig& config, const RunProviders& providers,
                std::vector<std::string> labels);
    ChatRequest chat_request(bool simulate, const std::string& prompt, int position, int count,
                             int attempt) const;
    // The simulated provider's keys also hold its DGP's parameters.
    CacheKey chat_key(const ChatRequest& request, int position, int attempt) const;
    CacheKey embedding_key(const std::string& text) const;

  private:
    const ValidationConfig& config_;
    std::vector<std::string> labels_;
    std::string chat_provider_;
    std::string chat_model_;
    std::string chat_endpoint_;
    std::string embedding_provider_;
    std::string embedding_model_;
    std::string embedding_endpoint_;
    std::string reasoning_effort_;  // what the model's requests carry (model_rules.hpp)
    bool synthetic_chat_ = false;
    nlohmann::json dgp_;
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
// `count`: the passages a simulation call asked for.
ParsedAnswer parse_answer(Kind kind, int count, const std::string& text, bool refused,
                          const std::vector<std::string>& labels);
// The status an answer is cached with.
const char* cache_status_of(const ParsedAnswer& parsed, bool refused);

// A failed call's message: the transport's, with the provider's reading of the body ("HTTP
// 404 type: message") in place of the transport's raw copy of it, so that the body is not
// shown twice.
std::string failure_message(const std::string& transport_message, const HttpResponse& response,
                            const ChatProvider& provider);

// Every provider answers JSON: a cut or malformed 2xx body is retried by the transport, with
// its backoff and in its retry budget, like a 5xx.
bool is_json_body(const HttpResponse& response);

}  // namespace llmv::pipeline
