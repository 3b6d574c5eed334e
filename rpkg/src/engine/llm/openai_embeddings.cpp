// `openai` embeddings: POST {base}/embeddings with many inputs per request (OpenAI accepts
// up to 2048; option "max_batch_size" lowers it for servers with smaller limits).
#include "llm/embedding_util.hpp"
#include "llm/openai_common.hpp"
#include "llm/provider_util.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {

using nlohmann::json;

namespace {

class OpenAIEmbeddings final : public EmbeddingProvider {
  public:
    explicit OpenAIEmbeddings(const ProviderConfig& config) : endpoint_(config, "openai") {
        detail::check_options(config, "openai",
                              {"flavor", "api_version", "api_key_env", "max_batch_size"});
        const std::string batch = detail::option(config, "max_batch_size", "2048");
        char* end = nullptr;
        const long value = std::strtol(batch.c_str(), &end, 10);
        if (batch.empty() || *end != '\0' || value < 1 || value > 2048) {
            throw_invalid(code::provider_config, "options$max_batch_size", "\"" + batch + "\"",
                          "a whole number from 1 to 2048");
        }
        max_batch_size_ = static_cast<std::size_t>(value);
    }

    std::string name() const override { return "openai"; }
    std::string description() const override { return endpoint_.describe("openai embeddings"); }
    std::string endpoint_identity() const override { return "openai " + endpoint_.identity(); }
    std::size_t max_batch_size() const override { return max_batch_size_; }

    HttpRequest build_request(const EmbeddingRequest& request) const override {
        detail::check_model(request.model, "openai");
        if (request.inputs.empty() || request.inputs.size() > max_batch_size_) {
            throw_invalid(code::invalid_argument, "inputs",
                          std::to_string(request.inputs.size()) + " texts",
                          "1 to " + std::to_string(max_batch_size_) + " texts per request");
        }
        json body = {
            {"model", request.model}, {"input", request.inputs}, {"encoding_format", "float"}};
        if (request.dimensions) body["dimensions"] = *request.dimensions;
        return endpoint_.request("embeddings", request.model, body.dump());
    }

    EmbeddingResult parse_response(const HttpResponse& response,
                                   std::size_t n_inputs) const override {
        EmbeddingResult result;
        if (!detail::is_success(response)) {
            result.error = detail::http_failure(response, endpoint_.secrets());
            return result;
        }
        const json body = detail::parse_body(response.body);
        if (!body.is_object() || !body.contains("data") || !body["data"].is_array()) {
            result.error =
                detail::malformed_response(response, "has no data array", endpoint_.secrets());
            return result;
        }
        result.vectors.assign(n_inputs, {});
        std::size_t position = 0;
        for (const auto& item : body["data"]) {
            // `index` says which input a vector belongs to; without it, the order counts.
            const std::size_t index =
                item.is_object() && item.contains("index") && item["index"].is_number_unsigned()
                    ? item["index"].get<std::size_t>()
                    : position;
            ++position;
            auto vector = item.is_object() && item.contains("embedding")
                              ? detail::read_vector(item["embedding"])
                              : std::nullopt;
            if (!vector || index >= n_inputs || !result.vectors[index].empty()) {
                result.vectors.clear();
                result.error = detail::malformed_response(
                    response,
                    "has a bad or duplicate embedding at position " + std::to_string(position - 1),
                    endpoint_.secrets());
                return result;
            }
            result.vectors[index] = std::move(*vector);
        }
        for (std::size_t i = 0; i < n_inputs; ++i) {
            if (result.vectors[i].empty()) {
                result.vectors.clear();
                result.error = detail::malformed_response(response,
                                                          "has " + std::to_string(position) +
                                                              " embeddings for " +
                                                              std::to_string(n_inputs) + " inputs",
                                                          endpoint_.secrets());
                return result;
            }
        }
        if (body.contains("usage"))
            result.input_tokens = detail::int_field(body["usage"], "prompt_tokens");
        if (body.contains("model") && body["model"].is_string())
            result.model = body["model"].get<std::string>();
        result.ok = true;
        return result;
    }

  private:
    detail::OpenAIEndpoint endpoint_;
    std::size_t max_batch_size_ = 2048;
};

}  // namespace

std::unique_ptr<EmbeddingProvider> make_openai_embedding_provider(const ProviderConfig& config) {
    return std::make_unique<OpenAIEmbeddings>(config);
}

}  // namespace llmv
