// The plain request/response values that pass between providers (cpp/llm/, which build
// and parse them and never open a socket) and the transport (cpp/transport/, the only code
// that includes curl).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llmv {

struct HttpRequest {
    std::string method = "POST";
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    // AWS Signature Version 4 scope, e.g. "aws:amz:us-east-1:bedrock"; empty: no signing. The
    // transport signs with the engine's signer (aws_sigv4.hpp) on every attempt, not libcurl's,
    // whose encoding of ':' in model ids Bedrock rejects. The provider reads the credentials from
    // the environment.
    std::string aws_sigv4;
    std::string aws_access_key_id;
    std::string aws_secret_access_key;
    std::string aws_session_token;  // sent as x-amz-security-token when set
    long connect_timeout_ms = 10000;
    long total_timeout_ms = 300000;
    // Non-empty: a 2xx response's body goes to this file (emptied at each attempt) instead of
    // HttpResponse::body, for downloads too large to hold in memory (a provider batch's results).
    // Other statuses keep their body in memory, for the message.
    std::string body_file;
    // Values that must never be printed (keys, tokens): redacted from every message and trace.
    std::vector<std::string> secrets;
};

struct HttpResponse {
    long status = 0;  // 0: the transport failed before a status (see transport_error)
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
    std::string transport_error;  // curl's message when status == 0
    double elapsed_seconds = 0;
};

// RFC 3986 percent-encoding of everything but the unreserved characters (a URL path segment, a
// query value, AWS's canonical URI); with `keep_slash`, '/' is kept (a whole path).
std::string percent_encode(const std::string& text, bool keep_slash = false);

// Replaces every secret in `text` with "<redacted>".
std::string redact(std::string text, const std::vector<std::string>& secrets);

// Whether a header carries a credential (Authorization, x-api-key, ...; any case).
bool is_credential_header(const std::string& name);

// Everything of a request that must never be printed or stored: the declared secrets, the AWS
// credentials, and the values of credential headers (also without a "Bearer " prefix),
// longest first.
std::vector<std::string> secrets_of(const HttpRequest& request);

}  // namespace llmv
