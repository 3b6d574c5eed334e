// The day cache of model lists (model_lists.hpp).
#include "cache/model_lists.hpp"

#include <sqlite3.h>

#include <filesystem>
#include <system_error>

#include "llmvalidate/cache.hpp"

namespace llmv {

namespace {

constexpr int busy_timeout_ms = 5000;
constexpr const char* create_table =
    "CREATE TABLE IF NOT EXISTS model_lists(key TEXT PRIMARY KEY, fetched_unix INTEGER NOT NULL, "
    "body TEXT NOT NULL)";

bool file_exists(const std::string& path) {
    std::error_code error;
    return std::filesystem::exists(path, error);
}

// A connection of its own, closed on every path.
class Connection {
  public:
    Connection(const std::string& path, bool write) {
        const int flags = write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
        if (sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_FULLMUTEX, nullptr) !=
            SQLITE_OK) {
            sqlite3_close(db_);
            db_ = nullptr;
            return;
        }
        sqlite3_busy_timeout(db_, busy_timeout_ms);
    }
    ~Connection() {
        if (db_) sqlite3_close(db_);
    }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    sqlite3* get() const { return db_; }

  private:
    sqlite3* db_ = nullptr;
};

}  // namespace

std::optional<StoredModelList> read_model_list(const std::string& cache_path,
                                               const std::string& key) {
    if (cache_path.empty() || cache_path == ":memory:" || !file_exists(cache_path))
        return std::nullopt;
    const Connection connection(cache_path, false);
    if (!connection.get()) return std::nullopt;
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(connection.get(),
                           "SELECT body, fetched_unix FROM model_lists WHERE key = ?", -1,
                           &statement, nullptr) != SQLITE_OK) {
        sqlite3_finalize(statement);
        return std::nullopt;  // no such table yet: nothing stored
    }
    std::optional<StoredModelList> found;
    sqlite3_bind_text(statement, 1, key.c_str(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(statement) == SQLITE_ROW) {
        const unsigned char* body = sqlite3_column_text(statement, 0);
        found = StoredModelList{body ? reinterpret_cast<const char*>(body) : "",
                                sqlite3_column_int64(statement, 1)};
    }
    sqlite3_finalize(statement);
    return found;
}

void write_model_list(const std::string& cache_path, const std::string& key,
                      const StoredModelList& list) {
    if (cache_path.empty() || cache_path == ":memory:") return;
    try {
        // A new file is made by the cache itself (its page size, WAL, schema).
        if (!file_exists(cache_path)) {
            const Cache made(cache_path);
        }
    } catch (const std::exception&) {
        return;
    }
    const Connection connection(cache_path, true);
    if (!connection.get()) return;
    // Another program's SQLite file gets no table of ours (the cache refuses it too).
    sqlite3_stmt* ours = nullptr;
    const bool is_cache =
        sqlite3_prepare_v2(
            connection.get(),
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'llmv_meta'", -1, &ours,
            nullptr) == SQLITE_OK &&
        sqlite3_step(ours) == SQLITE_ROW;
    sqlite3_finalize(ours);
    if (!is_cache) return;
    if (sqlite3_exec(connection.get(), create_table, nullptr, nullptr, nullptr) != SQLITE_OK)
        return;
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(connection.get(),
                           "INSERT OR REPLACE INTO model_lists(key, fetched_unix, body) "
                           "VALUES(?, ?, ?)",
                           -1, &statement, nullptr) == SQLITE_OK) {
        sqlite3_bind_text(statement, 1, key.c_str(), static_cast<int>(key.size()),
                          SQLITE_TRANSIENT);
        sqlite3_bind_int64(statement, 2, list.fetched_unix);
        sqlite3_bind_text(statement, 3, list.body.c_str(), static_cast<int>(list.body.size()),
                          SQLITE_TRANSIENT);
        (void)sqlite3_step(statement);
    }
    sqlite3_finalize(statement);
}

}  // namespace llmv
