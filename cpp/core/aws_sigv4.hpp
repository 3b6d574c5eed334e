// AWS Signature Version 4 in plain C++ (SHA-256 and HMAC from FIPS 180-4 / RFC 2104), for
// transports that cannot rely on libcurl's CURLOPT_AWS_SIGV4: curl before 8.x signs the URL
// path as sent, while AWS encodes it once more, so Bedrock model ids with ':' (sent as %3A)
// fail with "signature does not match". No I/O; the caller passes the clock.
#pragma once

#include <ctime>
#include <string>

#include "core/http.hpp"
#include "core/sha256.hpp"  // sha256_hex

namespace llmv {

std::string hmac_sha256(const std::string& key, const std::string& data);  // raw 32 bytes

// Signs `request` as AWS documents for every service but S3: reads request.aws_sigv4
// ("aws:amz:<region>:<service>") and the aws_* credentials, adds Host, X-Amz-Date,
// X-Amz-Security-Token (when a session token is set) and Authorization headers (signing
// host, x-amz-date, content-type and the token), and clears request.aws_sigv4 so that the
// transport does not sign a second time. Sign just before sending: AWS rejects signatures
// older than about 15 minutes. Throws llmv::Error(provider_config) for a malformed spec.
void sign_aws_sigv4(HttpRequest& request, std::time_t unix_time);

}  // namespace llmv
