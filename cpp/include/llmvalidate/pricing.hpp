// Dollars: the price table shipped in prompts/prices.csv (or the user's own), and the cost of a
// run's tokens at its prices, synchronously and with the providers' batch APIs. The dry run
// estimates it before any call; a run reports what its tokens cost.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llmv {

// One row of the table: US dollars per million tokens. A price the row leaves empty is NaN.
struct ModelPrice {
    std::string provider;
    std::string model;
    double input = 0;
    double cached_input = 0;  // prompt-cache reads; the row's input price when left empty
    // Prompt-cache writes (optional column cache_write; Anthropic bills 1.25x input); the row's
    // input price when the column is absent or empty.
    double cache_write = 0;
    double output = 0;
    double embedding = 0;
    double batch_discount = 0;  // share taken off by the batch API; 0: no batch API
    bool has_batch = false;
    bool has_chat = false;       // input and output given
    bool has_embedding = false;  // embedding given
    std::string checked;         // the date the numbers were read
};

struct PriceTable {
    std::string source;  // the file it was read from
    std::vector<ModelPrice> rows;
    // The row of this provider's model: its exact name, else the longest listed name that the
    // model's name starts with followed by '-' (a dated version) or ':' (a version suffix, as
    // Bedrock's amazon.titan-embed-text-v2:0); nullptr when none.
    const ModelPrice* find(const std::string& provider, const std::string& model) const;
};

// Reads the CSV text (comment lines start with '#'; the header names the columns, in any
// order). Throws llmv::Error (llmv.input.invalid_argument) naming the line and the value.
PriceTable parse_price_table(const std::string& text, const std::string& source);
PriceTable load_price_table(const std::string& path);
// LLMV_PRICE_TABLE when set, else prices.csv in the shipped prompts folder.
std::string default_price_table_path();

// What tokens cost at one model's prices.
struct CostLine {
    std::string role;  // "chat" or "embedding"
    std::string provider, model;
    std::int64_t input_tokens = 0;              // uncached input (chat) or embedded (embedding)
    std::int64_t cached_input_tokens = 0;       // chat input read from the provider's prompt cache
    std::int64_t cache_write_input_tokens = 0;  // chat input written to the prompt cache
    std::int64_t output_tokens = 0;
    bool priced = false;           // the table has this model
    double dollars = 0;            // synchronous APIs
    double batch_dollars = 0;      // the batch API (= dollars when the provider has none)
    bool batch_available = false;  // the table gives a batch discount for it
    std::string checked;
};

struct CostEstimate {
    std::vector<CostLine> lines;
    double dollars = 0;        // priced lines only
    double batch_dollars = 0;  // priced lines only
    bool complete = true;      // every line with tokens is priced
    std::string table;         // the table's file; empty when none was found
    std::string note;          // what is not priced and why
    // What a finished run paid through: "synchronous" (the providers' synchronous APIs) or
    // "batch" (their batch APIs). Empty for an estimate (the dry run), which prices both.
    std::string paid_through;
    double paid_dollars() const { return paid_through == "batch" ? batch_dollars : dollars; }
    // One model's line at the price of the route the run took.
    double paid_dollars(const CostLine& line) const {
        return paid_through == "batch" ? line.batch_dollars : line.dollars;
    }
};

// Chat tokens at the chat model's prices plus embedding tokens at the embedding model's. A
// model with no row, or no table, leaves its line unpriced (complete = false) rather than
// guessing. The simulated provider and the local embedders cost nothing (priced at 0).
CostEstimate cost_of(const PriceTable* table, const std::string& chat_provider,
                     const std::string& chat_model, std::int64_t input_tokens,
                     std::int64_t cached_input_tokens, std::int64_t output_tokens,
                     const std::string& embedding_provider, const std::string& embedding_model,
                     std::int64_t embedding_tokens, std::int64_t cache_write_input_tokens = 0);

// The table at `path` (empty: default_price_table_path()), or nullptr when the default file is
// not there (a path given explicitly must load: it throws).
std::unique_ptr<PriceTable> price_table_for(const std::string& path);

// "$12.34" (cents; four decimals below $10, so that small runs do not show $0.00).
std::string format_dollars(double dollars);

}  // namespace llmv
