// The response cache on SQLite. WAL mode lets readers and one writer work at once across
// processes; busy_timeout makes a writer wait for another process's lock instead of failing;
// writes take the lock up front (BEGIN IMMEDIATE) so two writers never deadlock on upgrade.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#include "cache/cache_impl.hpp"
#include "llmvalidate/interrupt.hpp"

namespace llmv {

using namespace cache_detail;

namespace cache_detail {

namespace {
// Set on the thread whose wait for a lock ended because the user asked to stop (read by
// throw_sqlite_error(), which then throws llmv.cancelled instead of "database is locked").
thread_local bool wait_interrupted = false;
}  // namespace

int wait_while_busy(void* data, int count) {
    auto* wait = static_cast<BusyWait*>(data);
    const auto now = std::chrono::steady_clock::now();
    if (count == 0) {
        wait->start = now;
        wait_interrupted = false;
    }
    // The cancel flag of the run, or the front end's interrupt check (Ctrl-C, SIGTERM, R's
    // interrupt, Stata's Break): looked at every 50 ms of the wait.
    if (cancel_requested(wait->cancel)) {
        wait_interrupted = true;
        return 0;
    }
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - wait->start).count();
    if (waited >= wait->timeout_ms) return 0;
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::min<long long>(50, wait->timeout_ms - waited)));
    return 1;
}

[[noreturn]] void throw_sqlite_error(sqlite3* db, const std::string& message) {
    const bool busy = db && (sqlite3_errcode(db) & 0xff) == SQLITE_BUSY;
    if (busy && wait_interrupted) {
        wait_interrupted = false;
        throw Error(
            code::cancelled,
            "interrupted while waiting for another process's lock on the cache (" + message + ")");
    }
    throw Error(code::cache, message);
}

std::optional<std::vector<float>> float32_of_json(const std::string& text) {
    std::vector<float> vector;
    try {
        const nlohmann::json numbers = nlohmann::json::parse(text);
        if (!numbers.is_array() || numbers.empty()) return std::nullopt;
        vector.reserve(numbers.size());
        for (const auto& number : numbers) {
            if (!number.is_number()) return std::nullopt;
            const double value = number.get<double>();
            if (!std::isfinite(value) || std::fabs(value) > FLT_MAX) return std::nullopt;
            vector.push_back(static_cast<float>(value));
        }
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
    return vector;
}

}  // namespace cache_detail

// Format 1 to 2: every ok embedding (an empty body and a text that is a JSON array of
// numbers) becomes a float32 blob, each number rounded to float32 as a fresh answer would
// be; anything else stays as it was. Runs once, inside the opening transaction, so that
// another process sees either format 1 or the converted file.
void Cache::Impl::migrate_to_2() {
    exec("ALTER TABLE responses ADD COLUMN vector BLOB");
    // The keys first: a table should not change under a statement still reading it.
    std::vector<std::string> keys;
    {
        Statement select(db,
                         "SELECT key FROM responses WHERE status = 'ok' AND body = '' "
                         "AND text LIKE '[%'",
                         path);
        while (select.step()) keys.push_back(select.text(0));
    }
    Statement read(db, "SELECT text FROM responses WHERE key = ?1", path);
    Statement update(db, "UPDATE responses SET vector = ?1, text = '' WHERE key = ?2", path);
    for (const std::string& key : keys) {
        read.reset();
        read.bind(1, key);
        if (!read.step()) continue;
        const auto vector = float32_of_json(read.text(0));
        if (!vector) continue;  // not an embedding: kept as text
        update.reset();
        update.bind_vector(1, *vector);
        update.bind(2, key);
        update.step();
    }
    read.reset();
    update.reset();
    exec("UPDATE llmv_meta SET value = '2' WHERE name = 'schema'");
}

Cache::Cache(const std::string& path, int busy_timeout_ms) : impl_(std::make_unique<Impl>()) {
    impl_->path = path;
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path.c_str(), &impl_->db, flags, nullptr) != SQLITE_OK) {
        std::string message = impl_->db ? sqlite3_errmsg(impl_->db) : "out of memory";
        sqlite3_close(impl_->db);
        impl_->db = nullptr;
        throw Error(code::cache, "cannot open the cache file " + path + ": " + message);
    }
    refuse_foreign_file();
    try {
        // The wait for another process's lock looks at the interrupt check every 50 ms.
        impl_->busy_timeout_ms = busy_timeout_ms;
        impl_->busy_wait = std::make_unique<BusyWait>();
        impl_->busy_wait->timeout_ms = busy_timeout_ms;
        sqlite3_busy_handler(impl_->db, wait_while_busy, impl_->busy_wait.get());
        // A new file gets 32 KiB pages (an existing one keeps its own): a 1,536-d vector's row
        // (about 6.3 KB) then lies within a page, five to a page. With 4 KiB pages each such row
        // spilled into an overflow page and left most of its first page empty: a quarter more
        // bytes per passage (bench/scale.md).
        impl_->exec("PRAGMA page_size=32768");
        // Switching to WAL needs a moment of exclusive access; another process opening the
        // same new file at the same instant can hold it, so retry briefly.
        for (int tries = 0;; ++tries) {
            char* message = nullptr;
            const int rc =
                sqlite3_exec(impl_->db, "PRAGMA journal_mode=WAL", nullptr, nullptr, &message);
            sqlite3_free(message);
            if (rc == SQLITE_OK) break;
            if (rc != SQLITE_BUSY || tries > 200) impl_->fail("cannot switch to WAL mode");
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        // WAL + NORMAL: a commit survives a crash of the process (not of the OS) without an
        // fsync per answer.
        impl_->exec("PRAGMA synchronous=NORMAL");
        impl_->write_transaction([&] {
            impl_->exec(
                "CREATE TABLE IF NOT EXISTS llmv_meta(name TEXT PRIMARY KEY, value TEXT NOT NULL)");
            impl_->exec(
                "CREATE TABLE IF NOT EXISTS responses("
                "key TEXT PRIMARY KEY, provider TEXT NOT NULL, model TEXT NOT NULL, "
                "draw_index INTEGER NOT NULL, attempt INTEGER NOT NULL, status TEXT NOT NULL, "
                "body TEXT NOT NULL, text TEXT NOT NULL, response_model TEXT NOT NULL, "
                "input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, "
                "created_unix INTEGER NOT NULL, vector BLOB)");
            impl_->exec("CREATE INDEX IF NOT EXISTS responses_by_model ON responses(model)");
            Statement version(impl_->db, "SELECT value FROM llmv_meta WHERE name = 'schema'",
                              impl_->path);
            if (version.step()) {
                const std::string found = version.text(0);
                if (found == "1") {
                    version.reset();
                    impl_->migrate_to_2();
                } else if (found != schema_version) {
                    throw Error(code::cache, "cache " + path + " has schema version " + found +
                                                 "; this version of llmvalidate reads " +
                                                 schema_version + ". Use a new cache file.");
                }
            } else {
                version.reset();
                impl_->exec("INSERT INTO llmv_meta(name, value) VALUES('schema', '2')");
            }
        });
    } catch (const Error& error) {
        sqlite3_close(impl_->db);
        impl_->db = nullptr;
        // On a read-only medium (a mounted archive, a CD, a read-only share) the WAL switch and
        // the schema write fail; the answers can still be read. Writes then fail as read-only.
        if (error.code() == code::cancelled || !open_read_only(error)) throw;
    } catch (...) {
        sqlite3_close(impl_->db);
        impl_->db = nullptr;
        throw;
    }
}

// Another program's SQLite file (tables, none of them llmvalidate's) is refused before anything
// is written to it: the WAL switch and our tables would change a file that is not ours.
void Cache::refuse_foreign_file() {
    std::vector<std::string> tables;
    bool ours = false;
    try {
        Statement list(impl_->db, "SELECT name FROM sqlite_master WHERE type = 'table'",
                       impl_->path);
        while (list.step()) {
            tables.push_back(list.text(0));
            if (tables.back() == "llmv_meta") ours = true;
        }
    } catch (const Error&) {
        // Unreadable here (a WAL file on a read-only medium needs its -shm): the open below
        // falls back to read-only, which writes nothing to any file.
        return;
    }
    if (tables.empty() || ours) return;
    sqlite3_close(impl_->db);
    impl_->db = nullptr;
    if (tables.size() > 5) {
        tables.resize(5);
        tables.push_back("...");
    }
    throw_invalid(code::invalid_argument, "cache",
                  impl_->path + ", a SQLite database of another program (tables " +
                      text::join_list(tables, ", ", ", ") + "), which was left untouched",
                  "an llmvalidate cache file, or a file that does not exist yet");
}

bool Cache::open_read_only(const Error& original) {
    const std::string text = original.what();
    if (text.find("has schema version") != std::string::npos) return false;
    // "file:" URI, percent-encoded: immutable=1 reads a WAL file without its -shm, which a
    // read-only folder cannot hold.
    const std::string uri =
        "file:" + percent_encode(impl_->path, /*keep_slash=*/true) + "?immutable=1";
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(uri.c_str(), &db,
                        SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return false;
    }
    sqlite3_stmt* statement = nullptr;
    bool ours = false;
    if (sqlite3_prepare_v2(db, "SELECT value FROM llmv_meta WHERE name = 'schema'", -1, &statement,
                           nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
        const auto* value = sqlite3_column_text(statement, 0);
        ours = value && std::string(reinterpret_cast<const char*>(value)) == schema_version;
    }
    sqlite3_finalize(statement);
    if (!ours) {
        sqlite3_close(db);
        return false;
    }
    impl_->db = db;
    return true;
}

// The Impl finalizes its statements and then closes the connection (Impl::CloseLast).
Cache::~Cache() = default;

const std::string& Cache::path() const { return impl_->path; }

void Cache::end_waits_on(const std::atomic<bool>* cancel) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->busy_wait = std::make_unique<BusyWait>();
    impl_->busy_wait->cancel = cancel;
    impl_->busy_wait->timeout_ms = impl_->busy_timeout_ms;
    sqlite3_busy_handler(impl_->db, wait_while_busy, impl_->busy_wait.get());
}

}  // namespace llmv
