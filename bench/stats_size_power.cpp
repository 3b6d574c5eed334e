// Size and power of the validation and separation tests (issue 2, item 7), by Monte Carlo on
// synthetic embeddings whose truth is known: one normalised Gaussian cluster per label
// (centre + N(0, spread² I) in d dimensions; the engine normalises). Fixed seeds.
//
//   validation size:  y and the pool from f(β)                 -> reject rate, should be <= α
//   validation power: y from a cluster moved by `shift_v`       -> reject rate
//   separation size:  f ignores the label (P_β, P_γ one cluster) -> pass rate, should be <= α
//   separation power: P_γ from a cluster moved by `shift_s`     -> pass rate
//
// exact / permutation: the project's defaults; paper: the reference code's arithmetic with
// B = 100 reference texts (the paper's default), N = M.
//
// Usage: bench_stats_size_power [replications]   (default 1000)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "llmvalidate/rng.hpp"
#include "llmvalidate/stats.hpp"

using namespace llmv::stats;

namespace {

class Gaussian {
  public:
    explicit Gaussian(std::uint64_t seed) : rng_(seed) {}
    double draw() {  // Box-Muller
        const double u1 = 1.0 - rng_.uniform();
        const double u2 = rng_.uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    Eigen::MatrixXd cluster(const Eigen::VectorXd& centre, Eigen::Index n, double spread) {
        Eigen::MatrixXd out(n, centre.size());
        for (Eigen::Index i = 0; i < n; ++i)
            for (Eigen::Index k = 0; k < centre.size(); ++k)
                out(i, k) = centre[k] + spread * draw();
        return out;
    }

  private:
    llmv::Rng rng_;
};

constexpr Eigen::Index dimension = 32;
constexpr double spread = 0.25;
constexpr double alpha = 0.05;
constexpr int reference_texts = 100;
constexpr int permutations = 199;

Eigen::VectorXd centre(double shift) {
    Eigen::VectorXd c = Eigen::VectorXd::Zero(dimension);
    c[0] = 1;
    c[1] = shift;
    return c;
}

struct Rates {
    double exact = 0, paper = 0;
};

Rates validation_rates(int m, double shift, int replications, std::uint64_t seed) {
    Gaussian gaussian(seed);
    Rates rates;
    for (int r = 0; r < replications; ++r) {
        SimilarityBlocks blocks;
        blocks.add("y", gaussian.cluster(centre(shift), 1, spread), "passage");
        blocks.add("beta", gaussian.cluster(centre(0), m, spread), "pool");
        blocks.add("ref", gaussian.cluster(centre(0), reference_texts, spread), "reference");
        rates.exact += validation_exact(blocks, "y", "beta", alpha).reject;
        rates.paper += validation_paper(blocks, "y", "beta", "ref", alpha).reject;
    }
    rates.exact /= replications;
    rates.paper /= replications;
    return rates;
}

Rates separation_rates(int m, double shift, int replications, std::uint64_t seed) {
    Gaussian gaussian(seed);
    llmv::Rng rng(seed + 1);
    Rates rates;
    for (int r = 0; r < replications; ++r) {
        SimilarityBlocks blocks;
        blocks.add("beta", gaussian.cluster(centre(0), m, spread), "pool_beta");
        blocks.add("gamma", gaussian.cluster(centre(shift), m, spread), "pool_gamma");
        blocks.add("ref", gaussian.cluster(centre(shift), reference_texts, spread), "reference");
        rates.exact +=
            separation_permutation(blocks, "beta", "gamma", alpha, permutations, rng).pass;
        rates.paper += separation_paper(blocks, "beta", "gamma", "ref", alpha).pass;
    }
    rates.exact /= replications;
    rates.paper /= replications;
    return rates;
}

}  // namespace

int main(int argc, char** argv) {
    const int replications = argc > 1 ? std::atoi(argv[1]) : 1000;
    const double shift_validation = 1.5;
    const double shift_separation = 0.1;
    std::printf(
        "Size and power at α = %.2f: %d replications per cell (Monte Carlo s.e. of a rate near "
        "0.05: %.3f), d = %ld, spread %.2f, B = %d, R = %d.\n"
        "Validation power: y's cluster moved by %.2f; separation power: γ's cluster moved by "
        "%.2f.\n\n",
        alpha, replications, std::sqrt(0.05 * 0.95 / replications), static_cast<long>(dimension),
        spread, reference_texts, permutations, shift_validation, shift_separation);
    std::printf(
        "| M | validation size: exact | paper | validation power: exact | paper "
        "| separation passes, f ignores the label: permutation | paper "
        "| separation power: permutation | paper |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    std::uint64_t seed = 1;
    for (int m : {20, 50, 100, 500}) {
        const Rates validation_size = validation_rates(m, 0, replications, seed++);
        const Rates validation_power = validation_rates(m, shift_validation, replications, seed++);
        const Rates separation_size = separation_rates(m, 0, replications, seed++);
        const Rates separation_power = separation_rates(m, shift_separation, replications, seed++);
        std::printf("| %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", m,
                    validation_size.exact, validation_size.paper, validation_power.exact,
                    validation_power.paper, separation_size.exact, separation_size.paper,
                    separation_power.exact, separation_power.paper);
        std::fflush(stdout);
    }
    return 0;
}
