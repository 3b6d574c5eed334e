// Helpers for the statistics tests: explicit-loop cosines (the independent reference the
// engine is checked against) and synthetic embeddings with a known truth.
#pragma once

#include <Eigen/Dense>

#include <cmath>
#include <vector>

#include "llmvalidate/rng.hpp"

namespace llmv_test {

// cos(a, b) from raw (unnormalised) vectors, by explicit loops.
inline double cosine(const std::vector<double>& a, const std::vector<double>& b) {
    double ab = 0, aa = 0, bb = 0;
    for (std::size_t k = 0; k < a.size(); ++k) {
        ab += a[k] * b[k];
        aa += a[k] * a[k];
        bb += b[k] * b[k];
    }
    return ab / std::sqrt(aa * bb);
}

inline std::vector<double> row(const Eigen::MatrixXd& matrix, Eigen::Index i) {
    std::vector<double> out(static_cast<std::size_t>(matrix.cols()));
    for (Eigen::Index k = 0; k < matrix.cols(); ++k)
        out[static_cast<std::size_t>(k)] = matrix(i, k);
    return out;
}

inline Eigen::MatrixXd rows(const std::vector<std::vector<double>>& values) {
    Eigen::MatrixXd out(static_cast<Eigen::Index>(values.size()),
                        static_cast<Eigen::Index>(values.front().size()));
    for (std::size_t i = 0; i < values.size(); ++i)
        for (std::size_t k = 0; k < values[i].size(); ++k)
            out(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = values[i][k];
    return out;
}

// Standard normal draws by Box-Muller from the engine's generator (deterministic per seed).
class Gaussian {
  public:
    explicit Gaussian(std::uint64_t seed) : rng_(seed) {}
    double draw() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        const double u1 = 1.0 - rng_.uniform();  // (0, 1]
        const double u2 = rng_.uniform();
        const double radius = std::sqrt(-2.0 * std::log(u1));
        const double angle = 6.283185307179586 * u2;
        spare_ = radius * std::sin(angle);
        has_spare_ = true;
        return radius * std::cos(angle);
    }
    // n texts of one "label": centre + N(0, spread² I), in d dimensions (the engine normalises).
    Eigen::MatrixXd cluster(const Eigen::VectorXd& centre, Eigen::Index n, double spread) {
        Eigen::MatrixXd out(n, centre.size());
        for (Eigen::Index i = 0; i < n; ++i)
            for (Eigen::Index k = 0; k < centre.size(); ++k)
                out(i, k) = centre[k] + spread * draw();
        return out;
    }

  private:
    llmv::Rng rng_;
    bool has_spare_ = false;
    double spare_ = 0;
};

// A centre along axis 0, moved by `shift` along axis 1.
inline Eigen::VectorXd centre(Eigen::Index d, double shift = 0) {
    Eigen::VectorXd c = Eigen::VectorXd::Zero(d);
    c[0] = 1;
    if (d > 1) c[1] = shift;
    return c;
}

}  // namespace llmv_test
