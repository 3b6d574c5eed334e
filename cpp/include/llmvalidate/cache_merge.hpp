// Bringing caches together (issue 41): the caches of a job's shards, each run on its own
// machine or node (`batch --shard I/N`, where SQLite's locking cannot be trusted across a
// network file system), merged into one. Every key once; nothing the target holds is changed.
#pragma once

#include <cstdint>
#include <string>

#include "llmvalidate/cache.hpp"

namespace llmv {

struct CacheMergeReport {
    std::string from;
    std::uint64_t answers = 0;  // entries `from` holds
    std::uint64_t added = 0;    // new to the target
    std::uint64_t same = 0;     // the target held them already, identical
    // The target held the key with another answer (two shards paid for the same request, e.g.
    // a shared pool): the target's is kept, and the rows computed with the other differ.
    std::uint64_t conflicts = 0;
};

// Adds every answer of the cache file `from` to `into` in one transaction. Throws llmv::Error:
// io (`from` missing or unreadable), invalid_argument (`from` is not an llmvalidate cache, or
// is the target itself), cache (a write failed; nothing was added). `setting` names the option
// in messages (the CLI's --merge, R's `from`).
CacheMergeReport merge_cache(Cache& into, const std::string& from,
                             const std::string& setting = "merge");

}  // namespace llmv
