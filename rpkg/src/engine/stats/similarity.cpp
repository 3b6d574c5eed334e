// Normalised embeddings, the similarity blocks, label normalisation.
#include <cctype>
#include <cmath>
#include <cstdio>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {

namespace {
// The first non-finite value or zero row of `embeddings`, in row order, as an error.
[[noreturn]] void report_bad_row(const MatrixRef& embeddings, const std::string& argument) {
    const bool one_row = embeddings.rows() == 1;
    for (Eigen::Index i = 0; i < embeddings.rows(); ++i) {
        const std::string where = one_row ? std::string() : "row " + std::to_string(i + 1) + " ";
        double squared = 0;
        for (Eigen::Index k = 0; k < embeddings.cols(); ++k) {
            const double value = embeddings(i, k);
            if (!std::isfinite(value))
                throw_invalid(code::invalid_embedding, argument,
                              where + "with " +
                                  (std::isnan(value) ? "NaN"
                                   : value > 0       ? "Inf"
                                                     : "-Inf") +
                                  " in column " + std::to_string(k + 1),
                              "embeddings of finite numbers (no NaN or Inf)");
            squared += value * value;
        }
        const double norm = std::sqrt(squared);
        if (!(norm > 0) || !std::isfinite(norm))
            throw_invalid(code::invalid_embedding, argument,
                          one_row ? std::string("a zero vector")
                                  : "row " + std::to_string(i + 1) + ", a zero vector",
                          "embeddings with a non-zero norm (a cosine needs a direction)");
    }
    throw_invalid(code::internal, argument, "a row with no bad value", "a row with one");
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
    bool clean = true;
    for (Eigen::Index i = 0; i < rows && clean; ++i)
        clean = squared[i] > 0 && std::isfinite(squared[i]);
    if (!clean) report_bad_row(embeddings, argument);  // throws, naming the first bad value
    const Eigen::VectorXd norm = squared.cwiseSqrt();
    Eigen::MatrixXd normalized(rows, embeddings.cols());
    for (Eigen::Index k = 0; k < embeddings.cols(); ++k)
        for (Eigen::Index i = 0; i < rows; ++i) normalized(i, k) = embeddings(i, k) / norm[i];
    return normalized;
}

std::string normalize_label(const std::string& label) {
    std::string result;
    bool pending_space = false;
    for (const char c : label) {
        const unsigned char byte = static_cast<unsigned char>(c);
        if (std::isspace(byte)) {
            pending_space = !result.empty();
            continue;
        }
        if (pending_space) result.push_back(' ');
        pending_space = false;
        result.push_back(static_cast<char>(std::tolower(byte)));
    }
    return result;
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
