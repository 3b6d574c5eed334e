// The front end's interrupt check, declared once for the whole engine. Every wait of the
// engine (the transport's loop with its retry back-off, rate-limit waits and drain; the batch
// API's polls and the pauses between re-reads of a result file) calls interrupt_requested() at
// least once a second, so Ctrl-C, SIGTERM, R's interrupt and Stata's Break are seen during a
// 30 s poll interval as well as during a request. Each front end installs its own check for the
// duration of one command:
//   CLI   its SIGINT/SIGTERM flag;
//   R     R_CheckUserInterrupt(), through R_ToplevelExec() (it longjmps: no C++ frame may be
//         skipped);
//   Stata SF_poll().
// After an interrupt no new provider batch is submitted, what was received is cached, and the
// command ends with the cancel code (llmv.cancelled: CLI exit 130, R class
// llmvalidate_error_cancelled, Stata rc 1).
#pragma once

#include <atomic>
#include <functional>

namespace llmv {

// Returns true when the user asked to stop. It may consume the request (R's does): the
// engine latches the first true.
using InterruptCheck = std::function<bool()>;

// Installs `check` for the calling thread (process-wide; replaces any other) and clears a
// latched interrupt. The check is only ever called on that thread; other threads read the
// latch. An empty check removes it.
void set_interrupt_check(InterruptCheck check);

// True once the installed check said so (latched until the next set_interrupt_check()). The
// check itself is called at most every 50 ms (it may be costly: R_ToplevelExec).
bool interrupt_requested();

// `cancel` set (the callbacks' flag), or interrupt_requested().
bool cancel_requested(const std::atomic<bool>* cancel);

// Waits `seconds`, looking at cancel_requested(cancel) every 0.1 s; false when interrupted
// (at once, before waiting, if it already was).
bool interruptible_wait(double seconds, const std::atomic<bool>* cancel = nullptr);

// set_interrupt_check() for one scope; the check is removed at its end.
class ScopedInterruptCheck {
  public:
    explicit ScopedInterruptCheck(InterruptCheck check) { set_interrupt_check(std::move(check)); }
    ~ScopedInterruptCheck() { set_interrupt_check(nullptr); }
    ScopedInterruptCheck(const ScopedInterruptCheck&) = delete;
    ScopedInterruptCheck& operator=(const ScopedInterruptCheck&) = delete;
};

}  // namespace llmv
