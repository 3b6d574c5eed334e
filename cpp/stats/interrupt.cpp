// The interrupt flag the tests' long loops look at (stats.hpp, InterruptScope).
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
    if (current_flag && current_flag->load())
        throw Error(code::cancelled, "interrupted while the tests were computed");
}

}  // namespace llmv::stats
