// Provider batch APIs, as requests and parsers (no socket: the transport sends them).
//   OpenAI Batch API: the lines as a JSON-lines file uploaded to {base}/files (purpose
//   "batch"), a batch created on it at {base}/batches (completion window 24h), polled at
//   {base}/batches/{id}; the answers in its output file and the failed lines in its error file
//   ({base}/files/{id}/content). Chat completions and embeddings.
//   Anthropic Message Batches: {base}/v1/messages/batches with the requests inline, polled at
//   .../{id}; the results stream at .../{id}/results.
// Each line stands for one synchronous request, built by the provider as usual: its URL and
// headers give the batch endpoint and the credentials, its body is the line's body. A line's
// answer is handed back as the HttpResponse the synchronous call would have given (status 200
// and the same body), so the provider's parse_response() reads it and the cache stores it under
// the same key. Bedrock's batch inference needs S3 and is not supported.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/http.hpp"

namespace llmv {

// One request of a batch. custom_id: the request's cache key hash (64 hex characters, within
// both APIs' limits), so that answers go back to their keys.
struct BatchLine {
    std::string custom_id;
    HttpRequest request;  // the synchronous request, as the provider built it
};

struct BatchStatus {
    std::string id;
    std::string status;  // the provider's word (OpenAI: validating, in_progress, finalizing,
                         // completed, expired, cancelling, cancelled, failed; Anthropic:
                         // in_progress, canceling, ended)
    bool ended = false;   // no line will change any more: fetch the results
    bool failed = false;  // refused as a whole (OpenAI "failed"): no line ran
    std::size_t total = 0, succeeded = 0, failed_lines = 0;
    std::string output_file;  // OpenAI: the output file's id
    std::string error_file;   // OpenAI: the error file's id
    std::string results_url;  // Anthropic
    std::string message;      // why a batch failed
    std::string input_file;   // OpenAI: the uploaded file it runs on
    std::string intent;       // OpenAI: metadata.llmvalidate_intent (see openai_batch_create)
    std::string created_at;   // OpenAI: Unix seconds as text; Anthropic: RFC 3339
};

// A page of the vendor's list of batches (most recent first, as both document it).
struct BatchList {
    std::vector<BatchStatus> batches;
    bool has_more = false;
    std::string last_id;  // the cursor of the next page (OpenAI `after`, Anthropic `after_id`)
};

// One line's outcome.
struct BatchLineResult {
    std::string custom_id;
    bool ok = false;
    HttpResponse response;  // ok: the synchronous answer (status 200 and its body)
    std::string error;      // otherwise: what happened (expired, cancelled, errored: message)
};

struct BatchResults {
    std::vector<BatchLineResult> lines;
    // Lines that could not be read (a results file cut short): their custom_ids are unknown,
    // so the lines missing from `lines` are to be asked again.
    std::size_t unreadable = 0;
};

enum class BatchApiKind { openai, anthropic };

// One line of a results file (JSON lines), read on its own so that a large file is read a
// line at a time: `result` is empty for a blank line, and `unreadable` is set for a line that
// is not a result (a file cut short).
struct BatchLineRead {
    std::optional<BatchLineResult> result;
    bool unreadable = false;
};
BatchLineRead read_batch_line(BatchApiKind kind, const std::string& line);

// What one provider batch may hold, as the vendors document it:
//   OpenAI (API reference, "Create batch": input_file_id and endpoint; platform.openai.com/
//   docs/api-reference/batch/create): up to 50,000 requests and 200 MB per input file, and
//   /v1/embeddings batches at most 50,000 embedding inputs across all their requests.
//   Anthropic (docs "Batch processing", batch limitations; docs.anthropic.com/en/docs/
//   build-with-claude/batch-processing): 100,000 Message requests or 256 MB, whichever is
//   reached first. No embeddings.
// The bytes are counted as decimal megabytes, the smaller reading, framing included.
struct BatchCaps {
    std::size_t requests = 0;
    std::size_t embedding_inputs = 0;  // summed over the lines of one embeddings batch
    std::size_t bytes = 0;             // the upload (OpenAI) or the create request's body
};
BatchCaps vendor_batch_caps(BatchApiKind kind);
// The bytes one line adds to its batch's upload or request body.
std::size_t batch_line_bytes(BatchApiKind kind, const BatchLine& line);
// The bytes a batch has besides its lines (multipart framing, the JSON envelope), at most.
constexpr std::size_t batch_framing_bytes = 1024;

// The batch API of a provider's synchronous request (its URL decides): OpenAI-compatible
// ".../chat/completions" and ".../embeddings", Anthropic ".../v1/messages". Throws
// llmv::Error (llmv.input.invalid_argument) for any other endpoint (Bedrock, Ollama, Azure).
BatchApiKind batch_api_for(const HttpRequest& synchronous);

// OpenAI: step 1, the upload of the lines (multipart/form-data); step 2, the batch on the
// uploaded file; `metadata` (JSON object text, may be empty) is kept with the batch.
HttpRequest openai_batch_upload(const std::vector<BatchLine>& lines);
std::string openai_uploaded_file_id(const HttpResponse& response);  // throws llmv::Error
HttpRequest openai_batch_create(const HttpRequest& synchronous, const std::string& file_id,
                                const std::string& metadata = "");
// The metadata key a run puts its intent's id under (found again by the list endpoint).
inline constexpr const char* batch_intent_metadata_key = "llmvalidate_intent";
HttpRequest openai_file_content(const HttpRequest& synchronous, const std::string& file_id);
BatchResults openai_batch_results(const std::string& output_file, const std::string& error_file);

// Anthropic: one request creates the batch.
HttpRequest anthropic_batch_create(const std::vector<BatchLine>& lines);
BatchResults anthropic_batch_results(const std::string& results);

// Both: polling, cancelling, reading a batch object.
HttpRequest batch_poll(const HttpRequest& synchronous, const std::string& batch_id);
HttpRequest batch_cancel(const HttpRequest& synchronous, const std::string& batch_id);
HttpRequest batch_results_request(const HttpRequest& synchronous, const BatchStatus& status);
BatchStatus parse_batch_status(BatchApiKind kind, const HttpResponse& response);  // throws

// The vendor's list of batches, newest first: GET {base}/batches?limit=100[&after=ID]
// (OpenAI), GET .../v1/messages/batches?limit=100[&after_id=ID] (Anthropic).
HttpRequest batch_list(const HttpRequest& synchronous, const std::string& after);
BatchList parse_batch_list(BatchApiKind kind, const HttpResponse& response);  // throws

// ---------------------------------------------------------------------------------------------
// A batch API as the pipeline drives it, without knowing whose it is: a provider's spec
// (provider_spec.hpp) names the one its endpoint offers, and the batch run submits, polls,
// downloads and reads through it. `synchronous`: a request the provider built for one call
// (its URL and credentials lead to the batch endpoints). Every request it returns is sent as
// is; every parser throws llmv::Error for an answer it cannot read.
class BatchApi {
  public:
    virtual ~BatchApi() = default;
    // The name each batch is recorded and reported under ("openai", "anthropic").
    virtual std::string name() const = 0;
    // What one batch may hold (requests, embedding inputs, bytes); embedding_inputs 0: no
    // embeddings through this API.
    virtual BatchCaps caps() const = 0;
    // The bytes one line adds to its batch.
    virtual std::size_t line_bytes(const BatchLine& line) const = 0;
    // Submitting, step 1 where the lines go up as a file first: the upload, and the file's id
    // in its answer. nullopt: the lines go in the create request itself.
    virtual std::optional<HttpRequest> upload(const std::vector<BatchLine>& lines) const = 0;
    virtual std::string uploaded_file_id(const HttpResponse& response) const = 0;
    // Step 2: the batch, on the uploaded file (`file_id`) or holding `lines`; `intent_id` is
    // kept with the batch where the API keeps metadata (found again by matches()).
    virtual HttpRequest create(const HttpRequest& synchronous, const std::vector<BatchLine>& lines,
                               const std::string& file_id, const std::string& intent_id) const = 0;
    virtual HttpRequest poll(const HttpRequest& synchronous, const std::string& batch_id) const = 0;
    virtual BatchStatus parse_status(const HttpResponse& response) const = 0;
    // The downloads of an ended batch's results, each named for its file ("results", "output").
    virtual std::vector<std::pair<std::string, HttpRequest>> result_downloads(
        const HttpRequest& synchronous, const BatchStatus& status) const = 0;
    virtual BatchLineRead read_line(const std::string& line) const = 0;
    // The vendor's list of batches, newest first, a page at a time (`after`: the cursor).
    virtual HttpRequest list(const HttpRequest& synchronous, const std::string& after) const = 0;
    virtual BatchList parse_list(const HttpResponse& response) const = 0;
    // Whether a listed batch is the one a run recorded the intent of before it was created (a
    // run stopped in between): `sure` when it carries the intent's id or uploaded file,
    // `candidate` when only its size says so (the oldest candidate is taken).
    enum class Match { none, candidate, sure };
    virtual Match matches(const BatchStatus& listed, const std::string& intent_id,
                          const std::string& input_file, std::size_t lines) const = 0;
};

// The batch APIs the engine speaks, for the providers' specs: OpenAI's (and an
// OpenAI-compatible server's) on a .../chat/completions or .../embeddings request, Anthropic's
// Message Batches on .../v1/messages; null for any other endpoint (Azure, a local server's
// native API).
std::shared_ptr<const BatchApi> openai_batch_api_for(const HttpRequest& synchronous);
std::shared_ptr<const BatchApi> anthropic_batch_api_for(const HttpRequest& synchronous);

}  // namespace llmv
