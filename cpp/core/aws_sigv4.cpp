#include "llmvalidate/aws_sigv4.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <vector>

#include "llmvalidate/error.hpp"

namespace llmv {

namespace {

std::uint32_t rotate_right(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

// The first 32 bits of the fractional parts of the square (initial hash) and cube (round
// constants) roots of the first primes, computed rather than typed (FIPS 180-4, 4.2.2/5.3.3).
struct Sha256Constants {
    std::array<std::uint32_t, 8> initial{};
    std::array<std::uint32_t, 64> rounds{};
    Sha256Constants() {
        std::vector<int> primes;
        for (int candidate = 2; primes.size() < 64; ++candidate) {
            bool prime = true;
            for (int p : primes) {
                if (p * p > candidate) break;
                if (candidate % p == 0) prime = false;
            }
            if (prime) primes.push_back(candidate);
        }
        auto fraction_bits = [](long double root) {
            const long double fraction = root - std::floor(root);
            return static_cast<std::uint32_t>(std::floor(fraction * 4294967296.0L));
        };
        for (int i = 0; i < 8; ++i)
            initial[i] = fraction_bits(std::sqrt(static_cast<long double>(primes[i])));
        for (int i = 0; i < 64; ++i)
            rounds[i] = fraction_bits(std::cbrt(static_cast<long double>(primes[i])));
    }
};

const Sha256Constants& constants() {
    static const Sha256Constants instance;
    return instance;
}

std::string sha256(const std::string& data) {
    const auto& k = constants().rounds;
    std::array<std::uint32_t, 8> h = constants().initial;
    std::string message = data;
    const std::uint64_t bit_length = static_cast<std::uint64_t>(data.size()) * 8;
    message += static_cast<char>(0x80);
    while (message.size() % 64 != 56) message += static_cast<char>(0);
    for (int shift = 56; shift >= 0; shift -= 8)
        message += static_cast<char>((bit_length >> shift) & 0xff);
    std::array<std::uint32_t, 64> w{};
    for (std::size_t block = 0; block < message.size(); block += 64) {
        for (int t = 0; t < 16; ++t) {
            w[t] = 0;
            for (int b = 0; b < 4; ++b) {
                w[t] = (w[t] << 8) | static_cast<unsigned char>(message[block + 4 * t + b]);
            }
        }
        for (int t = 16; t < 64; ++t) {
            const std::uint32_t s0 =
                rotate_right(w[t - 15], 7) ^ rotate_right(w[t - 15], 18) ^ (w[t - 15] >> 3);
            const std::uint32_t s1 =
                rotate_right(w[t - 2], 17) ^ rotate_right(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6],
                      hh = h[7];
        for (int t = 0; t < 64; ++t) {
            const std::uint32_t sum1 =
                rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
            const std::uint32_t choose = (e & f) ^ (~e & g);
            const std::uint32_t temp1 = hh + sum1 + choose + k[t] + w[t];
            const std::uint32_t sum0 =
                rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
            const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
            const std::uint32_t temp2 = sum0 + majority;
            hh = g;
            g = f;
            f = e;
            e = d + temp1;
            d = c;
            c = b;
            b = a;
            a = temp1 + temp2;
        }
        h[0] += a;
        h[1] += b;
        h[2] += c;
        h[3] += d;
        h[4] += e;
        h[5] += f;
        h[6] += g;
        h[7] += hh;
    }
    std::string digest;
    for (std::uint32_t word : h) {
        for (int shift = 24; shift >= 0; shift -= 8)
            digest += static_cast<char>((word >> shift) & 0xff);
    }
    return digest;
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
        const auto equals = part.find('=');
        pairs.emplace_back(uri_encode(uri_decode(part.substr(0, equals)), false),
                           equals == std::string::npos
                               ? ""
                               : uri_encode(uri_decode(part.substr(equals + 1)), false));
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

std::string sha256_hex(const std::string& data) { return hex(sha256(data)); }

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

void sign_aws_sigv4(HttpRequest& request, std::time_t unix_time) {
    // "aws:amz:<region>:<service>"
    const std::string& spec = request.aws_sigv4;
    std::vector<std::string> parts;
    std::stringstream stream(spec);
    std::string part;
    while (std::getline(stream, part, ':')) parts.push_back(part);
    if (parts.size() != 4 || parts[0] != "aws" || parts[1] != "amz" || parts[2].empty() ||
        parts[3].empty()) {
        throw_invalid(code::provider_config, "aws_sigv4", "\"" + spec + "\"",
                      "\"aws:amz:<region>:<service>\"");
    }
    const std::string region = parts[2], service = parts[3];
    if (request.aws_access_key_id.empty() || request.aws_secret_access_key.empty()) {
        throw Error(code::provider_config,
                    "SigV4 signing needs an access key id and a secret access key");
    }

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
    gmtime_r(&unix_time, &utc);
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
    if (!request.aws_session_token.empty())
        headers.emplace_back("X-Amz-Security-Token", request.aws_session_token);
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
    const std::string canonical_request = request.method + "\n" + uri_encode(path, true) + "\n" +
                                          canonical_query(query) + "\n" + canonical_headers + "\n" +
                                          signed_headers + "\n" + sha256_hex(request.body);
    const std::string scope = date + "/" + region + "/" + service + "/aws4_request";
    const std::string string_to_sign =
        "AWS4-HMAC-SHA256\n" + amz_date + "\n" + scope + "\n" + sha256_hex(canonical_request);
    const std::string key = hmac_sha256(
        hmac_sha256(hmac_sha256(hmac_sha256("AWS4" + request.aws_secret_access_key, date), region),
                    service),
        "aws4_request");
    headers.emplace_back("Authorization",
                         "AWS4-HMAC-SHA256 Credential=" + request.aws_access_key_id + "/" + scope +
                             ", SignedHeaders=" + signed_headers +
                             ", Signature=" + hex(hmac_sha256(key, string_to_sign)));
    request.aws_sigv4.clear();
}

}  // namespace llmv
