// What a cache holds and its clearing (llmvalidate/cache.hpp; `llmvalidate cache`, R's
// llm_cache_*): counts per model, sizes on disk, and removal by model or of everything.
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "cache/cache_impl.hpp"

namespace llmv {

using namespace cache_detail;

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
