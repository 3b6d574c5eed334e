// Break inside `llmvalidate test`'s computations (issue 42, item 12): the permutation draws, the
// blocks of permutations and the Gram matrix look at Break through the engine's interrupt check,
// which the `test` subcommand installs as `validate` does. Before, Break was seen only between
// passages: one passage with permutations(1000000) ran to its end and stored its results.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fake_stata.hpp"
#include "fixtures.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

std::vector<std::string> test_words(int dim, int permutations) {
    return {"test",
            "label=1",
            "passage=2",
            "bt=3",
            "ref=0",
            "embed=4",
            "dim=" + std::to_string(dim),
            "generate=1",
            "seed=42",
            "permutations=" + std::to_string(permutations)};
}

std::vector<std::string> varlist(int dim) {
    std::vector<std::string> names = {"label", "passage", "bt"};
    for (const auto& e : embedding_names(dim)) names.push_back(e);
    return names;
}

// One passage, Break at the second poll: the first is the check before the passage, the second
// the engine's, inside the separation tests' permutations.
void break_inside_one_passage(const Design& design) {
    const auto texts = make_texts(design, {"Positive"}, {"Positive"});
    Stata stata;
    load_plugin(stata);
    load_texts(stata, texts);
    const std::vector<Variable> before = stata.data;
    stata.break_after_polls = 2;
    const RunResult r =
        run_like_ado(stata, varlist(design.dim), test_words(design.dim, 1000000), "v_");
    INFO(stata.errors);
    CHECK(r.rc == 1);
    CHECK(stata.errors.find("Break") != std::string::npos);
    CHECK(stata.polls == 2);
    // Nothing stored: no r(), no new variable, nothing waiting for `store`.
    CHECK(r.scalars.empty());
    CHECK(r.matrices.empty());
    CHECK(stata.scalars.empty());
    CHECK(stata.data == before);
    CHECK(stata.call({"store", "token=1", "scalars=__R"}) == 198);
}

}  // namespace

TEST_CASE("Break during the permutations of llmvalidate test returns rc 1 and stores nothing",
          "[test][break]") {
    Design design;  // 3 labels x 20 texts, 6 dimensions: the subset-sum route
    break_inside_one_passage(design);
}

TEST_CASE("Break during a Gram-matrix separation test returns rc 1 and stores nothing",
          "[test][break]") {
    Design design;
    design.m = 6;     // n = 12 texts per test
    design.dim = 64;  // 4n < d: the Gram route
    break_inside_one_passage(design);
}

TEST_CASE("without Break, the same large run completes and polls Break on the way",
          "[test][break]") {
    Design design;
    design.m = 6;
    const auto texts = make_texts(design, {"Positive"}, {"Positive"});
    Stata stata;
    load_plugin(stata);
    load_texts(stata, texts);
    const RunResult r =
        run_like_ado(stata, varlist(design.dim), test_words(design.dim, 20000), "v_");
    INFO(stata.errors);
    REQUIRE(r.rc == 0);
    REQUIRE(r.store_rc == 0);
    CHECK(r.scalars.at("permutations") == 20000);
    CHECK(stata.polls >= 2);  // the check before the passage, and at least one in the engine
}
