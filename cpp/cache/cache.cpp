// The cache's answers (llmvalidate/cache.hpp): look-ups, presence tests for the dry run, and
// stores, one transaction per batch of answers.
#include <chrono>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cache/cache_impl.hpp"

namespace llmv {

using namespace cache_detail;

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

}  // namespace llmv
