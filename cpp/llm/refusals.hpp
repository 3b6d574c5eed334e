// Reading a vendor's 400 for the feature it refuses (ChatProvider::refused_feature). Each
// provider passes its own words for its request's fields; this file knows no vendor.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "llm/provider.hpp"

namespace llmv::detail {

// A request field as the vendor's messages name it ("tool_choice", "toolChoice",
// "output_config.format"), and the feature it stands for.
using FieldWords = std::vector<std::pair<std::string, RefusedFeature>>;

// The feature a 400's message refuses: the first field of `fields` (in order) the message
// names, when the message also says it is not taken ("not supported", "does not support",
// "unsupported", "is deprecated", "cannot both", ...). A field named with no such words (a value
// out of range, a malformed body) is no refusal: none.
RefusedFeature refused_field(const std::string& message, const FieldWords& fields);

}  // namespace llmv::detail
