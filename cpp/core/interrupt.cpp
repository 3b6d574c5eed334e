// The front end's interrupt check (llmvalidate/interrupt.hpp).
#include "llmvalidate/interrupt.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

namespace llmv {

namespace {

struct InterruptState {
    std::mutex mutex;
    InterruptCheck check;
    std::thread::id owner;
    std::chrono::steady_clock::time_point last_call{};
    std::atomic<bool> latched{false};
};

InterruptState& state() {
    static InterruptState instance;
    return instance;
}

}  // namespace

void set_interrupt_check(InterruptCheck check) {
    InterruptState& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.check = std::move(check);
    s.owner = std::this_thread::get_id();
    s.last_call = {};
    s.latched = false;
}

bool interrupt_requested() {
    InterruptState& s = state();
    if (s.latched.load()) return true;
    InterruptCheck check;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        // Only the installing thread may call it (R and Stata allow no other).
        if (!s.check || s.owner != std::this_thread::get_id()) return false;
        const auto now = std::chrono::steady_clock::now();
        if (now - s.last_call < std::chrono::milliseconds(50)) return false;
        s.last_call = now;
        check = s.check;
    }
    if (check()) s.latched = true;
    return s.latched.load();
}

bool cancel_requested(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load()) return true;
    return interrupt_requested();
}

bool interruptible_wait(double seconds, const std::atomic<bool>* cancel) {
    using clock = std::chrono::steady_clock;
    const auto end = clock::now() + std::chrono::duration_cast<clock::duration>(
                                        std::chrono::duration<double>(std::max(0.0, seconds)));
    for (;;) {
        if (cancel_requested(cancel)) return false;
        const auto now = clock::now();
        if (now >= end) return true;
        std::this_thread::sleep_for(
            std::min<clock::duration>(end - now, std::chrono::milliseconds(100)));
    }
}

}  // namespace llmv
