// Embeddings through the pipeline (issue 26): asked for as base64 float32, stored as float32
// blobs, and seen by the statistics at float32 precision whichever way they came, so that the
// first run and every re-run from the cache give the same numbers bit for bit.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "fake_config.hpp"
#include "fake_server/fake_server.hpp"
#include "llm/synthetic_text.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/pipeline.hpp"

namespace fs = std::filesystem;
using namespace llmv;
using namespace llmv::pipeline;

namespace {

std::string temp_cache(const std::string& name) {
    static int counter = 0;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    fs::path dir = fs::temp_directory_path() /
                   ("llmv-precision-" + std::to_string(stamp) + "-" + std::to_string(++counter));
    fs::create_directories(dir);
    return (dir / (name + ".sqlite")).string();
}

std::vector<std::string> encodings_asked(const fake::FakeServer& server) {
    std::vector<std::string> out;
    for (const auto& request : server.recorded(100000)) {
        if (request.endpoint != "openai.embeddings") continue;
        out.push_back(nlohmann::json::parse(request.body).value("encoding_format", "(none)"));
    }
    return out;
}

void check_same_numbers(const BatchResult& a, const BatchResult& b) {
    REQUIRE(a.passages.size() == b.passages.size());
    for (std::size_t i = 0; i < a.passages.size(); ++i) {
        const PassageResult& x = a.passages[i];
        const PassageResult& y = b.passages[i];
        INFO(x.error_message << " / " << y.error_message);
        REQUIRE(x.ok);
        REQUIRE(y.ok);
        CHECK(x.verdict == y.verdict);
        CHECK(x.tests.validation.statistic == y.tests.validation.statistic);
        CHECK(x.tests.validation.p_value == y.tests.validation.p_value);
        REQUIRE(x.tests.separation.size() == y.tests.separation.size());
        for (std::size_t s = 0; s < x.tests.separation.size(); ++s) {
            CHECK(x.tests.separation[s].statistic == y.tests.separation[s].statistic);
            CHECK(x.tests.separation[s].p_value == y.tests.separation[s].p_value);
        }
    }
}

}  // namespace

TEST_CASE("embeddings as base64 or as numbers give the same statistics, first run and re-run") {
    const std::vector<PassageInput> passages = {
        {"a", SyntheticText(0).passages("negative", 1, 31).front(), "", {}, ""},
        {"b", SyntheticText(0).passages("positive", 1, 32).front(), "", {}, ""}};

    fake::FakeServer base64_server;
    base64_server.start();
    const ValidationConfig base64_config = test::fake_config(base64_server, temp_cache("base64"));
    const BatchResult base64_run = validate_batch(base64_config, passages);
    const auto asked = encodings_asked(base64_server);
    REQUIRE_FALSE(asked.empty());
    for (const std::string& encoding : asked) CHECK(encoding == "base64");

    // A server that refuses base64: the client falls back to numbers (the fake server sends
    // them with double precision), rounds each to float32, and gets the very same vectors.
    fake::FakeServerOptions refusing;
    refusing.refuse_base64 = true;
    fake::FakeServer numbers_server(refusing);
    numbers_server.start();
    const ValidationConfig numbers_config = test::fake_config(numbers_server, temp_cache("numbers"));
    const BatchResult numbers_run = validate_batch(numbers_config, passages);
    const auto fallback = encodings_asked(numbers_server);
    REQUIRE_FALSE(fallback.empty());
    CHECK(fallback.front() == "base64");
    CHECK(fallback.back() == "float");
    check_same_numbers(base64_run, numbers_run);

    // Re-runs from either cache: nothing sent, every number bit for bit the first run's.
    const std::size_t sent = base64_server.total_count();
    const BatchResult again = validate_batch(base64_config, passages);
    CHECK(base64_server.total_count() == sent);
    check_same_numbers(base64_run, again);
    const BatchResult numbers_again = validate_batch(numbers_config, passages);
    check_same_numbers(base64_run, numbers_again);
    for (const PassageResult& result : numbers_again.passages) CHECK(result.calls.embedded_texts > 0);

    // What the cache holds: float32 blobs, no JSON text.
    Cache cache(base64_config.cache_path);
    CacheKey key;
    key.provider = "openai";
    key.endpoint = "openai " + base64_server.base_url() + "/v1";  // endpoint_identity()
    key.model = "fake-embedding";
    key.parameters = nlohmann::json::object({{"kind", "embedding"}});
    key.prompt = passages[0].text;
    const auto entry = cache.get(key);
    REQUIRE(entry);
    CHECK(entry->text.empty());
    CHECK(entry->vector.size() == base64_server.options().embedding_dimensions);
}
