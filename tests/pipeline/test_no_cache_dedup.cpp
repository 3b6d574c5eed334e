// Issue 42, item 6: a run without a cache pays the calls of a first run with one. Requests that
// several passages share (the pools of a task whose simulation prompt does not quote the
// passage, their backtranslations, their embeddings) are sent once in the run, whether or not
// the answers are kept on disk.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_config.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/pipeline.hpp"
#include "pipeline/run_memo.hpp"

using namespace llmv;

namespace {

std::vector<pipeline::PassageInput> passages() {
    return {{"a", "Revenue grew strongly this quarter.", "", {}, ""},
            {"b", "Costs rose and margins fell.", "", {}, ""},
            {"c", "The outlook is unchanged.", "", {}, ""},
            {"d", "Revenue grew strongly this quarter.", "", {}, ""}};
}

std::size_t embedded_inputs(const fake::FakeServer& server) {
    std::size_t inputs = 0;
    for (const auto& request : server.recorded(100000)) {
        if (request.endpoint != "openai.embeddings") continue;
        const auto body = nlohmann::json::parse(request.body);
        inputs += body["input"].is_array() ? body["input"].size() : 1;
    }
    return inputs;
}

struct Sent {
    std::size_t chat = 0;
    std::size_t texts = 0;
    pipeline::BatchResult result;
};

Sent run(const std::string& cache_path, int concurrency) {
    fake::FakeServer server;
    server.start();
    pipeline::ValidationConfig config = test::fake_config(server, cache_path, concurrency);
    Sent sent;
    sent.result = pipeline::validate_batch(config, passages());
    sent.chat = server.count("openai.chat");
    sent.texts = embedded_inputs(server);
    return sent;
}

}  // namespace

TEST_CASE("a run without a cache sends the requests of a first run with one", "[dedup]") {
    const int concurrency = GENERATE(1, 8);
    cli_test::TempDir dir;
    const Sent cached =
        run(dir.file("cache-" + std::to_string(concurrency) + ".sqlite"), concurrency);
    const Sent uncached = run("", concurrency);
    INFO("concurrency " << concurrency << ": chat " << cached.chat << " with a cache, "
                        << uncached.chat << " without");
    CHECK(uncached.chat == cached.chat);
    CHECK(uncached.texts == cached.texts);
    // The pools are shared: far fewer than four passages' worth of calls.
    const std::int64_t per_passage = 1 + 3 * 4 + 20;  // R + K * ceil(M / n) + M
    CHECK(static_cast<std::int64_t>(uncached.chat) < 2 * per_passage);
    // The same answers, so the same numbers.
    REQUIRE(uncached.result.passages.size() == 4);
    REQUIRE(cached.result.passages.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) {
        const pipeline::PassageResult& a = cached.result.passages[i];
        const pipeline::PassageResult& b = uncached.result.passages[i];
        REQUIRE(a.ok);
        REQUIRE(b.ok);
        CHECK(a.verdict_name == b.verdict_name);
        CHECK(a.tests.validation.statistic == b.tests.validation.statistic);
    }
    CHECK(uncached.result.calls.cache_hits == 0);
    CHECK(uncached.result.calls.shared > 0);
}

TEST_CASE("the run's memory of answers keeps the recently used ones within its budget", "[dedup]") {
    pipeline::RunMemo memo(2000);
    memo.keep("a", {std::string(500, 'a'), false, {}});
    memo.keep("b", {std::string(500, 'b'), false, {}});
    REQUIRE(memo.find("a") != nullptr);  // a is now the most recent
    memo.keep("c", {std::string(500, 'c'), false, {}});
    memo.keep("d", {std::string(500, 'd'), false, {}});
    CHECK(memo.bytes() <= 2000);
    CHECK(memo.find("b") == nullptr);  // the least recently used went first
    REQUIRE(memo.find("a") != nullptr);
    CHECK(memo.find("a")->text == std::string(500, 'a'));
    CHECK(memo.find("d") != nullptr);
}
