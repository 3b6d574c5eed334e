// The shape of a run (engine.hpp): calls a pool takes, a pool's size, the labels that draw
// reference texts for the paper's tests.
#include "pipeline/engine.hpp"

namespace llmv::pipeline {

int calls_for(int texts, int per_call) {
    return per_call <= 0 ? 0 : (texts + per_call - 1) / per_call;
}

bool draws_reference(const char* test, const std::string& name) {
    const stats::MethodInfo* method = stats::find_method(test, name);
    return method != nullptr && method->draws == stats::NullDraws::reference;
}

bool uses_paper_method(const ValidationConfig& config) {
    return stats::draws_reference(config.tests);
}

int pool_size(const ValidationConfig& config) {
    return uses_paper_method(config) && config.paper_n > 0 ? config.paper_n : config.m;
}

std::vector<std::string> reference_labels(const ValidationConfig& config,
                                          const std::vector<std::string>& labels,
                                          const std::string& beta) {
    std::vector<std::string> out;
    for (const std::string& label : labels) {
        const bool for_validation =
            draws_reference("validation", config.tests.validation_method) && label == beta;
        const bool for_separation =
            draws_reference("separation", config.tests.separation_method) && label != beta;
        if (for_validation || for_separation) out.push_back(label);
    }
    return out;
}

}  // namespace llmv::pipeline
