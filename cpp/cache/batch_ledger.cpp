// The batch ledger (batch_ledger.hpp): the provider batches a batch-API run submitted, and its
// staged answers and pending requests, in tables of the cache file created when first used.
#include "cache/batch_ledger.hpp"

#include <mutex>
#include <string>
#include <vector>

#include "cache/cache_impl.hpp"

namespace llmv {

using namespace cache_detail;

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

void BatchLedger::put_provider_batch(const ProviderBatchRecord& record) {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.exec(provider_batches_table);
    Statement statement(
        impl.db,
        "INSERT OR REPLACE INTO provider_batches(id, api, kind, state, lines, request, "
        "created_unix) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        impl.path);
    statement.bind(1, record.id);
    statement.bind(2, record.api);
    statement.bind(3, record.kind);
    statement.bind(4, record.state);
    statement.bind(5, record.lines);
    statement.bind(6, record.request);
    statement.bind(7, record.created_unix);
    statement.step();
}

std::vector<ProviderBatchRecord> BatchLedger::provider_batches(const std::string& state) {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.exec(provider_batches_table);
    Statement statement(
        impl.db,
        "SELECT id, api, kind, state, lines, request, created_unix FROM provider_batches "
        "WHERE ?1 = '' OR state = ?1 ORDER BY created_unix, rowid",
        impl.path);
    statement.bind(1, state);
    std::vector<ProviderBatchRecord> records;
    while (statement.step()) {
        ProviderBatchRecord record = provider_batch_of(statement);
        records.push_back(std::move(record));
    }
    return records;
}

std::vector<std::string> BatchLedger::provider_batch_ids(const std::string& state) {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.exec(provider_batches_table);
    Statement statement(
        impl.db, "SELECT id FROM provider_batches WHERE state = ?1 ORDER BY created_unix, rowid",
        impl.path);
    statement.bind(1, state);
    std::vector<std::string> ids;
    while (statement.step()) ids.push_back(statement.text(0));
    return ids;
}

std::optional<ProviderBatchRecord> BatchLedger::provider_batch(const std::string& id) {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.exec(provider_batches_table);
    Statement statement(
        impl.db,
        "SELECT id, api, kind, state, lines, request, created_unix FROM provider_batches "
        "WHERE id = ?1",
        impl.path);
    statement.bind(1, id);
    if (!statement.step()) return std::nullopt;
    ProviderBatchRecord record = provider_batch_of(statement);
    return record;
}

void BatchLedger::set_provider_batch_state(const std::string& id, const std::string& state,
                                           const std::string& request) {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.exec(provider_batches_table);
    Statement statement(
        impl.db, "UPDATE provider_batches SET state = ?2, request = ?3 WHERE id = ?1", impl.path);
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

void BatchLedger::put_batch_staged(const std::vector<BatchStaged>& answers) {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.ensure_batch_tables(batch_work_tables);
    impl.insert_all(
        "INSERT OR REPLACE INTO batch_staged(id, status, body, vector) VALUES (?1, ?2, ?3, ?4)",
        answers, [](Statement& statement, const BatchStaged& answer) {
            statement.bind(1, answer.id);
            statement.bind(2, static_cast<std::int64_t>(answer.status));
            statement.bind(3, answer.body);
            statement.bind_vector(4, answer.vector);
        });
}

std::optional<BatchStaged> BatchLedger::batch_staged(const std::string& id) {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.ensure_batch_tables(batch_work_tables);
    Statement& statement = impl.prepared(
        impl.staged_statement, "SELECT status, body, vector FROM batch_staged WHERE id = ?1");
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

void BatchLedger::put_batch_pending(const std::vector<BatchPending>& requests) {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.ensure_batch_tables(batch_work_tables);
    impl.insert_all(
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

std::vector<BatchPending> BatchLedger::batch_pending(const std::string& kind, std::int64_t& after,
                                                     std::size_t limit) {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.ensure_batch_tables(batch_work_tables);
    Statement statement(impl.db,
                        "SELECT rowid, id, attempt, url, body FROM batch_pending WHERE kind = ?1 "
                        "AND rowid > ?2 ORDER BY rowid LIMIT ?3",
                        impl.path);
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

std::uint64_t BatchLedger::count_batch_pending(const std::string& kind) {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.ensure_batch_tables(batch_work_tables);
    Statement statement(impl.db, "SELECT COUNT(*) FROM batch_pending WHERE kind = ?1", impl.path);
    statement.bind(1, kind);
    statement.step();
    return static_cast<std::uint64_t>(statement.integer(0));
}

void BatchLedger::clear_batch_staged() {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.ensure_batch_tables(batch_work_tables);
    impl.exec("DELETE FROM batch_staged");
}

void BatchLedger::clear_batch_pending() {
    auto& impl = CacheAccess::impl(cache_);
    std::lock_guard<std::mutex> lock(impl.mutex);
    impl.ensure_batch_tables(batch_work_tables);
    impl.exec("DELETE FROM batch_pending");
}

}  // namespace llmv
