#include "return_codes.hpp"

#include "llmvalidate/error.hpp"

namespace llmv::stata {

// Derived from the engine's error category (llmv::error_category), refined only where Stata
// has a more precise rc of its own (data errors, refused key, unreadable answer).
int return_code_for(const std::string& engine_code) {
    switch (error_category(engine_code)) {
        case ErrorCategory::usage: return kRcSyntax;
        case ErrorCategory::invalid_input:
            if (engine_code == code::invalid_embedding || engine_code == code::dimension_mismatch ||
                engine_code == code::pool_too_small)
                return kRcData;
            return kRcSyntax;
        case ErrorCategory::provider:
            if (engine_code == code::provider_auth) return 673;
            if (engine_code == code::provider_config) return kRcSyntax;
            if (engine_code == code::provider_unparseable ||
                engine_code == code::provider_malformed_response ||
                engine_code == code::provider_label_outside_set)
                return 674;
            return 675;
        case ErrorCategory::transport: return 677;
        case ErrorCategory::io: return kRcFile;
        case ErrorCategory::cancelled: return kRcBreak;
        case ErrorCategory::internal: return kRcInternal;
    }
    return kRcInternal;
}

}  // namespace llmv::stata
