// The method registries: a new method is one source file plus its entry here (its name, what
// the front ends show of it, and its function). Its name is also one of its setting's choices in
// settings/table.cpp (tests/stats/test_method_names.cpp checks the two agree).
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {

namespace {

struct Registry {
    std::vector<MethodInfo> info;
    std::map<std::string, ValidationMethod> validation;
    std::map<std::string, SeparationMethod> separation;
};

Registry& registry() {
    static Registry methods = [] {
        Registry r;
        r.info = {
            {"validation", "exact", "exact rank test",
             "The passage's mean cosine against the pool's leave-one-out scores: an exact p-value "
             "for any M.",
             NullDraws::pool},
            {"validation", "paper", "the paper's bootstrap",
             "The author's reference code: the critical value is the alpha-quantile of B further "
             "texts' scores.",
             NullDraws::reference},
            {"separation", "permutation", "permutation test",
             "The pools' labels permuted R times: an exact p-value for the mean cosine between "
             "them.",
             NullDraws::permutations},
            {"separation", "paper", "the paper's bootstrap",
             "The author's reference code: the critical value is the (1 - alpha)-quantile of B "
             "reference texts' scores; no p-value.",
             NullDraws::reference},
        };
        r.validation = {{"exact", detail::run_validation_exact},
                        {"paper", detail::run_validation_paper}};
        r.separation = {{"permutation", detail::run_separation_permutation},
                        {"paper", detail::run_separation_paper}};
        return r;
    }();
    return methods;
}

void put_info(const MethodInfo& info) {
    std::vector<MethodInfo>& all = registry().info;
    for (MethodInfo& entry : all) {
        if (entry.test == info.test && entry.name == info.name) {
            entry = info;
            return;
        }
    }
    // Validation methods before separation ones, each in the order registered.
    auto at = all.end();
    if (info.test == "validation") {
        at = all.begin();
        while (at != all.end() && at->test == "validation") ++at;
    }
    all.insert(at, info);
}

}  // namespace

const char* null_draws_symbol(NullDraws draws) {
    switch (draws) {
        case NullDraws::pool:
            return "M";
        case NullDraws::permutations:
            return "R";
        case NullDraws::reference:
            return "B";
    }
    return "M";
}

const std::map<std::string, ValidationMethod>& validation_methods() {
    return registry().validation;
}

const std::map<std::string, SeparationMethod>& separation_methods() {
    return registry().separation;
}

const std::vector<MethodInfo>& test_methods() { return registry().info; }

const MethodInfo* find_method(const std::string& test, const std::string& name) {
    for (const MethodInfo& info : registry().info)
        if (info.test == test && info.name == name) return &info;
    return nullptr;
}

bool draws_permutations(const TestOptions& options) {
    const MethodInfo* method = find_method("separation", options.separation_method);
    return method != nullptr && method->draws == NullDraws::permutations;
}

bool draws_reference(const TestOptions& options) {
    const MethodInfo* validation = find_method("validation", options.validation_method);
    const MethodInfo* separation = find_method("separation", options.separation_method);
    return (validation != nullptr && validation->draws == NullDraws::reference) ||
           (separation != nullptr && separation->draws == NullDraws::reference);
}

void register_validation_method(const MethodInfo& info, ValidationMethod method) {
    MethodInfo entry = info;
    entry.test = "validation";
    put_info(entry);
    registry().validation[entry.name] = std::move(method);
}

void register_separation_method(const MethodInfo& info, SeparationMethod method) {
    MethodInfo entry = info;
    entry.test = "separation";
    put_info(entry);
    registry().separation[entry.name] = std::move(method);
}

void remove_method(const std::string& test, const std::string& name) {
    std::vector<MethodInfo>& all = registry().info;
    for (auto it = all.begin(); it != all.end(); ++it) {
        if (it->test == test && it->name == name) {
            all.erase(it);
            break;
        }
    }
    if (test == "validation") registry().validation.erase(name);
    if (test == "separation") registry().separation.erase(name);
}

}  // namespace llmv::stats
