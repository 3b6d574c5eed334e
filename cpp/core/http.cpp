#include "core/http.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "llmvalidate/text.hpp"

namespace llmv {

namespace {

std::string lower(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

}  // namespace

std::string percent_encode(const std::string& text, bool keep_slash) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
            (keep_slash && c == '/')) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::string redact(std::string text, const std::vector<std::string>& secrets) {
    text = text::without_url_credentials(std::move(text));  // http://user:PASS@host
    for (const auto& secret : secrets) {
        if (secret.size() < 4) continue;  // too short to be a credential; avoids mangling text
        for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
            text.replace(at, secret.size(), "<redacted>");
        }
    }
    return text;
}

bool is_credential_header(const std::string& name) {
    static const std::set<std::string> names = {
        "authorization",  "proxy-authorization",  "x-api-key", "api-key",
        "x-goog-api-key", "x-amz-security-token", "cookie",    "ocp-apim-subscription-key"};
    return names.count(lower(name)) > 0;
}

void sign_request(HttpRequest& request, std::time_t unix_time) {
    if (!request.signer) return;
    const std::shared_ptr<const RequestSigner> signer = std::move(request.signer);
    request.signer.reset();
    signer->sign(request, unix_time);
}

std::vector<std::string> secrets_of(const HttpRequest& request) {
    std::vector<std::string> secrets = request.secrets;
    if (request.signer) {
        for (auto& secret : request.signer->secrets()) {
            if (!secret.empty()) secrets.push_back(std::move(secret));
        }
    }
    for (const auto& [name, value] : request.headers) {
        if (!is_credential_header(name)) continue;
        const std::string cleaned = text::trim(value);
        secrets.push_back(cleaned);
        const auto space = cleaned.find(' ');
        if (space != std::string::npos) secrets.push_back(text::trim(cleaned.substr(space + 1)));
    }
    // Longest first, so that a secret containing another is redacted whole.
    std::sort(secrets.begin(), secrets.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    return secrets;
}

}  // namespace llmv
