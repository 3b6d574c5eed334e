// The cache's connection and what its files share (private to cpp/cache/). The cache's jobs,
// one file each:
//   cache_open.cpp         opening a file: WAL mode, the schema and its migration, read-only media
//   cache_key.cpp          the cache key's canonical serialization and hash
//   cache.cpp              answers: look-ups and stores
//   cache_maintenance.cpp  counts, sizes and clearing (`llmvalidate cache`)
//   side_file.cpp          the side file of answers a run could not write, and its import
//   batch_ledger.cpp       a batch-API run's tables (batch_ledger.hpp)
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cache/statement.hpp"
#include "core/http.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {
namespace cache_detail {

// 1: embeddings as JSON text in `text`. 2: embeddings as float32 blobs in `vector`; a file of
// format 1 is converted when first opened (migrate_to_2()).
constexpr const char* schema_version = "2";

struct BusyWait {
    const std::atomic<bool>* cancel = nullptr;
    int timeout_ms = 0;
    std::chrono::steady_clock::time_point start;
};

// SQLite's busy timeout, in steps of at most 50 ms that look at the cancel flag and the front
// end's interrupt check (llmvalidate/interrupt.hpp).
int wait_while_busy(void* data, int count);
// Throws llmv.cancelled when SQLite gave up on a lock because the wait was interrupted on this
// thread, else llmv.cache.failed with `message`.
[[noreturn]] void throw_sqlite_error(sqlite3* db, const std::string& message);

// A format-1 embedding (a JSON array of finite numbers) as float32; nullopt for anything else.
std::optional<std::vector<float>> float32_of_json(const std::string& text);

}  // namespace cache_detail

struct Cache::Impl {
    using BusyWait = cache_detail::BusyWait;
    using Statement = cache_detail::Statement;

    std::string path;
    sqlite3* db = nullptr;
    int busy_timeout_ms = 0;
    std::unique_ptr<BusyWait> busy_wait;  // end_waits_on()
    std::mutex mutex;
    // Closes `db` when the Impl goes. Declared before the prepared statements so that C++
    // destroys them first: sqlite3_close() refuses (and the connection, with its page cache,
    // leaks) while any statement is unfinalized, and a new statement cannot be forgotten here.
    struct CloseLast {
        sqlite3*& db;
        ~CloseLast() {
            if (db) sqlite3_close(db);
        }
    } close_last{db};
    // Prepared once: a batch looks up and stores every response, and compiling the SQL each
    // time was a visible share of the client thread's CPU.
    std::unique_ptr<Statement> select_statement;
    std::unique_ptr<Statement> upsert_statement;
    std::unique_ptr<Statement> has_ok_statement;
    std::unique_ptr<Statement> answer_statement;
    std::unique_ptr<Statement> staged_statement;
    // The batch ledger's (batch_ledger.hpp), kept here so that its statement too is finalized
    // before the connection closes.
    bool batch_tables_ready = false;  // batch_staged and batch_pending exist

    // Every row of `rows` through the statement `sql`, bound by `bind`, in one transaction.
    template <typename Row, typename Bind>
    void insert_all(const char* sql, const std::vector<Row>& rows, Bind bind) {
        write_transaction([&] {
            Statement statement(db, sql, path);
            for (const Row& row : rows) {
                statement.reset();
                bind(statement, row);
                statement.step();
            }
        });
    }

    void ensure_batch_tables(const char* sql) {
        if (batch_tables_ready) return;
        exec(sql);
        batch_tables_ready = true;
    }

    Statement& prepared(std::unique_ptr<Statement>& slot, const char* sql) {
        if (!slot) slot = std::make_unique<Statement>(db, sql, path);
        return *slot;
    }

    [[noreturn]] void fail(const std::string& what) {
        cache_detail::throw_sqlite_error(
            db, "cache " + path + ": " + what + ": " + (db ? sqlite3_errmsg(db) : "cannot open"));
    }

    void exec(const char* sql) {
        char* message = nullptr;
        if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
            std::string text = message ? message : "unknown error";
            sqlite3_free(message);
            cache_detail::throw_sqlite_error(db,
                                             "cache " + path + ": " + text + " (in: " + sql + ")");
        }
    }

    // Runs `body` inside BEGIN IMMEDIATE ... COMMIT, rolling back on an exception.
    template <typename Body>
    void write_transaction(Body&& body) {
        exec("BEGIN IMMEDIATE");
        try {
            body();
            exec("COMMIT");
        } catch (...) {
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }

    void upsert(Statement& statement, const CacheKey& key, const std::string& key_hash,
                const CacheEntry& entry, const std::vector<std::string>& secrets,
                std::int64_t now) {
        statement.reset();
        statement.bind(1, key_hash);
        statement.bind(2, key.provider);
        statement.bind(3, key.model);
        statement.bind(4, static_cast<std::int64_t>(key.draw_index));
        statement.bind(5, static_cast<std::int64_t>(key.attempt));
        statement.bind(6, entry.status);
        statement.bind(7, redact(entry.body, secrets));
        statement.bind(8, redact(entry.text, secrets));
        statement.bind(9, entry.response_model);
        statement.bind(10, static_cast<std::int64_t>(entry.input_tokens));
        statement.bind(11, static_cast<std::int64_t>(entry.output_tokens));
        statement.bind(12, now);
        statement.bind_vector(13, entry.vector);
        statement.step();
    }

    // Format 1 to 2: every ok embedding (an empty body and a text that is a JSON array of
    // numbers) becomes a float32 blob, each number rounded to float32 as a fresh answer would
    // be; anything else stays as it was. Runs once, inside the opening transaction, so that
    // another process sees either format 1 or the converted file.
    void migrate_to_2();
};

// The connection of a Cache, for the engine's own tables beside the answers (the batch
// ledger): a friend of Cache, so that its public header names none of them.
struct CacheAccess {
    static Cache::Impl& impl(Cache& cache) { return *cache.impl_; }
};

}  // namespace llmv
