// Environment switches for benchmarks and debugging (debug_env.hpp).
#include "pipeline/debug_env.hpp"

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

}  // namespace llmv::pipeline
