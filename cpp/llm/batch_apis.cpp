// The BatchApi of each batch protocol the engine speaks (provider_batch.hpp), over the requests
// and parsers of provider_batch.cpp: what a provider's spec hands the batch run.
#include <nlohmann/json.hpp>

#include "llm/provider_batch.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// OpenAI Batch API: the lines uploaded as a file, the batch created on it with the intent in
// its metadata; results in an output file and an error file.
class OpenAiBatchApi : public BatchApi {
  public:
    std::string name() const override { return "openai"; }
    BatchCaps caps() const override { return vendor_batch_caps(BatchApiKind::openai); }
    std::size_t line_bytes(const BatchLine& line) const override {
        return batch_line_bytes(BatchApiKind::openai, line);
    }
    std::optional<HttpRequest> upload(const std::vector<BatchLine>& lines) const override {
        return openai_batch_upload(lines);
    }
    std::string uploaded_file_id(const HttpResponse& response) const override {
        return openai_uploaded_file_id(response);
    }
    HttpRequest create(const HttpRequest& synchronous, const std::vector<BatchLine>&,
                       const std::string& file_id, const std::string& intent_id) const override {
        return openai_batch_create(synchronous, file_id,
                                   nlohmann::json({{batch_intent_metadata_key, intent_id}}).dump());
    }
    HttpRequest poll(const HttpRequest& synchronous, const std::string& batch_id) const override {
        return batch_poll(synchronous, batch_id);
    }
    BatchStatus parse_status(const HttpResponse& response) const override {
        return parse_batch_status(BatchApiKind::openai, response);
    }
    std::vector<std::pair<std::string, HttpRequest>> result_downloads(
        const HttpRequest& synchronous, const BatchStatus& status) const override {
        std::vector<std::pair<std::string, HttpRequest>> downloads;
        if (!status.output_file.empty())
            downloads.emplace_back("output", openai_file_content(synchronous, status.output_file));
        if (!status.error_file.empty())
            downloads.emplace_back("errors", openai_file_content(synchronous, status.error_file));
        return downloads;
    }
    BatchLineRead read_line(const std::string& line) const override {
        return read_batch_line(BatchApiKind::openai, line);
    }
    HttpRequest list(const HttpRequest& synchronous, const std::string& after) const override {
        return batch_list(synchronous, after);
    }
    BatchList parse_list(const HttpResponse& response) const override {
        return parse_batch_list(BatchApiKind::openai, response);
    }
    // The uploaded file (the run's alone) or the intent in the metadata identify it.
    Match matches(const BatchStatus& listed, const std::string& intent_id,
                  const std::string& input_file, std::size_t) const override {
        return (!input_file.empty() && listed.input_file == input_file) ||
                       listed.intent == intent_id
                   ? Match::sure
                   : Match::none;
    }
};

// Anthropic Message Batches: the lines inline in the create request; results in one stream.
class AnthropicBatchApi : public BatchApi {
  public:
    std::string name() const override { return "anthropic"; }
    BatchCaps caps() const override { return vendor_batch_caps(BatchApiKind::anthropic); }
    std::size_t line_bytes(const BatchLine& line) const override {
        return batch_line_bytes(BatchApiKind::anthropic, line);
    }
    std::optional<HttpRequest> upload(const std::vector<BatchLine>&) const override {
        return std::nullopt;
    }
    std::string uploaded_file_id(const HttpResponse&) const override { return ""; }
    HttpRequest create(const HttpRequest&, const std::vector<BatchLine>& lines, const std::string&,
                       const std::string&) const override {
        return anthropic_batch_create(lines);
    }
    HttpRequest poll(const HttpRequest& synchronous, const std::string& batch_id) const override {
        return batch_poll(synchronous, batch_id);
    }
    BatchStatus parse_status(const HttpResponse& response) const override {
        return parse_batch_status(BatchApiKind::anthropic, response);
    }
    std::vector<std::pair<std::string, HttpRequest>> result_downloads(
        const HttpRequest& synchronous, const BatchStatus& status) const override {
        return {{"results", batch_results_request(synchronous, status)}};
    }
    BatchLineRead read_line(const std::string& line) const override {
        return read_batch_line(BatchApiKind::anthropic, line);
    }
    HttpRequest list(const HttpRequest& synchronous, const std::string& after) const override {
        return batch_list(synchronous, after);
    }
    BatchList parse_list(const HttpResponse& response) const override {
        return parse_batch_list(BatchApiKind::anthropic, response);
    }
    // No metadata is kept: a batch of the same size created since the intent may be it (the
    // run takes it only when its results' custom ids are the intent's: batch_read_back.cpp).
    Match matches(const BatchStatus& listed, const std::string&, const std::string&,
                  std::size_t lines) const override {
        return listed.total == lines ? Match::candidate : Match::none;
    }
};

}  // namespace

std::shared_ptr<const BatchApi> openai_batch_api_for(const HttpRequest& synchronous) {
    static const auto api = std::make_shared<const OpenAiBatchApi>();
    return ends_with(synchronous.url, "/chat/completions") ||
                   ends_with(synchronous.url, "/embeddings")
               ? api
               : nullptr;
}

std::shared_ptr<const BatchApi> anthropic_batch_api_for(const HttpRequest& synchronous) {
    static const auto api = std::make_shared<const AnthropicBatchApi>();
    return ends_with(synchronous.url, "/v1/messages") ? api : nullptr;
}

}  // namespace llmv
