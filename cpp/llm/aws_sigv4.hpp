// AWS Signature Version 4 in plain C++ (SHA-256 and HMAC from FIPS 180-4 / RFC 2104), for
// transports that cannot rely on libcurl's CURLOPT_AWS_SIGV4: curl before 8.x signs the URL
// path as sent, while AWS encodes it once more, so Bedrock model ids with ':' (sent as %3A)
// fail with "signature does not match". No I/O; the caller passes the clock.
// Bedrock's signer: the provider attaches it to each request (HttpRequest::signer) and the
// transport applies it at send time, on every attempt, without knowing the scheme.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "core/http.hpp"
#include "core/sha256.hpp"  // sha256_hex

namespace llmv {

std::string hmac_sha256(const std::string& key, const std::string& data);  // raw 32 bytes

struct AwsCredentials {
    std::string access_key_id;
    std::string secret_access_key;
    std::string session_token;  // sent (and signed) as X-Amz-Security-Token when set
};

// Signs requests as AWS documents for every service but S3: adds Host, X-Amz-Date,
// X-Amz-Security-Token (when a session token is set) and Authorization headers (signing host,
// x-amz-date, content-type and the token), replacing any earlier signature. Sign just before
// sending: AWS rejects signatures older than about 15 minutes. Throws
// llmv::Error(provider_config) for an empty region or service or missing keys.
class AwsSigV4Signer : public RequestSigner {
  public:
    AwsSigV4Signer(std::string region, std::string service, AwsCredentials credentials);
    void sign(HttpRequest& request, std::time_t unix_time) const override;
    std::vector<std::string> secrets() const override;
    std::string scheme() const override;  // "AWS SigV4 <region> <service>"

    const std::string& region() const { return region_; }
    const std::string& service() const { return service_; }
    const AwsCredentials& credentials() const { return credentials_; }

  private:
    std::string region_;
    std::string service_;
    AwsCredentials credentials_;
};

}  // namespace llmv
