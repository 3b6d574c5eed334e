// The tests' worker thread (stats_worker.hpp).
#include "pipeline/stats_worker.hpp"

#include <chrono>

namespace llmv::pipeline {

StatsWorker::StatsWorker() : thread_([this] { loop(); }) {}

StatsWorker::~StatsWorker() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    work_ready_.notify_all();
    thread_.join();
}

void StatsWorker::submit(std::uint64_t ticket, stats::TestInput input) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        inputs_.emplace_back(ticket, std::move(input));
        ++pending_;
    }
    work_ready_.notify_one();
}

std::vector<std::pair<std::uint64_t, TestOutcome>> StatsWorker::take_done() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::pair<std::uint64_t, TestOutcome>> out;
    out.swap(done_);
    pending_ -= out.size();
    return out;
}

std::size_t StatsWorker::pending() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return pending_;
}

void StatsWorker::wait(double seconds) {
    std::unique_lock<std::mutex> lock(mutex_);
    outcome_ready_.wait_for(lock, std::chrono::duration<double>(seconds),
                            [this] { return !done_.empty(); });
}

void StatsWorker::loop() {
    for (;;) {
        std::pair<std::uint64_t, stats::TestInput> work;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            work_ready_.wait(lock, [this] { return stop_ || !inputs_.empty(); });
            if (stop_) return;
            work = std::move(inputs_.front());
            inputs_.pop_front();
        }
        TestOutcome outcome = run_passage_tests(work.second);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_.emplace_back(work.first, std::move(outcome));
        }
        outcome_ready_.notify_all();
    }
}

}  // namespace llmv::pipeline
