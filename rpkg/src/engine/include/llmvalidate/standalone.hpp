// The validation and separation tests on their own, on embeddings a caller brings: no task,
// no labels, no provider. What R's validation_test() and separation_test() call; a binding
// needs only this header and stats.hpp (for the result types).
//
// Each call puts its matrices into one SimilarityBlocks under fixed argument names, which
// the engine's messages use: "passage", "pool" and "reference" (validation), "pool_a",
// "pool_b" and "reference" (separation). So a test run here and the same test inside
// run_tests() give bit-identical numbers. Values such as alpha are checked by the caller
// (the settings table, with the front end's spelling); the shapes and the embeddings are
// checked here (llmv::Error: invalid_embedding, dimension_mismatch, pool_too_small).
#pragma once

#include <cstdint>
#include <string>

#include "llmvalidate/stats.hpp"

namespace llmv::stats {

enum class ValidationTestMethod { exact, paper };
enum class SeparationTestMethod { permutation, paper };

// "exact" | "paper", and "permutation" | "paper". Anything else: llmv::Error (code
// invalid_argument) naming `argument`, the value received and what is allowed.
ValidationTestMethod validation_test_method(const std::string& name,
                                            const std::string& argument = "method");
SeparationTestMethod separation_test_method(const std::string& name,
                                            const std::string& argument = "method");

// passage: e(y), one embedding of d values; pool: M x d texts from f(β̂); reference: B x d
// further texts from f(β̂), read by the paper method only (pass nothing for exact).
ValidationResult validation_test(const VectorRef& passage, const MatrixRef& pool, double alpha,
                                 ValidationTestMethod method = ValidationTestMethod::exact,
                                 const MatrixRef& reference = Eigen::MatrixXd());

// pool_a, pool_b: texts from f(β) and f(γ), one per row; permutations and seed are read by the
// permutation method only (its draws come from Rng(seed)), reference (B further texts from
// f(γ)) by the paper method only.
SeparationResult separation_test(const MatrixRef& pool_a, const MatrixRef& pool_b, double alpha,
                                 SeparationTestMethod method = SeparationTestMethod::permutation,
                                 int permutations = 999, std::uint64_t seed = 1,
                                 const MatrixRef& reference = Eigen::MatrixXd());

}  // namespace llmv::stats
