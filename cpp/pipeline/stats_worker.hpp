// The statistical tests of finished passages on a thread of their own (private to
// cpp/pipeline/). At M = 100 and 1,536 dimensions
// one passage's tests take tens of milliseconds; on the thread that drives curl they stalled
// every request in flight. The worker takes the inputs in order and gives the outcomes back in
// the same order; the scheduler collects them on its own thread, where the passage is
// finished and reported as before. The numbers are those of
// stats::run_tests() on the same input, whichever thread computes them.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "llmvalidate/stats.hpp"
#include "pipeline/passage_flow.hpp"

namespace llmv::pipeline {

class StatsWorker {
  public:
    StatsWorker();
    ~StatsWorker();  // stops after the test running now; the outcomes not taken are dropped
    StatsWorker(const StatsWorker&) = delete;
    StatsWorker& operator=(const StatsWorker&) = delete;

    void submit(std::uint64_t ticket, stats::TestInput input);
    // The outcomes ready so far, in the order submitted.
    std::vector<std::pair<std::uint64_t, TestOutcome>> take_done();
    // Submitted and not yet taken.
    std::size_t pending() const;
    // Returns when an outcome is ready or after `seconds`.
    void wait(double seconds);

  private:
    void loop();

    mutable std::mutex mutex_;
    std::condition_variable work_ready_;
    std::condition_variable outcome_ready_;
    std::deque<std::pair<std::uint64_t, stats::TestInput>> inputs_;
    std::vector<std::pair<std::uint64_t, TestOutcome>> done_;
    std::size_t pending_ = 0;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace llmv::pipeline
