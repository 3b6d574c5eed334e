// A run's answers in memory, without a cache (run_memo.hpp).
#include "pipeline/run_memo.hpp"

namespace llmv::pipeline {

RunMemo::RunMemo(std::size_t budget_bytes) : budget_bytes_(budget_bytes) {}

std::size_t RunMemo::bytes_of(const Entry& entry) {
    // The map's node and the list's node, roughly, besides the strings and the vector.
    return 2 * entry.first.size() + entry.second.text.size() +
           entry.second.vector.size() * sizeof(float) + 160;
}

const MemoAnswer* RunMemo::find(const std::string& hash) {
    const auto found = index_.find(hash);
    if (found == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, found->second);
    return &found->second->second;
}

void RunMemo::keep(const std::string& hash, MemoAnswer answer) {
    if (const auto found = index_.find(hash); found != index_.end()) {
        bytes_ -= bytes_of(*found->second);
        order_.erase(found->second);
        index_.erase(found);
    }
    order_.emplace_front(hash, std::move(answer));
    index_[hash] = order_.begin();
    bytes_ += bytes_of(order_.front());
    while (bytes_ > budget_bytes_ && order_.size() > 1) {
        bytes_ -= bytes_of(order_.back());
        index_.erase(order_.back().first);
        order_.pop_back();
    }
}

}  // namespace llmv::pipeline
