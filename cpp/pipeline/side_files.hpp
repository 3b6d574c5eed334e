// Where a run's leftovers for one cache live, and how the next run takes them in (private to
// cpp/pipeline/). A run that could not write some answers to its cache (another process held
// the lock through every retry, or the disk failed) leaves them in a side file: beside the
// cache (<cache>.unwritten-<time>-<n>.jsonl) when the cache's own disk takes files, else in a
// writable folder elsewhere under a name that says which cache (elsewhere_name()). The next
// run with that cache imports every such file before its first call and says so, so that
// nothing paid for is paid again (issue 41).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace llmv::pipeline {

// Writable folders off the cache's own disk, for a side file or a journal: $TMPDIR, $TEMP, $TMP,
// /tmp and the per-user cache folder, each once, the cache's own folder left out.
std::vector<std::string> elsewhere_folders(const std::string& cache_path);
// A file name for those folders that says which cache it belongs to (several caches may be
// called cache.sqlite): <name>-<12 hex digits of the absolute path's SHA-256><suffix>.
std::string elsewhere_name(const std::string& cache_path, const std::string& suffix);

// The infix of a side file's name (after the cache's name, or elsewhere_name()'s hash).
inline constexpr const char* side_file_infix = ".unwritten-";

// Writes `text` to `path` whole or not at all (a temporary name, then a rename), so that a
// run importing side files never reads one half-written. False when it could not.
bool write_file_whole(const std::string& path, const std::string& text);

struct SideFileImport {
    std::string path;
    std::uint64_t answers = 0;  // lines read (new to the cache or already in it)
    std::uint64_t added = 0;    // new to the cache
    std::string error;          // non-empty: not imported (left in place), and why
};

// Imports every side file of `cache_path` (beside it and in elsewhere_folders()) and removes
// each one imported; a file that cannot be imported now (the cache locked, a damaged line) is
// left for a later run, its reason in `error`. Waits for the cache's lock up to
// `busy_timeout_ms`, or until *cancel turns true.
std::vector<SideFileImport> import_side_files(const std::string& cache_path, int busy_timeout_ms,
                                              const std::atomic<bool>* cancel);

}  // namespace llmv::pipeline
