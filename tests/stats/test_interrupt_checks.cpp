// The tests' long loops look at the front end's interrupt check (llmvalidate/interrupt.hpp), the
// hook Stata's Break, R's interrupt and the CLI's SIGINT install, not only at the pipeline's
// flag: `llmvalidate test` and R's stand-alone tests run outside the pipeline (issue 42).
#include <catch2/catch.hpp>

#include <string>

#include "llmvalidate/error.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/standalone.hpp"
#include "llmvalidate/stats.hpp"

using namespace llmv::stats;

namespace {

// Runs `test` with an interrupt check that says "stop" from its `stop_at`-th call on; returns
// how many times the check was called, and whether the test stopped with llmv.cancelled.
template <class Test>
std::pair<int, bool> interrupted_at(int stop_at, Test test) {
    int calls = 0;
    bool cancelled = false;
    const llmv::ScopedInterruptCheck check([&] { return ++calls >= stop_at; });
    try {
        test();
    } catch (const llmv::Error& error) {
        cancelled = std::string(error.code()) == "llmv.cancelled";
    }
    return {calls, cancelled};
}

}  // namespace

TEST_CASE("a permutation test stops at the front end's interrupt check, before its draws end") {
    // Subset sums (4n >= d); 1,000,000 permutations would take seconds without a check.
    const Eigen::MatrixXd a = Eigen::MatrixXd::Random(30, 6);
    const Eigen::MatrixXd b = Eigen::MatrixXd::Random(30, 6).array() + 0.5;
    const auto [calls, cancelled] = interrupted_at(
        1, [&] { separation_test(a, b, 0.05, SeparationTestMethod::permutation, 1000000); });
    CHECK(cancelled);
    CHECK(calls == 1);
}

TEST_CASE("the Gram route stops at the interrupt check too, and runs to its end without one") {
    // 4n < d: the Gram matrix of the 2 x 8 texts.
    const Eigen::MatrixXd a = Eigen::MatrixXd::Random(8, 80);
    const Eigen::MatrixXd b = Eigen::MatrixXd::Random(8, 80).array() + 0.5;
    // The check is called at most every 50 ms: a second call needs the first to say no.
    const auto first = interrupted_at(
        1000, [&] { separation_test(a, b, 0.05, SeparationTestMethod::permutation, 999); });
    CHECK_FALSE(first.second);
    CHECK(first.first >= 1);
    const auto second = interrupted_at(
        1, [&] { separation_test(a, b, 0.05, SeparationTestMethod::permutation, 999); });
    CHECK(second.second);
    // No check installed: the same test runs to its end.
    llmv::set_interrupt_check(nullptr);
    CHECK_NOTHROW(separation_test(a, b, 0.05, SeparationTestMethod::permutation, 999));
}

TEST_CASE("run_tests stops at the interrupt check") {
    TestInput input;
    input.labels = {"A", "B"};
    input.label = "A";
    input.passage = Eigen::VectorXd::Random(6);
    input.pools["A"] = Eigen::MatrixXd::Random(25, 6);
    input.pools["B"] = Eigen::MatrixXd::Random(25, 6).array() + 0.5;
    input.options.permutations = 200000;
    const auto [calls, cancelled] = interrupted_at(1, [&] { run_tests(input); });
    CHECK(cancelled);
    CHECK(calls == 1);
}
