// The cache key (llmvalidate/cache.hpp): a versioned, length-prefixed serialization of its
// fields, and its SHA-256.
#include <string>

#include "core/sha256.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {

namespace {

void append_field(std::string& out, const char* name, const std::string& value) {
    out += name;
    out += ':';
    out += std::to_string(value.size());
    out += ':';
    out += value;
    out += '\n';
}

}  // namespace

std::string CacheKey::canonical() const {
    // Versioned and length-prefixed: no field can spill into the next, and a change of
    // format changes every key instead of silently colliding with old entries.
    std::string out = "llmvalidate-cache-key-v1\n";
    append_field(out, "provider", provider);
    append_field(out, "endpoint", endpoint);
    append_field(out, "model", model);
    std::string parameters_text;
    try {
        parameters_text = parameters.dump(-1, ' ', true, nlohmann::json::error_handler_t::strict);
    } catch (const nlohmann::json::exception& error) {
        throw_invalid(code::invalid_argument, "cache key parameters",
                      std::string("text that is not UTF-8 (") + error.what() + ")",
                      "valid UTF-8 JSON");
    }
    append_field(out, "parameters", parameters_text);
    append_field(out, "prompt", prompt);
    append_field(out, "draw_index", std::to_string(draw_index));
    append_field(out, "attempt", std::to_string(attempt));
    return out;
}

std::string CacheKey::hash() const { return sha256_hex(canonical()); }

}  // namespace llmv
