// Rows in input order: a run finishes passages in any order (a short passage overtakes a long
// one, the batch API returns lines as it likes), and every front end writes rows as they come;
// this hands them on in input order, holding a finished passage only until those before it are
// done (the passages in flight at most, so memory stays bounded as the corpus grows).
#pragma once

#include <cstddef>
#include <functional>
#include <map>

#include "llmvalidate/pipeline.hpp"

namespace llmv::pipeline {

class InputOrder {
  public:
    explicit InputOrder(std::function<void(const PassageResult&)> emit) : emit_(std::move(emit)) {}
    // A finished passage: handed on now if every passage before it was, else held.
    void add(const PassageResult& result);
    // The end of the run: what is held, in input order (a passage that never finished, one
    // waiting for the batch API, leaves a gap).
    void flush();
    std::size_t held() const { return held_.size(); }

  private:
    std::function<void(const PassageResult&)> emit_;
    std::size_t next_ = 0;  // the index of the next row to hand on
    std::map<std::size_t, PassageResult> held_;
};

// `callbacks` with on_passage through `order` (none when it has no on_passage).
BatchCallbacks in_input_order(const BatchCallbacks& callbacks, InputOrder& order);

}  // namespace llmv::pipeline
