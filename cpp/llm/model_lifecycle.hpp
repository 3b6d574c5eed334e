// When a vendor retires a model: the shipped table (the offline fallback, a dated row per model
// with its source) and the rules that turn a vendor's own lifecycle fields into one state. The
// run reads the vendor's model list first (pipeline/model_lifecycle_check.cpp); this table
// answers when the list cannot be read, or does not give the model a date.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llmv {

struct LifecycleRow {
    std::string provider;     // "openai", "anthropic", "bedrock"
    std::string model;        // the id; it also covers its dated snapshots (id + "-...")
    std::string deprecated;   // YYYY-MM-DD the vendor announced the retirement ("": not known)
    std::string retires;      // YYYY-MM-DD the vendor stops serving it (shutdown, end of life)
    std::string replacement;  // the vendor's recommended replacement ("": none named)
    std::string source;       // where the row was read, with the date
};

const std::vector<LifecycleRow>& shipped_lifecycle();
// The row of `model` (the longest id that is the model or a prefix of it followed by '-'), or
// null. Bedrock ids are matched on the Claude id inside them (an inference profile, an ARN).
const LifecycleRow* find_shipped_lifecycle(const std::string& provider, const std::string& model);

struct CatalogueModel;  // model_catalogue.hpp

// What is known of one model's lifecycle: the vendor's own fields when its list gives any (a
// status or a date), else the shipped table's row, else nothing ("active", no date).
struct ModelLifecycle {
    std::string state;        // lifecycle_state(): "active", "deprecated" or "retired"
    std::string retires;      // YYYY-MM-DD, "" when none is announced
    std::string replacement;  // the vendor's recommended replacement (the table's), "" unknown
    std::string source;       // "vendor" or the table row's source; "" when nothing is known
};
// `entry`: the model's entry in the vendor's list (null: not listed, or no list read).
ModelLifecycle lifecycle_of(const std::string& provider, const std::string& model,
                            const CatalogueModel* entry, const std::string& today);

// A model's lifecycle as one state: "active", "deprecated" (announced, still served) or
// "retired" (requests fail). `vendor_status` is the vendor's own word (Anthropic's lifecycle,
// Bedrock's ACTIVE/LEGACY; "" when it gives none); `retires` its retirement date (YYYY-MM-DD,
// "" none announced). `date_decides`: a past date means retired (OpenAI's shutdown_date,
// Bedrock's endOfLifeTime, our table). Anthropic's is a schedule ("a past date on a deprecated
// model means retirement is overdue, not that it has occurred"), so its word decides.
std::string lifecycle_state(const std::string& vendor_status, const std::string& retires,
                            bool date_decides, const std::string& today);

// A time in UTC, written with strftime's `format` ("%Y-%m-%d", "%Y-%m-%d %H:%M UTC").
std::string utc_text(std::int64_t unix_seconds, const char* format);
// Today's date in UTC, YYYY-MM-DD.
std::string today_utc();
// Whole days from `from` to `to` (both YYYY-MM-DD); 0 when either is not a date.
long days_between(const std::string& from, const std::string& to);
// The date of a vendor's timestamp: "2027-01-22T00:00:00Z" or "2027-01-22" give "2027-01-22";
// seconds since 1970 (Bedrock's JSON timestamps) give their UTC date; "" otherwise.
std::string date_of_timestamp(const std::string& text);
std::string date_of_epoch_seconds(double seconds);

}  // namespace llmv
