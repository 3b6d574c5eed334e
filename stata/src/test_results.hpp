// Turns the test outputs of one or many passages into the stored results of `llmvalidate`
// (r() scalars, macros, matrices and the generate() variables). Shared by `test` and
// `validate`, so both return the same names with the same meaning.
#pragma once

#include <string>
#include <vector>

#include "llmvalidate/stats.hpp"
#include "results.hpp"

namespace llmv::stata {

// One passage: `output` is null when it could not be validated (`error` says why); its
// results are then missing.
struct Outcome {
    int obs = 0;
    std::string label;  // β̂
    const stats::TestOutput* output = nullptr;
    std::string error;
};

// Verdict codes of the variable <prefix>verdict and of r(results)[., "verdict"]
// (value label llmv_verdict): 1 valid, 2 invalid, 3 inconclusive.
int verdict_code(stats::Verdict verdict);

void fill_results(Results& results, const std::vector<Outcome>& outcomes,
                  const stats::TestOptions& options, const std::vector<std::string>& labels,
                  bool generate, bool label_variable);

}  // namespace llmv::stata
