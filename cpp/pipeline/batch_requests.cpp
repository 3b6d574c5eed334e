// The batch-API run's work file and sends (batch_runner.hpp): the answers the provider
// batches gave, staged for the next pass; the requests a pass found missing, pending until
// they are submitted; and the requests the run sends itself (polls, uploads, retries).
#include "pipeline/batch_runner.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"

namespace llmv::pipeline {

using nlohmann::json;

namespace {

// Rows written to, and read from, the cache file's batch tables at a time: what a run holds of
// a phase's requests and answers.
constexpr std::size_t pending_flush_size = 2000;
constexpr std::size_t staged_flush_size = 500;
constexpr std::size_t pending_read_size = 2000;

}  // namespace

DeferredCalls BatchRunner::deferred_calls() {
    DeferredCalls deferred;
    deferred.answer = [this](const std::string& hash) -> std::optional<HttpResponse> {
        std::optional<BatchStaged> staged = work_->batch_staged(hash);
        if (!staged) return std::nullopt;
        HttpResponse response;
        response.status = staged->status;
        response.body = std::move(staged->body);
        return response;
    };
    deferred.vector = [this](const std::string& text) -> std::optional<std::vector<double>> {
        const std::optional<BatchStaged> staged = work_->batch_staged(text_id(text));
        if (!staged || staged->vector.empty()) return std::nullopt;
        return std::vector<double>(staged->vector.begin(), staged->vector.end());
    };
    deferred.missing_request = [this](const std::string& hash, const HttpRequest& request,
                                      int attempt) {
        pending_.push_back({hash, "chat", attempt, request.url, request.body});
        if (pending_.size() >= pending_flush_size) flush_pending();
    };
    deferred.missing_text = [this](const std::string& text) {
        pending_.push_back({text, "embedding", 0, "", ""});
        if (pending_.size() >= pending_flush_size) flush_pending();
    };
    return deferred;
}

void BatchRunner::flush_pending() {
    if (pending_.empty()) return;
    work_->put_batch_pending(pending_);
    pending_.clear();
}

void BatchRunner::stage(BatchStaged answer) {
    staged_.push_back(std::move(answer));
    if (staged_.size() >= staged_flush_size) flush_staged();
}

void BatchRunner::flush_staged() {
    if (staged_.empty()) return;
    work_->put_batch_staged(staged_);
    staged_.clear();
}

void BatchRunner::for_each_pending(const std::string& kind,
                                   const std::function<void(BatchPending&)>& each) {
    std::int64_t after = 0;
    while (true) {
        std::vector<BatchPending> chunk = work_->batch_pending(kind, after, pending_read_size);
        if (chunk.empty()) return;
        for (BatchPending& row : chunk) each(row);
    }
}

HttpRequest BatchRunner::chat_request_of(const BatchPending& row) {
    // Built once: a submission asks for one per pending row.
    if (!chat_template_) chat_template_ = template_request("chat");
    HttpRequest request = *chat_template_;
    request.url = row.url;
    request.body = row.body;
    return request;
}

std::vector<JobResult> BatchRunner::send(const std::vector<HttpRequest>& requests) {
    return send(requests, config_.drain_seconds);
}

std::vector<JobResult> BatchRunner::send(const std::vector<HttpRequest>& requests, double drain) {
    TransportOptions options;
    options.max_concurrency = static_cast<std::size_t>(std::max(1, config_.concurrency));
    options.retry.max_retries = config_.max_transport_retries;
    options.cancel = callbacks_.cancel;
    options.drain_seconds = drain;
    std::vector<JobResult> results(requests.size());
    for (JobResult& result : results) {
        result.error_code = code::cancelled;  // until the transport says otherwise
        result.error_message = "cancelled before the request was sent";
    }
    std::size_t next = 0;
    Transport transport(options);
    transport.run(
        [&]() -> std::optional<Job> {
            if (next >= requests.size()) return std::nullopt;
            Job job;
            job.id = next;
            job.request = requests[next++];
            return job;
        },
        [&](JobResult result) { results[result.id] = std::move(result); });
    return results;
}

HttpResponse BatchRunner::send_one(const HttpRequest& request, const std::string& what) {
    JobResult result = send({request}, 0.0).front();
    const bool answered = result.response.status / 100 == 2;
    if (!answered && (result.error_code == code::cancelled || cancelled()))
        check_cancel("while " + what);
    if (!result.ok() && !answered) {
        throw Error(result.error_code.empty() ? code::provider_server : result.error_code,
                    what + ": " + result.error_message);
    }
    return result.response;
}

}  // namespace llmv::pipeline
