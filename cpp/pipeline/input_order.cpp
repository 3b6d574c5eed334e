#include "pipeline/input_order.hpp"

namespace llmv::pipeline {

void InputOrder::add(const PassageResult& result) {
    if (result.index != next_) {
        held_.emplace(result.index, result);
        return;
    }
    emit_(result);
    ++next_;
    for (auto first = held_.begin(); first != held_.end() && first->first == next_;
         first = held_.begin()) {
        emit_(first->second);
        ++next_;
        held_.erase(first);
    }
}

void InputOrder::flush() {
    for (const auto& [index, result] : held_) {
        emit_(result);
        next_ = index + 1;
    }
    held_.clear();
}

BatchCallbacks in_input_order(const BatchCallbacks& callbacks, InputOrder& order) {
    BatchCallbacks ordered = callbacks;
    if (callbacks.on_passage)
        ordered.on_passage = [&order](const PassageResult& result) { order.add(result); };
    return ordered;
}

}  // namespace llmv::pipeline
