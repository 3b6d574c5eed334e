// The interrupt flag the tests' long loops look at (stats.hpp, InterruptScope), and the front
// end's interrupt check (llmvalidate/interrupt.hpp: Stata's Break, R's interrupt, the CLI's
// SIGINT), so that a test run outside the pipeline (llmvalidate test, R's stand-alone tests)
// stops too. The loops call check_interrupt() a few milliseconds of work apart: the
// permutation draws, each block of permutations and each chunk of coordinates in it, each
// panel of a Gram matrix (separation_permutation.cpp); interrupt_requested() calls the front
// end's check at most every 50 ms.
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"

namespace llmv::stats {

namespace {
thread_local const std::atomic<bool>* current_flag = nullptr;
}

InterruptScope::InterruptScope(const std::atomic<bool>* flag) : previous_(current_flag) {
    current_flag = flag;
}

InterruptScope::~InterruptScope() { current_flag = previous_; }

void check_interrupt() {
    if ((current_flag && current_flag->load()) || interrupt_requested())
        throw Error(code::cancelled, "interrupted while the tests were computed");
}

}  // namespace llmv::stats
