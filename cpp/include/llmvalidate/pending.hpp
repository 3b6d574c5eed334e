// A pending batch-API run: the handle that a run with `wait` false leaves (RunOutcome::pending)
// and that pipeline::collect() (run.hpp) goes on from, in this process or in another, from any
// front end.
//
// The handle holds what identifies the pending work: the run's settings as used (every field
// of ValidationConfig but its secrets: the keys are read again from the environment, or set
// by the front end, when it is collected), its passages, the cache file that holds the
// batches' ids and answers, the provider batches still out (from the cache's batch ledger),
// when it was made, and a key over the settings and passages. Collecting runs the same run
// again: the batch ledger finds the batches it submitted, so nothing is submitted or paid
// twice, and a run whose answers are all in the cache reads them free.
//
// On disk it is one small JSON object (a version, the fields below); the key is checked when
// it is read, so that a handle edited by hand is refused rather than collected as another run.
#pragma once

#include <string>
#include <vector>

#include "llmvalidate/passage.hpp"
#include "llmvalidate/validation_config.hpp"

namespace llmv::pipeline {

struct PendingBatch {
    static constexpr int format_version = 1;
    std::string created;  // UTC, ISO 8601: "2026-12-07T20:31:05Z"
    // SHA-256 over the settings and passages as written (the run's identity): two handles of
    // the same run have the same key, whenever they were made.
    std::string key;
    ValidationConfig config;  // as used; api_key and embedding_api_key always empty
    std::vector<PassageInput> passages;
    // The provider batches the cache's ledger holds as submitted and not read back yet (the
    // vendor's ids), when the handle was made.
    std::vector<std::string> batch_ids;
};

// The handle of a run (secrets dropped, the key computed, `created` now); `batch_ids` are read
// from the cache's batch ledger.
PendingBatch pending_batch(const ValidationConfig& config,
                           const std::vector<PassageInput>& passages);

// The key the handle of this run would have (whether a saved handle is this run's).
std::string pending_key(const ValidationConfig& config, const std::vector<PassageInput>& passages);

std::string pending_to_json(const PendingBatch& handle);
// Throws llmv::Error (invalid_argument, setting "pending") for a text that is not a handle
// of this format, or whose key does not match its settings and passages.
PendingBatch pending_from_json(const std::string& text);

// Writes the handle to `path` (a temporary file renamed over it: a reader never sees half of
// one); reads one back. Both throw llmv::Error (io.failed, or as pending_from_json).
void save_pending(const PendingBatch& handle, const std::string& path);
PendingBatch load_pending(const std::string& path);

}  // namespace llmv::pipeline
