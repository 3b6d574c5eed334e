// Transport throughput against a loopback server with a fixed latency per request.
//
// For each latency (0 ms, 50 ms) and concurrency (1, 8, 32, 128), sends N requests (default
// 2,000) through one llmv::Transport and prints requests per second next to the ideal bound
// concurrency / latency. At 0 ms there is no bound: the line shows the client thread's CPU
// time per request and the requests per second one core of it can drive.
//
//   bench_transport_throughput [--requests N] [--latencies 0,50] [--concurrency 1,8,32,128]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "transport/transport.hpp"
#include "transport/loopback_server.hpp"

namespace {

std::vector<int> parse_list(const std::string& text) {
    std::vector<int> values;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) values.push_back(std::atoi(item.c_str()));
    return values;
}

double thread_cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
    int requests = 2000;
    std::vector<int> latencies_ms = {0, 50};
    std::vector<int> concurrencies = {1, 8, 32, 128};
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--requests") {
            requests = std::atoi(argv[i + 1]);
        } else if (flag == "--latencies") {
            latencies_ms = parse_list(argv[i + 1]);
        } else if (flag == "--concurrency") {
            concurrencies = parse_list(argv[i + 1]);
        } else {
            std::fprintf(stderr, "unknown option %s\n", flag.c_str());
            return 2;
        }
    }

    // Enough server threads for every connection of the largest concurrency, plus slack for
    // connections of the previous configuration that are still closing.
    llmv_test::LoopbackServer server(320);
    std::atomic<int> latency_ms{0};
    const std::string answer =
        "{\"id\":\"bench\",\"object\":\"chat.completion\",\"model\":\"bench\",\"choices\":[{"
        "\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"{\\\"label\\\":"
        "\\\"positive\\\"}\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":120,"
        "\"completion_tokens\":7,\"total_tokens\":127}}";
    server.server.Post("/v1/chat/completions",
                       [&](const httplib::Request&, httplib::Response& response) {
                           const int delay = latency_ms.load();
                           if (delay > 0)
                               std::this_thread::sleep_for(std::chrono::milliseconds(delay));
                           response.set_content(answer, "application/json");
                       });
    server.start();

    std::printf("transport throughput: %d requests per row, loopback server, %s\n", requests,
                llmv::transport_version().c_str());
    std::printf("%10s %11s %12s %12s %9s %16s %14s\n", "latency", "concurrency", "requests/s",
                "ideal", "ratio", "client CPU/req", "rps per core");
    llmv::HttpRequest request;
    request.url = server.url("/v1/chat/completions");
    // identity: cpp-httplib would brotli-compress every answer at quality 11, a server cost
    // (milliseconds of CPU per response) no real provider has and that this bench would
    // measure instead of the transport.
    request.headers = {{"content-type", "application/json"},
                       {"authorization", "Bearer sk-bench"},
                       {"accept-encoding", "identity"}};
    request.body =
        "{\"model\":\"bench\",\"messages\":[{\"role\":\"user\",\"content\":\"Label this passage: "
        "the committee decided to keep rates unchanged.\"}],\"temperature\":1.0}";
    request.secrets = {"sk-bench"};

    for (int latency : latencies_ms) {
        latency_ms = latency;
        for (int concurrency : concurrencies) {
            llmv::TransportOptions options;
            options.max_concurrency = static_cast<std::size_t>(concurrency);
            llmv::Transport transport(options);
            int next = 0, failed = 0;
            const double cpu_start = thread_cpu_seconds();
            const auto start = std::chrono::steady_clock::now();
            transport.run(
                [&]() -> std::optional<llmv::Job> {
                    if (next == requests) return std::nullopt;
                    llmv::Job job;
                    job.id = static_cast<std::uint64_t>(next++);
                    job.request = request;
                    return job;
                },
                [&](llmv::JobResult result) { failed += result.ok() ? 0 : 1; });
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const double cpu = thread_cpu_seconds() - cpu_start;
            const double rps = requests / seconds;
            const double cpu_per_request_us = cpu / requests * 1e6;
            char ideal[32] = "-", ratio[32] = "-";
            if (latency > 0) {
                const double bound = concurrency / (latency / 1000.0);
                std::snprintf(ideal, sizeof ideal, "%.1f", bound);
                std::snprintf(ratio, sizeof ratio, "%.1f%%", 100.0 * rps / bound);
            }
            std::printf("%8d ms %11d %12.1f %12s %9s %13.1f us %14.0f%s\n", latency, concurrency,
                        rps, ideal, ratio, cpu_per_request_us, cpu > 0 ? requests / cpu : 0.0,
                        failed ? "  (FAILURES)" : "");
            std::fflush(stdout);
        }
    }
    return 0;
}
