// The shipped lifecycle table and the lifecycle rules (model_lifecycle.hpp).
//
// Sources, read 2026-12-07 through stored copies (the vendors' own pages first):
//  [OA-0422] OpenAI deprecations page, entry "2026-04-22: Legacy GPT model snapshots" (shutdown
//            2026-10-23), as diffed on 2026-04-23 by spybara.com. Its substitute for
//            gpt-3.5-turbo was gpt-4.1-mini, itself shut down on 2027-01-14.
//  [OA-1015] The same page as copied on 2026-10-15 (importstatic.com, "Every OpenAI model
//            shutdown date until January 2027"): the 2026-10-23 rows with gpt-5.6-* replacements.
//  [OA-new]  OpenAI deprecations page, newest stored copy
//            (developers.openai.com/api/docs/deprecations?translationFallback=zh-Hans):
//            "Dec 11, 2026 | gpt-5 ... | gpt-6.1-sol | Jun 11, 2026", gpt-5-mini -> gpt-6.1-terra;
//            the gpt-5-nano row is cut after "gpt-6" in our copy.
//            Conflict: dev.to/aideprecations (June 2026) names gpt-5.6-sol/-terra/-luna for the
//            same rows, a deadline feed (deadline-check) gpt-6.2-sol; OpenAI revised its
//            replacements as it shipped models, so the vendor's newest copy is used.
//  [OA-1014] OpenAI deprecations page, entry "2026-10-14: GPT-4 series" (shutdown 2027-01-14,
//            replacement gpt-6-luna), in w3cschool.cn's translated copy (2026-11-10); the same in
//            codersera.com and dev.to/max_bob (who checked it against GET /v1/models'
//            shutdown_date). Conflict: cometapi-dev names gpt-6.1-sol for gpt-4o and gpt-4.1.
//  [AN-dep]  Anthropic model deprecations page (docs.anthropic.com, zh-CN copy): claude-3-sonnet
//            retired 2025-07-21, claude-3-opus retires 2026-01-05.
//  [AN-rel]  Anthropic release notes: 2025-10-28 the Claude Sonnet 3.5 models retired (the
//            deprecations page dates them 2025-10-22, as GitLab issue 572012 quotes it) and
//            Claude Sonnet 3.7 deprecated for 2026-02-19; 2026-06-15 Claude Sonnet 4 and Opus 4
//            retired (ottto-ai/ai-provider-watch's record of the release notes).
//  [AN-h3]   Claude Haiku 3: the deprecations page's date 2026-04-19 (gate.com, abhs.in); the
//            release notes' post is dated 2026-04-20 (24-ai.news, dev.to/flarecanary).
//  [AN-sdk]  npm @anthropic-ai/sdk 1.17.0, src/internal/data/deprecated-models.ts:
//            claude-opus-4-5 "January 22nd, 2027", claude-mythos-preview "June 30th, 2026".
// Replacements of models already retired name a current model (the one a retired model's own
// replacement would lead to today), so that the message points somewhere that works.
#include "llm/model_lifecycle.hpp"

#include "llm/model_catalogue.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace llmv {

namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

// `model` is `id`, or one of its snapshots: id-2024..., id-0613, id-latest.
bool covers(const std::string& id, const std::string& model) {
    if (model == id) return true;
    if (!starts_with(model, id + "-")) return false;
    const std::string rest = model.substr(id.size() + 1);
    return (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest[0]))) ||
           starts_with(rest, "latest");
}

// The Claude id inside a Bedrock id ("us.anthropic.claude-...", an ARN), else the id itself.
std::string vendor_id(const std::string& model) {
    const std::string marker = "anthropic.";
    const auto at = model.find(marker);
    return at == std::string::npos ? model : model.substr(at + marker.size());
}

bool parse_date(const std::string& text, int& year, int& month, int& day) {
    if (text.size() < 10 || text[4] != '-' || text[7] != '-') return false;
    return std::sscanf(text.c_str(), "%4d-%2d-%2d", &year, &month, &day) == 3 && month >= 1 &&
           month <= 12 && day >= 1 && day <= 31;
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
long days_from_civil(int year, int month, int day) {
    year -= month <= 2 ? 1 : 0;
    const long era = (year >= 0 ? year : year - 399) / 400;
    const long year_of_era = year - era * 400;
    const long day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const long day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + day_of_era - 719468;
}

}  // namespace

const std::vector<LifecycleRow>& shipped_lifecycle() {
    static const std::string oa_0422 =
        "OpenAI deprecations page, 2026-04-22 entry (shutdown 2026-10-23); replacement from the "
        "page's copy of 2026-10-15 (importstatic.com); read 2026-12-07";
    static const std::string oa_new =
        "OpenAI deprecations page, 2026-06-11 entry (shutdown 2026-12-11), newest stored copy of "
        "developers.openai.com/api/docs/deprecations; read 2026-12-07";
    static const std::string oa_new_cut =
        "OpenAI deprecations page, 2026-06-11 entry (shutdown 2026-12-11); the row's replacement "
        "is cut in our copy, so gpt-5's is given; read 2026-12-07";
    static const std::string oa_1014 =
        "OpenAI deprecations page, 2026-10-14 entry (shutdown 2027-01-14), copy of 2026-11-10 "
        "(w3cschool.cn); read 2026-12-07";
    static const std::string an_dep = "Anthropic model deprecations page; read 2026-12-07";
    static const std::string an_rel =
        "Anthropic release notes and model deprecations page; read "
        "2026-12-07";
    static const std::string an_sdk =
        "npm @anthropic-ai/sdk 1.17.0 (DEPRECATED_MODELS); read 2026-12-07";
    static const std::vector<LifecycleRow> table = {
        // OpenAI, shut down on 2026-10-23.
        {"openai", "gpt-3.5-turbo", "2026-04-22", "2026-10-23", "gpt-5.6-terra", oa_0422},
        {"openai", "gpt-4", "2026-04-22", "2026-10-23", "gpt-5.6-sol", oa_0422},
        {"openai", "gpt-4-turbo", "2026-04-22", "2026-10-23", "gpt-5.6-sol", oa_0422},
        {"openai", "gpt-4-1106-preview", "2026-04-22", "2026-10-23", "gpt-5.6-sol", oa_0422},
        {"openai", "gpt-4o-2024-05-13", "2026-04-22", "2026-10-23", "gpt-5.6-sol", oa_0422},
        {"openai", "o1", "2026-04-22", "2026-10-23", "gpt-5.6-sol", oa_0422},
        {"openai", "o1-pro", "2026-04-22", "2026-10-23", "gpt-5.6-sol", oa_0422},
        {"openai", "o3-mini", "2026-04-22", "2026-10-23", "gpt-5.6-sol", oa_0422},
        {"openai", "o4-mini", "2026-04-22", "2026-10-23", "gpt-5.6-terra", oa_0422},
        // The replacement is retellai.com's (2026-10-20): the row is cut in our copies.
        {"openai", "gpt-4.1-nano", "2026-04-22", "2026-10-23", "gpt-5.6-luna", oa_0422},
        // OpenAI, shutting down on 2026-12-11.
        {"openai", "gpt-5", "2026-06-11", "2026-12-11", "gpt-6.1-sol", oa_new},
        {"openai", "gpt-5-mini", "2026-06-11", "2026-12-11", "gpt-6.1-terra", oa_new},
        {"openai", "gpt-5-nano", "2026-06-11", "2026-12-11", "", oa_new_cut},
        {"openai", "gpt-5-pro", "2026-06-11", "2026-12-11", "gpt-6.1-sol", oa_new_cut},
        {"openai", "o3", "2026-06-11", "2026-12-11", "gpt-6.1-sol", oa_new_cut},
        {"openai", "o3-pro", "2026-06-11", "2026-12-11", "gpt-6.1-sol", oa_new_cut},
        // OpenAI, shutting down on 2027-01-14.
        {"openai", "gpt-4o", "2026-10-14", "2027-01-14", "gpt-6-luna", oa_1014},
        {"openai", "gpt-4o-mini", "2026-10-14", "2027-01-14", "gpt-6-luna", oa_1014},
        {"openai", "gpt-4.1", "2026-10-14", "2027-01-14", "gpt-6-luna", oa_1014},
        {"openai", "gpt-4.1-mini", "2026-10-14", "2027-01-14", "gpt-6-luna", oa_1014},
        // Anthropic: the Claude 3 models, at Anthropic's retirement dates.
        {"anthropic", "claude-3-sonnet", "2025-01-21", "2025-07-21", "claude-sonnet-4-6", an_dep},
        {"anthropic", "claude-3-5-sonnet", "2025-08-13", "2025-10-22", "claude-sonnet-4-6", an_rel},
        {"anthropic", "claude-3-opus", "2025-06-30", "2026-01-05", "claude-opus-4-8", an_dep},
        {"anthropic", "claude-3-7-sonnet", "2025-10-28", "2026-02-19", "claude-sonnet-4-6", an_rel},
        // Not found in a stored copy of the page: the date Claude Sonnet 3.7 retired with it.
        {"anthropic", "claude-3-5-haiku", "", "2026-02-19", "claude-haiku-4-5",
         "Anthropic model deprecations page (date not confirmed in a stored copy); read "
         "2026-12-07"},
        {"anthropic", "claude-3-haiku", "", "2026-04-19", "claude-haiku-4-5",
         "Anthropic model deprecations page as quoted by gate.com (the release notes say "
         "2026-04-20); read 2026-12-07"},
        // Anthropic: the Claude 4 models.
        {"anthropic", "claude-sonnet-4-20250514", "", "2026-06-15", "claude-sonnet-4-6", an_rel},
        {"anthropic", "claude-sonnet-4-0", "", "2026-06-15", "claude-sonnet-4-6", an_rel},
        {"anthropic", "claude-opus-4-20250514", "", "2026-06-15", "claude-opus-4-8", an_rel},
        {"anthropic", "claude-opus-4-0", "", "2026-06-15", "claude-opus-4-8", an_rel},
        {"anthropic", "claude-mythos-preview", "", "2026-06-30", "", an_sdk},
        {"anthropic", "claude-opus-4-1", "", "2026-08-05", "claude-opus-4-8",
         "npm @anthropic-ai/sdk 0.116.0 (2026-08-07): retired Claude Opus 4.1 models removed"},
        {"anthropic", "claude-sonnet-4-5", "", "2026-11-30", "claude-sonnet-4-6",
         "npm @anthropic-ai/sdk 1.15.0 (2026-11-30): retired Claude Sonnet 4.5 models removed"},
        {"anthropic", "claude-opus-4-5", "", "2027-01-22", "claude-opus-4-8", an_sdk},
    };
    return table;
}

const LifecycleRow* find_shipped_lifecycle(const std::string& provider, const std::string& model) {
    const std::string id = provider == "bedrock" ? vendor_id(model) : model;
    const LifecycleRow* best = nullptr;
    for (const LifecycleRow& row : shipped_lifecycle()) {
        if (row.provider != provider || !covers(row.model, id)) continue;
        if (!best || row.model.size() > best->model.size()) best = &row;
    }
    return best;
}

ModelLifecycle lifecycle_of(const std::string& provider, const std::string& model,
                            const CatalogueModel* entry, const std::string& today) {
    ModelLifecycle out;
    const LifecycleRow* row = find_shipped_lifecycle(provider, model);
    if (row) out.replacement = row->replacement;
    const std::string status = entry ? entry->status : "";
    bool date_decides = true;
    if (entry && !entry->retires.empty()) {
        out.retires = entry->retires;
        out.source = "vendor";
        date_decides = entry->date_decides;
    } else if (row) {
        out.retires = row->retires;
        out.source = status.empty() ? row->source : "vendor; date: " + row->source;
        date_decides =
            status.empty() || !entry || entry->date_decides;  // the vendor's word decides
    } else if (!status.empty()) {
        out.source = "vendor";
    }
    out.state = lifecycle_state(status, out.retires, date_decides, today);
    return out;
}

std::string lifecycle_state(const std::string& vendor_status, const std::string& retires,
                            bool date_decides, const std::string& today) {
    std::string status;
    for (char c : vendor_status)
        status += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (status == "retired" || status == "shutdown" || status == "end-of-life") return "retired";
    if (date_decides && !retires.empty() && retires <= today) return "retired";
    if (status == "deprecated" || status == "legacy" || !retires.empty()) return "deprecated";
    return "active";
}

std::string utc_text(std::int64_t unix_seconds, const char* format) {
    const std::time_t time = static_cast<std::time_t>(unix_seconds);
    std::tm utc{};
#ifdef _WIN32
    gmtime_s(&utc, &time);
#else
    gmtime_r(&time, &utc);
#endif
    char buffer[64];
    std::strftime(buffer, sizeof buffer, format, &utc);
    return buffer;
}

std::string today_utc() { return utc_text(std::time(nullptr), "%Y-%m-%d"); }

long days_between(const std::string& from, const std::string& to) {
    int y1, m1, d1, y2, m2, d2;
    if (!parse_date(from, y1, m1, d1) || !parse_date(to, y2, m2, d2)) return 0;
    return days_from_civil(y2, m2, d2) - days_from_civil(y1, m1, d1);
}

std::string date_of_timestamp(const std::string& text) {
    int year, month, day;
    if (parse_date(text, year, month, day)) return text.substr(0, 10);
    return "";
}

std::string date_of_epoch_seconds(double seconds) {
    if (!std::isfinite(seconds) || seconds <= 0) return "";
    return utc_text(static_cast<std::int64_t>(seconds), "%Y-%m-%d");
}

}  // namespace llmv
