// The curl transport against servers on 127.0.0.1 that the tests start: concurrency,
// streaming, retries with exact counts, failures that must not be retried, timeouts,
// dropped connections, cancellation, SigV4 and connection reuse.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

#include "llmvalidate/error.hpp"
#include "transport/transport.hpp"
#include "transport/loopback_server.hpp"

using llmv_test::LoopbackServer;
using namespace std::chrono_literals;

namespace {

// Retries after a millisecond, and Retry-After waits shrunk 100-fold: no test sleeps long.
llmv::TransportOptions fast_options() {
    llmv::TransportOptions options;
    options.retry.initial_backoff_seconds = 0.001;
    options.retry.max_backoff_seconds = 0.01;
    options.retry.server_wait_scale = 0.01;
    options.retry.max_retries = 3;
    options.poll_interval_seconds = 0.01;
    return options;
}

llmv::Job job_for(const LoopbackServer& server, std::uint64_t id,
                  const std::string& path = "/echo") {
    llmv::Job job;
    job.id = id;
    job.request.url = server.url(path);
    job.request.headers = {{"content-type", "application/json"}};
    job.request.body = "{\"job\":" + std::to_string(id) + "}";
    job.model = "test-model";
    return job;
}

// Accepts connections on 127.0.0.1 and closes each at once without a byte of response.
class DroppingServer {
  public:
    DroppingServer() {
        listener_ = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = 0;
        if (bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            listen(listener_, 64) != 0) {
            throw std::runtime_error("cannot listen on 127.0.0.1");
        }
        socklen_t length = sizeof address;
        getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
        port = ntohs(address.sin_port);
        thread_ = std::thread([this] {
            while (!stop_.load()) {
                pollfd descriptor{listener_, POLLIN, 0};
                if (poll(&descriptor, 1, 10) <= 0) continue;
                const int connection = accept(listener_, nullptr, nullptr);
                if (connection < 0) continue;
                accepted.fetch_add(1);
                close(connection);
            }
        });
    }
    ~DroppingServer() {
        stop_.store(true);
        thread_.join();
        close(listener_);
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/"; }

    int port = 0;
    std::atomic<int> accepted{0};

  private:
    int listener_ = -1;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace

TEST_CASE("The concurrency limit is respected and reached") {
    LoopbackServer server;
    std::atomic<int> target{0};
    server.server.Post("/echo", [&](const httplib::Request& request, httplib::Response& response) {
        LoopbackServer::InFlight hold(server);
        // Hold each request until `target` are in at once (or a second passes): a transport that
        // sends fewer at once is seen as such, one that sends more overshoots the maximum.
        for (int i = 0; i < 500 && server.in_flight.load() < target.load(); ++i) server.pause(2ms);
        server.pause(5ms);
        response.set_content(request.body, "application/json");
    });
    server.start();

    for (std::size_t limit : {std::size_t{1}, std::size_t{4}, std::size_t{16}, std::size_t{40}}) {
        target = static_cast<int>(limit);
        server.max_in_flight = 0;
        server.requests = 0;
        auto options = fast_options();
        options.max_concurrency = limit;
        llmv::Transport transport(options);
        std::vector<llmv::Job> jobs;
        for (std::uint64_t i = 0; i < 48; ++i) jobs.push_back(job_for(server, 1000 + i));
        const auto results = transport.run_all(jobs);
        REQUIRE(results.size() == 48);
        for (std::size_t i = 0; i < results.size(); ++i) {
            CHECK(results[i].ok());
            CHECK(results[i].id == 1000 + i);
            CHECK(results[i].attempts == 1);
            CHECK(results[i].response.status == 200);
            CHECK(results[i].response.body == "{\"job\":" + std::to_string(1000 + i) + "}");
        }
        CHECK(server.requests.load() == 48);
        CHECK(server.max_in_flight.load() == static_cast<int>(limit));
    }
}

TEST_CASE("Jobs queued from the completion callback are streamed through one run") {
    LoopbackServer server;
    server.server.Post("/echo", [&](const httplib::Request& request, httplib::Response& response) {
        response.set_content(request.body, "application/json");
    });
    server.start();

    auto options = fast_options();
    std::vector<llmv::TransportProgress> reports;
    options.progress = [&](const llmv::TransportProgress& progress) {
        reports.push_back(progress);
    };
    options.progress_interval_seconds = 0;  // every tick
    llmv::Transport transport(options);
    std::deque<llmv::Job> queue;
    for (std::uint64_t i = 0; i < 10; ++i) queue.push_back(job_for(server, i));
    std::vector<std::uint64_t> done;
    const auto summary = transport.run(
        [&]() -> std::optional<llmv::Job> {
            if (queue.empty()) return std::nullopt;
            llmv::Job job = std::move(queue.front());
            queue.pop_front();
            return job;
        },
        [&](llmv::JobResult result) {
            REQUIRE(result.ok());
            done.push_back(result.id);
            // Every first-generation job asks for a follow-up, as the pipeline re-asks.
            if (result.id < 10) queue.push_back(job_for(server, result.id + 100));
        });
    CHECK(done.size() == 20);
    std::sort(done.begin(), done.end());
    for (std::uint64_t i = 0; i < 10; ++i) {
        CHECK(done[i] == i);
        CHECK(done[10 + i] == 100 + i);
    }
    CHECK_FALSE(summary.cancelled);
    CHECK(summary.progress.submitted == 20);
    CHECK(summary.progress.completed == 20);
    CHECK(summary.progress.requests == 20);
    CHECK(summary.progress.retries == 0);
    CHECK(server.requests.load() == 20);
    // Progress: monotone counts, the last report is the final state.
    REQUIRE(reports.size() >= 2);
    for (std::size_t i = 1; i < reports.size(); ++i) {
        CHECK(reports[i].completed >= reports[i - 1].completed);
        CHECK(reports[i].in_flight <= 16);
    }
    CHECK(reports.back().completed == 20);
    CHECK(reports.back().submitted == 20);
    CHECK(reports.back().in_flight == 0);
}

TEST_CASE("429 with Retry-After is retried after the server's wait, exactly as often as needed") {
    LoopbackServer server;
    std::atomic<int> calls{0};
    server.server.Post("/limited", [&](const httplib::Request&, httplib::Response& response) {
        if (++calls <= 2) {
            response.status = 429;
            response.set_header("Retry-After", "2");
            response.set_content("{\"error\":{\"message\":\"slow down\"}}", "application/json");
            return;
        }
        response.set_content("{\"ok\":true}", "application/json");
    });
    server.start();

    auto options = fast_options();
    std::vector<llmv::TraceEvent> events;
    options.trace = [&](const llmv::TraceEvent& event) { events.push_back(event); };
    llmv::Accounting accounting;
    options.accounting = &accounting;
    llmv::Transport transport(options);
    const auto result = transport.perform(job_for(server, 1, "/limited").request, "m");
    CHECK(result.ok());
    CHECK(result.attempts == 3);
    CHECK(server.requests.load() == 3);
    CHECK(result.response.body == "{\"ok\":true}");
    int retries = 0;
    for (const auto& event : events) {
        if (event.kind != llmv::TraceEvent::Kind::retry_scheduled) continue;
        ++retries;
        CHECK(event.wait_seconds == 2.0);  // the server's wait, not the backoff
        CHECK(event.status == 429);
    }
    CHECK(retries == 2);
    const auto usage = accounting.by_model().at("m");
    CHECK(usage.requests == 3);
    CHECK(usage.retries == 2);
    CHECK(usage.failures == 0);
}

TEST_CASE("After a 429 with a server wait, no other request starts until the wait is over") {
    LoopbackServer server;
    server.server.Post("/limited", [&](const httplib::Request&, httplib::Response& response) {
        response.status = 429;
        response.set_header("Retry-After", "1000");  // x 0.01 = 10 s
    });
    server.server.Post("/echo", [&](const httplib::Request& request, httplib::Response& response) {
        response.set_content(request.body, "application/json");
    });
    server.start();
    std::atomic<bool> cancel{false};
    auto options = fast_options();
    options.retry.max_server_wait_seconds = 5000;
    options.max_concurrency = 1;
    options.cancel = &cancel;
    int requests_sent = 0, reports_after_429 = 0;
    bool saw_429 = false;
    options.trace = [&](const llmv::TraceEvent& event) {
        if (event.kind == llmv::TraceEvent::Kind::request) ++requests_sent;
        if (event.kind == llmv::TraceEvent::Kind::retry_scheduled) saw_429 = true;
    };
    // Progress is reported once per loop pass: the second report after the 429 comes after
    // a pass that had a free slot and job 1 ready. Stop there.
    options.progress_interval_seconds = 0;
    options.progress = [&](const llmv::TransportProgress&) {
        if (saw_429 && ++reports_after_429 == 2) cancel.store(true);
    };
    llmv::Transport transport(options);
    const auto results =
        transport.run_all({job_for(server, 0, "/limited"), job_for(server, 1, "/echo")});
    CHECK(requests_sent == 1);  // job 1 was held back by the server's wait
    CHECK(results[0].error_code == llmv::code::cancelled);
    CHECK(results[1].error_code == llmv::code::cancelled);
    CHECK(results[1].attempts == 0);
}

TEST_CASE("A server wait beyond max_server_wait_seconds fails at once as rate limited") {
    LoopbackServer server;
    server.server.Post("/quota", [&](const httplib::Request&, httplib::Response& response) {
        response.status = 429;
        response.set_header("Retry-After", "86400");
        response.set_content("{\"error\":\"daily quota exhausted\"}", "application/json");
    });
    server.start();
    llmv::Transport transport(fast_options());
    const auto result = transport.perform(job_for(server, 1, "/quota").request);
    CHECK(result.error_code == llmv::code::provider_rate_limited);
    CHECK(result.attempts == 1);
    CHECK(server.requests.load() == 1);
    CHECK_THAT(result.error_message, Catch::Contains("86400.000 s"));
    CHECK(result.response.body == "{\"error\":\"daily quota exhausted\"}");
}

TEST_CASE("Server errors are retried with backoff up to max_retries") {
    LoopbackServer server;
    std::atomic<int> flaky_calls{0};
    server.server.Post("/always503", [&](const httplib::Request&, httplib::Response& response) {
        response.status = 503;
        response.set_content("overloaded", "text/plain");
    });
    server.server.Post("/flaky500", [&](const httplib::Request&, httplib::Response& response) {
        if (++flaky_calls <= 2) {
            response.status = 500;
            return;
        }
        response.set_content("{}", "application/json");
    });
    server.server.Post("/overloaded529", [&](const httplib::Request&, httplib::Response& response) {
        response.status = 529;
    });
    server.start();

    SECTION("503 every time: max_retries + 1 requests, then server_error") {
        auto options = fast_options();
        options.retry.max_retries = 2;
        std::vector<llmv::TraceEvent> events;
        options.trace = [&](const llmv::TraceEvent& event) { events.push_back(event); };
        llmv::Transport transport(options);
        const auto result = transport.perform(job_for(server, 7, "/always503").request);
        CHECK(result.error_code == llmv::code::provider_server);
        CHECK(result.attempts == 3);
        CHECK(server.requests.load() == 3);
        CHECK(result.response.status == 503);
        CHECK(result.response.body == "overloaded");
        CHECK_THAT(result.error_message,
                   Catch::Contains("HTTP 503") && Catch::Contains("attempt 3 of 3"));
        int backoffs = 0;
        for (const auto& event : events) {
            if (event.kind == llmv::TraceEvent::Kind::retry_scheduled) {
                ++backoffs;
                CHECK(event.wait_seconds <= 0.01);  // the (shrunk) backoff cap
            }
        }
        CHECK(backoffs == 2);
    }
    SECTION("500 twice, then success") {
        llmv::Transport transport(fast_options());
        const auto result = transport.perform(job_for(server, 7, "/flaky500").request);
        CHECK(result.ok());
        CHECK(result.attempts == 3);
        CHECK(server.requests.load() == 3);
    }
    SECTION("529 (overloaded) is retried too") {
        auto options = fast_options();
        options.retry.max_retries = 1;
        llmv::Transport transport(options);
        const auto result = transport.perform(job_for(server, 7, "/overloaded529").request);
        CHECK(result.error_code == llmv::code::provider_server);
        CHECK(result.attempts == 2);
        CHECK(server.requests.load() == 2);
    }
    SECTION("max_retries = 0 sends once") {
        auto options = fast_options();
        options.retry.max_retries = 0;
        llmv::Transport transport(options);
        const auto result = transport.perform(job_for(server, 7, "/always503").request);
        CHECK(result.attempts == 1);
        CHECK(server.requests.load() == 1);
    }
}

TEST_CASE("Client errors fail at once with the provider's body and a stable code") {
    LoopbackServer server;
    for (int status : {400, 401, 403, 404, 422}) {
        server.server.Post("/status" + std::to_string(status),
                           [status](const httplib::Request&, httplib::Response& response) {
                               response.status = status;
                               response.set_content("{\"error\":{\"message\":\"provider says " +
                                                        std::to_string(status) + "\"}}",
                                                    "application/json");
                           });
    }
    server.start();
    llmv::Accounting accounting;
    auto options = fast_options();
    options.accounting = &accounting;
    llmv::Transport transport(options);
    const std::vector<std::pair<int, std::string>> expected = {
        {400, llmv::code::provider_bad_request},
        {401, llmv::code::provider_auth},
        {403, llmv::code::provider_auth},
        {404, llmv::code::provider_not_found},
        {422, llmv::code::provider_bad_request}};
    int sent = 0;
    for (const auto& [status, code] : expected) {
        const auto result =
            transport.perform(job_for(server, 1, "/status" + std::to_string(status)).request, "m");
        ++sent;
        CHECK(result.error_code == code);
        CHECK(result.attempts == 1);
        CHECK(server.requests.load() == sent);
        CHECK(result.response.status == status);
        CHECK_THAT(result.response.body,
                   Catch::Contains("provider says " + std::to_string(status)));
        CHECK_THAT(result.error_message, Catch::Contains("HTTP " + std::to_string(status)));
    }
    CHECK(accounting.by_model().at("m").failures == 5);
    CHECK(accounting.by_model().at("m").retries == 0);
}

TEST_CASE("A dropped connection is a transport error, retried") {
    DroppingServer server;
    auto options = fast_options();
    options.retry.max_retries = 2;
    llmv::Transport transport(options);
    llmv::HttpRequest request;
    request.url = server.url();
    request.body = "{}";
    const auto result = transport.perform(request);
    CHECK(result.error_code == llmv::code::transport);
    CHECK(result.attempts == 3);
    CHECK(server.accepted.load() == 3);
    CHECK(result.response.status == 0);
    CHECK_FALSE(result.response.transport_error.empty());

    SECTION("unless transport errors are not to be retried") {
        options.retry.retry_transport_errors = false;
        llmv::Transport no_retry(options);
        const auto once = no_retry.perform(request);
        CHECK(once.error_code == llmv::code::transport);
        CHECK(once.attempts == 1);
    }
}

TEST_CASE("A truncated body is a transport error, retried, and a later full body wins") {
    LoopbackServer server;
    std::atomic<int> calls{0};
    server.server.Post("/truncated", [&](const httplib::Request&, httplib::Response& response) {
        if (++calls == 1) {
            // Promise 100 bytes, send 10, then give up: the connection closes early.
            response.set_content_provider(100, "application/json",
                                          [](size_t offset, size_t, httplib::DataSink& sink) {
                                              if (offset == 0) sink.write("{\"partial\"", 10);
                                              return offset == 0;
                                          });
            return;
        }
        response.set_content("{\"complete\":true}", "application/json");
    });
    server.start();
    llmv::Transport transport(fast_options());
    const auto result = transport.perform(job_for(server, 1, "/truncated").request);
    CHECK(result.ok());
    CHECK(result.attempts == 2);
    CHECK(result.response.body == "{\"complete\":true}");
}

TEST_CASE("A slow response times out, is retried, and fails with the timeout code") {
    LoopbackServer server;
    server.server.Post("/slow", [&](const httplib::Request&, httplib::Response& response) {
        server.pause(2000ms);
        response.set_content("{}", "application/json");
    });
    server.server.Post("/fast", [&](const httplib::Request&, httplib::Response& response) {
        response.set_content("{}", "application/json");
    });
    server.start();
    auto options = fast_options();
    options.retry.max_retries = 1;
    llmv::Transport transport(options);
    auto slow = job_for(server, 1, "/slow");
    slow.request.total_timeout_ms = 150;
    const auto result = transport.perform(slow.request);
    CHECK(result.error_code == llmv::code::timeout);
    CHECK(result.attempts == 2);
    CHECK(server.requests.load() == 2);

    SECTION("while other jobs in the same run complete") {
        std::vector<llmv::Job> jobs{slow};
        for (std::uint64_t i = 2; i < 12; ++i) jobs.push_back(job_for(server, i, "/fast"));
        const auto results = transport.run_all(jobs);
        CHECK(results[0].error_code == llmv::code::timeout);
        for (std::size_t i = 1; i < results.size(); ++i) CHECK(results[i].ok());
    }
}

TEST_CASE("Cancellation aborts in-flight requests and reports which did not complete") {
    LoopbackServer server;
    server.server.Post("/echo", [&](const httplib::Request& request, httplib::Response& response) {
        if (request.body.find("\"job\":0}") == std::string::npos) {  // job 0 answers at once
            LoopbackServer::InFlight hold(server);
            server.pause(5000ms);
        }
        response.set_content(request.body, "application/json");
    });
    server.start();

    std::atomic<bool> cancel{false};
    auto options = fast_options();
    options.max_concurrency = 4;
    options.cancel = &cancel;
    llmv::Transport transport(options);
    // The caller's side: Break is pressed once 4 requests hang (job 0 returns at once).
    std::thread breaker([&] {
        for (int i = 0; i < 10000 && server.in_flight.load() < 4; ++i)
            std::this_thread::sleep_for(1ms);
        cancel.store(true);
    });
    std::uint64_t next = 0;
    std::vector<llmv::JobResult> results;
    const auto summary = transport.run(
        [&]() -> std::optional<llmv::Job> {
            if (next == 20) return std::nullopt;
            return job_for(server, next++);
        },
        [&](llmv::JobResult result) { results.push_back(std::move(result)); });
    breaker.join();

    CHECK(summary.cancelled);
    // Job 0 finished; jobs 1..4 filled the slots and hung; nothing else was taken.
    CHECK(next == 5);
    REQUIRE(results.size() == 5);
    CHECK(results[0].id == 0);
    CHECK(results[0].ok());
    CHECK(summary.not_completed == std::vector<std::uint64_t>{1, 2, 3, 4});
    for (std::size_t i = 1; i < results.size(); ++i) {
        CHECK(results[i].error_code == llmv::code::cancelled);
        CHECK(results[i].attempts == 1);
    }
    CHECK(summary.progress.completed == 1);
    CHECK(summary.progress.failed == 4);

    SECTION("the transport is usable again after a cancellation") {
        cancel.store(false);
        const auto result = transport.perform(job_for(server, 0).request);
        CHECK(result.ok());
    }
}

TEST_CASE("Cancellation also stops jobs that wait for a retry") {
    LoopbackServer server;
    server.server.Post("/busy", [&](const httplib::Request&, httplib::Response& response) {
        response.status = 503;
        response.set_header("Retry-After", "500");  // x 0.01 = 5 s: far beyond the test
    });
    server.start();
    std::atomic<bool> cancel{false};
    auto options = fast_options();
    options.cancel = &cancel;
    options.trace = [&](const llmv::TraceEvent& event) {
        if (event.kind == llmv::TraceEvent::Kind::retry_scheduled) cancel.store(true);
    };
    llmv::Transport transport(options);
    const auto results = transport.run_all({job_for(server, 42, "/busy")});
    CHECK(results[0].error_code == llmv::code::cancelled);
    CHECK(results[0].attempts == 1);
    CHECK(results[0].response.status == 503);  // the last response is kept
}

TEST_CASE("Exceptions from the caller's callback abort the run and propagate") {
    LoopbackServer server;
    server.server.Post("/echo", [&](const httplib::Request& request, httplib::Response& response) {
        response.set_content(request.body, "application/json");
    });
    server.start();
    llmv::Transport transport(fast_options());
    std::uint64_t next = 0;
    CHECK_THROWS_WITH(transport.run(
                          [&]() -> std::optional<llmv::Job> {
                              if (next == 50) return std::nullopt;
                              return job_for(server, next++);
                          },
                          [&](llmv::JobResult) { throw std::runtime_error("pipeline failed"); }),
                      "pipeline failed");
    // And the transport still works afterwards.
    CHECK(transport.perform(job_for(server, 1).request).ok());
}

TEST_CASE("Keep-alive: sequential requests reuse one connection") {
    LoopbackServer server;
    server.server.Post("/echo", [&](const httplib::Request& request, httplib::Response& response) {
        response.set_content(request.body, "application/json");
    });
    server.start();
    auto options = fast_options();
    options.max_concurrency = 1;
    llmv::Transport transport(options);
    std::vector<llmv::Job> jobs;
    for (std::uint64_t i = 0; i < 25; ++i) jobs.push_back(job_for(server, i));
    for (const auto& result : transport.run_all(jobs)) CHECK(result.ok());
    // A second run on the same transport keeps the connection too.
    CHECK(transport.perform(job_for(server, 99).request).ok());
    CHECK(server.requests.load() == 26);
    CHECK(server.distinct_client_ports() == 1);
}

// A signature scheme the transport knows nothing about: it stamps the attempt and a secret.
class StampSigner : public llmv::RequestSigner {
  public:
    mutable std::atomic<int> calls{0};
    void sign(llmv::HttpRequest& request, std::time_t unix_time) const override {
        const int call = ++calls;
        request.headers.emplace_back(
            "X-Stamp",
            std::to_string(call) + "@" + std::to_string(unix_time) + " stamp-secret-4711");
    }
    std::vector<std::string> secrets() const override { return {"stamp-secret-4711"}; }
    std::string scheme() const override { return "stamp v1"; }
};

TEST_CASE("The transport signs with the request's signer on every attempt, its secrets redacted") {
    LoopbackServer server;
    std::vector<std::string> stamps;
    std::mutex stamps_mutex;
    server.server.Post(
        "/signed", [&](const httplib::Request& request, httplib::Response& response) {
            std::lock_guard<std::mutex> lock(stamps_mutex);
            stamps.push_back(request.get_header_value("X-Stamp"));
            response.status = stamps.size() == 1 ? 503 : 200;  // the retry is signed anew
            response.set_content("{}", "application/json");
        });
    server.start();
    llmv::HttpRequest request;
    request.url = server.url("/signed");
    request.headers = {{"content-type", "application/json"}};
    request.body = "{}";
    auto signer = std::make_shared<StampSigner>();
    request.signer = signer;
    std::vector<std::string> lines;
    auto options = fast_options();
    options.trace = [&](const llmv::TraceEvent& event) {
        lines.push_back(llmv::format_trace(event));
    };
    llmv::Transport transport(options);
    const auto result = transport.perform(request);
    REQUIRE(result.ok());
    CHECK(result.attempts == 2);
    CHECK(signer->calls.load() == 2);
    REQUIRE(stamps.size() == 2);
    CHECK(stamps[0].rfind("1@", 0) == 0);
    CHECK(stamps[1].rfind("2@", 0) == 0);  // not the first attempt's signature again
    CHECK(request.signer);                 // the caller's request is left as built
    bool named = false;
    for (const auto& line : lines) {
        CHECK(line.find("stamp-secret-4711") == std::string::npos);
        named = named || line.find("signed with stamp v1") != std::string::npos;
    }
    CHECK(named);
}

TEST_CASE("The requests-per-minute limit holds back the second request") {
    LoopbackServer server;
    server.server.Post("/echo", [&](const httplib::Request& request, httplib::Response& response) {
        response.set_content(request.body, "application/json");
    });
    server.start();
    std::atomic<bool> cancel{false};
    auto options = fast_options();
    options.cancel = &cancel;
    options.max_concurrency = 16;
    SECTION("requests per minute") {
        options.rate_limits.requests_per_minute = 60;  // one a second, bucket of one
    }
    SECTION("tokens per minute") {
        options.rate_limits.tokens_per_minute = 600;  // 10 a second, bucket of 10
    }
    llmv::Transport transport(options);
    std::uint64_t next = 0;
    std::vector<llmv::JobResult> results;
    // Stop as soon as the first answer is in: a limiter that works has sent nothing else
    // (the next request is due a second later); without one all three go out at once.
    const auto summary = transport.run(
        [&]() -> std::optional<llmv::Job> {
            if (next == 3) return std::nullopt;
            llmv::Job job = job_for(server, next++);
            job.estimated_tokens = 10;
            return job;
        },
        [&](llmv::JobResult result) {
            if (result.ok()) cancel.store(true);
            results.push_back(std::move(result));
        });
    CHECK(server.requests.load() == 1);
    CHECK(summary.cancelled);
    REQUIRE(results.size() >= 2);
    CHECK(results[0].ok());
    for (std::size_t i = 1; i < results.size(); ++i) {
        CHECK(results[i].error_code == llmv::code::cancelled);
        CHECK(results[i].attempts == 0);  // waited for the limiter, never sent
    }
}

TEST_CASE("Rate limits: every job still completes, and the token estimate is spent") {
    LoopbackServer server;
    server.server.Post("/echo", [&](const httplib::Request& request, httplib::Response& response) {
        response.set_content(request.body, "application/json");
    });
    server.start();
    auto options = fast_options();
    options.rate_limits.requests_per_minute = 6000;  // 100/s, bucket of 100
    options.rate_limits.tokens_per_minute = 600000;
    llmv::Transport transport(options);
    std::vector<llmv::Job> jobs;
    for (std::uint64_t i = 0; i < 30; ++i) {
        jobs.push_back(job_for(server, i));
        jobs.back().estimated_tokens = 100;
    }
    for (const auto& result : transport.run_all(jobs)) CHECK(result.ok());
    CHECK(server.requests.load() == 30);
}

TEST_CASE("Invalid transport options are refused with the argument named") {
    llmv::TransportOptions options;
    options.max_concurrency = 0;
    CHECK_THROWS_WITH(llmv::Transport(options),
                      Catch::Contains("max_concurrency") && Catch::Contains("received 0"));
    options = llmv::TransportOptions{};
    options.retry.max_retries = -1;
    CHECK_THROWS_WITH(llmv::Transport(options), Catch::Contains("max_retries"));
    CHECK_THAT(llmv::transport_version(), Catch::Contains("libcurl"));
}
