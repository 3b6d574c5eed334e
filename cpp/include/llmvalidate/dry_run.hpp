// What a run would make and cost, before any call: the dry run, and the warnings every front
// end shows before a run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "llmvalidate/passage.hpp"
#include "llmvalidate/pricing.hpp"
#include "llmvalidate/validation_config.hpp"

namespace llmv::pipeline {

// What a run would cost. Exact call and text counts; tokens are estimated (characters / 4 of
// every prompt, and max_tokens or a per-answer estimate for the output).
struct DryRunReport {
    std::size_t passages = 0;
    std::string providers;          // ResolvedProviders::description(): what the run would call
    CallCounts calls;               // what the run would make, before the cache
    std::int64_t cached_calls = 0;  // of which the cache already holds (would not be made)
    // Embedded texts the cache already holds, and texts embedded once for several passages.
    std::int64_t cached_embedded_texts = 0;
    std::int64_t shared_embedded_texts = 0;
    // What would be sent: chat calls (before parse retries of new answers, which depend on
    // them) and texts to embed. calls.chat_calls - cached_calls - calls.shared, and so on.
    // Exact where every passage's annotation is cached; otherwise an upper bound (a passage
    // may share its backtranslation with another once its label is known).
    std::int64_t chat_calls_to_make = 0;
    std::int64_t texts_to_embed = 0;
    std::int64_t estimated_input_tokens = 0;
    std::int64_t estimated_output_tokens = 0;
    // Of them, a reasoning model's reasoning tokens (an assumption per effort level,
    // docs/providers.md); 0 for a model that does not reason.
    std::int64_t estimated_reasoning_tokens = 0;
    std::int64_t estimated_embedding_tokens = 0;  // of every text embedded, made or cached
    // The price of the calls and texts still to be made (the estimated tokens in the share not
    // cached nor shared), synchronously and with the batch API, at the price table's prices.
    CostEstimate cost;
    // Calls whose count depends on answers not yet known (β̂ decides which pool is
    // backtranslated): the counts above assume each passage's R annotations are made.
    std::string note;
    // size_warnings(config): tests that cannot decide at this α and size.
    std::vector<std::string> warnings;
};

// The exact number of calls and texts, and estimated tokens; makes no call.
DryRunReport dry_run(const ValidationConfig& config, const std::vector<PassageInput>& passages);

// One sentence per test of this configuration that cannot reach its decision at its α with
// its size (M, R or B below stats::smallest_deciding_size(α)), so that every verdict would be
// "inconclusive"; empty when all can. The dry run carries them and every front end shows them
// before power runs (METHOD.md, "Verdict").
std::vector<std::string> size_warnings(const ValidationConfig& config);

// A run that would pay for answers and keep none (no cache): the warning every front end shows
// before the first call; empty when there is a cache or nothing is paid (simulated provider,
// local embedder).
std::string cache_warning(const ValidationConfig& config);

// The per-passage cost formula of METHOD.md, for the given configuration and label-set size K:
// R + K·⌈M/n⌉ + M chat calls (paper methods add their reference draws), K·M + 1 texts.
CallCounts expected_calls_per_passage(const ValidationConfig& config, int label_count);
// Of the K labels, how many draw B reference texts besides their pool: β̂ for the paper's
// validation test, the K - 1 others for the paper's separation test.
int per_passage_reference_labels(const ValidationConfig& config, int label_count);

}  // namespace llmv::pipeline
