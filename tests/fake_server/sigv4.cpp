// AWS Signature Version 4 from the documented algorithm (canonical request, string to sign,
// derived signing key), with OpenSSL's HMAC-SHA256. Only the fake server links OpenSSL.
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include "fake_server.hpp"

namespace llmv::fake {

namespace {

std::string hex(const unsigned char* data, std::size_t size) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    out.reserve(size * 2);
    for (std::size_t i = 0; i < size; ++i) {
        out += digits[data[i] >> 4];
        out += digits[data[i] & 15];
    }
    return out;
}

std::string hmac(const std::string& key, const std::string& data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
    return std::string(reinterpret_cast<char*>(digest), length);
}

// RFC 3986 unreserved characters stay; everything else is %XX (upper-case hex), as SigV4 wants.
std::string uri_encode(const std::string& text, bool keep_slash) {
    static const char* digits = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
            (keep_slash && c == '/')) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += digits[c >> 4];
            out += digits[c & 15];
        }
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
        auto equals = part.find('=');
        std::string name = uri_decode(part.substr(0, equals));
        std::string value = equals == std::string::npos ? "" : uri_decode(part.substr(equals + 1));
        pairs.emplace_back(uri_encode(name, false), uri_encode(value, false));
    }
    std::sort(pairs.begin(), pairs.end());
    std::string out;
    for (const auto& [name, value] : pairs) out += (out.empty() ? "" : "&") + name + "=" + value;
    return out;
}

std::string canonical_header_value(const std::string& value) {
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

std::string sha256_hex(const std::string& data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
    return hex(digest, length);
}

std::string sigv4_canonical_request(const SigV4Input& input) {
    std::string canonical_headers, signed_headers;
    for (const auto& [name, value] : input.headers) {  // std::map: sorted by name
        canonical_headers += name + ":" + canonical_header_value(value) + "\n";
        signed_headers += (signed_headers.empty() ? "" : ";") + name;
    }
    auto payload = input.headers.find("x-amz-content-sha256");
    const std::string payload_hash =
        payload != input.headers.end() ? payload->second : sha256_hex(input.body);
    // Every service but S3 encodes the (already encoded) path once more.
    const std::string path = input.path.empty() ? "/" : input.path;
    const std::string canonical_uri = input.service == "s3" ? path : uri_encode(path, true);
    return input.method + "\n" + canonical_uri + "\n" + canonical_query(input.query) + "\n" +
           canonical_headers + "\n" + signed_headers + "\n" + payload_hash;
}

std::string sigv4_authorization(const SigV4Input& input) {
    const std::string date = input.amz_date.substr(0, 8);
    const std::string scope = date + "/" + input.region + "/" + input.service + "/aws4_request";
    const std::string string_to_sign = "AWS4-HMAC-SHA256\n" + input.amz_date + "\n" + scope + "\n" +
                                       sha256_hex(sigv4_canonical_request(input));
    const std::string key =
        hmac(hmac(hmac(hmac("AWS4" + input.secret_access_key, date), input.region), input.service),
             "aws4_request");
    const std::string signature = hmac(key, string_to_sign);
    std::string signed_headers;
    for (const auto& entry : input.headers)
        signed_headers += (signed_headers.empty() ? "" : ";") + entry.first;
    return "AWS4-HMAC-SHA256 Credential=" + input.access_key_id + "/" + scope +
           ", SignedHeaders=" + signed_headers + ", Signature=" +
           hex(reinterpret_cast<const unsigned char*>(signature.data()), signature.size());
}

}  // namespace llmv::fake
