// Requests, cache keys and answer parsing (requests.hpp).
#include "pipeline/requests.hpp"

#include <cmath>

#include "llm/model_rules.hpp"
#include "llm/structured_output.hpp"
#include "llmvalidate/text.hpp"

namespace llmv::pipeline {

const char* kind_name(Kind kind) {
    switch (kind) {
        case Kind::annotate:
            return "annotation";
        case Kind::simulate:
            return "simulation";
        case Kind::backtranslate:
            return "backtranslation";
    }
    return "?";
}

std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
    std::uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

ChatRequest chat_request_for(const ValidationConfig& config, const std::string& model,
                             const std::vector<std::string>& labels, bool simulate,
                             const std::string& prompt, int position, int count, int attempt) {
    ChatRequest request = ChatRequest::user_prompt(model, prompt);
    request.temperature = config.temperature;
    request.top_p = config.top_p;
    request.max_tokens = config.max_tokens;
    // A seed per draw where the API takes one: draws differ, a draw is reproducible.
    request.seed = static_cast<std::int64_t>(
        mix_seed(stable_hash(prompt), (static_cast<std::uint64_t>(position) << 20) +
                                          static_cast<std::uint64_t>(attempt)) &
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
    key.endpoint = text::without_url_credentials(endpoint);  // stored in the cache file
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
    key.endpoint = text::without_url_credentials(endpoint);  // stored in the cache file
    key.model = model;
    key.parameters = nlohmann::json::object({{"kind", "embedding"}});
    key.prompt = text;
    return key;
}

RequestKeys::RequestKeys(const ValidationConfig& config, const RunProviders& providers,
                         std::vector<std::string> labels)
    : config_(config),
      labels_(std::move(labels)),
      chat_provider_(providers.resolved.chat_provider),
      chat_model_(providers.resolved.chat_model),
      chat_endpoint_(providers.chat_endpoint),
      embedding_provider_(providers.resolved.embedding_provider),
      embedding_model_(providers.resolved.embedding_model),
      embedding_endpoint_(providers.embedding_endpoint),
      reasoning_effort_(
          effort_to_send(model_rules(chat_provider_, chat_model_), config.reasoning_effort)),
      synthetic_chat_(providers.resolved.synthetic_chat) {
    if (synthetic_chat_ && providers.simulated) {
        const SimulatedDgp& dgp = config_.simulated;
        dgp_ = {{"follow_probability", dgp.follow_probability},
                {"label_signal", dgp.label_signal},
                {"confusion", providers.simulated->confusion()},
                {"unparseable_probability", dgp.unparseable_probability},
                {"words", dgp.words}};
    }
}

ChatRequest RequestKeys::chat_request(bool simulate, const std::string& prompt, int position,
                                      int count, int attempt) const {
    ChatRequest request =
        chat_request_for(config_, chat_model_, labels_, simulate, prompt, position, count, attempt);
    request.reasoning_effort = reasoning_effort_;
    // The run's seed picks the LLM's draws too: another seed asks for new texts (a new API seed,
    // so a new cache key), the same seed finds its texts in the cache. The default seed leaves
    // the request as it was before the seed took part, so a cache filled then still answers.
    // The simulated provider's texts follow its DGP's seed (dgp_seed) instead.
    if (simulate && !synthetic_chat_ && request.seed &&
        config_.tests.seed != stats::TestOptions().seed) {
        request.seed = static_cast<std::int64_t>(
            mix_seed(static_cast<std::uint64_t>(*request.seed), config_.tests.seed) &
            0x7fffffffULL);
    }
    return request;
}

CacheKey RequestKeys::chat_key(const ChatRequest& request, int position, int attempt) const {
    CacheKey key = chat_key_for(chat_provider_, chat_endpoint_, request, position, attempt);
    if (synthetic_chat_) key.parameters["dgp"] = dgp_;
    return key;
}

CacheKey RequestKeys::embedding_key(const std::string& text) const {
    return embedding_key_for(embedding_provider_, embedding_endpoint_, embedding_model_, text);
}

ParsedAnswer parse_answer(Kind kind, int count, const std::string& text, bool refused,
                          const std::vector<std::string>& labels) {
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
    LabelAnswer answer = parse_label_answer(text, labels);
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

const char* cache_status_of(const ParsedAnswer& parsed, bool refused) {
    if (parsed.ok) return cache_status::ok;
    if (refused) return cache_status::refused;
    return parsed.out_of_set ? cache_status::invalid : cache_status::unparseable;
}

std::string failure_message(const std::string& transport_message, const HttpResponse& response,
                            const ChatProvider& provider) {
    std::string message = transport_message;
    // A transport error's message (status 0) is already all there is.
    if (response.status == 0) return message;
    const ChatResult parsed = provider.parse_response(response);
    if (parsed.error.message.empty()) return message;
    const std::string raw = "HTTP " + std::to_string(response.status) + ": " +
                            abbreviate(text::trim(response.body), 300);
    if (message.size() > raw.size() &&
        message.compare(message.size() - raw.size(), raw.size(), raw) == 0) {
        message.erase(message.size() - raw.size());
    } else {
        message += ": ";
    }
    return message + parsed.error.message;
}

bool is_json_body(const HttpResponse& response) { return nlohmann::json::accept(response.body); }

}  // namespace llmv::pipeline
