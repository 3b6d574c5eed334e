// HTTP statuses and the waits servers ask for: the one map from a final status to the engine's
// error code, the one list of transient statuses, and the one parser of the waits in
// Retry-After, retry-after-ms and the rate-limit reset headers. The
// transport (retries) and the providers (failure classification) both read these.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llmv {

// Statuses worth another try: 408, 429, 500, 502, 503, 504 and 529 (Anthropic: overloaded).
// 501, 505, ... are not transient.
const std::vector<long>& transient_statuses();
bool is_transient_status(long status);

// The stable error code for a final HTTP status (400 -> bad_request, 401/403 -> auth,
// 404 -> not_found, 408 -> server_error, 429 -> rate_limited, 5xx/529 -> server_error); "" for
// 2xx.
const char* error_code_for_status(long status);

// Parsing of the waits servers ask for. `now_epoch` is the wall clock in Unix seconds.
// Retry-After: delta-seconds ("120") or an HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT").
std::optional<double> parse_retry_after(const std::string& value, double now_epoch);
// Go-style durations as in x-ratelimit-reset-* headers: "1s", "6m0s", "250ms", "1h2m3.5s".
std::optional<double> parse_go_duration(const std::string& value);
// RFC 3339 timestamps as in <vendor>-ratelimit-*-reset headers, to Unix seconds.
std::optional<double> parse_rfc3339(const std::string& value);
// HTTP-date (IMF-fixdate, RFC 7231) to Unix seconds.
std::optional<double> parse_http_date(const std::string& value);

// The wait (seconds from now) a response asks for, from, in order of authority:
// Retry-After / retry-after-ms; else the reset headers of exhausted limits: every header named
// *ratelimit* with a "reset" part (x-ratelimit-reset-tokens, <vendor>-ratelimit-tokens-reset),
// where its partner with "remaining" in that place is 0, or all of them when none says which.
// The rule goes by the headers' shape, so a provider declares nothing here.
// Header names are lower-case (HttpResponse::headers). nullopt: the server asked nothing.
std::optional<double> server_requested_wait(const std::map<std::string, std::string>& headers,
                                            double now_epoch);

}  // namespace llmv
