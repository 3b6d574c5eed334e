// The dry run and the run agree on cache keys, for every provider of provider_defaults(): a run
// against the fake server fills a cache, and the dry run (which builds its keys through the
// run's own open_providers() and RequestKeys) must then find every request and text of it there,
// having found none before.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <string>

#include "fake_server/fake_server.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/resolution.hpp"
#include "llm/synthetic_text.hpp"
#include "pipeline/providers.hpp"
#include "pipeline/requests.hpp"

namespace fs = std::filesystem;
using namespace llmv;
using namespace llmv::pipeline;

namespace {

std::string fresh_cache(const std::string& name) {
    static int counter = 0;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    const fs::path dir = fs::temp_directory_path() /
                         ("llmv-keys-" + std::to_string(stamp) + "-" + std::to_string(++counter));
    fs::create_directories(dir);
    return (dir / (name + ".sqlite")).string();
}

// The fake server's base URL as each provider expects it (OpenAI's includes /v1).
std::string base_url(const fake::FakeServer& server, const std::string& provider) {
    return provider == "openai" ? server.base_url() + "/v1" : server.base_url();
}

// A run of `chat` with `embedding` against the fake server (or the synthetic stand-ins).
ValidationConfig config_for(const fake::FakeServer& server, const std::string& chat,
                            const std::string& embedding) {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.m = 6;
    config.n = 4;
    config.tests.permutations = 19;
    config.concurrency = 4;
    config.cache_path = fresh_cache(chat + "-" + embedding);
    config.provider = chat;
    config.embedding_provider = embedding;
    if (chat != simulated_provider_name) {
        config.base_url = base_url(server, chat);
        config.api_key = chat == "bedrock" ? server.options().bedrock_api_key : "test-key";
        if (chat == "openai") config.model = "fake-chat";
    }
    if (embedding != hashed_embedding_name) {
        config.embedding_base_url = base_url(server, embedding);
        config.embedding_api_key =
            embedding == "bedrock-titan" ? server.options().bedrock_api_key : "test-key";
        if (embedding == "openai") config.embedding_model = "fake-embedding";
    }
    return config;
}

}  // namespace

TEST_CASE("the dry run plans exactly the cache keys the run writes, for every provider") {
    fake::FakeServer server;
    server.start();
    for (const ProviderDefaults& row : provider_defaults()) {
        // Each chat provider with its own vendor's embedder (OpenAI's for Anthropic); each
        // embedding provider behind the OpenAI-compatible chat.
        std::string chat = row.provider, embedding = row.embedding_family;
        if (row.kind == "embedding") {
            chat = "openai";
            embedding = row.provider;
        } else if (embedding.empty()) {
            embedding = "openai";
        }
        DYNAMIC_SECTION(row.kind << " " << row.provider << " (chat " << chat << ", embedding " << embedding << ")") {
            const ValidationConfig config = config_for(server, chat, embedding);
            const PassageInput passage{"y", SyntheticText(0).passages("Negative", 1, 3).front(), "", {}, ""};
            const bool chat_cached = chat != simulated_provider_name;
            const bool texts_cached = embedding != hashed_embedding_name;

            const DryRunReport before = dry_run(config, {passage});
            CHECK(before.cached_calls == 0);
            CHECK(before.cached_embedded_texts == 0);

            server.reset_counters();
            const BatchResult run = validate_batch(config, {passage});
            REQUIRE(run.passages.size() == 1);
            INFO(run.passages.front().error_message);
            REQUIRE(run.passages.front().ok);
            CHECK((server.total_count() > 0) == (chat_cached || texts_cached));

            const DryRunReport after = dry_run(config, {passage});
            // Every chat call of the run (with its redraws) and every text it embedded is found
            // under the key the dry run builds; the synthetic providers never use the cache.
            CHECK(after.cached_calls == (chat_cached ? after.calls.chat_calls : 0));
            CHECK(after.chat_calls_to_make == (chat_cached ? 0 : after.calls.chat_calls));
            CHECK(after.cached_embedded_texts == (texts_cached ? after.calls.embedded_texts : 0));
            CHECK(after.texts_to_embed == (texts_cached ? 0 : after.calls.embedded_texts));
            // And the cache holds nothing else: one entry per chat draw (redraws included) and
            // per distinct text.
            Cache cache(config.cache_path);
            const std::int64_t chat_entries = chat_cached ? run.calls.chat_calls : 0;
            const std::int64_t text_entries = texts_cached ? run.calls.embedded_texts : 0;
            CHECK(static_cast<std::int64_t>(cache.count()) == chat_entries + text_entries);
        }
    }
}

TEST_CASE("request keys: the keys of one draw differ by draw, redraw, kind and endpoint") {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "openai";
    config.model = "fake-chat";
    config.base_url = "http://127.0.0.1:9/v1";
    config.api_key = "test-key";
    config.embedding_provider = "openai";
    config.embedding_model = "fake-embedding";
    const std::vector<std::string> labels = {"Positive", "Neutral", "Negative"};
    const RunProviders providers = open_providers(config, resolve_providers(config), labels, "");
    const RequestKeys keys(config, providers, labels);
    const auto hash = [&](bool simulate, int position, int attempt) {
        return keys.chat_key(keys.chat_request(simulate, "prompt", position, 4, attempt), position, attempt).hash();
    };
    CHECK(hash(false, 0, 0) == hash(false, 0, 0));
    CHECK(hash(false, 0, 0) != hash(false, 1, 0));
    CHECK(hash(false, 0, 0) != hash(false, 0, 1));
    CHECK(hash(false, 0, 0) != hash(true, 0, 0));
    CHECK(keys.embedding_key("text").hash() != keys.embedding_key("other text").hash());
    ValidationConfig elsewhere = config;
    elsewhere.base_url = "http://127.0.0.1:10/v1";
    elsewhere.embedding_base_url = "http://127.0.0.1:10/v1";
    const RunProviders other_providers = open_providers(elsewhere, resolve_providers(elsewhere), labels, "");
    const RequestKeys other(elsewhere, other_providers, labels);
    CHECK(other.chat_key(other.chat_request(false, "prompt", 0, 4, 0), 0, 0).hash() != hash(false, 0, 0));
    CHECK(other.embedding_key("text").hash() != keys.embedding_key("text").hash());
}
