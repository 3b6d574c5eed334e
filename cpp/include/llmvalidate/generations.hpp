// The audit trail of a run: what the model wrote and answered for each passage.
#pragma once

#include <string>
#include <vector>

#include "llmvalidate/passage.hpp"
#include "llmvalidate/validation_config.hpp"

namespace llmv::pipeline {

// The audit trail: what the model wrote and answered for each passage, as rows.
struct GenerationRow {
    std::size_t index = 0;  // the passage's position in the input, 0-based
    std::string passage_id;
    std::string kind;   // "annotation" (of the passage y) or "simulation" (a text of a pool)
    std::string label;  // simulation: the label the text was written for; annotation: ""
    int draw = 0;       // annotation: r = 0..R-1; simulation: the text's position j in its pool
                        // (j >= M: a reference text of the paper methods)
    std::string text;   // simulation: the generated text; annotation: the passage
    // annotation: the label read from the answer ("" when no answer gave a label of S);
    // simulation: the backtranslated label ("" when the pool was not backtranslated).
    std::string answer;
    std::string model;
    std::string prompt_hash;  // of the annotation prompt / of the label's simulation prompt
};

// The rows of one passage that ran with keep_texts (annotations, then the pools in the order
// of S, each in draw order). A failed passage gives the rows it has.
std::vector<GenerationRow> generation_rows(const PassageResult& result);

// The rows as CSV (RFC 4180): the header, and one line per row (no newline), with the passage's
// index and the draw counted from 1. The CLI's --save-generations and Stata's saving() write it.
std::string generations_csv_header();
std::string generation_csv_line(const GenerationRow& row);
// One CSV line of the fields, quoted where needed (no newline).
std::string csv_line(const std::vector<std::string>& fields);

struct Generations {
    std::vector<GenerationRow> rows;    // input order
    std::vector<PassageResult> failed;  // passages the cache cannot serve (error_code/message)
    bool synthetic = false;             // the simulated provider recomputed the answers
};

// Reads back what a run with the same configuration and passages received, from its cache:
// makes no call (replay_only). Throws llmv::Error for a bad configuration, or when a real
// provider is configured without a cache file (there is then nothing to read).
Generations read_generations(const ValidationConfig& config,
                             const std::vector<PassageInput>& passages);

}  // namespace llmv::pipeline
