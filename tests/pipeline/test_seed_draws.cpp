// Issue 42, item 5: the run's seed picks the LLM's draws. Another seed sends new generation
// requests (and pays for them); the same seed reads its texts back from the cache; the default
// seed keeps the requests (and so the cache keys) it had before the seed took part.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_config.hpp"
#include "fake_server/fake_server.hpp"
#include "llm/hashed_embedder.hpp"
#include "llmvalidate/pipeline.hpp"
#include "pipeline/requests.hpp"

using namespace llmv;

namespace {

const pipeline::PassageInput passage = {"p1", "Revenue grew strongly this quarter.", "", {}, ""};

// The simulation requests the server answered since its last reset: those asking for passages.
std::vector<std::string> simulation_requests(const fake::FakeServer& server) {
    std::vector<std::string> bodies;
    for (const auto& answer : server.served())
        if (answer.endpoint == "openai.chat" &&
            answer.request_body.find("passages") != std::string::npos)
            bodies.push_back(answer.request_body);
    return bodies;
}

}  // namespace

TEST_CASE("another seed draws new texts, the same seed reads them from the cache", "[seed]") {
    fake::FakeServer server;
    server.start();
    cli_test::TempDir dir;
    pipeline::ValidationConfig config = test::fake_config(server, dir.file("cache.sqlite"));
    config.m = 20;
    config.n = 10;  // K * ceil(M / n) = 6 simulation calls
    config.keep_texts = true;
    const pipeline::BatchResult first = pipeline::validate_batch(config, {passage});
    REQUIRE(first.passages.front().ok);
    const std::vector<std::string> first_requests = simulation_requests(server);
    CHECK(first_requests.size() == 6);

    // The same (default) seed: every answer from the cache.
    server.reset_counters();
    (void)pipeline::validate_batch(config, {passage});
    CHECK(server.total_count() == 0);

    // Another seed: new simulation requests (a new API seed each), and the backtranslations and
    // embeddings of their new texts; the passage's annotation is the cached one.
    config.tests.seed = 2;
    server.reset_counters();
    const pipeline::BatchResult second = pipeline::validate_batch(config, {passage});
    REQUIRE(second.passages.front().ok);
    const std::vector<std::string> second_requests = simulation_requests(server);
    CHECK(second_requests.size() == 6);
    std::set<std::string> seeds;
    for (const auto& body : first_requests)
        seeds.insert(nlohmann::json::parse(body)["seed"].dump());
    for (const auto& body : second_requests)
        CHECK(seeds.count(nlohmann::json::parse(body)["seed"].dump()) == 0);
    CHECK(second.passages.front().calls.annotation_calls == 1);
    CHECK(second.passages.front().calls.cache_hits >= 1);
    REQUIRE_FALSE(first.passages.front().pool_texts.empty());
    CHECK(second.passages.front().pool_texts != first.passages.front().pool_texts);

    // That seed again: nothing is sent.
    server.reset_counters();
    (void)pipeline::validate_batch(config, {passage});
    CHECK(server.total_count() == 0);

    // The dry run of a third seed prices its new draws: none of them is in the cache.
    config.tests.seed = 3;
    const pipeline::DryRunReport report = pipeline::dry_run(config, {passage});
    CHECK(report.chat_calls_to_make >= 6);
}

TEST_CASE("the default seed sends the requests it sent before the seed took part", "[seed]") {
    fake::FakeServer server;
    server.start();
    pipeline::ValidationConfig config = test::fake_config(server, "");
    config.m = 20;
    config.n = 10;
    REQUIRE(config.tests.seed == 1);
    (void)pipeline::validate_batch(config, {passage});
    // The API seed of a draw is still derived from its prompt and draw index alone (as before
    // the seed took part): the keys of a cache filled then are the keys of the default seed.
    std::set<long long> seeds;
    for (const auto& body : simulation_requests(server)) {
        const nlohmann::json request = nlohmann::json::parse(body);
        const std::string prompt = request["messages"].back()["content"].get<std::string>();
        const long long seed = request["seed"].get<long long>();
        std::set<long long> before;  // draws 0 and 1 of the label's prompt, attempt 0
        for (std::uint64_t position : {0, 1})
            before.insert(static_cast<long long>(
                pipeline::mix_seed(stable_hash(prompt), position << 20) & 0x7fffffffULL));
        CHECK(before.count(seed) == 1);
        seeds.insert(seed);
    }
    CHECK(seeds.size() == 6);
    pipeline::ValidationConfig other = config;
    other.tests.seed = 7;
    server.reset_counters();
    (void)pipeline::validate_batch(other, {passage});
    for (const auto& body : simulation_requests(server))
        CHECK(seeds.count(nlohmann::json::parse(body)["seed"].get<long long>()) == 0);
}
