#include "terminal.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/interrupt.hpp"

namespace llmv::cli {

namespace {

std::atomic<bool> interrupt_flag{false};
volatile std::sig_atomic_t interrupt_signal = 0;

// The first SIGINT or SIGTERM starts the drain (the flag); a second one ends the process at
// once, with the exit status of the first. Nothing received is lost by that: every answer is
// in the cache's journal before it counts (cache_buffer.hpp), and the next run adds it.
extern "C" void on_interrupt(int signal_number) {
    if (interrupt_signal != 0) {
        static const char note[] =
            "\nllmvalidate: stopped at once; the answers received are kept in the cache's journal, "
            "which the next run with this cache adds to it\n";
        const ssize_t ignored = ::write(STDERR_FILENO, note, sizeof note - 1);  // async-signal-safe
        (void)ignored;
        ::_exit(interrupt_signal == SIGTERM ? exit_terminated : exit_cancelled);
    }
    interrupt_signal = signal_number;
    interrupt_flag.store(true);
}

}  // namespace

std::atomic<bool>* install_interrupt_flag() {
    interrupt_flag.store(false);
    interrupt_signal = 0;
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    // The engine's waits (batch polls, back-off) read the same flag through its interrupt check.
    set_interrupt_check([] { return interrupt_flag.load(); });
    return &interrupt_flag;
}

int interrupted_exit_code() {
    return interrupt_signal == SIGTERM ? exit_terminated : exit_cancelled;
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

ProgressBar::ProgressBar(bool enabled) : enabled_(enabled) {}

void ProgressBar::update(const pipeline::Progress& progress) {
    if (!enabled_) return;
    const double share = progress.calls_total > 0 ? static_cast<double>(progress.calls_done) /
                                                        static_cast<double>(progress.calls_total)
                                                  : 0.0;
    const int width = 24;
    const int filled = static_cast<int>(share * width + 0.5);
    std::string bar(static_cast<std::size_t>(std::max(0, std::min(width, filled))), '#');
    bar.resize(width, '-');
    std::ostringstream line;
    line << "\r[" << bar << "] " << std::setw(3) << static_cast<int>(share * 100 + 0.5) << "%  "
         << progress.calls_done << "/" << progress.calls_total << " calls, " << progress.cache_hits
         << " cached, " << progress.retries << " retries, "
         << (progress.input_tokens + progress.output_tokens) << " tokens, passages "
         << progress.passages_done;
    if (progress.passages_total > 0) line << "/" << progress.passages_total;
    if (progress.eta_seconds >= 0)
        line << ", ETA " << static_cast<long>(progress.eta_seconds + 0.5) << " s";
    line << "   ";
    std::cerr << line.str() << std::flush;
    drawn_ = true;
}

void ProgressBar::finish() {
    if (enabled_ && drawn_) std::cerr << "\n" << std::flush;
    drawn_ = false;
}

void print_warning(const std::string& text) { std::cerr << "Warning: " << text << "\n"; }

void print_run_warning(const pipeline::RunWarning& warning) { print_warning(warning.text); }

void warn_unwritten(const pipeline::BatchResult& batch, const std::string& cache_path) {
    if (batch.unwritten_file.empty()) return;
    const std::string& reason = batch.unwritten_reason;
    const std::string what =
        !batch.cache_stopped  // only a lock: the run went on
            ? "stayed " + (reason.empty() ? std::string("locked by another process") : reason)
            : "could not be written: " + reason;
    std::cerr << "Warning: the cache " << cache_path << " " << what << ", so "
              << batch.unwritten_answers << " answers paid for were written to "
              << batch.unwritten_file
              << " instead; the next run with this cache adds them first, or add them now "
                 "with: llmvalidate cache --cache "
              << cache_path << " --import " << batch.unwritten_file << "\n";
    if (batch.cache_stopped) {
        std::cerr
            << "No new request was sent after that write failed; once the cache can be written, "
               "the import and the same command again pay only for what is missing.\n";
    }
}

void Failures::add(const pipeline::RunOutcome& outcome) {
    count += outcome.failed;
    if (side_file.empty()) side_file = outcome.result.unwritten_file;
    if (!first_code.empty() || !outcome.first_failure) return;
    first_code = outcome.first_failure->code;
    first_message = outcome.first_failure->message;
}

int exit_code_for(const pipeline::RunOutcome& outcome) {
    Failures failures;
    failures.add(outcome);
    return exit_code_for_results(outcome.status == pipeline::RunStatus::cancelled, failures);
}

int exit_code_for_results(bool cancelled, const Failures& failures) {
    const std::string& first_error_code = failures.first_code;
    const std::string& first_error_message = failures.first_message;
    const std::size_t failed = failures.count;
    if (cancelled) {
        const bool term = interrupt_signal == SIGTERM;
        // Drained into the cache, or (the cache locked) into a side file the next run adds.
        const std::string kept =
            failures.side_file.empty()
                ? "the requests in flight were drained into the cache"
                : "the answers the cache could not take are in " + failures.side_file +
                      ", which the next run with this cache adds to it first";
        print_error(code::cancelled, std::string("interrupted (") + (term ? "SIGTERM" : "SIGINT") +
                                         "): no new request was started and " + kept +
                                         "; a re-run with the same cache resumes without "
                                         "repeating a call.");
        return interrupted_exit_code();
    }
    if (first_error_code.empty()) return exit_ok;
    print_error(first_error_code,
                first_error_message + (failed > 1 ? " (" + std::to_string(failed - 1) +
                                                        " more passage(s) failed; see the rows)"
                                                  : ""));
    return exit_code_for(first_error_code);
}

}  // namespace llmv::cli
