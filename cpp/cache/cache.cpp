// The response cache on SQLite. WAL mode lets readers and one writer work at once across
// processes; busy_timeout makes a writer wait for another process's lock instead of failing;
// writes take the lock up front (BEGIN IMMEDIATE) so two writers never deadlock on upgrade.
#include "llmvalidate/cache.hpp"

#include <fstream>

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "core/float32.hpp"
#include "core/http.hpp"
#include "core/sha256.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {
namespace {

// 1: embeddings as JSON text in `text`. 2: embeddings as float32 blobs in `vector`; a file of
// format 1 is converted when first opened (migrate_to_2()).
constexpr const char* schema_version = "2";

void append_field(std::string& out, const char* name, const std::string& value) {
    out += name;
    out += ':';
    out += std::to_string(value.size());
    out += ':';
    out += value;
    out += '\n';
}

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
        throw Error(code::cache, std::string("cache ") + path_ + ": " + what +
                                     " failed: " + sqlite3_errmsg(db_));
    }
    sqlite3* db_;
    sqlite3_stmt* statement_ = nullptr;
    std::string path_;
};

// A format-1 embedding (a JSON array of finite numbers) as float32; nullopt for anything else.
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

}  // namespace

std::string CacheKey::canonical() const {
    // Versioned and length-prefixed: no field can spill into the next, and a change of
    // format changes every key instead of silently colliding with old entries.
    std::string out = "llmvalidate-cache-key-v1\n";
    append_field(out, "provider", provider);
    append_field(out, "endpoint", endpoint);
    append_field(out, "model", model);
    std::string parameters_text;
    try {
        parameters_text = parameters.dump(-1, ' ', true, nlohmann::json::error_handler_t::strict);
    } catch (const nlohmann::json::exception& error) {
        throw_invalid(code::invalid_argument, "cache key parameters",
                      std::string("text that is not UTF-8 (") + error.what() + ")",
                      "valid UTF-8 JSON");
    }
    append_field(out, "parameters", parameters_text);
    append_field(out, "prompt", prompt);
    append_field(out, "draw_index", std::to_string(draw_index));
    append_field(out, "attempt", std::to_string(attempt));
    return out;
}

std::string CacheKey::hash() const { return sha256_hex(canonical()); }

namespace {

struct BusyWait {
    const std::atomic<bool>* cancel = nullptr;
    int timeout_ms = 0;
    std::chrono::steady_clock::time_point start;
};

// SQLite's busy timeout, in steps of at most 50 ms that look at the cancel flag.
int wait_while_busy(void* data, int count) {
    auto* wait = static_cast<BusyWait*>(data);
    const auto now = std::chrono::steady_clock::now();
    if (count == 0) wait->start = now;
    if (wait->cancel && wait->cancel->load()) return 0;
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - wait->start).count();
    if (waited >= wait->timeout_ms) return 0;
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::min<long long>(50, wait->timeout_ms - waited)));
    return 1;
}

}  // namespace

struct Cache::Impl {
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
        throw Error(code::cache, "cache " + path + ": " + what + ": " +
                                     (db ? sqlite3_errmsg(db) : "cannot open"));
    }

    void exec(const char* sql) {
        char* message = nullptr;
        if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
            std::string text = message ? message : "unknown error";
            sqlite3_free(message);
            throw Error(code::cache, "cache " + path + ": " + text + " (in: " + sql + ")");
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
    void migrate_to_2() {
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
};

namespace {

constexpr const char* upsert_sql =
    "INSERT INTO responses(key, provider, model, draw_index, attempt, status, body, text, "
    "response_model, input_tokens, output_tokens, created_unix, vector) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
    "ON CONFLICT(key) DO UPDATE SET status = excluded.status, body = excluded.body, "
    "text = excluded.text, vector = excluded.vector, response_model = excluded.response_model, "
    "input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, "
    "created_unix = excluded.created_unix "
    "WHERE responses.status <> 'ok' OR excluded.status IN ('ok', 'rejected')";

constexpr const char* select_columns =
    "SELECT key, provider, model, draw_index, attempt, status, body, text, response_model, "
    "input_tokens, output_tokens, created_unix, vector FROM responses WHERE key = ?1";

std::int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

Cache::Cache(const std::string& path, int busy_timeout_ms) : impl_(std::make_unique<Impl>()) {
    impl_->path = path;
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path.c_str(), &impl_->db, flags, nullptr) != SQLITE_OK) {
        std::string message = impl_->db ? sqlite3_errmsg(impl_->db) : "out of memory";
        sqlite3_close(impl_->db);
        impl_->db = nullptr;
        throw Error(code::cache, "cannot open the cache file " + path + ": " + message);
    }
    try {
        sqlite3_busy_timeout(impl_->db, busy_timeout_ms);
        impl_->busy_timeout_ms = busy_timeout_ms;
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
        if (!open_read_only(error)) throw;
    } catch (...) {
        sqlite3_close(impl_->db);
        impl_->db = nullptr;
        throw;
    }
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

std::optional<CacheEntry> Cache::get(const CacheKey& key) { return get(key.hash()); }

std::optional<CacheEntry> Cache::get(const std::string& key_hash) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    Statement& statement = impl_->prepared(impl_->select_statement, select_columns);
    statement.reset();
    statement.bind(1, key_hash);
    if (!statement.step()) return std::nullopt;
    CacheEntry entry;
    entry.key = statement.text(0);
    entry.provider = statement.text(1);
    entry.model = statement.text(2);
    entry.draw_index = static_cast<std::uint64_t>(statement.integer(3));
    entry.attempt = static_cast<std::uint32_t>(statement.integer(4));
    entry.status = statement.text(5);
    entry.body = statement.text(6);
    entry.text = statement.text(7);
    entry.response_model = statement.text(8);
    entry.input_tokens = static_cast<std::uint64_t>(statement.integer(9));
    entry.output_tokens = static_cast<std::uint64_t>(statement.integer(10));
    entry.created_unix = statement.integer(11);
    entry.vector = statement.vector(12);
    statement.reset();  // ends the implicit read transaction (a pending row would hold it open)
    return entry;
}

bool Cache::has_ok(const std::string& key_hash) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    Statement& statement = impl_->prepared(
        impl_->has_ok_statement, "SELECT 1 FROM responses WHERE key = ?1 AND status = 'ok'");
    statement.reset();
    statement.bind(1, key_hash);
    const bool found = statement.step();
    statement.reset();
    return found;
}

std::optional<CacheEntry> Cache::get_answer(const std::string& key_hash) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    Statement& statement = impl_->prepared(impl_->answer_statement,
                                           "SELECT status, text FROM responses WHERE key = ?1");
    statement.reset();
    statement.bind(1, key_hash);
    if (!statement.step()) return std::nullopt;
    CacheEntry entry;
    entry.key = key_hash;
    entry.status = statement.text(0);
    entry.text = statement.text(1);
    statement.reset();
    return entry;
}

bool Cache::contains(const CacheKey& key) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    Statement statement(impl_->db, "SELECT 1 FROM responses WHERE key = ?1", impl_->path);
    statement.bind(1, key.hash());
    return statement.step();
}

void Cache::put(const CacheKey& key, const CacheEntry& entry,
                const std::vector<std::string>& secrets) {
    put_many({{key, entry}}, secrets);
}

void Cache::put_many(const std::vector<std::pair<CacheKey, CacheEntry>>& entries,
                     const std::vector<std::string>& secrets) {
    if (entries.empty()) return;
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const std::int64_t now = unix_now();
    impl_->write_transaction([&] {
        Statement& statement = impl_->prepared(impl_->upsert_statement, upsert_sql);
        for (const auto& [key, entry] : entries)
            impl_->upsert(statement, key, key.hash(), entry, secrets, now);
        statement.reset();
    });
}

void Cache::put_many(const std::vector<std::pair<CacheKey, CacheEntry>>& entries,
                     const std::vector<std::string>& secrets,
                     const std::vector<std::string>& key_hashes) {
    if (key_hashes.size() != entries.size()) {
        throw Error(code::internal, "Cache::put_many: " + std::to_string(key_hashes.size()) +
                                        " key hashes for " + std::to_string(entries.size()) +
                                        " entries");
    }
    if (entries.empty()) return;
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const std::int64_t now = unix_now();
    impl_->write_transaction([&] {
        Statement& statement = impl_->prepared(impl_->upsert_statement, upsert_sql);
        for (std::size_t i = 0; i < entries.size(); ++i) {
            impl_->upsert(statement, entries[i].first, key_hashes[i], entries[i].second, secrets,
                          now);
        }
        statement.reset();
    });
}

namespace {

const char* provider_batches_table =
    "CREATE TABLE IF NOT EXISTS provider_batches(id TEXT PRIMARY KEY, api TEXT NOT NULL, "
    "kind TEXT NOT NULL, state TEXT NOT NULL, lines TEXT NOT NULL, request TEXT NOT NULL, "
    "created_unix INTEGER NOT NULL)";

// A row of `SELECT id, api, kind, state, lines, request, created_unix FROM provider_batches`.
ProviderBatchRecord provider_batch_of(Statement& statement) {
    ProviderBatchRecord record;
    record.id = statement.text(0);
    record.api = statement.text(1);
    record.kind = statement.text(2);
    record.state = statement.text(3);
    record.lines = statement.text(4);
    record.request = statement.text(5);
    record.created_unix = statement.integer(6);
    return record;
}

}  // namespace

void Cache::put_provider_batch(const ProviderBatchRecord& record) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->exec(provider_batches_table);
    Statement statement(
        impl_->db,
        "INSERT OR REPLACE INTO provider_batches(id, api, kind, state, lines, request, "
        "created_unix) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        impl_->path);
    statement.bind(1, record.id);
    statement.bind(2, record.api);
    statement.bind(3, record.kind);
    statement.bind(4, record.state);
    statement.bind(5, record.lines);
    statement.bind(6, record.request);
    statement.bind(7, record.created_unix);
    statement.step();
}

std::vector<ProviderBatchRecord> Cache::provider_batches(const std::string& state) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->exec(provider_batches_table);
    Statement statement(
        impl_->db,
        "SELECT id, api, kind, state, lines, request, created_unix FROM provider_batches "
        "WHERE ?1 = '' OR state = ?1 ORDER BY created_unix, rowid",
        impl_->path);
    statement.bind(1, state);
    std::vector<ProviderBatchRecord> records;
    while (statement.step()) {
        ProviderBatchRecord record = provider_batch_of(statement);
        records.push_back(std::move(record));
    }
    return records;
}

std::vector<std::string> Cache::provider_batch_ids(const std::string& state) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->exec(provider_batches_table);
    Statement statement(
        impl_->db, "SELECT id FROM provider_batches WHERE state = ?1 ORDER BY created_unix, rowid",
        impl_->path);
    statement.bind(1, state);
    std::vector<std::string> ids;
    while (statement.step()) ids.push_back(statement.text(0));
    return ids;
}

std::optional<ProviderBatchRecord> Cache::provider_batch(const std::string& id) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->exec(provider_batches_table);
    Statement statement(
        impl_->db,
        "SELECT id, api, kind, state, lines, request, created_unix FROM provider_batches "
        "WHERE id = ?1",
        impl_->path);
    statement.bind(1, id);
    if (!statement.step()) return std::nullopt;
    ProviderBatchRecord record = provider_batch_of(statement);
    return record;
}

void Cache::set_provider_batch_state(const std::string& id, const std::string& state,
                                     const std::string& request) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->exec(provider_batches_table);
    Statement statement(impl_->db,
                        "UPDATE provider_batches SET state = ?2, request = ?3 WHERE id = ?1",
                        impl_->path);
    statement.bind(1, id);
    statement.bind(2, state);
    statement.bind(3, request);
    statement.step();
}

namespace {

const char* batch_work_tables =
    "CREATE TABLE IF NOT EXISTS batch_staged(id TEXT PRIMARY KEY, status INTEGER NOT NULL, "
    "body BLOB, vector BLOB);"
    "CREATE TABLE IF NOT EXISTS batch_pending(id TEXT NOT NULL, kind TEXT NOT NULL, "
    "attempt INTEGER NOT NULL, url TEXT NOT NULL, body BLOB NOT NULL, PRIMARY KEY(kind, id))";

}  // namespace

void Cache::put_batch_staged(const std::vector<BatchStaged>& answers) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->ensure_batch_tables(batch_work_tables);
    impl_->insert_all(
        "INSERT OR REPLACE INTO batch_staged(id, status, body, vector) VALUES (?1, ?2, ?3, ?4)",
        answers, [](Statement& statement, const BatchStaged& answer) {
            statement.bind(1, answer.id);
            statement.bind(2, static_cast<std::int64_t>(answer.status));
            statement.bind(3, answer.body);
            statement.bind_vector(4, answer.vector);
        });
}

std::optional<BatchStaged> Cache::batch_staged(const std::string& id) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->ensure_batch_tables(batch_work_tables);
    Statement& statement = impl_->prepared(
        impl_->staged_statement, "SELECT status, body, vector FROM batch_staged WHERE id = ?1");
    statement.reset();
    statement.bind(1, id);
    if (!statement.step()) return std::nullopt;
    BatchStaged answer;
    answer.id = id;
    answer.status = static_cast<long>(statement.integer(0));
    answer.body = statement.text(1);
    answer.vector = statement.vector(2);
    statement.reset();
    return answer;
}

void Cache::put_batch_pending(const std::vector<BatchPending>& requests) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->ensure_batch_tables(batch_work_tables);
    impl_->insert_all(
        "INSERT OR IGNORE INTO batch_pending(id, kind, attempt, url, body) VALUES (?1, ?2, ?3, ?4, "
        "?5)",
        requests, [](Statement& statement, const BatchPending& request) {
            statement.bind(1, request.id);
            statement.bind(2, request.kind);
            statement.bind(3, static_cast<std::int64_t>(request.attempt));
            statement.bind(4, request.url);
            statement.bind(5, request.body);
        });
}

std::vector<BatchPending> Cache::batch_pending(const std::string& kind, std::int64_t& after,
                                               std::size_t limit) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->ensure_batch_tables(batch_work_tables);
    Statement statement(impl_->db,
                        "SELECT rowid, id, attempt, url, body FROM batch_pending WHERE kind = ?1 "
                        "AND rowid > ?2 ORDER BY rowid LIMIT ?3",
                        impl_->path);
    statement.bind(1, kind);
    statement.bind(2, after);
    statement.bind(3, static_cast<std::int64_t>(limit));
    std::vector<BatchPending> requests;
    while (statement.step()) {
        BatchPending request;
        after = statement.integer(0);
        request.id = statement.text(1);
        request.kind = kind;
        request.attempt = static_cast<int>(statement.integer(2));
        request.url = statement.text(3);
        request.body = statement.text(4);
        requests.push_back(std::move(request));
    }
    return requests;
}

std::uint64_t Cache::count_batch_pending(const std::string& kind) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->ensure_batch_tables(batch_work_tables);
    Statement statement(impl_->db, "SELECT COUNT(*) FROM batch_pending WHERE kind = ?1",
                        impl_->path);
    statement.bind(1, kind);
    statement.step();
    return static_cast<std::uint64_t>(statement.integer(0));
}

void Cache::clear_batch_staged() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->ensure_batch_tables(batch_work_tables);
    impl_->exec("DELETE FROM batch_staged");
}

void Cache::clear_batch_pending() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->ensure_batch_tables(batch_work_tables);
    impl_->exec("DELETE FROM batch_pending");
}

std::uint64_t Cache::count(const std::string& model) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (model.empty()) {
        Statement statement(impl_->db, "SELECT COUNT(*) FROM responses", impl_->path);
        statement.step();
        return static_cast<std::uint64_t>(statement.integer(0));
    }
    Statement statement(impl_->db, "SELECT COUNT(*) FROM responses WHERE model = ?1", impl_->path);
    statement.bind(1, model);
    statement.step();
    return static_cast<std::uint64_t>(statement.integer(0));
}

std::uint64_t Cache::size_bytes() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    Statement pages(impl_->db, "PRAGMA page_count", impl_->path);
    pages.step();
    Statement page_size(impl_->db, "PRAGMA page_size", impl_->path);
    page_size.step();
    std::uint64_t bytes = static_cast<std::uint64_t>(pages.integer(0)) *
                          static_cast<std::uint64_t>(page_size.integer(0));
    std::error_code error;
    const auto wal = std::filesystem::file_size(impl_->path + "-wal", error);
    if (!error) bytes += static_cast<std::uint64_t>(wal);
    return bytes;
}

CacheStats Cache::stats() {
    CacheStats stats;
    {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        Statement statement(impl_->db,
                            "SELECT COUNT(*), COALESCE(SUM(status = 'ok'), 0) FROM responses",
                            impl_->path);
        statement.step();
        stats.entries = static_cast<std::uint64_t>(statement.integer(0));
        stats.ok_entries = static_cast<std::uint64_t>(statement.integer(1));
        stats.other_entries = stats.entries - stats.ok_entries;
    }
    stats.size_bytes = size_bytes();
    return stats;
}

std::vector<CacheModelCount> Cache::models() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    Statement statement(impl_->db,
                        "SELECT provider, model, COUNT(*), COALESCE(SUM(status = 'ok'), 0), "
                        "COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0) "
                        "FROM responses GROUP BY provider, model ORDER BY provider, model",
                        impl_->path);
    std::vector<CacheModelCount> out;
    while (statement.step()) {
        CacheModelCount row;
        row.provider = statement.text(0);
        row.model = statement.text(1);
        row.entries = static_cast<std::uint64_t>(statement.integer(2));
        row.ok_entries = static_cast<std::uint64_t>(statement.integer(3));
        row.input_tokens = static_cast<std::uint64_t>(statement.integer(4));
        row.output_tokens = static_cast<std::uint64_t>(statement.integer(5));
        out.push_back(std::move(row));
    }
    return out;
}

std::uint64_t Cache::clear_model(const std::string& model) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    std::uint64_t removed = 0;
    impl_->write_transaction([&] {
        Statement statement(impl_->db, "DELETE FROM responses WHERE model = ?1", impl_->path);
        statement.bind(1, model);
        statement.step();
        removed = static_cast<std::uint64_t>(sqlite3_changes(impl_->db));
    });
    return removed;
}

std::uint64_t Cache::clear_all() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    std::uint64_t removed = 0;
    impl_->write_transaction([&] {
        impl_->exec("DELETE FROM responses");
        removed = static_cast<std::uint64_t>(sqlite3_changes(impl_->db));
    });
    return removed;
}

}  // namespace llmv

namespace llmv {

std::string side_file_line(const CacheKey& key, const CacheEntry& entry,
                           const std::vector<std::string>& secrets) {
    nlohmann::json line;
    line["key"] = {{"provider", key.provider}, {"endpoint", key.endpoint},
                   {"model", key.model},       {"parameters", key.parameters},
                   {"prompt", key.prompt},     {"draw_index", key.draw_index},
                   {"attempt", key.attempt}};
    line["entry"] = {{"status", entry.status},
                     {"body", redact(entry.body, secrets)},
                     {"text", redact(entry.text, secrets)},
                     {"response_model", entry.response_model},
                     {"input_tokens", entry.input_tokens},
                     {"output_tokens", entry.output_tokens}};
    // The float32 bytes as they are stored, so that an import restores the same numbers.
    if (!entry.vector.empty()) line["entry"]["vector"] = base64_encode(float32_bytes(entry.vector));
    return line.dump();
}

std::uint64_t Cache::import_side_file(const std::string& side_file, const std::string& argument,
                                      ImportReport* report) {
    std::ifstream in(side_file, std::ios::binary);
    if (!in) throw_invalid(code::io, argument, side_file, "a readable side file of answers");
    ImportReport counts;
    std::vector<std::pair<CacheKey, CacheEntry>> entries;
    std::string text;
    std::size_t line_number = 0;
    while (std::getline(in, text)) {
        ++line_number;
        if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
        // getline() stopped at the end of the file, not at a line end: the writer was cut off.
        const bool last_without_end = in.eof();
        try {
            const nlohmann::json line = nlohmann::json::parse(text);
            const nlohmann::json& key_json = line.at("key");
            const nlohmann::json& entry_json = line.at("entry");
            CacheKey key;
            key.provider = key_json.at("provider").get<std::string>();
            key.endpoint = key_json.at("endpoint").get<std::string>();
            key.model = key_json.at("model").get<std::string>();
            key.parameters = key_json.at("parameters");
            key.prompt = key_json.at("prompt").get<std::string>();
            key.draw_index = key_json.at("draw_index").get<std::uint64_t>();
            key.attempt = key_json.at("attempt").get<std::uint32_t>();
            CacheEntry entry;
            entry.status = entry_json.at("status").get<std::string>();
            entry.body = entry_json.at("body").get<std::string>();
            entry.text = entry_json.at("text").get<std::string>();
            entry.response_model = entry_json.at("response_model").get<std::string>();
            entry.input_tokens = entry_json.at("input_tokens").get<std::uint64_t>();
            entry.output_tokens = entry_json.at("output_tokens").get<std::uint64_t>();
            if (entry_json.contains("vector")) {
                const auto bytes = base64_decode(entry_json.at("vector").get<std::string>());
                const auto vector =
                    bytes ? from_float32_bytes(bytes->data(), bytes->size()) : std::nullopt;
                if (!vector) throw std::invalid_argument("\"vector\" is not base64 float32");
                entry.vector = *vector;
            } else if (entry.status == cache_status::ok && entry.body.empty() &&
                       entry.text.rfind('[', 0) == 0) {
                // A side file of format 1: its embeddings as JSON text, converted as on opening.
                if (auto vector = float32_of_json(entry.text)) {
                    entry.vector = std::move(*vector);
                    entry.text.clear();
                }
            }
            entries.emplace_back(std::move(key), std::move(entry));
        } catch (const std::exception& error) {
            if (last_without_end) {
                counts.cut_last_line = true;
                break;
            }
            throw_invalid(
                code::invalid_argument, argument,
                side_file + ", line " + std::to_string(line_number) + " (" + error.what() + ")",
                "lines {\"key\": {...}, \"entry\": {...}} as a run writes them");
        }
    }
    std::vector<std::string> hashes;
    hashes.reserve(entries.size());
    std::set<std::string> seen;
    for (const auto& [key, entry] : entries) {
        hashes.push_back(key.hash());
        // A key given twice in the file, or already in the cache, is not new.
        if (!seen.insert(hashes.back()).second || get(hashes.back()))
            ++counts.already_present;
        else
            ++counts.added;
    }
    put_many(entries, {}, hashes);
    if (report) *report = counts;
    return counts.added;
}

void Cache::end_waits_on(const std::atomic<bool>* cancel) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->busy_wait = std::make_unique<BusyWait>();
    impl_->busy_wait->cancel = cancel;
    impl_->busy_wait->timeout_ms = impl_->busy_timeout_ms;
    sqlite3_busy_handler(impl_->db, wait_while_busy, impl_->busy_wait.get());
}

}  // namespace llmv
