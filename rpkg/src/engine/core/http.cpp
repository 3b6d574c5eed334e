#include "core/http.hpp"

namespace llmv {

std::string redact(std::string text, const std::vector<std::string>& secrets) {
    for (const auto& secret : secrets) {
        if (secret.size() < 4) continue;  // too short to be a credential; avoids mangling text
        for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
            text.replace(at, secret.size(), "<redacted>");
        }
    }
    return text;
}

}  // namespace llmv
