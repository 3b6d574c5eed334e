// The day cache of the vendors' model lists: a table of its own (model_lists) in the cache file,
// one row per list (its vendor and URL) with the time it was fetched, so that a run does not
// list the models on every start. Many processes may share the file (SQLite's WAL and busy
// timeout, as the answers). Nothing here ever fails a run: a file that cannot be opened, read
// or written reads as "nothing stored" and stores nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace llmv {

struct StoredModelList {
    std::string body;               // catalogue_to_json()
    std::int64_t fetched_unix = 0;  // seconds since 1970, UTC
};

// The list stored under `key`, whatever its age; nullopt when none (or no such file).
std::optional<StoredModelList> read_model_list(const std::string& cache_path,
                                               const std::string& key);
// Stores (replaces) the list under `key`; creates the cache file as the answers' cache would.
void write_model_list(const std::string& cache_path, const std::string& key,
                      const StoredModelList& list);

}  // namespace llmv
