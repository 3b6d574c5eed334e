// `ollama`: Ollama's native POST {base}/api/embed, body {"model", "input": [...]}, answer
// {"embeddings": [[...], ...], "prompt_eval_count"}. Base from `base_url`, OLLAMA_HOST
// ("host:port" or a URL), else http://127.0.0.1:11434. No credential.
#include "llm/embedding_util.hpp"
#include "llm/provider_util.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {

using nlohmann::json;

namespace {

class OllamaEmbeddings final : public EmbeddingProvider {
  public:
    explicit OllamaEmbeddings(const ProviderConfig& config)
        : connect_timeout_ms_(config.connect_timeout_ms),
          total_timeout_ms_(config.total_timeout_ms) {
        detail::check_options(config, "ollama", {"max_batch_size"});
        base_url_ = detail::strip_trailing_slashes(
            detail::first_set(config, config.base_url, {"OLLAMA_HOST"}));
        if (base_url_.empty()) base_url_ = "http://127.0.0.1:11434";
        if (base_url_.find("://") == std::string::npos) base_url_ = "http://" + base_url_;
        const std::string batch = detail::option(config, "max_batch_size", "256");
        char* end = nullptr;
        const long value = std::strtol(batch.c_str(), &end, 10);
        if (batch.empty() || *end != '\0' || value < 1) {
            throw_invalid(code::provider_config, "options$max_batch_size", "\"" + batch + "\"",
                          "a whole number of at least 1");
        }
        max_batch_size_ = static_cast<std::size_t>(value);
    }

    std::string name() const override { return "ollama"; }
    std::string description() const override {
        return detail::describe("ollama", {{"base", base_url_}});
    }
    std::string endpoint_identity() const override { return "ollama " + base_url_; }
    std::size_t max_batch_size() const override { return max_batch_size_; }

    HttpRequest build_request(const EmbeddingRequest& request) const override {
        detail::check_model(request.model, "ollama");
        if (request.inputs.empty() || request.inputs.size() > max_batch_size_) {
            throw_invalid(code::invalid_argument, "inputs",
                          std::to_string(request.inputs.size()) + " texts",
                          "1 to " + std::to_string(max_batch_size_) + " texts per request");
        }
        json body = {{"model", request.model}, {"input", request.inputs}};
        if (request.dimensions) body["dimensions"] = *request.dimensions;
        HttpRequest http;
        http.url = base_url_ + "/api/embed";
        http.headers = {{"Content-Type", "application/json"}};
        http.body = body.dump();
        http.connect_timeout_ms = connect_timeout_ms_;
        http.total_timeout_ms = total_timeout_ms_;
        return http;
    }

    EmbeddingResult parse_response(const HttpResponse& response,
                                   std::size_t n_inputs) const override {
        EmbeddingResult result;
        if (!detail::is_success(response)) {
            result.error = detail::http_failure(response, {});
            return result;
        }
        const json body = detail::parse_body(response.body);
        if (!body.is_object() || !body.contains("embeddings") || !body["embeddings"].is_array() ||
            body["embeddings"].size() != n_inputs) {
            result.error = detail::malformed_response(
                response,
                "does not have one embedding per input (" + std::to_string(n_inputs) + ")", {});
            return result;
        }
        for (const auto& item : body["embeddings"]) {
            auto vector = detail::read_vector(item);
            if (!vector) {
                result.vectors.clear();
                result.error = detail::malformed_response(
                    response, "has an embedding that is not numbers", {});
                return result;
            }
            result.vectors.push_back(std::move(*vector));
        }
        result.input_tokens = detail::int_field(body, "prompt_eval_count");
        if (body.contains("model") && body["model"].is_string())
            result.model = body["model"].get<std::string>();
        result.ok = true;
        return result;
    }

  private:
    std::string base_url_;
    std::size_t max_batch_size_ = 256;
    long connect_timeout_ms_;
    long total_timeout_ms_;
};

}  // namespace

std::unique_ptr<EmbeddingProvider> make_ollama_embedding_provider(const ProviderConfig& config) {
    return std::make_unique<OllamaEmbeddings>(config);
}

}  // namespace llmv
