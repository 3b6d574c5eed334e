#include "return_codes.hpp"

#include <map>

#include "llmvalidate/error.hpp"

namespace llmv::stata {

int return_code_for(const std::string& engine_code) {
    static const std::map<std::string, int> table = {
        {code::invalid_argument, kRcSyntax},
        {code::unknown_label, kRcSyntax},
        {code::malformed_json, kRcSyntax},
        {code::task_invalid, kRcSyntax},
        {code::provider_config, kRcSyntax},
        {code::invalid_embedding, kRcData},
        {code::dimension_mismatch, kRcData},
        {code::pool_too_small, kRcData},
        {code::cancelled, kRcBreak},
        {code::io, kRcFile},
        {code::cache, kRcFile},
        {code::transport, 677},
        {code::timeout, 677},
        {code::provider_auth, 673},
        {code::provider_rate_limited, 675},
        {code::provider_bad_request, 675},
        {code::provider_not_found, 675},
        {code::provider_server, 675},
        {code::provider_unparseable, 674},
        {code::internal, kRcInternal},
    };
    const auto found = table.find(engine_code);
    return found == table.end() ? kRcInternal : found->second;
}

}  // namespace llmv::stata
