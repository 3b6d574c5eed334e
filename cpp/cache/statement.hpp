// A prepared SQLite statement of the cache (private to cpp/cache/): binds, steps and reads
// columns, and throws llmv::Error (llmv.cache.failed) naming the cache file when SQLite fails.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/float32.hpp"
#include "llmvalidate/error.hpp"

namespace llmv::cache_detail {

// Defined in cache_open.cpp (declared again in cache_impl.hpp).
[[noreturn]] void throw_sqlite_error(sqlite3* db, const std::string& message);

class Statement {
  public:
    Statement(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path) {
        if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK) fail("prepare");
    }
    ~Statement() { sqlite3_finalize(statement_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    void bind(int index, const std::string& value) {
        check(sqlite3_bind_text(statement_, index, value.data(), static_cast<int>(value.size()),
                                SQLITE_TRANSIENT));
    }
    void bind(int index, std::int64_t value) {
        check(sqlite3_bind_int64(statement_, index, value));
    }
    // NULL for an empty vector (every answer that is not an embedding).
    void bind_vector(int index, const std::vector<float>& vector) {
        if (vector.empty()) {
            check(sqlite3_bind_null(statement_, index));
            return;
        }
        const std::string bytes = float32_bytes(vector);
        check(sqlite3_bind_blob(statement_, index, bytes.data(), static_cast<int>(bytes.size()),
                                SQLITE_TRANSIENT));
    }
    // true: a row is available.
    bool step() {
        const int rc = sqlite3_step(statement_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        fail("step");
    }
    void reset() {
        sqlite3_reset(statement_);
        sqlite3_clear_bindings(statement_);
    }
    std::string text(int column) {
        const auto* data = sqlite3_column_text(statement_, column);
        const int size = sqlite3_column_bytes(statement_, column);
        return data ? std::string(reinterpret_cast<const char*>(data),
                                  static_cast<std::size_t>(size))
                    : std::string();
    }
    std::int64_t integer(int column) { return sqlite3_column_int64(statement_, column); }
    std::vector<float> vector(int column) {
        const void* data = sqlite3_column_blob(statement_, column);
        const int size = sqlite3_column_bytes(statement_, column);
        if (!data || size <= 0) return {};
        auto vector =
            from_float32_bytes(static_cast<const char*>(data), static_cast<std::size_t>(size));
        return vector ? std::move(*vector) : std::vector<float>();
    }

  private:
    void check(int rc) {
        if (rc != SQLITE_OK) fail("bind");
    }
    [[noreturn]] void fail(const char* what) {
        throw_sqlite_error(
            db_, std::string("cache ") + path_ + ": " + what + " failed: " + sqlite3_errmsg(db_));
    }
    sqlite3* db_;
    sqlite3_stmt* statement_ = nullptr;
    std::string path_;
};

}  // namespace llmv::cache_detail
