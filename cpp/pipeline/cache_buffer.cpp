// The cache's write buffer (cache_buffer.hpp).
#include "pipeline/cache_buffer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "core/sha256.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/resolution.hpp"
#include "pipeline/debug_env.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/run_files.hpp"
#include "pipeline/side_files.hpp"

namespace llmv::pipeline {

namespace fs = std::filesystem;

namespace {

// SQLite's message, in the words of the issue a user can act on; *lock: another process holds it.
std::string describe_failure(const std::string& message, bool* lock) {
    // SQLite's own words come last ("cache <path>: step failed: database or disk is full", or
    // "cache <path>: database or disk is full (in: COMMIT)"): the path itself may hold any word.
    std::string text = message;
    if (const auto statement = text.rfind(" (in: "); statement != std::string::npos) text.resize(statement);
    const auto colon = text.rfind(": ");
    const std::string sqlite_words = colon == std::string::npos ? text : text.substr(colon + 2);
    std::string lower;
    for (char c : sqlite_words) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    *lock = false;
    if (lower.find("locked") != std::string::npos || lower.find("busy") != std::string::npos) {
        *lock = true;
        return "locked by another process (" + sqlite_words + ")";
    }
    if (lower.find("full") != std::string::npos) return "disk full (" + sqlite_words + ")";
    if (lower.find("readonly") != std::string::npos || lower.find("read-only") != std::string::npos)
        return "read-only (" + sqlite_words + ")";
    if (lower.find("i/o") != std::string::npos) return "I/O error (" + sqlite_words + ")";
    return "failed (" + sqlite_words + ")";
}

}  // namespace

CacheBuffer::CacheBuffer(const ValidationConfig& config, bool needed,
                         const std::vector<std::string>& secrets, const std::atomic<bool>* cancel)
    : config_(config), secrets_(secrets) {
    static std::atomic<unsigned> runs{0};
    journal_id_ = process_id() + "-" + std::to_string(++runs);
    if (!needed || config_.cache_path.empty()) return;
    prepare_cache_directory(config_.cache_path);
    cache_ = std::make_unique<Cache>(config_.cache_path, config_.cache_busy_timeout_ms);
    if (cancel) cache_->end_waits_on(cancel);
    // A second connection to ":memory:" would be another database: written inline.
    if (config_.cache_path != ":memory:" && !cache_inline_writes())
        writer_ = std::make_unique<CacheWriter>(config_.cache_path, config_.cache_busy_timeout_ms, cancel);
    if (config_.cache_path != ":memory:") fold_old_journals();
    if (const std::size_t bytes = debug_journal_bytes()) journal_limit_ = bytes;
}

CacheBuffer::~CacheBuffer() {
    // Removed only when nothing can be missing from the cache; else the next run folds it in.
    close_journal(pending_.empty() && unwritten_.empty() && batches_written_ == batches_submitted_ &&
                  !stopped_);
}

bool CacheBuffer::open_journal(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "ab");
    if (!file) return false;
    journal_ = file;
    journal_paths_.push_back(path);
    return true;
}

void CacheBuffer::close_journal(bool remove_files) {
    if (journal_) std::fclose(journal_);
    journal_ = nullptr;
    if (remove_files)
        for (const std::string& path : journal_paths_) std::remove(path.c_str());
    journal_paths_.clear();
}

// Before the answer counts as received, it is handed to the kernel: a SIGKILL after this
// loses nothing. When this disk fails (full, read-only) the journal goes on in another folder;
// the lines before stay where they were (a cut last line is skipped when they are folded in).
void CacheBuffer::journal(const CacheKey& key, const CacheEntry& entry) {
    if (config_.cache_path == ":memory:") return;
    const std::string line = side_file_line(key, entry, secrets_) + "\n";
    const auto append = [&] {
        return std::fwrite(line.data(), 1, line.size(), journal_) == line.size() && std::fflush(journal_) == 0;
    };
    if (journal_ && journal_bytes_ >= journal_limit_) next_journal_part();
    if (journal_ && append()) {
        journal_bytes_ += line.size();
        return;
    }
    journal_bytes_ = 0;
    const bool first = journal_paths_.empty();
    if (journal_) std::fclose(journal_);
    journal_ = nullptr;
    const std::string name = ".journal-" + journal_id_ + ".jsonl";
    std::vector<std::string> places;
    if (first) places.push_back(config_.cache_path + name);
    for (const std::string& folder : elsewhere_folders(config_.cache_path)) places.push_back(folder + "/" + elsewhere_name(config_.cache_path, name));
    for (const std::string& path : places) {
        if (std::find(journal_paths_.begin(), journal_paths_.end(), path) != journal_paths_.end()) continue;
        if (!open_journal(path)) continue;
        if (append()) {
            journal_bytes_ = line.size();
            return;
        }
        std::fclose(journal_);
        journal_ = nullptr;
    }
}

// Only a part beside the cache, on a disk that works, is let go: after a failure every journal
// stays until the run ends (write_side_file says where the answers are).
void CacheBuffer::next_journal_part() {
    const std::string beside = config_.cache_path + ".journal-" + journal_id_;
    if (stopped_ || !unwritten_.empty() || journal_paths_.empty() || journal_paths_.back().rfind(beside, 0) != 0)
        return;
    flush();  // every answer of the full part goes to the writer (or into the cache)
    full_journals_.push_back(FullJournal{journal_paths_.back(), batches_submitted_});
    std::fclose(journal_);
    journal_ = nullptr;
    journal_bytes_ = 0;
    open_journal(beside + "-" + std::to_string(++journal_part_) + ".jsonl");  // else journal() looks elsewhere
    remove_written_journals();
}

void CacheBuffer::remove_written_journals() {
    if (stopped_ || !unwritten_.empty()) return;
    auto part = full_journals_.begin();
    for (; part != full_journals_.end() && (!writer_ || part->batch <= batches_written_); ++part) {
        std::remove(part->path.c_str());
        journal_paths_.erase(std::remove(journal_paths_.begin(), journal_paths_.end(), part->path),
                             journal_paths_.end());
    }
    full_journals_.erase(full_journals_.begin(), part);
}

// The journals of runs that ended without writing them (SIGKILL, a second Ctrl-C, a crash):
// their answers go into the cache, then the files go.
void CacheBuffer::fold_old_journals() {
    std::error_code ignored;
    std::vector<std::pair<fs::path, std::string>> places = {
        {fs::absolute(config_.cache_path, ignored).parent_path(),
         fs::path(config_.cache_path).filename().string() + ".journal-"}};
    for (const std::string& folder : elsewhere_folders(config_.cache_path)) places.emplace_back(folder, elsewhere_name(config_.cache_path, ".journal-"));
    const std::string own = process_id();
    for (const auto& [folder, prefix] : places) {
        fs::directory_iterator entries(folder, ignored), end;
        for (; !ignored && entries != end; entries.increment(ignored)) {
            const std::string name = entries->path().filename().string();
            const std::string suffix = ".jsonl";
            if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
                name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
                continue;
            // <pid>-<run>: several runs of one process (an R session) keep journals of their own.
            std::string pid = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
            pid = pid.substr(0, pid.find('-'));
            if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos || pid == own ||
                pid.size() > 9 || process_may_run(std::stol(pid)))
                continue;
            try {
                cache_->import_side_file(entries->path().string(), "journal");
                std::remove(entries->path().string().c_str());
            } catch (const Error&) {
                // Left in place (the cache locked, a damaged line): a later run tries again.
            }
        }
        ignored.clear();
    }
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
    journal(key, entry);
    enqueue(std::move(key), std::move(hash), std::move(entry));
}

void CacheBuffer::enqueue(CacheKey key, std::string hash, CacheEntry entry) {
    if (pending_.empty()) first_pending_time_ = now_seconds();
    pending_by_hash_[hash] = pending_.size();
    pending_.push_back(PendingWrite{std::move(key), std::move(hash), std::move(entry)});
    if (pending_.size() >= batch_size) flush();
}

void CacheBuffer::maybe_flush() {
    if (!unwritten_.empty() && !stopped_ && now_seconds() >= unwritten_retry_at_) retry_unwritten();
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
    bool lock = false;
    failure_ = describe_failure(message, &lock);
    if (!lock) {
        stopped_ = true;
        locked_only_ = false;
    }
    unwritten_retry_at_ = now_seconds() + unwritten_backoff_;
    unwritten_backoff_ = std::min(8.0, unwritten_backoff_ * 2);
}

void CacheBuffer::retry_unwritten() {
    std::vector<PendingWrite> retry = std::move(unwritten_);
    unwritten_.clear();
    unwritten_by_hash_.clear();
    for (PendingWrite& write : retry) enqueue(std::move(write.key), std::move(write.hash), std::move(write.entry));
    flush();
}

void CacheBuffer::write_side_file(BatchResult& batch, bool cancelled) {
    if (unwritten_.empty()) {
        close_journal(true);  // everything is in the cache
        return;
    }
    // A lock may be gone by now; a full or read-only disk, or a Ctrl-C, is not waited for.
    if (!cancelled && !stopped_) {
        retry_unwritten();
        collect_written(/*wait=*/true);
        if (unwritten_.empty()) {
            close_journal(true);
            return;
        }
    }
    const std::string name = side_file_infix + std::to_string(static_cast<long long>(std::time(nullptr))) + "-" +
                             std::to_string(unwritten_.size()) + ".jsonl";
    std::vector<std::string> places;
    if (locked_only_) places.push_back(config_.cache_path + name);  // its disk takes files
    for (const std::string& folder : elsewhere_folders(config_.cache_path)) places.push_back(folder + "/" + elsewhere_name(config_.cache_path, name));
    std::string tried;
    std::string lines;
    for (const PendingWrite& write : unwritten_) lines += side_file_line(write.key, write.entry, secrets_) + "\n";
    for (const std::string& path : places) {
        // Whole or not at all: the next run imports every side file it finds (side_files.hpp).
        const bool ok = write_file_whole(path, lines);
        if (ok) {
            batch.unwritten_file = path;
            batch.unwritten_answers = unwritten_.size();
            batch.unwritten_reason = failure_;
            batch.cache_stopped = stopped_;
            unwritten_.clear();
            unwritten_by_hash_.clear();
            close_journal(true);  // the side file holds what the cache lacks
            return;
        }
        tried += (tried.empty() ? "" : ", ") + path;
    }
    std::string journals;
    for (const std::string& path : journal_paths_) journals += (journals.empty() ? "" : ", ") + path;
    close_journal(false);
    throw Error(code::cache, "the cache " + config_.cache_path + " could not be written (" + failure_ +
                                 ") and no side file could be written either (tried " + tried + "): the " +
                                 std::to_string(unwritten_.size()) + " answers not in the cache are in " +
                                 (journals.empty() ? std::string("no file: they are lost")
                                                   : "the journal " + journals +
                                                         ", which the next run with this cache adds to it"));
}

void CacheBuffer::flush() {
    if (pending_.empty() || !cache_) return;
    std::vector<PendingWrite> writes = std::move(pending_);
    pending_.clear();
    pending_by_hash_.clear();
    if (stopped_) {
        // The disk failed: nothing more is written to it. Kept in memory (and the journal).
        for (PendingWrite& write : writes) {
            unwritten_by_hash_[write.hash] = unwritten_.size();
            unwritten_.push_back(std::move(write));
        }
        return;
    }
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
    if (!full_journals_.empty()) remove_written_journals();
    if (on_written_) on_written_();
}

}  // namespace llmv::pipeline
