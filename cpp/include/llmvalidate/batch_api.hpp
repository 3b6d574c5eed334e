// Validation through the providers' batch APIs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "llmvalidate/validate.hpp"

namespace llmv::pipeline {

// Batch-API runs (pipeline/batch_run.cpp): the same validation through the providers' batch
// APIs (OpenAI chat completions and embeddings, Anthropic messages) at their batch prices. A
// run is a sequence of provider batches, one per phase of the pipeline (annotation,
// simulation, backtranslation with the embeddings), each covering every passage. Each batch's
// id goes into the cache file as soon as the provider gives it, and its answers into the cache
// under the synchronous requests' keys: the same command resumes a stopped run without
// submitting any request twice, and a later synchronous run reads everything free.
struct BatchApiOptions {
    // (The poll interval is a setting: ValidationConfig::poll_interval_seconds.)
    // Submit the next phase's batches (or poll those already submitted, once) and return:
    // BatchApiReport::waiting says a batch is still out; run again to continue.
    bool submit_only = false;
    // Requests that failed inside a batch (errored, expired, cancelled lines, lines missing from
    // a results file cut short) and redraws of unusable answers are sent in the next phase's
    // batch, or synchronously when no first request is waiting and at most this many remain.
    int sync_retry_max = 10;
    // Each provider batch stays within the vendor's documented caps (OpenAI: 50,000 requests,
    // 50,000 embedding inputs, 200 MB; Anthropic: 100,000 requests, 256 MB; see
    // llm/provider_batch.hpp); a run that needs more submits several. Smaller caps (0: the
    // vendor's) split a small run the same way, for tests.
    std::size_t max_requests_per_batch = 0;
    std::size_t max_embedding_inputs_per_batch = 0;
    std::size_t max_bytes_per_batch = 0;
    std::function<void(const std::string&)> on_status;  // one line per phase and state
};

struct BatchApiReport {
    bool waiting = false;                // submit_only: a batch is still in progress; no result yet
    std::vector<std::string> submitted;  // provider batch ids submitted by this call
    std::int64_t batch_requests = 0;     // chat requests and embedding requests sent in batches
    std::int64_t synchronous_requests = 0;  // retries sent synchronously
    int phases = 0;                         // passes over the passages
};

// Needs a cache file and a chat provider with a batch API (openai, anthropic; Bedrock's needs
// S3 and is not supported): llmv.input.invalid_argument otherwise. Embeddings go through the
// OpenAI batch API when the embedding provider is openai, else synchronously.
BatchResult validate_with_batch_api(const ValidationConfig& config,
                                    const std::vector<PassageInput>& passages,
                                    const BatchCallbacks& callbacks, const BatchApiOptions& options,
                                    BatchApiReport* report = nullptr, bool keep_results = true);

}  // namespace llmv::pipeline
