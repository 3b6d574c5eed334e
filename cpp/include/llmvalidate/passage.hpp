// One passage of a validation: what goes in (PassageInput), what it costs in requests
// (CallCounts) and what comes out (PassageResult, with every number behind its verdict).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/stats.hpp"

namespace llmv::pipeline {

struct PassageInput {
    std::string id;
    std::string text;
    std::string human_label;                       // empty: none
    std::map<std::string, std::string> variables;  // user placeholders for this passage
    // A simulation template written for this passage (prompts/passages/*.toml, Section 4);
    // empty: the task's.
    std::string simulation_template;
    // A row of the input that could not be read (a ragged CSV row, a malformed JSON line, a
    // text that is not a string): why, with its line. Such a passage fails alone, with this
    // message and code (default llmv.input.invalid_argument), before any request.
    std::string input_error = {};
    std::string input_error_code = {};
};

// Requests and texts of one passage (or of a whole batch / dry run).
struct CallCounts {
    std::int64_t chat_calls = 0;             // answered by the provider (cache misses)
    std::int64_t annotation_calls = 0;       // of y (R per passage)
    std::int64_t simulation_calls = 0;       // K·⌈M/n⌉ per passage (+ paper reference draws)
    std::int64_t backtranslation_calls = 0;  // M per passage (K·M with backtranslate_all)
    std::int64_t embedding_requests = 0;
    std::int64_t embedded_texts = 0;     // K·M + 1 per passage
    std::int64_t cache_hits = 0;         // chat + embedding requests answered by the cache
    std::int64_t shared = 0;             // identical requests of other passages reused
    std::int64_t transport_retries = 0;  // 429/5xx/transport failures retried
    std::int64_t parse_retries = 0;      // redraws after unparseable / out-of-set answers
    std::int64_t unparseable = 0;        // answers that were not valid JSON / not n texts
    std::int64_t out_of_set = 0;         // labels outside S
    std::int64_t input_tokens = 0;
    std::int64_t output_tokens = 0;
};

struct PassageResult {
    std::size_t index = 0;  // position in the input, 0-based
    std::string id;
    bool ok = false;            // false: error_code / error_message say why; no verdict
    std::string error_code;     // llmv::code::*
    std::string error_message;  // "passage <id>: <what happened>", in the engine's terms
    // The error itself (its message without the passage), for a front end's own spelling
    // (settings::message); null when ok.
    std::shared_ptr<const Error> error;

    std::string label;                     // β̂
    std::vector<std::string> annotations;  // the R answers (normalised), in draw order
    double annotation_stability = 0;       // modal count / R
    std::string human_label;
    stats::TestOutput tests;  // every statistic, critical value, p-value, pass/fail
    stats::Verdict verdict = stats::Verdict::inconclusive;
    std::string verdict_name;  // "valid" | "invalid" | "inconclusive" | "error"

    // Provenance: everything needed to reproduce the numbers.
    std::vector<std::string> label_set;
    std::string task_name;
    std::string provider, model, embedding_provider, embedding_model;
    bool synthetic = false;                            // true: the simulated provider, not an LLM
    std::map<std::string, std::string> prompt_hashes;  // "annotation", "simulation:<label>"
    int m = 0, n = 0, repeats = 0;
    double alpha = 0, threshold = 0;
    int permutations = 0;  // R, the permutations of the permutation test; 0 for the paper's
    int b = 0;             // B, the reference texts of the paper's tests; 0 when neither runs
    std::string validation_method, separation_method, backtranslation_rule;
    std::uint64_t seed = 0;
    CallCounts calls;

    // With keep_texts: the passage, label -> generated texts, label -> backtranslation answers.
    std::string passage_text;
    std::map<std::string, std::vector<std::string>> pool_texts;
    std::map<std::string, std::vector<std::string>> backtranslation_answers;
};

}  // namespace llmv::pipeline
