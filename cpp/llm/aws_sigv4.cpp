#include "llm/aws_sigv4.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "core/sha256.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {

namespace {

// Raw 32-byte digest from the engine's one SHA-256 (cpp/core/sha256.cpp).
std::string sha256(const std::string& data) {
    Sha256 hasher;
    hasher.update(data);
    const auto digest = hasher.digest();
    return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
}

std::string hex(const std::string& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string uri_decode(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() &&
            std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
            out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

std::string canonical_query(const std::string& query) {
    std::vector<std::pair<std::string, std::string>> pairs;
    std::stringstream stream(query);
    std::string part;
    while (std::getline(stream, part, '&')) {
        if (part.empty()) continue;
        const auto equals = part.find('=');
        pairs.emplace_back(percent_encode(uri_decode(part.substr(0, equals)), false),
                           equals == std::string::npos
                               ? ""
                               : percent_encode(uri_decode(part.substr(equals + 1)), false));
    }
    std::sort(pairs.begin(), pairs.end());
    std::string out;
    for (const auto& [name, value] : pairs) out += (out.empty() ? "" : "&") + name + "=" + value;
    return out;
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::string trim_value(const std::string& value) {
    std::string out;
    bool space = false;
    for (char c : value) {
        if (c == ' ' || c == '\t') {
            space = !out.empty();
        } else {
            if (space) out += ' ';
            space = false;
            out += c;
        }
    }
    return out;
}

}  // namespace

std::string hmac_sha256(const std::string& key, const std::string& data) {
    std::string block_key = key.size() > 64 ? sha256(key) : key;
    block_key.resize(64, '\0');
    std::string inner(64, '\0'), outer(64, '\0');
    for (int i = 0; i < 64; ++i) {
        inner[i] = static_cast<char>(block_key[i] ^ 0x36);
        outer[i] = static_cast<char>(block_key[i] ^ 0x5c);
    }
    return sha256(outer + sha256(inner + data));
}

AwsSigV4Signer::AwsSigV4Signer(std::string region, std::string service, AwsCredentials credentials)
    : region_(std::move(region)),
      service_(std::move(service)),
      credentials_(std::move(credentials)) {
    if (region_.empty() || service_.empty()) {
        throw_invalid(code::provider_config, "region", "\"" + region_ + "\"",
                      "a region and a service to sign for");
    }
    if (credentials_.access_key_id.empty() || credentials_.secret_access_key.empty()) {
        throw Error(code::provider_config,
                    "SigV4 signing needs an access key id and a secret access key");
    }
}

std::vector<std::string> AwsSigV4Signer::secrets() const {
    return {credentials_.access_key_id, credentials_.secret_access_key, credentials_.session_token};
}

std::string AwsSigV4Signer::scheme() const { return "AWS SigV4 " + region_ + " " + service_; }

void AwsSigV4Signer::sign(HttpRequest& request, std::time_t unix_time) const {
    const std::string& region = region_;
    const std::string& service = service_;
    // URL parts: scheme://host[:port]/path?query
    const auto scheme_end = request.url.find("://");
    const std::size_t host_start = scheme_end == std::string::npos ? 0 : scheme_end + 3;
    const std::size_t path_start =
        std::min(request.url.find_first_of("/?", host_start), request.url.size());
    std::string host = request.url.substr(host_start, path_start - host_start);
    const std::string scheme =
        scheme_end == std::string::npos ? "" : lower(request.url.substr(0, scheme_end));
    if ((scheme == "https" && host.size() > 4 && host.compare(host.size() - 4, 4, ":443") == 0) ||
        (scheme == "http" && host.size() > 3 && host.compare(host.size() - 3, 3, ":80") == 0)) {
        host = host.substr(0, host.rfind(':'));
    }
    const std::string rest = request.url.substr(path_start);
    const auto question = rest.find('?');
    std::string path = rest.substr(0, question);
    if (path.empty()) path = "/";
    const std::string query = question == std::string::npos ? "" : rest.substr(question + 1);

    char date_time[32];
    std::tm utc{};
#ifdef _WIN32
    gmtime_s(&utc, &unix_time);  // the Windows C runtime's thread-safe gmtime (arguments swapped)
#else
    gmtime_r(&unix_time, &utc);
#endif
    std::strftime(date_time, sizeof date_time, "%Y%m%dT%H%M%SZ", &utc);
    const std::string amz_date = date_time;
    const std::string date = amz_date.substr(0, 8);

    // Drop headers we set, then collect the ones to sign.
    auto& headers = request.headers;
    headers.erase(std::remove_if(headers.begin(), headers.end(),
                                 [](const auto& entry) {
                                     const std::string name = lower(entry.first);
                                     return name == "host" || name == "x-amz-date" ||
                                            name == "authorization" ||
                                            name == "x-amz-security-token";
                                 }),
                  headers.end());
    headers.emplace_back("Host", host);
    headers.emplace_back("X-Amz-Date", amz_date);
    if (!credentials_.session_token.empty())
        headers.emplace_back("X-Amz-Security-Token", credentials_.session_token);
    std::map<std::string, std::string> signed_values;
    for (const auto& [name, value] : headers) {
        const std::string key = lower(name);
        if (key == "host" || key == "x-amz-date" || key == "content-type" ||
            key == "x-amz-security-token") {
            signed_values[key] = trim_value(value);
        }
    }
    std::string canonical_headers, signed_headers;
    for (const auto& [name, value] : signed_values) {
        canonical_headers += name + ":" + value + "\n";
        signed_headers += (signed_headers.empty() ? "" : ";") + name;
    }
    const std::string canonical_request = request.method + "\n" + percent_encode(path, true) +
                                          "\n" + canonical_query(query) + "\n" + canonical_headers +
                                          "\n" + signed_headers + "\n" + sha256_hex(request.body);
    const std::string scope = date + "/" + region + "/" + service + "/aws4_request";
    const std::string string_to_sign =
        "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope + "\n" + sha256_hex(canonical_request);
    const std::string key = hmac_sha256(
        hmac_sha256(hmac_sha256(hmac_sha256("AWS4" + credentials_.secret_access_key, date), region),
                    service),
        "aws4_request");
    headers.emplace_back("Authorization",
                         "AWS4-HMAC-SHA256 Credential=" + credentials_.access_key_id + "/" + scope +
                             ", SignedHeaders=" + signed_headers +
                             ", Signature=" + hex(hmac_sha256(key, string_to_sign)));
}

}  // namespace llmv
