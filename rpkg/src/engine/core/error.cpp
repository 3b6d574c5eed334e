#include "llmvalidate/error.hpp"

namespace llmv {

void throw_invalid(const std::string& error_code, const std::string& argument,
                   const std::string& received, const std::string& allowed) {
    throw Error(error_code, "`" + argument + "` must be " + allowed + "; received " + received + ".");
}

std::string abbreviate(const std::string& value, std::size_t max_chars) {
    if (value.size() <= max_chars) return value;
    return value.substr(0, max_chars) + "...";
}

}  // namespace llmv
