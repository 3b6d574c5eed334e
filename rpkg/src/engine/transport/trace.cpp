// Trace lines for LLMV_DEBUG_TRANSPORT and the tests: what the transport did, one line per
// event, already redacted by the transport.
#include <cstdio>
#include <string>

#include "transport/transport.hpp"

namespace llmv {

std::string format_seconds(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f s", seconds);
    return text;
}

std::string format_trace(const TraceEvent& event) {
    std::string line;
    switch (event.kind) {
        case TraceEvent::Kind::request:
            line = "-> " + event.method + " " + event.url + " (job " + std::to_string(event.id) +
                   ", attempt " + std::to_string(event.attempt) + ")";
            for (const auto& [name, value] : event.headers) line += "\n   " + name + ": " + value;
            break;
        case TraceEvent::Kind::response:
            line = "<- " + (event.status ? std::to_string(event.status) : std::string("---")) +
                   " " + event.method + " " + event.url + " (job " + std::to_string(event.id) +
                   ", attempt " + std::to_string(event.attempt) + ", " +
                   format_seconds(event.elapsed_seconds) + ")";
            break;
        case TraceEvent::Kind::retry_scheduled:
            line = "~~ retry job " + std::to_string(event.id) + " in " +
                   format_seconds(event.wait_seconds);
            break;
        case TraceEvent::Kind::failed:
            line = "!! job " + std::to_string(event.id) + " failed";
            break;
        case TraceEvent::Kind::cancelled:
            line = "!! job " + std::to_string(event.id) + " cancelled";
            break;
    }
    if (!event.message.empty()) line += ": " + event.message;
    return line;
}

}  // namespace llmv
