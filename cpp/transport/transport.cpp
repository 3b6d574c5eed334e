// The libcurl multi-handle transport. One thread drives every transfer: start jobs while
// slots are free, let curl move bytes, hand finished jobs to the caller, and park failed
// ones in a time-ordered queue until their retry is due. Nothing here ever sleeps except in
// curl_multi_poll, whose timeout is bounded by the poll interval, so the cancel flag, due
// retries and the rate limiters are looked at on every tick.
#include "transport/transport.hpp"

#include "transport/transfer.hpp"

#include "llmvalidate/text.hpp"

#include <curl/curl.h>

#include <ctime>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "llmvalidate/error.hpp"
#include "llmvalidate/interrupt.hpp"

namespace llmv {

using transport_detail::configure_handle;
using transport_detail::Pending;
using transport_detail::Transfer;

namespace {

std::once_flag curl_global_once;

void ensure_curl_global() {
    std::call_once(curl_global_once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

double unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

std::string transport_version() {
    ensure_curl_global();
    return curl_version();
}

struct Transport::Impl {
    TransportOptions options;
    CURLM* multi = nullptr;
    std::vector<CURL*> idle_handles;  // reused: keeps their connection and DNS state warm
    std::map<CURL*, std::unique_ptr<Transfer>> active;
    // Jobs waiting for their (re)try time, earliest first; equal times keep arrival order.
    std::multimap<double, std::unique_ptr<Pending>> waiting;
    Backoff backoff;
    std::optional<TokenBucket> request_bucket;
    std::optional<TokenBucket> token_bucket;
    double pause_until = 0;  // after a 429 with a server-given wait, nothing new starts
    std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now();
    TransportProgress progress;
    bool running = false;

    explicit Impl(TransportOptions given) : options(std::move(given)), backoff(options.retry) {
        if (options.max_concurrency == 0) {
            throw_invalid(code::invalid_argument, "max_concurrency", "0", "at least 1");
        }
        if (!(options.poll_interval_seconds > 0)) {
            throw_invalid(code::invalid_argument, "poll_interval_seconds",
                          std::to_string(options.poll_interval_seconds), "a positive number");
        }
        if (options.retry.max_retries < 0) {
            throw_invalid(code::invalid_argument, "max_retries",
                          std::to_string(options.retry.max_retries), "0 or more");
        }
        const auto& limits = options.rate_limits;
        const double burst = std::max(limits.burst_seconds, 0.0);
        if (limits.requests_per_minute > 0) {
            const double rate = limits.requests_per_minute / 60.0;
            request_bucket.emplace(rate, std::max(1.0, rate * burst), now());
        }
        if (limits.tokens_per_minute > 0) {
            const double rate = limits.tokens_per_minute / 60.0;
            token_bucket.emplace(rate, std::max(1.0, rate * burst), now());
        }
        ensure_curl_global();
        multi = curl_multi_init();
        if (!multi) throw Error(code::transport, "curl_multi_init failed");
        curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
        curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS,
                          static_cast<long>(std::max<std::size_t>(options.max_concurrency, 8)));
    }

    ~Impl() {
        abort_active();
        for (CURL* easy : idle_handles) curl_easy_cleanup(easy);
        if (multi) curl_multi_cleanup(multi);
    }

    double now() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count();
    }

    void trace(TraceEvent event) {
        if (options.trace) options.trace(event);
    }

    TraceEvent event_for(TraceEvent::Kind kind, const Pending& pending) {
        TraceEvent event;
        event.kind = kind;
        event.id = pending.job.id;
        event.attempt = pending.attempts;
        event.method = pending.job.request.method;
        event.url = redact(pending.job.request.url, pending.secrets);
        return event;
    }

    // Removes every transfer from the multi handle without reporting (cleanup paths).
    void abort_active() {
        for (auto& [easy, transfer] : active) {
            curl_multi_remove_handle(multi, easy);
            curl_slist_free_all(transfer->header_list);
            curl_easy_cleanup(easy);
        }
        active.clear();
    }

    CURL* take_handle() {
        if (!idle_handles.empty()) {
            CURL* easy = idle_handles.back();
            idle_handles.pop_back();
            curl_easy_reset(easy);
            return easy;
        }
        CURL* easy = curl_easy_init();
        if (!easy) throw Error(code::transport, "curl_easy_init failed");
        return easy;
    }

    void start(std::unique_ptr<Pending> pending) {
        auto transfer = std::make_unique<Transfer>();
        // A request with a signer is signed here, on every attempt: a signature may carry the
        // time and expire (see RequestSigner).
        const HttpRequest* to_send = &pending->job.request;
        if (to_send->signer) {
            transfer->signed_request = *to_send;
            sign_request(transfer->signed_request, std::time(nullptr));
            to_send = &transfer->signed_request;
        }
        const HttpRequest& request = *to_send;
        if (!request.body_file.empty()) {
            transfer->body_out = std::fopen(request.body_file.c_str(), "wb");
            if (!transfer->body_out)
                throw Error(code::cache, "cannot write the download file " + request.body_file +
                                             ": " + std::strerror(errno));
        }
        transfer->easy = take_handle();
        CURL* easy = transfer->easy;
        configure_handle(easy, *transfer, request, options);

        pending->attempts += 1;
        progress.requests += 1;
        if (pending->attempts > 1) progress.retries += 1;
        if (options.accounting) {
            options.accounting->add_request(pending->job.model);
            if (pending->attempts > 1) options.accounting->add_retry(pending->job.model);
        }
        if (options.trace) {
            TraceEvent event = event_for(TraceEvent::Kind::request, *pending);
            for (const auto& [name, value] : request.headers) {
                event.headers.emplace_back(name, is_credential_header(name)
                                                     ? "<redacted>"
                                                     : redact(value, pending->secrets));
            }
            if (pending->job.request.signer) {
                event.message = "signed with " + pending->job.request.signer->scheme();
            }
            trace(std::move(event));
        }
        transfer->started = now();
        transfer->pending = std::move(pending);
        const CURLMcode added = curl_multi_add_handle(multi, easy);
        if (added != CURLM_OK) {
            curl_slist_free_all(transfer->header_list);
            curl_easy_cleanup(easy);
            throw Error(code::transport,
                        std::string("curl_multi_add_handle failed: ") + curl_multi_strerror(added));
        }
        active.emplace(easy, std::move(transfer));
    }

    // Seconds until the limiters allow `pending` to start (0: now).
    double limiter_wait(const Pending& pending, double t) {
        double wait = 0;
        if (request_bucket) wait = std::max(wait, request_bucket->wait_seconds(1, t));
        if (token_bucket && pending.job.estimated_tokens > 0) {
            wait = std::max(wait, token_bucket->wait_seconds(pending.job.estimated_tokens, t));
        }
        return wait;
    }

    void limiter_take(const Pending& pending, double t) {
        if (request_bucket) request_bucket->take(1, t);
        if (token_bucket && pending.job.estimated_tokens > 0) {
            token_bucket->take(pending.job.estimated_tokens, t);
        }
    }

    JobResult make_result(Pending& pending, std::string error_code, std::string message) {
        JobResult result;
        result.id = pending.job.id;
        result.response = std::move(pending.last_response);
        result.attempts = pending.attempts;
        result.error_code = std::move(error_code);
        result.error_message = redact(std::move(message), pending.secrets);
        return result;
    }

    std::string describe(const Pending& pending) const {
        return pending.job.request.method + " " + pending.job.request.url + " (attempt " +
               std::to_string(pending.attempts) + " of " +
               std::to_string(options.retry.max_retries + 1) + ")";
    }

    void finish(std::unique_ptr<Pending> pending, std::string error_code, std::string message,
                const std::function<void(JobResult)>& on_done) {
        if (error_code.empty()) {
            progress.completed += 1;
        } else {
            progress.failed += 1;
            if (options.accounting && error_code != code::cancelled) {
                options.accounting->add_failure(pending->job.model);
            }
            if (options.trace) {
                TraceEvent event =
                    event_for(error_code == code::cancelled ? TraceEvent::Kind::cancelled
                                                            : TraceEvent::Kind::failed,
                              *pending);
                event.status = pending->last_response.status;
                event.message = redact(message, pending->secrets);
                trace(std::move(event));
            }
        }
        on_done(make_result(*pending, std::move(error_code), std::move(message)));
    }

    // A transfer ended: deliver it, or park it for a retry.
    void complete(CURL* easy, CURLcode result, const std::function<void(JobResult)>& on_done) {
        auto node = active.find(easy);
        if (node == active.end()) return;
        std::unique_ptr<Transfer> transfer = std::move(node->second);
        active.erase(node);
        curl_multi_remove_handle(multi, easy);
        curl_slist_free_all(transfer->header_list);
        transfer->header_list = nullptr;
        transfer->close_body_file();

        HttpResponse response = std::move(transfer->response);
        const double t = now();
        response.elapsed_seconds = t - transfer->started;
        std::unique_ptr<Pending> pending = std::move(transfer->pending);
        if (result == CURLE_OK) {
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response.status);
        } else {
            response.status = 0;
            const std::string detail = transfer->error_buffer;
            const std::string summary = curl_easy_strerror(result);
            // curl's detail often ends with the same summary ("... : Couldn't connect to server").
            response.transport_error =
                redact(detail.empty()
                           ? summary
                           : (detail.find(summary) != std::string::npos ? detail
                                                                        : summary + ": " + detail),
                       pending->secrets);
        }
        idle_handles.push_back(easy);
        transfer.reset();
        // Servers echo keys back ("Incorrect API key provided: sk-..."): nothing that leaves
        // the transport carries one.
        if (!pending->secrets.empty()) {
            response.body = redact(std::move(response.body), pending->secrets);
            for (auto& header : response.headers) {
                header.second = redact(std::move(header.second), pending->secrets);
            }
        }

        if (options.trace) {
            TraceEvent event = event_for(TraceEvent::Kind::response, *pending);
            event.status = response.status;
            event.elapsed_seconds = response.elapsed_seconds;
            event.message = response.transport_error;
            trace(std::move(event));
        }

        const long status = response.status;
        pending->last_response = std::move(response);
        const bool success = result == CURLE_OK && status >= 200 && status < 300;
        const bool malformed =
            success && pending->job.accept && !pending->job.accept(pending->last_response);
        if (success && !malformed) {
            finish(std::move(pending), "", "", on_done);
            return;
        }

        const bool timed_out = result == CURLE_OPERATION_TIMEDOUT;
        const bool retryable = malformed            ? true
                               : result == CURLE_OK ? is_retryable_status(options.retry, status)
                               : timed_out          ? options.retry.retry_timeouts
                                                    : options.retry.retry_transport_errors;
        const std::string failure_code = malformed            ? code::provider_malformed_response
                                         : result == CURLE_OK ? error_code_for_status(status)
                                         : timed_out          ? code::timeout
                                                              : code::transport;
        std::string failure = describe(*pending) + ": ";
        if (malformed) {
            failure += "HTTP " + std::to_string(status) +
                       " with a body that is not the provider's JSON: " +
                       abbreviate(text::trim(pending->last_response.body), 300);
        } else if (result == CURLE_OK) {
            failure += "HTTP " + std::to_string(status);
            const std::string body = text::trim(pending->last_response.body);
            if (!body.empty()) failure += ": " + abbreviate(body, 300);
        } else {
            failure += pending->last_response.transport_error;
        }

        if (!retryable || pending->attempts > options.retry.max_retries) {
            finish(std::move(pending), failure_code, failure, on_done);
            return;
        }

        double wait = 0;
        std::optional<double> server_wait;
        if (result == CURLE_OK) {
            server_wait = server_requested_wait(pending->last_response.headers, unix_now());
        }
        if (server_wait) {
            if (*server_wait > options.retry.max_server_wait_seconds) {
                // Out of quota for longer than a run should block, whatever the status.
                finish(std::move(pending), code::provider_rate_limited,
                       failure + " (the server asked to wait " + format_seconds(*server_wait) +
                           ", longer than max_server_wait_seconds = " +
                           format_seconds(options.retry.max_server_wait_seconds) + ")",
                       on_done);
                return;
            }
            wait = *server_wait * options.retry.server_wait_scale;
            // The server spoke for the whole account: hold back every other start too.
            if (status == 429) pause_until = std::max(pause_until, t + wait);
        } else {
            wait = backoff.delay(pending->attempts);
        }
        if (options.trace) {
            TraceEvent event = event_for(TraceEvent::Kind::retry_scheduled, *pending);
            event.status = status;
            event.wait_seconds = server_wait ? *server_wait : wait;
            event.message = redact(failure, pending->secrets) +
                            (server_wait ? " (wait asked by the server)" : " (backoff)");
            trace(std::move(event));
        }
        waiting.emplace(t + wait, std::move(pending));
    }

    void report_progress(double run_start, double& last_report, bool force) {
        if (!options.progress) return;
        const double t = now();
        if (!force && t - last_report < options.progress_interval_seconds) return;
        last_report = t;
        progress.in_flight = active.size();
        progress.waiting = waiting.size();
        progress.elapsed_seconds = t - run_start;
        options.progress(progress);
    }

    void cancel_all(RunSummary& summary, const std::function<void(JobResult)>& on_done) {
        std::vector<std::unique_ptr<Pending>> stopped;
        for (auto& [easy, transfer] : active) {
            curl_multi_remove_handle(multi, easy);
            curl_slist_free_all(transfer->header_list);
            transfer->header_list = nullptr;
            idle_handles.push_back(easy);
            stopped.push_back(std::move(transfer->pending));
        }
        active.clear();
        for (auto& entry : waiting) stopped.push_back(std::move(entry.second));
        waiting.clear();
        std::sort(stopped.begin(), stopped.end(),
                  [](const auto& a, const auto& b) { return a->job.id < b->job.id; });
        for (auto& pending : stopped) {
            summary.not_completed.push_back(pending->job.id);
            const std::string message = "cancelled before completion: " + describe(*pending);
            finish(std::move(pending), code::cancelled, message, on_done);
        }
        summary.cancelled = true;
    }

    RunSummary run(const std::function<std::optional<Job>()>& next_job,
                   const std::function<void(JobResult)>& on_done) {
        RunSummary summary;
        progress = TransportProgress{};
        const double run_start = now();
        double last_report = run_start;
        bool draining = false;
        double drain_deadline = 0;
        try {
            for (;;) {
                // The front end's interrupt check (R, Stata) as well as the flag: this loop
                // turns at least every poll_interval_seconds, back-off and rate-limit waits
                // included.
                if (cancel_requested(options.cancel)) {
                    if (!draining) {
                        draining = true;
                        drain_deadline = now() + options.drain_seconds;
                    }
                    if (active.empty() || now() >= drain_deadline ||
                        (options.abort && options.abort->load())) {
                        cancel_all(summary, on_done);
                        break;
                    }
                }
                double t = now();
                double wake = t + options.poll_interval_seconds;
                bool source_empty = false;
                while (!draining && active.size() < options.max_concurrency) {
                    if (waiting.empty() || waiting.begin()->first > t) {
                        std::optional<Job> job = next_job();
                        if (!job) {
                            source_empty = true;
                            if (!waiting.empty()) wake = std::min(wake, waiting.begin()->first);
                            break;
                        }
                        auto pending = std::make_unique<Pending>();
                        pending->secrets = secrets_of(job->request);
                        pending->job = std::move(*job);
                        progress.submitted += 1;
                        waiting.emplace(t, std::move(pending));
                    }
                    if (t < pause_until) {
                        wake = std::min(wake, pause_until);
                        break;
                    }
                    auto first = waiting.begin();
                    const double limit_wait = limiter_wait(*first->second, t);
                    if (limit_wait > 0) {
                        wake = std::min(wake, t + limit_wait);
                        break;
                    }
                    limiter_take(*first->second, t);
                    std::unique_ptr<Pending> pending = std::move(first->second);
                    waiting.erase(first);
                    start(std::move(pending));
                }
                if (active.empty() && waiting.empty() && source_empty) break;

                int still_running = 0;
                curl_multi_perform(multi, &still_running);
                bool any_done = false;
                int queued = 0;
                while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
                    if (message->msg != CURLMSG_DONE) continue;
                    any_done = true;
                    complete(message->easy_handle, message->data.result, on_done);
                }
                report_progress(run_start, last_report, false);
                if (options.tick) options.tick();
                if (any_done) continue;  // free slots: refill before waiting

                t = now();
                const double timeout = std::clamp(wake - t, 0.0, options.poll_interval_seconds);
                curl_multi_poll(multi, nullptr, 0, static_cast<int>(std::ceil(timeout * 1000)),
                                nullptr);
            }
        } catch (...) {
            abort_active();
            waiting.clear();
            throw;
        }
        report_progress(run_start, last_report, true);
        summary.progress = progress;
        summary.progress.in_flight = 0;
        summary.progress.waiting = 0;
        summary.progress.elapsed_seconds = now() - run_start;
        return summary;
    }
};

Transport::Transport(TransportOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

Transport::~Transport() = default;

const TransportOptions& Transport::options() const { return impl_->options; }

RunSummary Transport::run(const std::function<std::optional<Job>()>& next_job,
                          const std::function<void(JobResult)>& on_done) {
    if (impl_->running) {
        throw Error(code::internal, "Transport::run called again from one of its callbacks");
    }
    impl_->running = true;
    struct Reset {
        bool& flag;
        ~Reset() { flag = false; }
    } reset{impl_->running};
    return impl_->run(next_job, on_done);
}

std::vector<JobResult> Transport::run_all(std::vector<Job> jobs) {
    std::vector<JobResult> results(jobs.size());
    std::size_t next = 0;
    // The caller's ids may repeat; run under positions and restore the ids afterwards.
    std::vector<std::uint64_t> ids;
    ids.reserve(jobs.size());
    for (auto& job : jobs) ids.push_back(job.id);
    run(
        [&]() -> std::optional<Job> {
            if (next == jobs.size()) return std::nullopt;
            Job job = std::move(jobs[next]);
            job.id = next++;
            return job;
        },
        [&](JobResult result) {
            const std::size_t at = static_cast<std::size_t>(result.id);
            result.id = ids[at];
            results[at] = std::move(result);
        });
    for (std::size_t i = next; i < results.size(); ++i) {  // never taken (cancelled first)
        results[i].id = ids[i];
        results[i].error_code = code::cancelled;
        results[i].error_message = "cancelled before the request was sent";
    }
    return results;
}

JobResult Transport::perform(const HttpRequest& request, const std::string& model) {
    Job job;
    job.request = request;
    job.model = model;
    return std::move(run_all({std::move(job)}).front());
}

void Transport::adjust_tokens(double delta) {
    if (impl_->token_bucket) impl_->token_bucket->take(delta, impl_->now());
}

}  // namespace llmv
