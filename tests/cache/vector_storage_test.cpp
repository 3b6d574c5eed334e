// Embeddings in the cache (format 2): float32 blobs stored and read back bit for bit, side files
// that carry them, and the one-time conversion of a format-1 file (vectors as JSON text).
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cache/temp_cache_dir.hpp"
#include "core/float32.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"

namespace {

using TempDir = llmv::test::TempCacheDir;

llmv::CacheKey embedding_key(const std::string& text) {
    llmv::CacheKey key;
    key.provider = "openai";
    key.endpoint = "http://127.0.0.1:1/v1/embeddings";
    key.model = "text-embedding-3-small";
    key.parameters = {{"kind", "embedding"}};
    key.prompt = text;
    return key;
}

void exec(sqlite3* db, const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
        const std::string text = message ? message : "?";
        sqlite3_free(message);
        FAIL(text + " in " + sql);
    }
}

// A cache file as llmvalidate wrote it before format 2 (the DDL of schema version 1).
void write_format_1(const std::string& path, const std::vector<std::pair<std::string, std::string>>& rows) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    exec(db, "CREATE TABLE llmv_meta(name TEXT PRIMARY KEY, value TEXT NOT NULL)");
    exec(db,
         "CREATE TABLE responses(key TEXT PRIMARY KEY, provider TEXT NOT NULL, model TEXT NOT NULL, "
         "draw_index INTEGER NOT NULL, attempt INTEGER NOT NULL, status TEXT NOT NULL, "
         "body TEXT NOT NULL, text TEXT NOT NULL, response_model TEXT NOT NULL, "
         "input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, created_unix INTEGER NOT NULL)");
    exec(db, "INSERT INTO llmv_meta VALUES('schema', '1')");
    sqlite3_stmt* insert = nullptr;
    REQUIRE(sqlite3_prepare_v2(db,
                               "INSERT INTO responses VALUES(?1, 'openai', 'm', 0, 0, ?2, ?3, ?4, 'm', 5, 0, 1)",
                               -1, &insert, nullptr) == SQLITE_OK);
    for (const auto& [key, columns] : rows) {
        // columns: "status|body|text"
        const auto first = columns.find('|');
        const auto second = columns.find('|', first + 1);
        const std::string status = columns.substr(0, first);
        const std::string body = columns.substr(first + 1, second - first - 1);
        const std::string text = columns.substr(second + 1);
        sqlite3_reset(insert);
        sqlite3_bind_text(insert, 1, key.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 2, status.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 3, body.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 4, text.c_str(), -1, SQLITE_TRANSIENT);
        REQUIRE(sqlite3_step(insert) == SQLITE_DONE);
    }
    sqlite3_finalize(insert);
    sqlite3_close(db);
}

std::string schema_of(const std::string& path) {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_stmt* statement = nullptr;
    sqlite3_prepare_v2(db, "SELECT value FROM llmv_meta WHERE name = 'schema'", -1, &statement, nullptr);
    std::string value;
    if (sqlite3_step(statement) == SQLITE_ROW)
        value = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return value;
}

}  // namespace

TEST_CASE("float32 bytes are little-endian IEEE and base64 follows RFC 4648") {
    CHECK(llmv::float32_bytes({1.0f}) == std::string("\x00\x00\x80\x3f", 4));
    CHECK(llmv::float32_bytes({-2.5f}) == std::string("\x00\x00\x20\xc0", 4));
    CHECK_FALSE(llmv::from_float32_bytes("abc", 3));
    // The test vectors of RFC 4648, section 10.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},        {"foo", "Zm9v"},
        {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
    for (const auto& [plain, encoded] : cases) {
        CHECK(llmv::base64_encode(plain) == encoded);
        CHECK(llmv::base64_decode(encoded) == plain);
    }
    CHECK(llmv::base64_decode("Zm9vYg") == std::string("foob"));  // padding left out
    CHECK_FALSE(llmv::base64_decode("Zm9v!"));
    CHECK_FALSE(llmv::base64_decode("Z"));
    const std::vector<float> vector = {0.1f, -0.25f, 3.4e38f, 1e-45f};
    const auto bytes = llmv::base64_decode(llmv::base64_encode(llmv::float32_bytes(vector)));
    REQUIRE(bytes);
    CHECK(llmv::from_float32_bytes(bytes->data(), bytes->size()) == vector);
}

TEST_CASE("An embedding is stored as a float32 blob and read back bit for bit") {
    TempDir dir;
    std::vector<float> vector(1536);
    for (std::size_t i = 0; i < vector.size(); ++i) vector[i] = static_cast<float>(i) / 7.0f - 100.0f;
    {
        llmv::Cache cache(dir.cache());
        llmv::CacheEntry entry;
        entry.vector = vector;
        entry.response_model = "text-embedding-3-small";
        cache.put(embedding_key("a passage"), entry);
    }
    llmv::Cache cache(dir.cache());
    const auto read = cache.get(embedding_key("a passage"));
    REQUIRE(read);
    CHECK(read->vector == vector);
    CHECK(read->text.empty());
    CHECK(read->body.empty());
    CHECK(cache.has_ok(embedding_key("a passage").hash()));
    CHECK_FALSE(cache.has_ok(embedding_key("another").hash()));
    const auto answer = cache.get_answer(embedding_key("a passage").hash());
    REQUIRE(answer);
    CHECK(answer->status == llmv::cache_status::ok);
    CHECK(answer->vector.empty());  // presence tests read no vector
    CHECK(schema_of(dir.cache()) == "2");
    // 4 bytes a number, not ~20 of decimal text, in a file of 32 KiB pages.
    sqlite3* db = nullptr;
    sqlite3_open(dir.cache().c_str(), &db);
    sqlite3_stmt* statement = nullptr;
    sqlite3_prepare_v2(db, "SELECT typeof(vector), length(vector), length(text) FROM responses", -1,
                       &statement, nullptr);
    REQUIRE(sqlite3_step(statement) == SQLITE_ROW);
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0))) == "blob");
    CHECK(sqlite3_column_int(statement, 1) == 1536 * 4);
    CHECK(sqlite3_column_int(statement, 2) == 0);
    sqlite3_finalize(statement);
    sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &statement, nullptr);
    REQUIRE(sqlite3_step(statement) == SQLITE_ROW);
    CHECK(sqlite3_column_int(statement, 0) == 32768);
    sqlite3_finalize(statement);
    sqlite3_close(db);
}

TEST_CASE("A side file carries the float32 numbers of an embedding exactly") {
    TempDir dir;
    llmv::CacheEntry entry;
    entry.vector = {0.1f, -1e-30f, 12345.678f};
    const std::string side = dir.path + "/side.jsonl";
    {
        std::ofstream out(side);
        out << llmv::side_file_line(embedding_key("x"), entry, {}) << "\n";
    }
    llmv::Cache cache(dir.cache());
    CHECK(cache.import_side_file(side) == 1);
    const auto read = cache.get(embedding_key("x"));
    REQUIRE(read);
    CHECK(read->vector == entry.vector);
    {
        std::ofstream out(side);
        out << R"({"key": {"provider": "p", "endpoint": "e", "model": "m", "parameters": {}, "prompt": "q", )"
            << R"("draw_index": 0, "attempt": 0}, "entry": {"status": "ok", "body": "", "text": "", )"
            << R"("response_model": "m", "input_tokens": 0, "output_tokens": 0, "vector": "not base64!"}})"
            << "\n";
    }
    try {
        cache.import_side_file(side, "--import");
        FAIL("expected an error");
    } catch (const llmv::Error& error) {
        CHECK(error.code() == llmv::code::invalid_argument);
        CHECK_THAT(error.what(), Catch::Contains("--import") && Catch::Contains("line 1") &&
                                     Catch::Contains("vector"));
    }
    std::remove(side.c_str());
}

TEST_CASE("A cache of format 1 is converted once: JSON vectors become float32 blobs, the rest stays") {
    TempDir dir;
    write_format_1(dir.cache(), {
                                    {"embedding", "ok||[0.1,-0.25,1e-3,2]"},
                                    {"chat-array", "ok|{\"choices\":[]}|[1,2]"},
                                    {"rejected", "rejected|an embedding of 3 dimensions|"},
                                    {"not-numbers", "ok||[null,1]"},
                                    {"label", "ok|{}|positive"},
                                });
    std::vector<float> expected = {0.1f, -0.25f, 1e-3f, 2.0f};
    {
        llmv::Cache cache(dir.cache());
        const auto embedding = cache.get(std::string("embedding"));
        REQUIRE(embedding);
        CHECK(embedding->vector == expected);  // each number rounded to float32, as a fresh answer
        CHECK(embedding->text.empty());
        CHECK(embedding->input_tokens == 5);
        const auto chat = cache.get(std::string("chat-array"));
        REQUIRE(chat);
        CHECK(chat->text == "[1,2]");
        CHECK(chat->vector.empty());
        CHECK(cache.get(std::string("rejected"))->status == llmv::cache_status::rejected);
        CHECK(cache.get(std::string("not-numbers"))->text == "[null,1]");
        CHECK(cache.get(std::string("label"))->text == "positive");
        CHECK(cache.count() == 5);
    }
    CHECK(schema_of(dir.cache()) == "2");
    // Opened again: format 2 already, nothing converted twice.
    llmv::Cache again(dir.cache());
    CHECK(again.get(std::string("embedding"))->vector == expected);
}
