// Dollars: the price table shipped in prompts/prices.csv (or the user's own), and the cost of a
// run's tokens at its prices, synchronously and with the providers' batch APIs. The dry run
// estimates it before any call; a run reports what its tokens cost.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llmv {

// Rates above a prompt-size threshold (optional columns tier_threshold, tier_input,
// tier_cached_input, tier_cache_write, tier_output): a request whose prompt (its input tokens,
// cached and written ones included) is over `threshold` tokens pays these rates for all of its
// tokens, output included, as Anthropic prices Claude Haiku 5.5 above 100,000 prompt tokens and
// OpenAI prices GPT-5.6 and GPT-6 above 272,000 input tokens.
struct PriceTier {
    std::int64_t threshold = 0;  // 0: the row has no tier
    double input = 0, cached_input = 0, cache_write = 0, output = 0;
};

// One row of the table: US dollars per million tokens.
struct ModelPrice {
    std::string provider;
    std::string model;
    // Other ids of the same model at the same prices (optional column aliases, separated by
    // spaces or '|'): Bedrock's inference profiles priced as this row, a vendor's alias.
    std::vector<std::string> aliases;
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
    PriceTier tier;              // tier.threshold 0: one rate whatever the prompt's size
    std::string checked;         // the date the numbers were read
    std::string source;          // where they were read (optional column source)
};

// Whether `model` is the id `listed` names under the table's rule (docs/transport-and-cache.md):
// the same id, or the id followed by a dated snapshot and/or a version suffix and nothing else:
// "-YYYY-MM-DD" (OpenAI), "-YYYYMMDD" (Anthropic), then "-vN:M" or ":M" (Bedrock). A longer
// name (gpt-4.1-nano for gpt-4.1, claude-sonnet-5-5 for claude-sonnet-5) is another model.
bool model_matches_row_id(const std::string& model, const std::string& listed);

struct PriceTable {
    std::string source;  // the file it was read from
    std::vector<ModelPrice> rows;
    // The row of this provider's model: the row whose id or one of whose aliases the model's id
    // matches (model_matches_row_id: the exact id, or it with a dated snapshot or a version
    // suffix); nullptr when none. Never a neighbour's row: no other prefix counts.
    const ModelPrice* find(const std::string& provider, const std::string& model) const;
    // For a model with no row: the listed id of this provider nearest to it (edit distance), as
    // a "did you mean" hint; empty when the provider has no row.
    std::string nearest(const std::string& provider, const std::string& model) const;
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
    // Of the tokens above, those of requests whose prompt was over the row's tier threshold
    // (priced at the tier's rates; zero for a row without a tier).
    std::int64_t tier_input_tokens = 0, tier_cached_input_tokens = 0,
                 tier_cache_write_input_tokens = 0, tier_output_tokens = 0;
    bool priced = false;           // the table has this model
    std::string nearest;           // unpriced: the nearest listed id, a "did you mean" hint
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

// The chat tokens of requests whose prompt was over a tier threshold (CostLine's tier_*): a
// subset of the totals given to cost_of.
struct TierTokens {
    std::int64_t input = 0, cached_input = 0, cache_write_input = 0, output = 0;
};

// Chat tokens at the chat model's prices plus embedding tokens at the embedding model's. A
// model with no row, or no table, leaves its line unpriced (complete = false) rather than
// guessing, and names the nearest listed id as a hint. The simulated provider and the local
// embedders cost nothing (priced at 0). `above_tier`: of the chat tokens, those of requests
// over the row's tier threshold.
CostEstimate cost_of(const PriceTable* table, const std::string& chat_provider,
                     const std::string& chat_model, std::int64_t input_tokens,
                     std::int64_t cached_input_tokens, std::int64_t output_tokens,
                     const std::string& embedding_provider, const std::string& embedding_model,
                     std::int64_t embedding_tokens, std::int64_t cache_write_input_tokens = 0,
                     const TierTokens& above_tier = TierTokens());

// What one chat request costs at `row`'s prices: the tier's rates for every token when its
// prompt (input + cached_input + cache_write_input) is over the tier's threshold.
double request_dollars(const ModelPrice& row, std::int64_t input_tokens,
                       std::int64_t cached_input_tokens, std::int64_t cache_write_input_tokens,
                       std::int64_t output_tokens);

// The table at `path` (empty: default_price_table_path()), or nullptr when the default file is
// not there (a path given explicitly must load: it throws).
std::unique_ptr<PriceTable> price_table_for(const std::string& path);

// "$12.34" (cents; four decimals below $10, so that small runs do not show $0.00).
std::string format_dollars(double dollars);

}  // namespace llmv
