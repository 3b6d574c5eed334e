// Test inputs for `llmvalidate test` built in the test (clusters of unit vectors, one per label)
// and the statistics recomputed independently of the engine, straight from METHOD.md.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "llmvalidate/rng.hpp"

namespace cli_test {

using Vector = std::vector<double>;
using Matrix = std::vector<Vector>;

inline double gaussian(llmv::Rng& rng) {
    // Box-Muller; 1 - u keeps the logarithm finite.
    const double u = 1.0 - rng.uniform(), v = rng.uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

inline Vector cluster_draw(llmv::Rng& rng, const Vector& centre, double spread) {
    Vector x(centre.size());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = centre[i] + spread * gaussian(rng);
    return x;
}

struct InputShape {
    std::vector<std::string> labels = {"A", "B", "C"};
    int m = 12;
    int dimension = 6;
    double spread = 0.35;
    std::uint64_t seed = 7;
    bool backtranslation = true;
};

// A valid input: passage from label A's cluster, one pool per label, backtranslation of every
// pool where text i of a pool comes back wrong when i % 7 == 6.
inline nlohmann::json make_input(const InputShape& shape = {}) {
    llmv::Rng rng(shape.seed);
    nlohmann::json input;
    input["label"] = shape.labels[0];
    input["labels"] = shape.labels;
    nlohmann::json pools = nlohmann::json::object();
    nlohmann::json back = nlohmann::json::object();
    std::vector<Vector> centres;
    for (std::size_t k = 0; k < shape.labels.size(); ++k) {
        Vector centre(static_cast<std::size_t>(shape.dimension), 0.3);
        centre[k % centre.size()] += 1.0;
        centres.push_back(centre);
        nlohmann::json pool = nlohmann::json::array();
        nlohmann::json answers = nlohmann::json::array();
        for (int i = 0; i < shape.m; ++i) {
            pool.push_back(cluster_draw(rng, centre, shape.spread));
            answers.push_back(i % 7 == 6 ? shape.labels[(k + 1) % shape.labels.size()]
                                         : shape.labels[k]);
        }
        pools[shape.labels[k]] = pool;
        back[shape.labels[k]] = answers;
    }
    input["passage"] = cluster_draw(rng, centres[0], shape.spread);
    input["pools"] = pools;
    if (shape.backtranslation) input["backtranslation"] = back;
    return input;
}

inline Matrix matrix_of(const nlohmann::json& rows) { return rows.get<Matrix>(); }

inline double cosine(const Vector& a, const Vector& b) {
    double dot = 0, na = 0, nb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        dot += a[i] * b[i];
        na += a[i] * a[i];
        nb += b[i] * b[i];
    }
    return dot / std::sqrt(na * nb);
}

// τ = (1/M) Σ_j cos(y, s_j)
inline double tau(const Vector& passage, const Matrix& pool) {
    double sum = 0;
    for (const Vector& s : pool) sum += cosine(passage, s);
    return sum / static_cast<double>(pool.size());
}

// The exact validation test: T(z) = mean cosine of z to the rest of Z = {y} ∪ pool.
struct ExactReference {
    double p_value;
    std::vector<double> scores;  // T(s_j)
};

inline ExactReference exact_reference(const Vector& passage, const Matrix& pool) {
    Matrix z = pool;
    z.insert(z.begin(), passage);
    const double n = static_cast<double>(z.size());
    std::vector<double> score(z.size(), 0.0);
    for (std::size_t a = 0; a < z.size(); ++a) {
        for (std::size_t b = 0; b < z.size(); ++b)
            if (a != b) score[a] += cosine(z[a], z[b]);
        score[a] /= n - 1;
    }
    ExactReference out;
    out.scores.assign(score.begin() + 1, score.end());
    int at_most = 0;
    for (double s : out.scores) at_most += s <= score[0] ? 1 : 0;
    out.p_value = (1.0 + at_most) / (static_cast<double>(pool.size()) + 1.0);
    return out;
}

// ξ(β, γ) = mean over all pairs of cos(f(β)_i, f(γ)_j)
inline double xi(const Matrix& beta, const Matrix& gamma) {
    double sum = 0;
    for (const Vector& a : beta)
        for (const Vector& b : gamma) sum += cosine(a, b);
    return sum / static_cast<double>(beta.size() * gamma.size());
}

// P(X >= k) for X ~ Binomial(n, p), summed in log space.
inline double binomial_upper_tail(int k, int n, double p) {
    double total = 0;
    for (int i = k; i <= n; ++i) {
        const double log_term = std::lgamma(n + 1.0) - std::lgamma(i + 1.0) -
                                std::lgamma(n - i + 1.0) + i * std::log(p) +
                                (n - i) * std::log1p(-p);
        total += std::exp(log_term);
    }
    return total;
}

// One-sided Clopper-Pearson lower bound: the p at which P(X >= k) = α, by bisection.
inline double clopper_pearson_lower_reference(int k, int n, double alpha) {
    if (k == 0) return 0.0;
    double low = 0.0, high = 1.0;
    for (int iteration = 0; iteration < 200; ++iteration) {
        const double middle = 0.5 * (low + high);
        if (binomial_upper_tail(k, n, middle) < alpha)
            low = middle;
        else
            high = middle;
    }
    return 0.5 * (low + high);
}

}  // namespace cli_test
