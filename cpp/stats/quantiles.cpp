// Quantiles, rank critical values and the comparisons every p-value uses.
#include <algorithm>
#include <cmath>
#include <limits>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"
#include "stats/internal.hpp"

namespace llmv::stats {
namespace {
constexpr double alpha_relative_tolerance = 1e-12;
}

double quantile_type7(std::vector<double> values, double probability) {
    if (values.empty())
        throw_invalid(code::invalid_argument, "values", "an empty set", "at least one value");
    if (!(probability >= 0 && probability <= 1))
        throw_invalid(code::invalid_argument, "probability", detail::format_number(probability),
                      "a number in [0, 1]");
    std::sort(values.begin(), values.end());
    // R's quantile(type = 7) step by step (1-based index, then (1 - h) x_lo + h x_hi), so that
    // the paper methods' critical values equal R's to the last bit.
    const double index = 1 + static_cast<double>(values.size() - 1) * probability;
    const double lo = std::floor(index);
    const double hi = std::ceil(index);
    const double x_lo = values[static_cast<std::size_t>(lo) - 1];
    const double x_hi = values[static_cast<std::size_t>(hi) - 1];
    if (!(index > lo) || x_hi == x_lo) return x_lo;
    const double h = index - lo;
    return (1 - h) * x_lo + h * x_hi;
}

namespace {
// quantile_type7() on values already sorted, with the same arithmetic.
double sorted_type7(const std::vector<double>& sorted, double probability) {
    const double index = 1 + static_cast<double>(sorted.size() - 1) * probability;
    const double lo = std::floor(index);
    const double hi = std::ceil(index);
    const double x_lo = sorted[static_cast<std::size_t>(lo) - 1];
    const double x_hi = sorted[static_cast<std::size_t>(hi) - 1];
    if (!(index > lo) || x_hi == x_lo) return x_lo;
    const double h = index - lo;
    return (1 - h) * x_lo + h * x_hi;
}
}  // namespace

double type7_rejection_level(std::vector<double> values, double statistic) {
    if (values.empty())
        throw_invalid(code::invalid_argument, "values", "an empty set", "at least one value");
    std::sort(values.begin(), values.end());
    const auto rejects = [&](double level) { return sorted_type7(values, level) > statistic; };
    if (rejects(0)) return 0;
    if (!rejects(1)) return 1;
    // The quantile is non-decreasing in the level: bisection on the very comparison the test
    // makes, so that "rejects at α" and "level < α" cannot disagree through rounding.
    double lo = 0;
    double hi = 1;
    for (int step = 0; step < 64 && lo < hi; ++step) {
        const double middle = lo + (hi - lo) / 2;
        if (middle <= lo || middle >= hi) break;
        (rejects(middle) ? hi : lo) = middle;
    }
    return lo;
}

double rank_critical_value(std::vector<double> null_values, double alpha) {
    const double n = static_cast<double>(null_values.size());
    // Same tolerance as p_at_most(), so that "p <= α" and "statistic < critical value" agree.
    const double rank = std::floor(alpha * (n + 1) * (1 + alpha_relative_tolerance));
    if (rank < 1) return -std::numeric_limits<double>::infinity();
    const std::size_t k = static_cast<std::size_t>(std::min(rank, n)) - 1;
    std::nth_element(null_values.begin(), null_values.begin() + static_cast<std::ptrdiff_t>(k),
                     null_values.end());
    return null_values[k];
}

bool p_at_most(double p_value, double alpha) {
    return p_value <= alpha * (1 + alpha_relative_tolerance);
}

int smallest_deciding_size(double alpha) {
    if (!(alpha > 0 && alpha < 1))
        throw_invalid(code::invalid_argument, "alpha", detail::format_number(alpha),
                      "a number strictly between 0 and 1");
    // size + 1 >= 1/α, in closed form; then at most a few steps decided by p_at_most() itself,
    // so that the two rules cannot disagree. Each loop is bounded: a size beyond int (α below
    // about 5e-10, outside the settings' range) is reported as int's maximum.
    constexpr double largest = std::numeric_limits<int>::max();
    const double closed_form = std::ceil(1.0 / alpha) - 1.0;
    if (!(closed_form < largest - 4)) return std::numeric_limits<int>::max();
    double size = std::max(1.0, closed_form);
    for (int step = 0; step < 4 && size > 1 && p_at_most(1.0 / size, alpha); ++step) size -= 1;
    for (int step = 0; step < 4 && !p_at_most(1.0 / (size + 1.0), alpha); ++step) size += 1;
    return static_cast<int>(size);
}

int count_at_most(const Eigen::VectorXd& null_values, double statistic) {
    int count = 0;
    for (Eigen::Index i = 0; i < null_values.size(); ++i)
        if (null_values[i] <= statistic + tie_tolerance) ++count;
    return count;
}

}  // namespace llmv::stats
