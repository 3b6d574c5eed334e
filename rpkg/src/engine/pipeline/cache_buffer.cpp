// The cache's write buffer (cache_buffer.hpp).
#include "pipeline/cache_buffer.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>

#include "llmvalidate/error.hpp"
#include "llmvalidate/resolution.hpp"
#include "pipeline/debug_env.hpp"
#include "pipeline/progress.hpp"

namespace llmv::pipeline {

CacheBuffer::CacheBuffer(const ValidationConfig& config, bool needed,
                         const std::vector<std::string>& secrets)
    : config_(config), secrets_(secrets) {
    if (!needed || config_.cache_path.empty()) return;
    prepare_cache_directory(config_.cache_path);
    cache_ = std::make_unique<Cache>(config_.cache_path, config_.cache_busy_timeout_ms);
    // A second connection to ":memory:" would be another database: written inline.
    if (config_.cache_path != ":memory:" && !cache_inline_writes())
        writer_ = std::make_unique<CacheWriter>(config_.cache_path, config_.cache_busy_timeout_ms);
}

std::optional<CacheEntry> CacheBuffer::lookup(const std::string& hash) {
    if (auto pending = pending_by_hash_.find(hash); pending != pending_by_hash_.end()) {
        return pending_[pending->second].entry;
    }
    if (auto kept = unwritten_by_hash_.find(hash); kept != unwritten_by_hash_.end()) {
        return unwritten_[kept->second].entry;
    }
    if (submitted_by_hash_.count(hash)) {
        // Rare (two passages asking the same request): the writer is waited for, rather than
        // every answer kept twice in memory until written.
        collect_written(/*wait=*/true);
    }
    return cache_ ? cache_->get(hash) : std::nullopt;
}

void CacheBuffer::store(CacheKey key, std::string hash, CacheEntry entry) {
    if (!cache_) return;
    if (pending_.empty()) first_pending_time_ = now_seconds();
    pending_by_hash_[hash] = pending_.size();
    pending_.push_back(PendingWrite{std::move(key), std::move(hash), std::move(entry)});
    if (pending_.size() >= batch_size) flush();
}

void CacheBuffer::maybe_flush() {
    if (!unwritten_.empty() && now_seconds() >= unwritten_retry_at_) retry_unwritten();
    if (!pending_.empty() && now_seconds() - first_pending_time_ >= batch_seconds) flush();
}

void CacheBuffer::keep_unwritten(std::vector<std::pair<CacheKey, CacheEntry>> entries,
                                 std::vector<std::string> hashes, const std::string& message) {
    for (std::size_t i = 0; i < entries.size(); ++i) {
        unwritten_by_hash_[hashes[i]] = unwritten_.size();
        unwritten_.push_back(PendingWrite{std::move(entries[i].first), std::move(hashes[i]),
                                          std::move(entries[i].second)});
    }
    last_write_error_ = message;
    unwritten_retry_at_ = now_seconds() + unwritten_backoff_;
    unwritten_backoff_ = std::min(8.0, unwritten_backoff_ * 2);
}

void CacheBuffer::retry_unwritten() {
    std::vector<PendingWrite> retry = std::move(unwritten_);
    unwritten_.clear();
    unwritten_by_hash_.clear();
    for (PendingWrite& write : retry) store(std::move(write.key), std::move(write.hash), std::move(write.entry));
    flush();
}

void CacheBuffer::write_side_file(BatchResult& batch) {
    if (unwritten_.empty()) return;
    retry_unwritten();
    collect_written(/*wait=*/true);
    if (unwritten_.empty()) return;
    const std::string path = config_.cache_path + ".unwritten-" +
                             std::to_string(static_cast<long long>(std::time(nullptr))) + "-" +
                             std::to_string(unwritten_.size()) + ".jsonl";
    std::ofstream out(path, std::ios::binary | std::ios::app);
    for (const PendingWrite& write : unwritten_) out << side_file_line(write.key, write.entry, secrets_) << "\n";
    out.flush();
    if (!out) {
        throw Error(code::cache, "the cache " + config_.cache_path + " stayed locked (" + last_write_error_ +
                                     ") and the side file " + path + " could not be written: " +
                                     std::to_string(unwritten_.size()) + " answers are lost");
    }
    batch.unwritten_file = path;
    batch.unwritten_answers = unwritten_.size();
    unwritten_.clear();
    unwritten_by_hash_.clear();
}

void CacheBuffer::flush() {
    if (pending_.empty() || !cache_) return;
    std::vector<PendingWrite> writes = std::move(pending_);
    pending_.clear();
    pending_by_hash_.clear();
    if (writer_) {
        submit(std::move(writes));
        return;
    }
    std::vector<std::pair<CacheKey, CacheEntry>> entries;
    std::vector<std::string> hashes;
    entries.reserve(writes.size());
    hashes.reserve(writes.size());
    for (PendingWrite& write : writes) {
        entries.emplace_back(std::move(write.key), std::move(write.entry));
        hashes.push_back(std::move(write.hash));
    }
    try {
        cache_->put_many(entries, secrets_, hashes);  // hashed once, at the lookup
    } catch (const Error& error) {
        keep_unwritten(std::move(entries), std::move(hashes), error.what());
    }
}

// With the writer thread: the batch is queued and stays visible to lookups until written.
void CacheBuffer::submit(std::vector<PendingWrite> writes) {
    CacheWriter::Batch batch;
    std::vector<std::string> submitted;
    batch.entries.reserve(writes.size());
    batch.key_hashes.reserve(writes.size());
    for (PendingWrite& write : writes) {
        submitted.push_back(write.hash);
        batch.key_hashes.push_back(std::move(write.hash));
        batch.entries.emplace_back(std::move(write.key), std::move(write.entry));
    }
    batch.secrets = secrets_;
    batches_submitted_ = writer_->submit(std::move(batch));
    for (const std::string& hash : submitted) submitted_by_hash_[hash] = batches_submitted_;
    submitted_batches_[batches_submitted_] = std::move(submitted);
}

void CacheBuffer::collect_written(bool wait) {
    if (!writer_) return;
    if (!wait && batches_written_ == batches_submitted_) return;
    std::vector<CacheWriter::Written> written = wait ? writer_->wait_all() : writer_->take_written();
    for (CacheWriter::Written& outcome : written) {
        auto found = submitted_batches_.find(outcome.batch);
        if (found == submitted_batches_.end()) continue;
        std::vector<std::string> hashes = std::move(found->second);
        submitted_batches_.erase(found);
        for (const std::string& hash : hashes) {
            auto entry = submitted_by_hash_.find(hash);
            // A later batch may carry a newer answer under the same key.
            if (entry != submitted_by_hash_.end() && entry->second == outcome.batch)
                submitted_by_hash_.erase(entry);
        }
        batches_written_ = std::max(batches_written_, outcome.batch);
        if (outcome.ok || outcome.unwritten.empty()) continue;
        // Kept in memory and written again later (keep_unwritten): its passages go on.
        keep_unwritten(std::move(outcome.unwritten), std::move(outcome.unwritten_hashes), outcome.message);
    }
    if (on_written_) on_written_();
}

}  // namespace llmv::pipeline
