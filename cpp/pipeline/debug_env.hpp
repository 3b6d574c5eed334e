// The engine's switches for benchmarks and debugging, read from environment variables
// (private to cpp/pipeline/). None of them changes a result.
#pragma once

#include <cstddef>

#include "core/http.hpp"
#include "transport/transport.hpp"

namespace llmv::pipeline {

// LLMV_DEBUG_TRANSPORT: the transport's progress and its slow answers, retries and failures
// on stderr; "all": every answer's time as well (the profile in bench/pipeline_batch.md).
// Nothing in the R package (LLMV_NO_STDERR: R CMD check rightly refuses writes to stderr).
void add_debug_trace(TransportOptions& options);

// LLMV_ACCEPT_ENCODING=identity: benchmarks against cpp-httplib servers, which would
// brotli-compress every answer at quality 11 (a server cost that is no part of ours).
void add_encoding_override(HttpRequest& request);

// LLMV_CACHE_INLINE_WRITES=1: the cache is written on the run's own thread, not the writer
// thread (for bench/pipeline_batch.sh's comparison).
bool cache_inline_writes();

// LLMV_DEBUG_KILL_AT=POINT or POINT:N: the process kills itself (SIGKILL, as kill -9 would)
// at the Nth time (default the first) a batch-API run passes POINT: after_upload,
// after_intent, after_create (the provider's "created" reply, before it is recorded),
// after_record, polling, downloading, between_phases. For the fault suite
// (tests/pipeline/test_batch_faults.cpp); nothing else sets it.
void debug_kill_point(const char* point);

// LLMV_DEBUG_BATCH_CAPS=REQUESTS,INPUTS,BYTES: smaller provider-batch caps than the vendors'
// (0 keeps a vendor's), so that a test splits a run into several batches with few passages.
struct DebugBatchCaps {
    std::size_t requests = 0, embedding_inputs = 0, bytes = 0;
};
DebugBatchCaps debug_batch_caps();

// LLMV_DEBUG_JOURNAL_BYTES=N: the cache journal's parts hold N bytes instead of 64 MiB, so that
// a test sees parts come and go with a few answers (0 or unset: the default).
std::size_t debug_journal_bytes();

}  // namespace llmv::pipeline
