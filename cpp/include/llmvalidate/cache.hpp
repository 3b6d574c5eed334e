// The response cache: every answer paid for is kept in one SQLite file (WAL mode, safe for
// several processes), keyed by a hash of the request fields that determine it. A re-run of
// the same workload reads every answer back and sends nothing.
//
// The key is the SHA-256 of a canonical serialization of exactly the fields of CacheKey;
// credentials are never key material and are never stored.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "llmvalidate/error.hpp"

namespace llmv {

struct CacheKey {
    std::string provider;  // registry name: "openai", "anthropic", "bedrock", ...
    std::string endpoint;  // e.g. "https://api.openai.com/v1/chat/completions" (no secrets)
    std::string model;
    // Every generation parameter (temperature, top_p, max_tokens, seed, schema, ...). Object
    // keys are sorted by the serialization, so insertion order does not matter; 1 and 1.0 are
    // different values (use one type per parameter).
    nlohmann::json parameters = nlohmann::json::object();
    std::string prompt;  // the full prompt, e.g. the messages array as JSON text
    // The j-th draw of a pool: its own cached request, so draws never share an answer.
    std::uint64_t draw_index = 0;
    // Re-asks of the same draw after an unparseable or invalid answer (0 = first ask), so a
    // re-run replays the same sequence of answers.
    std::uint32_t attempt = 0;

    // The canonical serialization (versioned, length-prefixed fields) and its SHA-256 hex.
    std::string canonical() const;
    std::string hash() const;
};

// Why an entry was stored. Non-ok answers were paid for too; they are kept and counted.
namespace cache_status {
inline constexpr const char* ok = "ok";
inline constexpr const char* unparseable = "unparseable";  // the answer was not valid JSON
inline constexpr const char* invalid = "invalid";          // parsed, but e.g. label outside S
inline constexpr const char* refused = "refused";          // the model declined
// Stored as ok, then found bad by a later check (an embedding whose dimension differs from
// the rest of its passage's): it replaces the ok entry, so that a re-run asks again.
inline constexpr const char* rejected = "rejected";
}  // namespace cache_status

struct CacheEntry {
    std::string status = cache_status::ok;
    std::string body;  // the provider's raw response body
    std::string text;  // the parsed answer text, may be empty
    // An embedding: its float32 numbers, stored as a blob of 4 bytes each (text and body are
    // then empty). Caches of format 1 kept vectors as JSON text; opening one converts them.
    std::vector<float> vector;
    std::string response_model;  // the model the provider reported
    std::uint64_t input_tokens = 0;
    std::uint64_t output_tokens = 0;
    // Filled by get(); ignored by put().
    std::string key;
    std::string provider;
    std::string model;
    std::uint64_t draw_index = 0;
    std::uint32_t attempt = 0;
    std::int64_t created_unix = 0;
};

struct CacheModelCount {
    std::string provider;
    std::string model;
    std::uint64_t entries = 0;
    std::uint64_t ok_entries = 0;
    std::uint64_t input_tokens = 0;
    std::uint64_t output_tokens = 0;
};

struct CacheStats {
    std::uint64_t entries = 0;
    std::uint64_t ok_entries = 0;
    std::uint64_t other_entries = 0;  // unparseable, invalid, refused
    std::uint64_t size_bytes = 0;     // database file plus its WAL
};

// One line of a side file: the answers a run could not write to its cache (another process
// held the file's lock through every retry) go there instead, as JSON lines
// {"key": {...}, "entry": {...}}, secrets redacted; `llmvalidate cache --import` (and
// Cache::import_side_file) adds them to a cache.
std::string side_file_line(const CacheKey& key, const CacheEntry& entry,
                           const std::vector<std::string>& secrets);

class Cache {
  public:
    // Opens or creates the file (parent directory must exist). ":memory:" works for tests.
    // busy_timeout: how long a write waits for another process holding the lock.
    explicit Cache(const std::string& path, int busy_timeout_ms = 30000);
    ~Cache();
    Cache(const Cache&) = delete;
    Cache& operator=(const Cache&) = delete;
    // One connection per process: after fork(), the child opens its own Cache.

    std::optional<CacheEntry> get(const CacheKey& key);
    std::optional<CacheEntry> get(const std::string& key_hash);
    // Inserts or replaces; an ok entry is never replaced by a non-ok one, except by a
    // `rejected` one. `secrets` are
    // redacted from the stored body and text (defence in depth: bodies carry no keys).
    void put(const CacheKey& key, const CacheEntry& entry,
             const std::vector<std::string>& secrets = {});
    // Several puts in one transaction (one lock, one commit).
    void put_many(const std::vector<std::pair<CacheKey, CacheEntry>>& entries,
                  const std::vector<std::string>& secrets = {});
    // The same with each key's hash() already computed (key_hashes[i] for entries[i]): the
    // pipeline hashes every key once for its lookup and reuses it here.
    void put_many(const std::vector<std::pair<CacheKey, CacheEntry>>& entries,
                  const std::vector<std::string>& secrets,
                  const std::vector<std::string>& key_hashes);
    bool contains(const CacheKey& key);
    // Presence tests for the dry run, reading no body or vector: whether an ok entry exists,
    // and an entry's status and text only (the other fields empty).
    bool has_ok(const std::string& key_hash);
    std::optional<CacheEntry> get_answer(const std::string& key_hash);

    CacheStats stats();
    std::vector<CacheModelCount> models();
    std::uint64_t count(const std::string& model = "");  // "" = all models
    std::uint64_t size_bytes();
    // Removes every entry of `model` (all providers); returns how many.
    std::uint64_t clear_model(const std::string& model);
    std::uint64_t clear_all();
    const std::string& path() const;

    // Adds every answer of a side file (see side_file_line()) in one transaction; returns how
    // many were not in the cache before (those already there are not counted). A last line cut
    // short (no line end, not JSON: the file was being written) is skipped; any other line that
    // is not such an answer is an error naming the file and the line, and nothing is added.
    // `argument` is how the front end's user named the file in messages (--import, side_file).
    struct ImportReport {
        std::uint64_t added = 0;            // answers new to the cache
        std::uint64_t already_present = 0;  // lines whose key the cache held already
        bool cut_last_line = false;         // a cut last line was skipped
    };
    std::uint64_t import_side_file(const std::string& side_file,
                                   const std::string& argument = "side_file",
                                   ImportReport* report = nullptr);
    // A wait for another process's lock (busy_timeout) also ends, within 50 ms, once *cancel is
    // true (Ctrl-C, Break): the write then fails as locked and its answers are kept elsewhere.
    void end_waits_on(const std::atomic<bool>* cancel);

  private:
    bool open_read_only(const Error& original);  // a cache on a read-only medium: reads only
    // Another program's SQLite file is refused (llmv.input.invalid_argument naming `cache`),
    // before anything is written to it.
    void refuse_foreign_file();
    struct Impl;
    std::unique_ptr<Impl> impl_;
    // The engine's own tables beside the answers (the batch ledger) reach the connection
    // through it (cache/cache_impl.hpp).
    friend struct CacheAccess;
};

}  // namespace llmv
