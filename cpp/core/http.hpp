// The plain request/response values that pass between providers (cpp/llm/, which build
// and parse them and never open a socket) and the transport (cpp/transport/, the only code
// that includes curl).
#pragma once

#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmv {

struct HttpRequest;

// A request signature the provider attaches (Bedrock's SigV4, cpp/llm/aws_sigv4.hpp) and the
// transport applies on every attempt, to a copy of the request just before it goes out: some
// signatures carry the time and expire (AWS refuses ones older than about 15 minutes), so a
// retry is signed anew. The transport knows no scheme, only this interface.
class RequestSigner {
  public:
    virtual ~RequestSigner() = default;
    // Adds the signature's headers to `request` as of `unix_time`; throws llmv::Error
    // (provider_config) when it cannot sign.
    virtual void sign(HttpRequest& request, std::time_t unix_time) const = 0;
    // The values the signature is made with, never to be printed (redacted everywhere).
    virtual std::vector<std::string> secrets() const = 0;
    // The scheme for traces and descriptions, e.g. "AWS SigV4 eu-west-1 bedrock"; no secret.
    virtual std::string scheme() const = 0;
};

struct HttpRequest {
    std::string method = "POST";
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    // Set by a provider whose requests are signed at send time (see RequestSigner); null: the
    // headers above are the whole authentication.
    std::shared_ptr<const RequestSigner> signer;
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

// Replaces every secret in `text`, and the credentials of every URL in it
// (text::without_url_credentials), with "<redacted>".
std::string redact(std::string text, const std::vector<std::string>& secrets);

// Whether a header carries a credential (Authorization, x-api-key, ...; any case).
bool is_credential_header(const std::string& name);

// `request` as it goes out: signed by its signer as of `unix_time`, the signer then dropped so
// that nothing signs it twice. A request without a signer is unchanged.
void sign_request(HttpRequest& request, std::time_t unix_time);

// Everything of a request that must never be printed or stored: the declared secrets, the
// signer's, and the values of credential headers (also without a "Bearer " prefix),
// longest first.
std::vector<std::string> secrets_of(const HttpRequest& request);

}  // namespace llmv
