// The response cache: key semantics (every field counts, the draw index above all), storage,
// inspection, and several processes writing one file at once.
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cache/batch_ledger.hpp"
#include "cache/temp_cache_dir.hpp"
#include "core/sha256.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"

namespace {

using TempDir = llmv::test::TempCacheDir;

llmv::CacheKey base_key() {
    llmv::CacheKey key;
    key.provider = "openai";
    key.endpoint = "https://api.openai.com/v1/chat/completions";
    key.model = "gpt-4o-mini";
    key.parameters = {{"temperature", 1.0}, {"max_tokens", 512}, {"top_p", 0.9}};
    key.prompt = "[{\"role\":\"user\",\"content\":\"Label this passage.\"}]";
    key.draw_index = 3;
    return key;
}

llmv::CacheEntry answer(const std::string& text, const char* status = llmv::cache_status::ok) {
    llmv::CacheEntry entry;
    entry.status = status;
    entry.body = "{\"choices\":[{\"message\":{\"content\":\"" + text + "\"}}]}";
    entry.text = text;
    entry.response_model = "gpt-4o-mini-2024-07-18";
    entry.input_tokens = 120;
    entry.output_tokens = 7;
    return entry;
}

std::string journal_mode(const std::string& path) {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_stmt* statement = nullptr;
    sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &statement, nullptr);
    std::string mode;
    if (sqlite3_step(statement) == SQLITE_ROW) {
        mode = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    }
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return mode;
}

}  // namespace

TEST_CASE("The cache key serialization is versioned, length-prefixed and stable") {
    llmv::CacheKey key;
    key.provider = "openai";
    key.endpoint = "e";
    key.model = "m";
    key.parameters = {{"top_p", 0.5}, {"temperature", 1.0}};
    key.prompt = "hi";
    key.draw_index = 2;
    // The documented format: changing it changes every key (and needs a new version line).
    CHECK(key.canonical() ==
          "llmvalidate-cache-key-v1\n"
          "provider:6:openai\n"
          "endpoint:1:e\n"
          "model:1:m\n"
          "parameters:31:{\"temperature\":1.0,\"top_p\":0.5}\n"
          "prompt:2:hi\n"
          "draw_index:1:2\n"
          "attempt:1:0\n");
    CHECK(key.hash() == llmv::sha256_hex(key.canonical()));
    CHECK(key.hash().size() == 64);
}

TEST_CASE("Every key field changes the key, parameter order does not") {
    const llmv::CacheKey base = base_key();
    const std::string reference = base.hash();
    CHECK(base_key().hash() == reference);  // deterministic

    auto differs = [&](auto change) {
        llmv::CacheKey key = base_key();
        change(key);
        return key.hash() != reference;
    };
    CHECK(differs([](llmv::CacheKey& k) { k.provider = "azure"; }));
    CHECK(differs(
        [](llmv::CacheKey& k) { k.endpoint = "http://127.0.0.1:8080/v1/chat/completions"; }));
    CHECK(differs([](llmv::CacheKey& k) { k.model = "gpt-4o"; }));
    CHECK(differs([](llmv::CacheKey& k) { k.parameters["temperature"] = 0.7; }));
    CHECK(differs([](llmv::CacheKey& k) { k.parameters["seed"] = 42; }));
    CHECK(differs([](llmv::CacheKey& k) { k.parameters.erase("top_p"); }));
    CHECK(differs([](llmv::CacheKey& k) { k.prompt += " "; }));
    CHECK(differs([](llmv::CacheKey& k) { k.draw_index = 4; }));
    CHECK(differs([](llmv::CacheKey& k) { k.attempt = 1; }));

    llmv::CacheKey reordered = base_key();
    reordered.parameters = nlohmann::json::object();
    reordered.parameters["top_p"] = 0.9;
    reordered.parameters["max_tokens"] = 512;
    reordered.parameters["temperature"] = 1.0;
    CHECK(reordered.hash() == reference);

    // Length prefixes: moving a character from one field to the next is a different key.
    llmv::CacheKey left = base_key(), right = base_key();
    left.provider = "ab";
    left.endpoint = "c";
    right.provider = "a";
    right.endpoint = "bc";
    CHECK(left.hash() != right.hash());
}

TEST_CASE("Parameters that are not valid UTF-8 are refused with the argument named") {
    llmv::CacheKey key = base_key();
    key.parameters["stop"] = std::string("\xff\xfe");
    try {
        (void)key.hash();
        FAIL("expected an error");
    } catch (const llmv::Error& error) {
        CHECK(error.code() == llmv::code::invalid_argument);
        CHECK_THAT(error.what(), Catch::Contains("cache key parameters"));
    }
}

TEST_CASE("Cache round trip, misses, and draw-index semantics") {
    TempDir dir;
    llmv::Cache cache(dir.cache());
    CHECK(journal_mode(dir.cache()) == "wal");

    llmv::CacheKey key = base_key();
    CHECK_FALSE(cache.get(key));
    CHECK_FALSE(cache.contains(key));
    cache.put(key, answer("positive"));
    const auto hit = cache.get(key);
    REQUIRE(hit);
    CHECK(hit->status == "ok");
    CHECK(hit->text == "positive");
    CHECK(hit->body == answer("positive").body);
    CHECK(hit->response_model == "gpt-4o-mini-2024-07-18");
    CHECK(hit->input_tokens == 120);
    CHECK(hit->output_tokens == 7);
    CHECK(hit->key == key.hash());
    CHECK(hit->provider == "openai");
    CHECK(hit->model == "gpt-4o-mini");
    CHECK(hit->draw_index == 3);
    CHECK(hit->created_unix > 1700000000);
    CHECK(cache.get(key.hash())->text == "positive");

    // Each draw is its own entry: draws 0..4 of one prompt are five different answers.
    for (std::uint64_t draw = 0; draw < 5; ++draw) {
        llmv::CacheKey drawn = base_key();
        drawn.draw_index = draw;
        if (draw != 3) cache.put(drawn, answer("draw " + std::to_string(draw)));
    }
    for (std::uint64_t draw = 0; draw < 5; ++draw) {
        llmv::CacheKey drawn = base_key();
        drawn.draw_index = draw;
        CHECK(cache.get(drawn)->text == (draw == 3 ? "positive" : "draw " + std::to_string(draw)));
    }
    llmv::CacheKey unseen = base_key();
    unseen.draw_index = 5;
    CHECK_FALSE(cache.get(unseen));
    CHECK(cache.count() == 5);

    SECTION("the entries survive closing and reopening the file") {
        llmv::Cache reopened(dir.cache());
        CHECK(reopened.count() == 5);
        CHECK(reopened.get(key)->text == "positive");
    }
}

TEST_CASE("Invalid answers are kept, and an ok answer is never replaced by a worse one") {
    TempDir dir;
    llmv::Cache cache(dir.cache());
    llmv::CacheKey key = base_key();
    cache.put(key, answer("I cannot label this", llmv::cache_status::unparseable));
    CHECK(cache.get(key)->status == "unparseable");
    CHECK(cache.get(key)->text == "I cannot label this");
    CHECK(cache.stats().other_entries == 1);

    // The re-ask is a different key (attempt 1), so a re-run replays both answers.
    llmv::CacheKey reask = key;
    reask.attempt = 1;
    cache.put(reask, answer("negative"));
    CHECK(cache.get(key)->status == "unparseable");
    CHECK(cache.get(reask)->text == "negative");
    CHECK(cache.get(reask)->attempt == 1);

    // Same key: a later ok answer replaces an invalid one, never the other way round.
    cache.put(key, answer("positive"));
    CHECK(cache.get(key)->status == "ok");
    cache.put(key, answer("garbage", llmv::cache_status::invalid));
    CHECK(cache.get(key)->text == "positive");
    cache.put(key, answer("neutral"));
    CHECK(cache.get(key)->text == "neutral");
}

TEST_CASE("Inspection: counts, models, size, clearing by model") {
    TempDir dir;
    llmv::Cache cache(dir.cache());
    std::vector<std::pair<llmv::CacheKey, llmv::CacheEntry>> batch;
    for (std::uint64_t draw = 0; draw < 30; ++draw) {
        llmv::CacheKey key = base_key();
        key.draw_index = draw;
        batch.emplace_back(key, answer("a", draw % 10 == 0 ? llmv::cache_status::invalid
                                                           : llmv::cache_status::ok));
    }
    for (std::uint64_t draw = 0; draw < 12; ++draw) {
        llmv::CacheKey key = base_key();
        key.provider = "bedrock";
        key.model = "anthropic.claude-3-haiku";
        key.draw_index = draw;
        batch.emplace_back(key, answer("b"));
    }
    cache.put_many(batch);

    CHECK(cache.count() == 42);
    CHECK(cache.count("gpt-4o-mini") == 30);
    CHECK(cache.count("anthropic.claude-3-haiku") == 12);
    CHECK(cache.count("no-such-model") == 0);
    const auto stats = cache.stats();
    CHECK(stats.entries == 42);
    CHECK(stats.ok_entries == 39);
    CHECK(stats.other_entries == 3);
    CHECK(stats.size_bytes > 0);
    CHECK(cache.size_bytes() == stats.size_bytes);

    const auto models = cache.models();
    REQUIRE(models.size() == 2);
    CHECK(models[0].provider == "bedrock");
    CHECK(models[0].model == "anthropic.claude-3-haiku");
    CHECK(models[0].entries == 12);
    CHECK(models[0].input_tokens == 12 * 120);
    CHECK(models[0].output_tokens == 12 * 7);
    CHECK(models[1].model == "gpt-4o-mini");
    CHECK(models[1].entries == 30);
    CHECK(models[1].ok_entries == 27);

    CHECK(cache.clear_model("gpt-4o-mini") == 30);
    CHECK(cache.clear_model("gpt-4o-mini") == 0);
    CHECK(cache.count() == 12);
    CHECK(cache.models().size() == 1);
    CHECK(cache.clear_all() == 12);
    CHECK(cache.count() == 0);
}

TEST_CASE("put_many with precomputed hashes stores under those hashes, in one transaction") {
    TempDir dir;
    llmv::Cache cache(dir.cache());
    std::vector<std::pair<llmv::CacheKey, llmv::CacheEntry>> batch;
    std::vector<std::string> hashes;
    for (std::uint64_t draw = 0; draw < 5; ++draw) {
        llmv::CacheKey key = base_key();
        key.draw_index = draw;
        hashes.push_back(key.hash());
        batch.emplace_back(key, answer("draw " + std::to_string(draw)));
    }
    cache.put_many(batch, {}, hashes);
    CHECK(cache.count() == 5);
    for (std::uint64_t draw = 0; draw < 5; ++draw) {
        const auto entry = cache.get(batch[draw].first);  // found by the key itself
        REQUIRE(entry);
        CHECK(entry->text == "draw " + std::to_string(draw));
        CHECK(entry->draw_index == draw);
    }
    // The statements are prepared once and reused: reads and writes interleave freely.
    CHECK(cache.get(hashes[2])->text == "draw 2");
    cache.put(batch[0].first, answer("worse", llmv::cache_status::unparseable));
    CHECK(cache.get(hashes[0])->text == "draw 0");  // an ok answer is never replaced by a worse one
    // One hash per entry, or nothing is written.
    hashes.pop_back();
    CHECK_THROWS_AS(cache.put_many(batch, {}, hashes), llmv::Error);
}

TEST_CASE("Several processes write and read one cache file at once") {
    TempDir dir;
    { llmv::Cache create(dir.cache()); }  // the children open it after fork, never before
    constexpr int children = 4;
    constexpr int own_entries = 150;
    constexpr int shared_entries = 40;
    std::vector<pid_t> pids;
    for (int child = 0; child < children; ++child) {
        const pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            int status = 0;
            try {
                llmv::Cache cache(dir.cache());
                for (int i = 0; i < own_entries; ++i) {
                    llmv::CacheKey key = base_key();
                    key.model = "child-" + std::to_string(child);
                    key.draw_index = static_cast<std::uint64_t>(i);
                    cache.put(key, answer(std::to_string(child) + ":" + std::to_string(i)));
                    // Everyone also writes the same shared keys: no error, one row each.
                    if (i < shared_entries) {
                        llmv::CacheKey shared = base_key();
                        shared.model = "shared";
                        shared.draw_index = static_cast<std::uint64_t>(i);
                        cache.put(shared, answer("shared " + std::to_string(i)));
                    }
                }
                for (int i = 0; i < own_entries; ++i) {
                    llmv::CacheKey key = base_key();
                    key.model = "child-" + std::to_string(child);
                    key.draw_index = static_cast<std::uint64_t>(i);
                    auto entry = cache.get(key);
                    if (!entry || entry->text != std::to_string(child) + ":" + std::to_string(i)) {
                        status = 2;
                    }
                }
            } catch (...) {
                status = 3;
            }
            _exit(status);  // no Catch2 teardown in the child
        }
        pids.push_back(pid);
    }
    // The parent reads while the children write.
    llmv::Cache reader(dir.cache());
    std::uint64_t last_seen = 0;
    for (int i = 0; i < 20; ++i) {
        const std::uint64_t seen = reader.count();
        CHECK(seen >= last_seen);
        last_seen = seen;
        usleep(5000);
    }
    for (pid_t pid : pids) {
        int status = -1;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    CHECK(reader.count() == children * own_entries + shared_entries);
    CHECK(reader.count("shared") == shared_entries);
    for (int child = 0; child < children; ++child) {
        CHECK(reader.count("child-" + std::to_string(child)) == own_entries);
    }
}

TEST_CASE("Cache errors name the file and carry the cache code") {
    SECTION("a directory that does not exist") {
        try {
            llmv::Cache cache("/nonexistent-llmv-dir/cache.sqlite");
            FAIL("expected an error");
        } catch (const llmv::Error& error) {
            CHECK(error.code() == llmv::code::cache);
            CHECK_THAT(error.what(), Catch::Contains("/nonexistent-llmv-dir/cache.sqlite"));
        }
    }
    SECTION("a file written by a future schema") {
        TempDir dir;
        { llmv::Cache create(dir.cache()); }
        sqlite3* db = nullptr;
        sqlite3_open(dir.cache().c_str(), &db);
        sqlite3_exec(db, "UPDATE llmv_meta SET value = '99' WHERE name = 'schema'", nullptr,
                     nullptr, nullptr);
        sqlite3_close(db);
        try {
            llmv::Cache cache(dir.cache());
            FAIL("expected an error");
        } catch (const llmv::Error& error) {
            CHECK(error.code() == llmv::code::cache);
            CHECK_THAT(error.what(), Catch::Contains("schema version 99"));
        }
    }
    SECTION("a file that is not a database") {
        TempDir dir;
        FILE* file = std::fopen(dir.cache().c_str(), "w");
        std::fputs("this is not a SQLite database, just some text of sufficient length....", file);
        std::fclose(file);
        try {
            llmv::Cache cache(dir.cache());
            FAIL("expected an error");
        } catch (const llmv::Error& error) {
            CHECK(error.code() == llmv::code::cache);
            CHECK_THAT(error.what(), Catch::Contains(dir.cache()));
        }
    }
}

// SQLite removes the WAL file when the last connection closes, and refuses to close one whose
// statements are not all finalized (the connection and its page cache then leak). A cache that
// used each of its prepared statements must leave no WAL file behind.
TEST_CASE("Closing a cache that used every prepared statement closes its connection") {
    TempDir dir;
    const std::string wal = dir.cache() + "-wal";
    {
        llmv::Cache cache(dir.cache());
        const llmv::CacheKey key = base_key();
        cache.put(key, answer("positive"));
        REQUIRE(cache.get(key));
        REQUIRE(cache.has_ok(key.hash()));
        REQUIRE(cache.get_answer(key.hash()));
        llmv::BatchStaged staged;
        staged.id = "custom-1";
        staged.status = 200;
        staged.body = "{}";
        llmv::BatchLedger ledger(cache);
        ledger.put_batch_staged({staged});
        REQUIRE(ledger.batch_staged("custom-1"));
        REQUIRE(::access(wal.c_str(), F_OK) == 0);
    }
    CHECK(::access(wal.c_str(), F_OK) != 0);
}
