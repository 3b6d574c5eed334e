// Speed of the full set of tests (issue 2, item 7): M = 1000 texts per label, d = 1024,
// K = 5 labels, R = 999 permutations, against a naive loop implementation in the same run.
//
// Naive = what a direct reading of METHOD.md gives: normalise by loops, one Gram matrix of
// every text by explicit dot products, then every statistic by loops over that Gram matrix,
// each permutation's cross-group mean by a double loop over the pairs. It uses the same draws
// (each separation test from Rng(seed)), so both must give the same p-values; the bench
// checks that.
//
// Usage: bench_stats_speed [M] [d] [K] [R]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "llmvalidate/rng.hpp"
#include "llmvalidate/stats.hpp"

using namespace llmv::stats;
namespace {

// CPU time of this thread: on a shared machine wall time measures the neighbours too.
double cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}
double wall_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct NaiveOutput {
    double validation_p = 0;
    std::vector<double> separation_p;
};

// texts: row-major, one text per row; rows [0, 1) the passage, then K pools of M rows.
NaiveOutput naive(const std::vector<std::vector<double>>& raw, int m, int k, int permutations,
                  std::uint64_t seed) {
    const std::size_t n = raw.size();
    const std::size_t d = raw[0].size();
    std::vector<std::vector<double>> unit(raw);
    for (auto& text : unit) {
        double norm = 0;
        for (double x : text) norm += x * x;
        norm = std::sqrt(norm);
        for (double& x : text) x /= norm;
    }
    std::vector<double> gram(n * n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i; j < n; ++j) {
            double dot = 0;
            for (std::size_t c = 0; c < d; ++c) dot += unit[i][c] * unit[j][c];
            gram[i * n + j] = gram[j * n + i] = dot;
        }
    auto cos = [&](std::size_t i, std::size_t j) { return gram[i * n + j]; };
    auto first_of = [&](int label) { return 1 + static_cast<std::size_t>(label) * m; };

    NaiveOutput out;
    // Validation (exact) for label 0.
    const std::size_t b0 = first_of(0);
    double tau = 0;
    for (int j = 0; j < m; ++j) tau += cos(0, b0 + j);
    tau /= m;
    int at_most = 0;
    for (int j = 0; j < m; ++j) {
        double total = cos(b0 + j, 0);
        for (int l = 0; l < m; ++l)
            if (l != j) total += cos(b0 + j, b0 + l);
        if (total / m <= tau + tie_tolerance) ++at_most;
    }
    out.validation_p = (1.0 + at_most) / (m + 1.0);

    // Separation (permutation) of label 0 against labels 1..K-1, each from Rng(seed).
    for (int gamma = 1; gamma < k; ++gamma) {
        llmv::Rng rng(seed);
        std::vector<std::size_t> members;  // pooled texts: β's rows, then γ's
        for (int j = 0; j < m; ++j) members.push_back(b0 + j);
        for (int j = 0; j < m; ++j) members.push_back(first_of(gamma) + j);
        auto cross_mean = [&](const std::vector<std::size_t>& order) {
            double total = 0;
            for (int i = 0; i < m; ++i)
                for (int j = m; j < 2 * m; ++j) total += cos(members[order[i]], members[order[j]]);
            return total / (static_cast<double>(m) * m);
        };
        std::vector<std::size_t> order(2 * static_cast<std::size_t>(m));
        std::iota(order.begin(), order.end(), std::size_t{0});
        const double xi = cross_mean(order);
        int count = 0;
        for (int r = 0; r < permutations; ++r) {
            std::iota(order.begin(), order.end(), std::size_t{0});
            rng.shuffle(order);
            if (cross_mean(order) <= xi + tie_tolerance) ++count;
        }
        out.separation_p.push_back((1.0 + count) / (permutations + 1.0));
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    const int m = argc > 1 ? std::atoi(argv[1]) : 1000;
    const int d = argc > 2 ? std::atoi(argv[2]) : 1024;
    const int k = argc > 3 ? std::atoi(argv[3]) : 5;
    const int permutations = argc > 4 ? std::atoi(argv[4]) : 999;
    std::printf("Full set of tests: M = %d, d = %d, K = %d, R = %d (one thread)\n", m, d, k,
                permutations);

    // Synthetic embeddings: label centres plus Gaussian noise (uniform sums, for speed).
    llmv::Rng data(2024);
    auto noise = [&] { return (data.uniform() + data.uniform() + data.uniform() - 1.5) * 0.6; };
    std::vector<std::vector<double>> raw;
    TestInput input;
    input.label = "label1";
    for (int label = 0; label < k; ++label)
        input.labels.push_back("label" + std::to_string(label + 1));
    auto text_of = [&](int label) {
        std::vector<double> text(static_cast<std::size_t>(d));
        for (int c = 0; c < d; ++c)
            text[static_cast<std::size_t>(c)] = noise() + (c % k == label ? 0.3 : 0.0);
        return text;
    };
    raw.push_back(text_of(0));
    input.passage = Eigen::Map<Eigen::VectorXd>(raw[0].data(), d);
    for (int label = 0; label < k; ++label) {
        Eigen::MatrixXd pool(m, d);
        for (int j = 0; j < m; ++j) {
            raw.push_back(text_of(label));
            for (int c = 0; c < d; ++c) pool(j, c) = raw.back()[static_cast<std::size_t>(c)];
        }
        input.pools[input.labels[static_cast<std::size_t>(label)]] = pool;
        input.backtranslation[input.labels[static_cast<std::size_t>(label)]] =
            std::vector<std::string>(static_cast<std::size_t>(m),
                                     input.labels[static_cast<std::size_t>(label)]);
    }
    input.options.permutations = permutations;
    input.options.seed = 7;

    // Engine: best of 3 runs.
    double engine_seconds = 1e300, engine_wall = 1e300;
    TestOutput output;
    for (int run = 0; run < 3; ++run) {
        const double start = cpu_seconds(), start_wall = wall_seconds();
        output = run_tests(input);
        engine_seconds = std::min(engine_seconds, cpu_seconds() - start);
        engine_wall = std::min(engine_wall, wall_seconds() - start_wall);
    }
    const double start = cpu_seconds(), start_wall = wall_seconds();
    const NaiveOutput reference = naive(raw, m, k, permutations, input.options.seed);
    const double naive_seconds = cpu_seconds() - start;
    const double naive_wall = wall_seconds() - start_wall;

    bool same = output.validation.p_value == reference.validation_p;
    for (std::size_t g = 0; g < reference.separation_p.size(); ++g)
        same = same && output.separation[g].p_value == reference.separation_p[g];
    std::printf("                                  CPU time   wall time\n");
    std::printf("  engine (run_tests, best of 3): %8.3f s  %8.3f s\n", engine_seconds, engine_wall);
    std::printf("  naive loops:                   %8.3f s  %8.3f s\n", naive_seconds, naive_wall);
    std::printf("  ratio naive / engine:          %8.1f x  %8.1f x\n",
                naive_seconds / engine_seconds, naive_wall / engine_wall);
    std::printf("  same p-values: %s (validation p = %.4f; separation p = %.4f ...)\n",
                same ? "yes" : "NO", output.validation.p_value, output.separation[0].p_value);
    return same ? 0 : 1;
}
