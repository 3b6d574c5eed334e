// The stand-alone tests (standalone.hpp): one SimilarityBlocks per call, then the same
// functions run_tests() uses.
#include "llmvalidate/standalone.hpp"

#include "llmvalidate/error.hpp"
#include "llmvalidate/rng.hpp"

namespace llmv::stats {

namespace {

// Pool names inside the blocks; the passage is "" (the engine's convention).
const char* const passage_name = "";
const char* const pool_name = "pool";
const char* const pool_a_name = "pool_a";
const char* const pool_b_name = "pool_b";
const char* const reference_name = "reference";

}  // namespace

ValidationTestMethod validation_test_method(const std::string& name,
                                            const std::string& argument) {
    if (name == "exact") return ValidationTestMethod::exact;
    if (name == "paper") return ValidationTestMethod::paper;
    throw_invalid(code::invalid_argument, argument, "\"" + name + "\"", "\"exact\" or \"paper\"");
}

SeparationTestMethod separation_test_method(const std::string& name,
                                            const std::string& argument) {
    if (name == "permutation") return SeparationTestMethod::permutation;
    if (name == "paper") return SeparationTestMethod::paper;
    throw_invalid(code::invalid_argument, argument, "\"" + name + "\"",
                  "\"permutation\" or \"paper\"");
}

ValidationResult validation_test(const VectorRef& passage, const MatrixRef& pool, double alpha,
                                 ValidationTestMethod method, const MatrixRef& reference) {
    SimilarityBlocks blocks;
    blocks.add(passage_name, passage.transpose(), "passage");
    blocks.add(pool_name, pool, "pool");
    if (method == ValidationTestMethod::paper) {
        blocks.add(reference_name, reference, "reference");
        return validation_paper(blocks, passage_name, pool_name, reference_name, alpha);
    }
    return validation_exact(blocks, passage_name, pool_name, alpha);
}

SeparationResult separation_test(const MatrixRef& pool_a, const MatrixRef& pool_b, double alpha,
                                 SeparationTestMethod method, int permutations,
                                 std::uint64_t seed, const MatrixRef& reference) {
    SimilarityBlocks blocks;
    blocks.add(pool_a_name, pool_a, "pool_a");
    blocks.add(pool_b_name, pool_b, "pool_b");
    if (method == SeparationTestMethod::paper) {
        blocks.add(reference_name, reference, "reference");
        return separation_paper(blocks, pool_a_name, pool_b_name, reference_name, alpha);
    }
    Rng rng(seed);
    return separation_permutation(blocks, pool_a_name, pool_b_name, alpha, permutations, rng);
}

}  // namespace llmv::stats
