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

// The per-passage results (r(results), a single passage's r(), the generate() variables) come
// from each passage's record (records::PassageBrief in llmvalidate/records.hpp); the verdict
// codes are records::stata_verdict_code()'s.
void fill_results(Results& results, const std::vector<Outcome>& outcomes,
                  const stats::TestOptions& options, const std::vector<std::string>& labels,
                  bool generate, bool label_variable);

}  // namespace llmv::stata
