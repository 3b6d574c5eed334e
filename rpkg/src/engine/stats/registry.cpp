// The method registries: a new method is one source file plus one line here.
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {

const std::map<std::string, ValidationMethod>& validation_methods() {
    static const std::map<std::string, ValidationMethod> methods{
        {"exact", detail::run_validation_exact},
        {"paper", detail::run_validation_paper},
    };
    return methods;
}

const std::map<std::string, SeparationMethod>& separation_methods() {
    static const std::map<std::string, SeparationMethod> methods{
        {"permutation", detail::run_separation_permutation},
        {"paper", detail::run_separation_paper},
    };
    return methods;
}

}  // namespace llmv::stats
