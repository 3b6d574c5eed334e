// Provider batches still out in a cache, and whether they are a run's (private to
// cpp/pipeline/). A batch-API run interrupted after submitting, or one with `wait` off, leaves
// its batches in the cache's ledger, paid for; a synchronous run of the same work would pay for
// every answer again (issue 41). Each batch's intent records the run's key (pending_key()), so
// the synchronous route can tell its own work's batches from another run's on a shared cache.
#pragma once

#include <string>
#include <vector>

#include "llmvalidate/pipeline.hpp"

namespace llmv::pipeline {

// True when the cache file exists and its ledger holds a batch submitted and not read back, or
// an intent not resolved yet. Cheap: no passage is read. False when the file cannot be read.
bool cache_has_batches_out(const ValidationConfig& config);

// What a run asks for, whatever the route and however it is paced: pending_key() of the
// settings with the transport's and the batch API's own (concurrency, rates, retries,
// timeouts, poll interval, lock wait), the price table and keep_texts set to their defaults.
// Recorded with each batch's intent.
std::string work_key(const ValidationConfig& config, const std::vector<PassageInput>& passages);

// The ids of the batches out (an intent's id where the batch's is unknown) whose run was this
// one: the same work (work_key()).
std::vector<std::string> batches_out_of_run(const ValidationConfig& config,
                                            const std::vector<PassageInput>& passages);

}  // namespace llmv::pipeline
