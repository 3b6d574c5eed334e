// `bedrock-titan`: Amazon Titan Text Embeddings v2 (amazon.titan-embed-text-v2:0, the paper's
// model) through InvokeModel, POST {base}/model/{modelId}/invoke, one text per request.
// Body {"inputText", "normalize", "dimensions" (256, 512 or 1024)}.
#include "llm/bedrock_common.hpp"
#include "llm/embedding_util.hpp"
#include "llm/provider_util.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {

using nlohmann::json;

namespace {

class BedrockTitanEmbeddings final : public EmbeddingProvider {
  public:
    explicit BedrockTitanEmbeddings(const ProviderConfig& config)
        : endpoint_(config, "bedrock-titan") {
        detail::check_options(config, "bedrock-titan", {});
    }

    std::string name() const override { return "bedrock-titan"; }
    std::string description() const override { return endpoint_.describe("bedrock-titan"); }
    std::string endpoint_identity() const override {
        return "bedrock-titan " + endpoint_.identity();
    }
    std::size_t max_batch_size() const override { return 1; }
    // Amazon Bedrock user guide, "Amazon Titan Text Embeddings models": Titan Text Embeddings
    // V2 takes one non-empty text of up to 8,192 tokens or 50,000 characters.
    EmbeddingLimits limits() const override {
        EmbeddingLimits limits;
        limits.max_inputs = 1;
        limits.max_input_tokens = 8192;
        limits.max_input_characters = 50000;
        limits.source = "Amazon Titan Text Embeddings V2: 8,192 tokens or 50,000 characters";
        return limits;
    }

    HttpRequest build_request(const EmbeddingRequest& request) const override {
        detail::check_model(request.model, "bedrock-titan");
        if (request.inputs.size() != 1) {
            throw_invalid(code::invalid_argument, "inputs",
                          std::to_string(request.inputs.size()) + " texts",
                          "exactly 1 text per request for provider `bedrock-titan`");
        }
        json body = {{"inputText", request.inputs.front()}, {"normalize", request.normalize}};
        if (request.dimensions) {
            const int d = *request.dimensions;
            if (d != 256 && d != 512 && d != 1024) {
                throw_invalid(code::invalid_argument, "dimensions", std::to_string(d),
                              "256, 512 or 1024 for Titan Text Embeddings v2");
            }
            body["dimensions"] = d;
        }
        return endpoint_.request(request.model, "invoke", body.dump());
    }

    EmbeddingResult parse_response(const HttpResponse& response,
                                   std::size_t n_inputs) const override {
        EmbeddingResult result;
        if (!detail::is_success(response)) {
            result.error = detail::http_failure(response, endpoint_.secrets());
            return result;
        }
        const json body = detail::parse_body(response.body);
        auto vector = body.is_object() && body.contains("embedding")
                          ? detail::read_vector(body["embedding"])
                          : std::nullopt;
        if (!vector || n_inputs != 1) {
            result.error =
                detail::malformed_response(response, "has no embedding array", endpoint_.secrets());
            return result;
        }
        result.vectors.push_back(std::move(*vector));
        result.input_tokens = detail::int_field(body, "inputTextTokenCount");
        result.ok = true;
        return result;
    }

  private:
    detail::BedrockEndpoint endpoint_;
};

}  // namespace

std::unique_ptr<EmbeddingProvider> make_bedrock_titan_embedding_provider(
    const ProviderConfig& config) {
    return std::make_unique<BedrockTitanEmbeddings>(config);
}

}  // namespace llmv
