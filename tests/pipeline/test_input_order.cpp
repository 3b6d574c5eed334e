// Rows are handed on in input order whatever order passages finish in (issue 40: the batch-API
// CSV had rows 15 and 16 swapped against the synchronous one).
#include <catch2/catch.hpp>

#include <vector>

#include "pipeline/input_order.hpp"

using llmv::pipeline::InputOrder;
using llmv::pipeline::PassageResult;

namespace {
PassageResult finished(std::size_t index) {
    PassageResult result;
    result.index = index;
    return result;
}
}  // namespace

TEST_CASE("finished passages are handed on in input order, held no longer than needed",
          "[input-order]") {
    std::vector<std::size_t> emitted;
    InputOrder order([&](const PassageResult& result) { emitted.push_back(result.index); });
    order.add(finished(2));
    order.add(finished(1));
    CHECK(emitted.empty());
    CHECK(order.held() == 2);
    order.add(finished(0));
    CHECK(emitted == std::vector<std::size_t>{0, 1, 2});
    CHECK(order.held() == 0);
    order.add(finished(3));
    CHECK(emitted.back() == 3);
    order.add(finished(5));
    order.flush();  // 4 never finished: the rest still comes, in order
    CHECK(emitted == std::vector<std::size_t>{0, 1, 2, 3, 5});
}

TEST_CASE("a run's callbacks go through the order only when they take rows", "[input-order]") {
    std::vector<std::size_t> emitted;
    InputOrder order([&](const PassageResult& result) { emitted.push_back(result.index); });
    llmv::pipeline::BatchCallbacks none;
    CHECK_FALSE(llmv::pipeline::in_input_order(none, order).on_passage);
    llmv::pipeline::BatchCallbacks rows;
    rows.on_passage = [](const PassageResult&) {};
    const auto ordered = llmv::pipeline::in_input_order(rows, order);
    ordered.on_passage(finished(1));
    ordered.on_passage(finished(0));
    CHECK(emitted == std::vector<std::size_t>{0, 1});
}
