// The cache's writer thread: batches are written in order over its own connection, a failed
// write is reported (not thrown on the writer thread), and nothing submitted is dropped.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <string>

#include "cache/cache_writer.hpp"
#include "cache/temp_cache_dir.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"

namespace {

using TempDir = llmv::test::TempCacheDir;

llmv::CacheWriter::Batch batch_of(int first, int count, const std::string& secret = "") {
    llmv::CacheWriter::Batch batch;
    for (int draw = first; draw < first + count; ++draw) {
        llmv::CacheKey key;
        key.provider = "openai";
        key.endpoint = "http://127.0.0.1:1/v1/chat/completions";
        key.model = "writer-test";
        key.prompt = "[{\"role\":\"user\",\"content\":\"Label this.\"}]";
        key.draw_index = static_cast<std::uint64_t>(draw);
        llmv::CacheEntry entry;
        entry.body = "{\"draw\":" + std::to_string(draw) + ",\"echo\":\"" + secret + "\"}";
        entry.text = "answer " + std::to_string(draw);
        entry.input_tokens = 10;
        batch.key_hashes.push_back(key.hash());
        batch.entries.emplace_back(std::move(key), std::move(entry));
    }
    if (!secret.empty()) batch.secrets.push_back(secret);
    return batch;
}

}  // namespace

TEST_CASE("The cache writer writes every batch in order, over its own connection") {
    TempDir dir;
    llmv::Cache reader(dir.cache());
    std::vector<std::string> hashes;
    {
        llmv::CacheWriter writer(dir.cache());
        std::uint64_t last = 0;
        for (int b = 0; b < 20; ++b) {
            llmv::CacheWriter::Batch batch = batch_of(b * 10, 10, "sk-writer-secret");
            hashes.insert(hashes.end(), batch.key_hashes.begin(), batch.key_hashes.end());
            const std::uint64_t number = writer.submit(std::move(batch));
            CHECK(number == last + 1);
            last = number;
        }
        const auto written = writer.wait_all();
        REQUIRE(written.size() == 20);  // wait_all returns what take_written had not taken
        for (std::size_t i = 0; i < written.size(); ++i) {
            CHECK(written[i].batch == i + 1);
            CHECK(written[i].ok);
        }
        CHECK(writer.take_written().empty());
        CHECK(reader.count() == 200);  // committed: the other connection sees every entry
        const auto entry = reader.get(hashes[137]);
        REQUIRE(entry);
        CHECK(entry->text == "answer 137");
        CHECK(entry->body.find("sk-writer-secret") == std::string::npos);  // redacted

        // The destructor writes what was submitted but not waited for.
        writer.submit(batch_of(500, 7));
    }
    CHECK(reader.count() == 207);
}

TEST_CASE("A failed write is reported with the cache code, and a later write succeeds") {
    TempDir dir;
    { llmv::Cache create(dir.cache()); }
    llmv::CacheWriter writer(dir.cache(), /*busy_timeout_ms=*/50);
    llmv::test::HeldWriteLock other_process(dir.cache());
    writer.submit(batch_of(0, 3));
    auto written = writer.wait_all();
    REQUIRE(written.size() == 1);
    CHECK_FALSE(written[0].ok);
    CHECK(written[0].code == llmv::code::cache);
    CHECK_THAT(written[0].message, Catch::Contains(dir.cache()));
    other_process.release();

    writer.submit(batch_of(0, 3));
    written = writer.wait_all();
    REQUIRE(written.size() == 1);
    CHECK(written[0].batch == 2);
    CHECK(written[0].ok);
    CHECK(llmv::Cache(dir.cache()).count() == 3);
}

TEST_CASE("take_written never waits: it returns only what is already written") {
    TempDir dir;
    { llmv::Cache create(dir.cache()); }
    llmv::CacheWriter writer(dir.cache(), /*busy_timeout_ms=*/2000);
    llmv::test::HeldWriteLock other_process(dir.cache());
    writer.submit(batch_of(0, 2));  // blocked behind the lock
    CHECK(writer.take_written().empty());
    other_process.release();
    const auto written = writer.wait_all();
    REQUIRE(written.size() == 1);
    CHECK(written[0].ok);
}
