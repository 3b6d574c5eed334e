// Environment switches for benchmarks and debugging (debug_env.hpp).
#include "pipeline/debug_env.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pipeline/progress.hpp"

namespace llmv::pipeline {

void add_debug_trace(TransportOptions& options) {
#ifndef LLMV_NO_STDERR  // the R package: R CMD check rightly refuses writes to stderr
    if (std::getenv("LLMV_DEBUG_TRANSPORT")) {
        options.progress = [](const TransportProgress& p) {
            std::fprintf(stderr, "transport: %.2f s, in flight %llu, waiting %llu, completed %llu\n",
                         p.elapsed_seconds, static_cast<unsigned long long>(p.in_flight),
                         static_cast<unsigned long long>(p.waiting),
                         static_cast<unsigned long long>(p.completed));
        };
    }
    if (std::getenv("LLMV_DEBUG_TRANSPORT")) {
        options.trace = [](const TraceEvent& event) {
            static const bool every_answer = std::string(std::getenv("LLMV_DEBUG_TRANSPORT")) == "all";
            if (every_answer && event.kind == TraceEvent::Kind::response) {
                std::fprintf(stderr, "answer: %.6f %s %.4f s\n", now_seconds(), event.url.c_str(),
                             event.elapsed_seconds);
            }
            const bool retry_or_failure = event.kind == TraceEvent::Kind::retry_scheduled ||
                                          event.kind == TraceEvent::Kind::failed;
            if (retry_or_failure ||
                (event.kind != TraceEvent::Kind::request && event.elapsed_seconds > 0.5)) {
                std::fprintf(stderr, "slow: %s\n", format_trace(event).c_str());
            }
        };
    }
#else
    (void)options;
#endif
}

void add_encoding_override(HttpRequest& request) {
    const char* encoding = std::getenv("LLMV_ACCEPT_ENCODING");
    if (encoding && *encoding) request.headers.emplace_back("Accept-Encoding", encoding);
}

bool cache_inline_writes() {
    const char* inline_writes = std::getenv("LLMV_CACHE_INLINE_WRITES");
    return inline_writes && *inline_writes == '1';
}

void debug_kill_point(const char* point) {
    const char* wanted = std::getenv("LLMV_DEBUG_KILL_AT");
    if (!wanted || !*wanted) return;
    const std::string spec(wanted);
    const std::size_t colon = spec.find(':');
    if (spec.substr(0, colon) != point) return;
    static int passes = 0;
    const int at = colon == std::string::npos ? 1 : std::atoi(spec.c_str() + colon + 1);
    if (++passes < at) return;
#ifdef SIGKILL
    ::raise(SIGKILL);
#else
    std::_Exit(137);  // Windows has no SIGKILL: end at once, no destructors, no flush
#endif
}

DebugBatchCaps debug_batch_caps() {
    DebugBatchCaps caps;
    const char* text = std::getenv("LLMV_DEBUG_BATCH_CAPS");
    if (!text || !*text) return caps;
    unsigned long long requests = 0, inputs = 0, bytes = 0;
    if (std::sscanf(text, "%llu,%llu,%llu", &requests, &inputs, &bytes) >= 1) {
        caps.requests = static_cast<std::size_t>(requests);
        caps.embedding_inputs = static_cast<std::size_t>(inputs);
        caps.bytes = static_cast<std::size_t>(bytes);
    }
    return caps;
}

std::size_t debug_journal_bytes() {
    const char* text = std::getenv("LLMV_DEBUG_JOURNAL_BYTES");
    if (!text || !*text) return 0;
    return static_cast<std::size_t>(std::strtoull(text, nullptr, 10));
}

}  // namespace llmv::pipeline
