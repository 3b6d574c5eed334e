// Helpers shared by the statistics' source files; not part of the public interface.
#pragma once

#include <Eigen/Dense>

#include <string>

#include "llmvalidate/stats.hpp"

namespace llmv::stats::detail {

// a·b summed in index order. A plain loop (no SIMD reassociation, and the build forbids
// FMA contraction), so the same bits on every platform.
inline double ordered_dot(const double* a, const double* b, Eigen::Index size) {
    double total = 0;
    for (Eigen::Index k = 0; k < size; ++k) total += a[k] * b[k];
    return total;
}

inline double ordered_dot(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return ordered_dot(a.data(), b.data(), a.size());
}

// Row i of a column-major matrix times v, in index order.
inline double ordered_row_dot(const Eigen::MatrixXd& matrix, Eigen::Index row,
                              const Eigen::VectorXd& v) {
    double total = 0;
    for (Eigen::Index k = 0; k < matrix.cols(); ++k) total += matrix(row, k) * v[k];
    return total;
}

// Throws unless `name` is a pool of `blocks` with at least `minimum_rows` rows.
void require_pool(const SimilarityBlocks& blocks, const std::string& name,
                  Eigen::Index minimum_rows, const std::string& role);

// Short numbers for messages: 4 significant digits.
std::string format_number(double value);

// The registry entries (one per method file).
ValidationResult run_validation_exact(SimilarityBlocks& blocks, const TestInput& input);
ValidationResult run_validation_paper(SimilarityBlocks& blocks, const TestInput& input);
std::vector<SeparationResult> run_separation_permutation(SimilarityBlocks& blocks,
                                                         const TestInput& input,
                                                         const std::vector<std::string>& gammas);
std::vector<SeparationResult> run_separation_paper(SimilarityBlocks& blocks, const TestInput& input,
                                                   const std::vector<std::string>& gammas);

// Names of pools inside run_tests(): the passage, a label's pool, a label's paper reference.
inline const std::string passage_pool{};
inline std::string label_pool(const std::string& label) { return "pool:" + label; }
inline std::string reference_pool(const std::string& label) { return "reference:" + label; }

}  // namespace llmv::stats::detail
