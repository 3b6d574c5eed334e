// `openai` embeddings: POST {base}/embeddings with many inputs per request (OpenAI accepts
// up to 2048; option "max_batch_size" lowers it for servers with smaller limits), within
// OpenAI's token caps: 8,192 tokens a text and 300,000 summed over a request's texts (limits();
// the request builder refuses a request over them by the bytes bound of embedding_limits.hpp).
// Vectors are asked for as base64 float32 (option "encoding_format"): the exact numbers the server
// computed, in a quarter of the bytes of decimal text and without parsing 1,536 numbers. A
// server that refuses base64 (a 400 naming it) is asked for numbers from then on; one that
// ignores it answers with numbers, which are read as well.
#include <atomic>

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
        detail::check_options(
            config, "openai",
            {"flavor", "api_version", "api_key_env", "max_batch_size", "encoding_format"});
        encoding_format_ = detail::option(config, "encoding_format", "base64");
        if (encoding_format_ != "base64" && encoding_format_ != "float") {
            throw_invalid(code::provider_config, "options$encoding_format",
                          "\"" + encoding_format_ + "\"", "\"base64\" or \"float\"");
        }
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
    // OpenAI's caps, from the `input` field's documentation in the openai SDK (7.60.0,
    // resources/embeddings.d.ts) and the embeddings API reference: 2,048 texts, 8,192 tokens a
    // text, 300,000 tokens summed over a request's texts, for every embedding model.
    EmbeddingLimits limits() const override {
        EmbeddingLimits limits;
        limits.max_inputs = max_batch_size_;
        limits.max_input_tokens = 8192;
        limits.max_request_tokens = 300000;
        limits.source = "OpenAI's embeddings API: 8,192 tokens a text, 300,000 a request";
        return limits;
    }

    HttpRequest build_request(const EmbeddingRequest& request) const override {
        detail::check_model(request.model, "openai");
        if (request.inputs.empty() || request.inputs.size() > max_batch_size_) {
            throw_invalid(code::invalid_argument, "inputs",
                          std::to_string(request.inputs.size()) + " texts",
                          "1 to " + std::to_string(max_batch_size_) + " texts per request");
        }
        // Within OpenAI's token caps by the bound the pipeline packs with: never a request
        // that the API would refuse with a 400 after the passages' chat calls were paid.
        EmbeddingRequestPacker packer(limits());
        for (const std::string& text : request.inputs) {
            if (const auto refusal = embedding_input_refusal(packer.limits(), request.model, text))
                throw_invalid(code::invalid_argument, "inputs", "a text: " + *refusal,
                              "texts within the model's cap");
            if (!packer.fits(text)) {
                throw_invalid(code::invalid_argument, "inputs",
                              std::to_string(request.inputs.size()) + " texts of up to " +
                                  std::to_string(packer.estimated_tokens() +
                                                 embedding_tokens_upper_bound(text)) +
                                  " tokens or more",
                              "at most 300,000 tokens summed over a request's texts");
            }
            packer.add(text);
        }
        json body = {{"model", request.model},
                     {"input", request.inputs},
                     {"encoding_format", numbers_only_ ? "float" : encoding_format_}};
        if (request.dimensions) body["dimensions"] = *request.dimensions;
        return endpoint_.request("embeddings", request.model, body.dump());
    }

    EmbeddingResult parse_response(const HttpResponse& response,
                                   std::size_t n_inputs) const override {
        EmbeddingResult result;
        if (!detail::is_success(response)) {
            result.error = detail::http_failure(response, endpoint_.secrets());
            if (refuses_base64(response)) {
                // Asked again, for numbers: the same vectors, as decimal text. Every request
                // already sent as base64 comes back here and is retried the same way.
                numbers_only_ = true;
                result.error.retryable = true;
                result.error.message +=
                    " (the server refuses encoding_format \"base64\"; asking "
                    "for numbers instead)";
            }
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
            // A base64 string when asked for it; a server that ignores encoding_format sends
            // numbers, read the same way.
            std::optional<std::vector<double>> vector;
            if (item.is_object() && item.contains("embedding")) {
                const json& embedding = item["embedding"];
                vector = embedding.is_string()
                             ? detail::read_base64_vector(embedding.get_ref<const std::string&>())
                             : detail::read_vector(embedding);
            }
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
    // A 400 or 422 that names the field: the server does not know base64.
    bool refuses_base64(const HttpResponse& response) const {
        return encoding_format_ == "base64" && (response.status == 400 || response.status == 422) &&
               (response.body.find("encoding_format") != std::string::npos ||
                response.body.find("base64") != std::string::npos);
    }

    detail::OpenAIEndpoint endpoint_;
    std::size_t max_batch_size_ = 2048;
    std::string encoding_format_;
    mutable std::atomic<bool> numbers_only_{false};  // set by the first refusal of base64
};

}  // namespace

std::unique_ptr<EmbeddingProvider> make_openai_embedding_provider(const ProviderConfig& config) {
    return std::make_unique<OpenAIEmbeddings>(config);
}

}  // namespace llmv
