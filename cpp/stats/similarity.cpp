// Normalised embeddings, the similarity blocks, label normalisation.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {

namespace {
// Squared norms outside this range may have lost digits (or be 0 / Inf) in double precision;
// such rows are normalised through their largest absolute value instead.
constexpr double smallest_safe_square = 1e-280;
constexpr double largest_safe_square = 1e280;

// The first non-finite value of row i, or a zero row, as an error (code invalid_embedding).
void check_row(const MatrixRef& embeddings, Eigen::Index i, double largest,
               const std::string& argument) {
    // The row is named only when there are several.
    const int row = embeddings.rows() == 1 ? 0 : static_cast<int>(i + 1);
    for (Eigen::Index k = 0; k < embeddings.cols(); ++k) {
        const double value = embeddings(i, k);
        if (!std::isfinite(value))
            throw_invalid_at(code::invalid_embedding, argument, row, static_cast<int>(k + 1),
                             std::isnan(value) ? "NaN"
                             : value > 0       ? "Inf"
                                               : "-Inf",
                             "embeddings of finite numbers (no NaN or Inf)");
    }
    if (largest == 0)
        throw_invalid_at(code::invalid_embedding, argument, row, 0, "a zero vector",
                         "embeddings with a non-zero norm (a cosine needs a direction)");
}
}  // namespace

Eigen::MatrixXd normalize_rows(const MatrixRef& embeddings, const std::string& argument) {
    if (embeddings.rows() == 0 || embeddings.cols() == 0)
        throw_invalid(code::invalid_embedding, argument,
                      std::to_string(embeddings.rows()) + " x " +
                          std::to_string(embeddings.cols()) + " embeddings",
                      "embeddings with at least one row and one column");
    // Fast path in the storage order (column by column); each row's squares are still summed
    // in column order, so the norms are the same bits as row by row.
    const Eigen::Index rows = embeddings.rows();
    Eigen::VectorXd squared = Eigen::VectorXd::Zero(rows);
    for (Eigen::Index k = 0; k < embeddings.cols(); ++k)
        for (Eigen::Index i = 0; i < rows; ++i) squared[i] += embeddings(i, k) * embeddings(i, k);
    Eigen::MatrixXd normalized(rows, embeddings.cols());
    for (Eigen::Index i = 0; i < rows; ++i) {
        if (squared[i] >= smallest_safe_square && squared[i] <= largest_safe_square) {
            const double norm = std::sqrt(squared[i]);
            for (Eigen::Index k = 0; k < embeddings.cols(); ++k)
                normalized(i, k) = embeddings(i, k) / norm;
            continue;
        }
        // A row scaled by 1e±200 (or NaN/Inf/zero): divide by the largest |value| first, so
        // that the squares neither underflow nor overflow; only a true zero row is refused.
        double largest = 0;
        for (Eigen::Index k = 0; k < embeddings.cols(); ++k)
            largest = std::max(largest, std::abs(embeddings(i, k)));
        check_row(embeddings, i, largest, argument);
        double scaled_squared = 0;
        for (Eigen::Index k = 0; k < embeddings.cols(); ++k) {
            const double scaled = embeddings(i, k) / largest;
            scaled_squared += scaled * scaled;
        }
        const double scaled_norm = std::sqrt(scaled_squared);
        for (Eigen::Index k = 0; k < embeddings.cols(); ++k)
            normalized(i, k) = embeddings(i, k) / largest / scaled_norm;
    }
    return normalized;
}

void SimilarityBlocks::add(const std::string& name, const MatrixRef& embeddings,
                           const std::string& argument) {
    Eigen::MatrixXd normalized = normalize_rows(embeddings, argument);
    // The dimension is that of the first pool other than the one being replaced.
    for (const auto& [other, rows] : pools_) {
        if (other == name) continue;
        if (rows.cols() != normalized.cols())
            throw_invalid(code::dimension_mismatch, argument,
                          "embeddings of dimension " + std::to_string(normalized.cols()),
                          "embeddings of dimension " + std::to_string(rows.cols()) +
                              ", the dimension of `" + arguments_.at(other) + "`");
        break;
    }
    pools_[name] = std::move(normalized);
    arguments_[name] = argument;
    sums_.erase(name);
    for (auto it = blocks_.begin(); it != blocks_.end();) {
        if (it->first.first == name || it->first.second == name)
            it = blocks_.erase(it);
        else
            ++it;
    }
    if (first_argument_.empty()) first_argument_ = argument;
}

bool SimilarityBlocks::has(const std::string& name) const { return pools_.count(name) > 0; }

const Eigen::MatrixXd& SimilarityBlocks::pool(const std::string& name) const {
    const auto it = pools_.find(name);
    if (it == pools_.end())
        throw_invalid(code::internal, "pool", "'" + name + "'", "the name of a pool added before");
    return it->second;
}

const std::string& SimilarityBlocks::argument(const std::string& name) const {
    const auto it = arguments_.find(name);
    if (it == arguments_.end())
        throw_invalid(code::internal, "pool", "'" + name + "'", "the name of a pool added before");
    return it->second;
}

const Eigen::MatrixXd& SimilarityBlocks::block(const std::string& a, const std::string& b) {
    const auto key = std::make_pair(a, b);
    auto it = blocks_.find(key);
    if (it != blocks_.end()) return it->second;
    // The transpose of a block computed before, so that (a, b) and (b, a) agree bit for bit.
    const auto reverse = blocks_.find(std::make_pair(b, a));
    if (reverse != blocks_.end()) return blocks_[key] = reverse->second.transpose();
    const Eigen::MatrixXd& left = pool(a);
    const Eigen::MatrixXd& right = pool(b);
    Eigen::MatrixXd product = left * right.transpose();
    return blocks_[key] = std::move(product);
}

const Eigen::VectorXd& SimilarityBlocks::sum(const std::string& name) {
    const auto it = sums_.find(name);
    if (it != sums_.end()) return it->second;
    const Eigen::MatrixXd& rows = pool(name);
    Eigen::VectorXd total = Eigen::VectorXd::Zero(rows.cols());
    // Column by column (the storage order); each coordinate is still summed in row order.
    for (Eigen::Index k = 0; k < rows.cols(); ++k)
        for (Eigen::Index i = 0; i < rows.rows(); ++i) total[k] += rows(i, k);
    return sums_[name] = std::move(total);
}

int SimilarityBlocks::dimension() const {
    return pools_.empty() ? 0 : static_cast<int>(pools_.begin()->second.cols());
}

namespace detail {

void require_pool(const SimilarityBlocks& blocks, const std::string& name,
                  Eigen::Index minimum_rows, const std::string& role) {
    if (!blocks.has(name))
        throw_invalid(code::invalid_argument, role, "'" + name + "', which was never added",
                      "the name of a pool added to the SimilarityBlocks");
    const Eigen::Index rows = blocks.pool(name).rows();
    if (rows < minimum_rows)
        throw_invalid(code::pool_too_small, blocks.argument(name),
                      std::to_string(rows) + (rows == 1 ? " text" : " texts"),
                      "at least " + std::to_string(minimum_rows) + " texts");
}

std::string format_number(double value) {
    if (std::isnan(value)) return "NaN";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", value);
    return buffer;
}

}  // namespace detail
}  // namespace llmv::stats
