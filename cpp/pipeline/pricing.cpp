// The price table (prompts/prices.csv) and the arithmetic of a run's cost (pricing.hpp).
#include "llmvalidate/pricing.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "llmvalidate/edit_distance.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/task.hpp"
#include "llmvalidate/text.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/simulated.hpp"

namespace llmv {

namespace {

std::vector<std::string> split_fields(const std::string& line) {
    std::vector<std::string> fields;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, ',')) fields.push_back(text::trim(field));
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    return fields;
}

// Dollars per million tokens no model costs: a bigger number is a typo (1e308 made every cost
// "$inf"), and the products and sums of a run's cost stay finite below it.
constexpr double highest_price = 1e6;

// A price: empty is "not given" (false); otherwise a number from 0 to highest_price.
bool read_price(const std::string& value, double& into, const std::string& column,
                const std::string& where) {
    if (value.empty()) return false;
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !std::isfinite(number) || number < 0 ||
        number > highest_price) {
        throw_invalid(code::invalid_argument, column + " (" + where + ")", value,
                      "a price in US dollars per million tokens (a number from 0 to 1000000), or "
                      "empty");
    }
    into = number;
    return true;
}

// YYYY-MM-DD, a day of the calendar.
bool is_date(const std::string& text) {
    if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
    for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    const int year = std::stoi(text.substr(0, 4));
    const int month = std::stoi(text.substr(5, 2));
    const int day = std::stoi(text.substr(8, 2));
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1) return false;
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return day <= days[month - 1] + (month == 2 && leap ? 1 : 0);
}

bool file_exists(const std::string& path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

bool is_free_provider(const std::string& provider) {
    // Computed on this machine: nothing is paid (the spec's free_local, provider_spec.hpp).
    if (provider == pipeline::simulated_provider_name ||
        provider == pipeline::hashed_embedding_name)
        return true;
    for (const pipeline::ProviderDefaults& row : pipeline::provider_defaults()) {
        if (row.provider == provider && row.free_local) return true;
    }
    return false;
}

}  // namespace

namespace {

bool digits(const std::string& text, std::size_t from, std::size_t count) {
    if (from + count > text.size()) return false;
    for (std::size_t i = from; i < from + count; ++i)
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    return true;
}

// The length of a dated snapshot at `at` ("-YYYY-MM-DD" or "-YYYYMMDD"), 0 when none.
std::size_t dated_snapshot(const std::string& text, std::size_t at) {
    if (at >= text.size() || text[at] != '-') return 0;
    if (digits(text, at + 1, 4) && at + 11 <= text.size() && text[at + 5] == '-' &&
        digits(text, at + 6, 2) && text[at + 8] == '-' && digits(text, at + 9, 2) &&
        is_date(text.substr(at + 1, 10)))
        return 11;
    if (digits(text, at + 1, 8) &&
        (at + 9 == text.size() || !std::isdigit(static_cast<unsigned char>(text[at + 9]))) &&
        is_date(text.substr(at + 1, 4) + "-" + text.substr(at + 5, 2) + "-" +
                text.substr(at + 7, 2)))
        return 9;
    return 0;
}

// The length of digits from `at` (at least one), 0 when none.
std::size_t digit_run(const std::string& text, std::size_t at) {
    std::size_t end = at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    return end - at;
}

// The length of a version suffix at `at` ("-vN:M" or ":M", Bedrock's), 0 when none.
std::size_t version_suffix(const std::string& text, std::size_t at) {
    std::size_t position = at;
    if (position + 1 < text.size() && text[position] == '-' && text[position + 1] == 'v') {
        const std::size_t major = digit_run(text, position + 2);
        if (major == 0) return 0;
        position += 2 + major;
        if (position >= text.size() || text[position] != ':') return 0;
    }
    if (position >= text.size() || text[position] != ':') return 0;
    const std::size_t minor = digit_run(text, position + 1);
    if (minor == 0) return 0;
    return position + 1 + minor - at;
}

}  // namespace

bool model_matches_row_id(const std::string& model, const std::string& listed) {
    if (model == listed) return true;
    if (listed.empty() || model.size() <= listed.size() ||
        model.compare(0, listed.size(), listed) != 0)
        return false;
    std::size_t at = listed.size();
    at += dated_snapshot(model, at);
    at += version_suffix(model, at);
    return at == model.size() && at > listed.size();
}

const ModelPrice* PriceTable::find(const std::string& provider, const std::string& model) const {
    for (const ModelPrice& row : rows) {
        if (row.provider != provider) continue;
        if (model_matches_row_id(model, row.model)) return &row;
        for (const std::string& alias : row.aliases)
            if (model_matches_row_id(model, alias)) return &row;
    }
    return nullptr;
}

std::string PriceTable::nearest(const std::string& provider, const std::string& model) const {
    std::string best;
    std::size_t best_distance = 0;
    const auto consider = [&](const std::string& listed) {
        const std::size_t distance = edit_distance(model, listed, LetterCase::ignored);
        if (best.empty() || distance < best_distance) {
            best = listed;
            best_distance = distance;
        }
    };
    for (const ModelPrice& row : rows) {
        if (row.provider != provider) continue;
        consider(row.model);
        for (const std::string& alias : row.aliases) consider(alias);
    }
    return best;
}

namespace {

// The optional tier columns: all empty (no tier), or a threshold and the tier's input and
// output prices (cached_input and cache_write default to the row's own ratios to input).
void read_tier(const std::map<std::string, std::size_t>& columns,
               const std::vector<std::string>& fields, ModelPrice& row, const std::string& where,
               const std::string& content) {
    const auto field = [&](const char* name) -> std::string {
        const auto found = columns.find(name);
        return found == columns.end() ? std::string() : fields[found->second];
    };
    const std::string threshold = field("tier_threshold");
    const bool input = read_price(field("tier_input"), row.tier.input, "tier_input", where);
    const bool output = read_price(field("tier_output"), row.tier.output, "tier_output", where);
    const bool cached =
        read_price(field("tier_cached_input"), row.tier.cached_input, "tier_cached_input", where);
    const bool write =
        read_price(field("tier_cache_write"), row.tier.cache_write, "tier_cache_write", where);
    if (threshold.empty() && !input && !output && !cached && !write) return;
    char* end = nullptr;
    const long long value = std::strtoll(threshold.c_str(), &end, 10);
    if (threshold.empty() || *end != '\0' || value < 1 || !input || !output || !row.has_chat) {
        throw_invalid(code::invalid_argument, "tier_threshold (" + where + ")", content,
                      "a chat row's tier: tier_threshold (prompt tokens, a whole number from 1) "
                      "with tier_input and tier_output, or all tier columns empty");
    }
    row.tier.threshold = value;
    const auto ratio = [&](double price) { return row.input > 0 ? price / row.input : 1.0; };
    if (!cached) row.tier.cached_input = row.tier.input * ratio(row.cached_input);
    if (!write) row.tier.cache_write = row.tier.input * ratio(row.cache_write);
}

}  // namespace

double request_dollars(const ModelPrice& row, std::int64_t input_tokens,
                       std::int64_t cached_input_tokens, std::int64_t cache_write_input_tokens,
                       std::int64_t output_tokens) {
    const bool above =
        row.tier.threshold > 0 &&
        input_tokens + cached_input_tokens + cache_write_input_tokens > row.tier.threshold;
    const auto as = [](std::int64_t tokens) { return static_cast<double>(tokens); };
    if (above) {
        return 1e-6 * (as(input_tokens) * row.tier.input +
                       as(cached_input_tokens) * row.tier.cached_input +
                       as(cache_write_input_tokens) * row.tier.cache_write +
                       as(output_tokens) * row.tier.output);
    }
    return 1e-6 * (as(input_tokens) * row.input + as(cached_input_tokens) * row.cached_input +
                   as(cache_write_input_tokens) * row.cache_write + as(output_tokens) * row.output);
}

PriceTable parse_price_table(const std::string& text, const std::string& source) {
    PriceTable table;
    table.source = source;
    std::istringstream in(text);
    std::string line;
    std::map<std::string, std::size_t> columns;
    std::map<std::string, int> first_line;  // "provider,model" -> its line
    int number = 0;
    static const char* required[] = {"provider", "model",     "input",          "cached_input",
                                     "output",   "embedding", "batch_discount", "checked"};
    while (std::getline(in, line)) {
        ++number;
        const std::string content = text::trim(line);
        if (content.empty() || content[0] == '#') continue;
        const std::vector<std::string> fields = split_fields(content);
        const std::string where = source + ", line " + std::to_string(number);
        if (columns.empty()) {
            for (std::size_t i = 0; i < fields.size(); ++i) columns[fields[i]] = i;
            for (const char* name : required) {
                if (!columns.count(name)) {
                    throw_invalid(code::invalid_argument,
                                  "the price table's header (" + where + ")", content,
                                  "the columns provider, model, input, cached_input, output, "
                                  "embedding, batch_discount, checked (in any order)");
                }
            }
            continue;
        }
        if (fields.size() != columns.size()) {
            throw_invalid(
                code::invalid_argument, "a price table row (" + where + ")", content,
                std::to_string(columns.size()) + " comma-separated fields, as the header");
        }
        const auto field = [&](const char* name) { return fields[columns.at(name)]; };
        ModelPrice row;
        row.provider = field("provider");
        row.model = field("model");
        if (row.provider.empty() || row.model.empty()) {
            throw_invalid(code::invalid_argument, "provider and model (" + where + ")", content,
                          "a provider name and a model name on every row");
        }
        const bool input = read_price(field("input"), row.input, "input", where);
        const bool output = read_price(field("output"), row.output, "output", where);
        if (input != output) {
            throw_invalid(code::invalid_argument, "input and output (" + where + ")", content,
                          "both prices of a chat model, or neither (an embedding model)");
        }
        row.has_chat = input;
        row.cached_input = row.input;
        read_price(field("cached_input"), row.cached_input, "cached_input", where);
        row.cache_write = row.input;
        if (columns.count("cache_write"))
            read_price(field("cache_write"), row.cache_write, "cache_write", where);
        row.has_embedding = read_price(field("embedding"), row.embedding, "embedding", where);
        if (!row.has_chat && !row.has_embedding) {
            throw_invalid(code::invalid_argument, "prices (" + where + ")", content,
                          "input and output prices (a chat model) or an embedding price");
        }
        row.has_batch =
            read_price(field("batch_discount"), row.batch_discount, "batch_discount", where);
        if (row.batch_discount >= 1) {
            throw_invalid(code::invalid_argument, "batch_discount (" + where + ")",
                          field("batch_discount"),
                          "the share taken off by the batch API, from 0 to below 1 (0.5: half)");
        }
        if (columns.count("aliases")) {
            std::string list = field("aliases");
            std::replace(list.begin(), list.end(), '|', ' ');
            std::istringstream names(list);
            for (std::string alias; names >> alias;) row.aliases.push_back(alias);
        }
        read_tier(columns, fields, row, where, content);
        if (columns.count("source")) row.source = field("source");
        row.checked = field("checked");
        if (!is_date(row.checked)) {
            throw_invalid(code::invalid_argument, "checked (" + where + ")", row.checked,
                          "the date the prices were compared with the vendor's, as YYYY-MM-DD");
        }
        // A second row for the same model (or alias) would win or lose silently.
        std::vector<std::string> ids{row.model};
        ids.insert(ids.end(), row.aliases.begin(), row.aliases.end());
        for (const std::string& id : ids) {
            const std::string name = row.provider + "," + id;
            if (const auto first = first_line.find(name); first != first_line.end()) {
                throw_invalid(code::invalid_argument, "provider and model (" + where + ")", content,
                              "one row per model: " + row.provider + " " + id + " is on line " +
                                  std::to_string(first->second) + " already");
            }
            first_line[name] = number;
        }
        table.rows.push_back(std::move(row));
    }
    if (columns.empty()) {
        throw_invalid(code::invalid_argument, "the price table", source,
                      "a CSV file with a header line (provider,model,input,cached_input,output,"
                      "embedding,batch_discount,checked) and one row per model");
    }
    return table;
}

PriceTable load_price_table(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw_invalid(code::invalid_argument, "price_table", path,
                      "a readable CSV file of prices (the shipped one is prompts/prices.csv)");
    }
    std::ostringstream content;
    content << file.rdbuf();
    return parse_price_table(content.str(), path);
}

std::string default_price_table_path() {
    if (const char* env = std::getenv("LLMV_PRICE_TABLE"); env && *env) return env;
    try {
        return prompts_directory() + "/prices.csv";
    } catch (const Error&) {
        return "";
    }
}

std::unique_ptr<PriceTable> price_table_for(const std::string& path) {
    if (!path.empty()) return std::make_unique<PriceTable>(load_price_table(path));
    const std::string fallback = default_price_table_path();
    if (fallback.empty()) return nullptr;
    // LLMV_PRICE_TABLE is the user's own choice: it must load.
    if (const char* env = std::getenv("LLMV_PRICE_TABLE"); env && *env)
        return std::make_unique<PriceTable>(load_price_table(fallback));
    if (!file_exists(fallback)) return nullptr;
    return std::make_unique<PriceTable>(load_price_table(fallback));
}

CostEstimate cost_of(const PriceTable* table, const std::string& chat_provider,
                     const std::string& chat_model, std::int64_t input_tokens,
                     std::int64_t cached_input_tokens, std::int64_t output_tokens,
                     const std::string& embedding_provider, const std::string& embedding_model,
                     std::int64_t embedding_tokens, std::int64_t cache_write_input_tokens,
                     const TierTokens& above_tier) {
    CostEstimate estimate;
    if (table) estimate.table = table->source;
    std::vector<std::string> unpriced;
    const auto price = [&](CostLine line) {
        const double per = 1e-6;
        const ModelPrice* row = table ? table->find(line.provider, line.model) : nullptr;
        if (is_free_provider(line.provider)) {
            line.priced = true;
        } else if (row && (line.role == "chat" ? row->has_chat : row->has_embedding)) {
            line.priced = true;
            line.checked = row->checked;
            if (line.role == "chat") {
                // The requests over the tier's threshold at its rates, the rest at the row's.
                const bool tiered = row->tier.threshold > 0;
                if (!tiered) {
                    line.tier_input_tokens = line.tier_cached_input_tokens = 0;
                    line.tier_cache_write_input_tokens = line.tier_output_tokens = 0;
                }
                ModelPrice base = *row;
                base.tier.threshold = 0;
                line.dollars = request_dollars(
                    base, line.input_tokens - line.tier_input_tokens,
                    line.cached_input_tokens - line.tier_cached_input_tokens,
                    line.cache_write_input_tokens - line.tier_cache_write_input_tokens,
                    line.output_tokens - line.tier_output_tokens);
                if (tiered) {
                    ModelPrice long_prompt = *row;
                    long_prompt.input = row->tier.input;
                    long_prompt.cached_input = row->tier.cached_input;
                    long_prompt.cache_write = row->tier.cache_write;
                    long_prompt.output = row->tier.output;
                    long_prompt.tier.threshold = 0;
                    line.dollars += request_dollars(
                        long_prompt, line.tier_input_tokens, line.tier_cached_input_tokens,
                        line.tier_cache_write_input_tokens, line.tier_output_tokens);
                }
            } else {
                line.dollars = per * static_cast<double>(line.input_tokens) * row->embedding;
            }
            line.batch_available = row->has_batch;
            line.batch_dollars =
                line.dollars * (1.0 - (row->has_batch ? row->batch_discount : 0.0));
        }
        if (!line.priced) {
            if (table) line.nearest = table->nearest(line.provider, line.model);
            if (line.input_tokens + line.cached_input_tokens + line.cache_write_input_tokens +
                    line.output_tokens >
                0) {
                estimate.complete = false;
                unpriced.push_back(line.provider + " " + line.model +
                                   (line.nearest.empty() ? std::string()
                                                         : "; did you mean " + line.nearest + "?"));
            }
        } else {
            estimate.dollars += line.dollars;
            estimate.batch_dollars += line.batch_dollars;
        }
        estimate.lines.push_back(std::move(line));
    };
    CostLine chat;
    chat.role = "chat";
    chat.provider = chat_provider;
    chat.model = chat_model;
    chat.input_tokens = input_tokens;
    chat.cached_input_tokens = cached_input_tokens;
    chat.cache_write_input_tokens = cache_write_input_tokens;
    chat.output_tokens = output_tokens;
    // Clamped: a part is never more than its total.
    chat.tier_input_tokens = std::min(above_tier.input, input_tokens);
    chat.tier_cached_input_tokens = std::min(above_tier.cached_input, cached_input_tokens);
    chat.tier_cache_write_input_tokens =
        std::min(above_tier.cache_write_input, cache_write_input_tokens);
    chat.tier_output_tokens = std::min(above_tier.output, output_tokens);
    price(std::move(chat));
    if (!embedding_provider.empty()) {
        CostLine embedding;
        embedding.role = "embedding";
        embedding.provider = embedding_provider;
        embedding.model = embedding_model;
        embedding.input_tokens = embedding_tokens;
        price(std::move(embedding));
    }
    if (!unpriced.empty()) {
        std::string names;
        for (const std::string& name : unpriced) names += (names.empty() ? "" : "; ") + name;
        estimate.note = table ? "No price for " + names + " (in " + table->source +
                                    "): its cost is not in the total, and no other model's "
                                    "price stands in; add a row to a copy of the table and "
                                    "point LLMV_PRICE_TABLE at it."
                              : "No price table was found (prompts/prices.csv); set "
                                "LLMV_PRICE_TABLE to a table of your own.";
    }
    return estimate;
}

std::string format_dollars(double dollars) {
    char buffer[64];
    if (dollars > 0 && dollars < 10) {
        std::snprintf(buffer, sizeof buffer, "$%.4f", dollars);
    } else {
        std::snprintf(buffer, sizeof buffer, "$%.2f", dollars);
    }
    return buffer;
}

}  // namespace llmv

namespace llmv::pipeline {

CostEstimate cost_of_usage(const std::map<std::string, ModelUsage>& usage, const PriceTable* table,
                           const std::string& chat_provider, const std::string& chat_model,
                           const std::string& embedding_provider,
                           const std::string& embedding_model) {
    ModelUsage chat, embedding;
    if (auto found = usage.find(chat_model); found != usage.end()) chat = found->second;
    if (embedding_model != chat_model) {
        if (auto found = usage.find(embedding_model); found != usage.end())
            embedding = found->second;
    }
    const auto as_int = [](std::uint64_t value) { return static_cast<std::int64_t>(value); };
    const std::uint64_t cached = std::min(chat.cached_input_tokens, chat.input_tokens);
    const std::uint64_t written =
        std::min(chat.cache_write_input_tokens, chat.input_tokens - cached);
    // The same split for the requests over the tier's threshold.
    const std::uint64_t tier_input = std::min(chat.tier_input_tokens, chat.input_tokens);
    const std::uint64_t tier_cached = std::min(chat.tier_cached_input_tokens, tier_input);
    const std::uint64_t tier_written =
        std::min(chat.tier_cache_write_input_tokens, tier_input - tier_cached);
    TierTokens above;
    above.input = as_int(tier_input - tier_cached - tier_written);
    above.cached_input = as_int(tier_cached);
    above.cache_write_input = as_int(tier_written);
    above.output = as_int(chat.tier_output_tokens);
    return cost_of(table, chat_provider, chat_model, as_int(chat.input_tokens - cached - written),
                   as_int(cached), as_int(chat.output_tokens), embedding_provider, embedding_model,
                   as_int(embedding.input_tokens), as_int(written), above);
}

}  // namespace llmv::pipeline
