// Reading a 400 for the feature it refuses (refusals.hpp).
#include "llm/refusals.hpp"

#include <algorithm>
#include <cctype>

namespace llmv::detail {

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

}  // namespace

RefusedFeature refused_field(const std::string& message, const FieldWords& fields) {
    const std::string text = lower(message);
    static const char* const refusing[] = {
        "not supported", "unsupported",   "does not support", "doesn't support", "not available",
        "not allowed",   "cannot both",   "can't both",       "cannot be used",  "is deprecated",
        "not permitted", "only supports", "only the default"};
    bool refuses = false;
    for (const char* words : refusing) refuses = refuses || text.find(words) != std::string::npos;
    if (!refuses) return RefusedFeature::none;
    for (const auto& [field, feature] : fields) {
        if (text.find(lower(field)) != std::string::npos) return feature;
    }
    return RefusedFeature::none;
}

}  // namespace llmv::detail
