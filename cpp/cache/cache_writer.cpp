#include "cache/cache_writer.hpp"

#include "llmvalidate/error.hpp"

namespace llmv {

CacheWriter::CacheWriter(const std::string& path, int busy_timeout_ms, const std::atomic<bool>* cancel)
    : cache_(path, busy_timeout_ms) {
    if (cancel) cache_.end_waits_on(cancel);
    thread_ = std::thread([this] { loop(); });
}

CacheWriter::~CacheWriter() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    work_ready_.notify_all();
    thread_.join();
}

std::uint64_t CacheWriter::submit(Batch batch) {
    std::uint64_t number = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        number = ++submitted_;
        queue_.emplace_back(number, std::move(batch));
    }
    work_ready_.notify_one();
    return number;
}

std::vector<CacheWriter::Written> CacheWriter::take_written() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Written> written = std::move(written_);
    written_.clear();
    return written;
}

std::vector<CacheWriter::Written> CacheWriter::wait_all() {
    std::unique_lock<std::mutex> lock(mutex_);
    work_done_.wait(lock, [this] { return finished_ == submitted_; });
    std::vector<Written> written = std::move(written_);
    written_.clear();
    return written;
}

void CacheWriter::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
        work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and everything is written
        // Everything queued goes in one transaction: the longer a write took, the more the
        // next one carries, so the writer keeps up at any rate.
        std::deque<std::pair<std::uint64_t, Batch>> taken;
        taken.swap(queue_);
        lock.unlock();
        Batch combined;
        combined.secrets = std::move(taken.back().second.secrets);  // secrets only grow
        for (auto& [number, batch] : taken) {
            for (auto& entry : batch.entries) combined.entries.push_back(std::move(entry));
            for (auto& hash : batch.key_hashes) combined.key_hashes.push_back(std::move(hash));
        }
        Written outcome;
        try {
            cache_.put_many(combined.entries, combined.secrets, combined.key_hashes);
        } catch (const Error& error) {
            outcome.ok = false;
            outcome.code = error.code();
            outcome.message = error.what();
        } catch (const std::exception& error) {
            outcome.ok = false;
            outcome.code = code::cache;
            outcome.message = error.what();
        }
        lock.lock();
        for (const auto& [number, batch] : taken) {
            outcome.batch = number;
            written_.push_back(outcome);
        }
        if (!outcome.ok) {
            written_.back().unwritten = std::move(combined.entries);
            written_.back().unwritten_hashes = std::move(combined.key_hashes);
        }
        finished_ = taken.back().first;
        work_done_.notify_all();
    }
}

}  // namespace llmv
