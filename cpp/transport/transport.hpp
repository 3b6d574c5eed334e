// The engine's only way onto the network: a libcurl multi-handle transport that keeps many
// requests in flight on the calling thread, retries transient failures without blocking the
// others, honours rate limits, and stops promptly when the caller sets a cancel flag.
//
// Usage (the pipeline): a stream of jobs is pulled through `next_job`, results come back
// through `on_done` on the same thread, and `on_done` may queue further jobs that
// `next_job` then returns.
//
//     llmv::Transport transport(options);
//     auto summary = transport.run(
//         [&]() -> std::optional<llmv::Job> { ... return nullopt when nothing is ready ... },
//         [&](llmv::JobResult result) { ... parse, cache, maybe queue more ... });
//
// Nothing in this header depends on curl; only cpp/transport/*.cpp include <curl/curl.h>.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/http.hpp"
#include "llmvalidate/accounting.hpp"
#include "transport/retry.hpp"

namespace llmv {

struct Job {
    std::uint64_t id = 0;  // the caller's; echoed in JobResult and in the summary
    HttpRequest request;
    std::string model;            // for accounting (may be empty)
    double estimated_tokens = 0;  // for the tokens-per-minute limiter (input + max output)
    // Optional: false for a 2xx whose body is not usable (cut, not JSON). Such an answer then
    // takes the path of every other transient failure: the same retry budget and backoff,
    // and llmv.provider.malformed_response after the last retry.
    std::function<bool(const HttpResponse&)> accept;
};

struct JobResult {
    std::uint64_t id = 0;
    // The last response received (status 0 with transport_error when none came). On an
    // HTTP error the body is the provider's own error message, for the provider to parse.
    HttpResponse response;
    int attempts = 0;           // requests sent for this job (0 if cancelled before sending)
    std::string error_code;     // "" on a 2xx response, else a stable llmv::code
    std::string error_message;  // redacted; names method, URL, status and attempts

    bool ok() const { return error_code.empty(); }
};

struct TransportProgress {
    std::uint64_t submitted = 0;  // jobs taken from next_job
    std::uint64_t completed = 0;  // jobs finished with a 2xx
    std::uint64_t failed = 0;     // jobs finished with an error (cancelled ones included)
    std::uint64_t in_flight = 0;  // requests on the wire now
    std::uint64_t waiting = 0;    // jobs waiting for a retry or a rate limit
    std::uint64_t requests = 0;   // HTTP requests sent, retries included
    std::uint64_t retries = 0;
    double elapsed_seconds = 0;
};

// One verbose-trace record. Everything in it is already redacted (HttpRequest::secrets and
// the values of credential headers: authorization, x-api-key, api-key, x-amz-security-token).
struct TraceEvent {
    enum class Kind { request, response, retry_scheduled, failed, cancelled };
    Kind kind = Kind::request;
    std::uint64_t id = 0;
    int attempt = 0;
    std::string method;
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;  // request headers
    long status = 0;
    double elapsed_seconds = 0;
    double wait_seconds = 0;  // retry_scheduled: the wait before the next attempt
    std::string message;
};

// "-> POST https://... (attempt 1)" style single line, for printing.
std::string format_trace(const TraceEvent& event);
// "0.250 s": durations in trace lines and retry messages.
std::string format_seconds(double seconds);

struct TransportOptions {
    std::size_t max_concurrency = 16;
    RetryPolicy retry;
    RateLimits rate_limits;
    // The caller sets *cancel (Ctrl-C, SIGTERM, R interrupt, Stata Break); checked every poll
    // tick, with the front end's interrupt check (llmvalidate/interrupt.hpp). From then on no request starts and jobs waiting for a retry are dropped; the
    // requests in flight (paid for by then) get `drain_seconds` to finish and are delivered
    // as usual, then the rest are aborted. *abort (a second signal) ends the drain at once.
    const std::atomic<bool>* cancel = nullptr;
    double drain_seconds = 0;
    const std::atomic<bool>* abort = nullptr;
    double poll_interval_seconds = 0.05;
    bool http2 = true;  // CURL_HTTP_VERSION_2TLS: HTTP/2 over TLS where offered
    std::string user_agent = "llmvalidate";
    // Optional: counts requests, retries and failures per Job::model.
    Accounting* accounting = nullptr;
    // Optional hooks, called on the run() thread.
    std::function<void(const TraceEvent&)> trace;
    std::function<void(const TransportProgress&)> progress;
    // Called on every turn of the loop (at least every poll_interval_seconds), also while
    // every slot is busy: the pipeline flushes its cache buffer from here.
    std::function<void()> tick;
    double progress_interval_seconds = 0.25;  // progress is also called once at the end
};

struct RunSummary {
    TransportProgress progress;
    bool cancelled = false;
    // Jobs taken from next_job that did not complete because of the cancellation
    // (in flight or waiting for a retry). They were also passed to on_done with
    // code llmv.cancelled.
    std::vector<std::uint64_t> not_completed;
};

class Transport {
  public:
    explicit Transport(TransportOptions options = {});
    ~Transport();
    Transport(const Transport&) = delete;
    Transport& operator=(const Transport&) = delete;

    // Runs until next_job returns nullopt while nothing is in flight or waiting, or until
    // cancelled. next_job is called whenever a slot is free; nullopt means "nothing now"
    // (it is asked again after the next completion). on_done is called once per job.
    // An exception from a callback aborts every in-flight request and propagates.
    RunSummary run(const std::function<std::optional<Job>()>& next_job,
                   const std::function<void(JobResult)>& on_done);

    // Convenience: all jobs of a batch, results in the order of `jobs`.
    std::vector<JobResult> run_all(std::vector<Job> jobs);
    // Convenience: one request, with retries.
    JobResult perform(const HttpRequest& request, const std::string& model = "");

    // For the tokens-per-minute limiter: after parsing usage, the caller can correct the
    // estimate it gave (positive: more tokens were used than estimated).
    void adjust_tokens(double delta);

    const TransportOptions& options() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The libcurl version string, for diagnostics ("libcurl/7.88.1 OpenSSL/3.0 nghttp2/1.52").
std::string transport_version();

}  // namespace llmv
