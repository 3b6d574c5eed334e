// HTTP statuses and the waits servers ask for, shared by the transport (which retries and waits)
// and the providers (which classify a failure): one status map and one parser of Retry-After,
// retry-after-ms and the vendors' rate-limit reset headers. Pure functions of their inputs.
#include "core/http_status.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>

#include "llmvalidate/error.hpp"
#include "llmvalidate/text.hpp"

namespace llmv {
namespace {

using text::trim;

// A non-negative decimal number filling the whole string ("12", "0.5").
std::optional<double> parse_plain_number(const std::string& text) {
    if (text.empty()) return std::nullopt;
    bool seen_digit = false, seen_point = false;
    for (char c : text) {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            seen_digit = true;
        } else if (c == '.' && !seen_point) {
            seen_point = true;
        } else {
            return std::nullopt;
        }
    }
    if (!seen_digit) return std::nullopt;
    return std::strtod(text.c_str(), nullptr);
}

// Days since 1970-01-01 of a proleptic Gregorian date (the era-based civil-date formula).
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) {
    year -= month <= 2;
    const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
    const unsigned year_of_era = static_cast<unsigned>(year - era * 400);
    const unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const unsigned day_of_era =
        year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

bool valid_time(int year, int month, int day, int hour, int minute, double second) {
    return year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour >= 0 &&
           hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second < 61;
}

double to_epoch(int year, int month, int day, int hour, int minute, double second) {
    return static_cast<double>(
               days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day))) *
               86400.0 +
           hour * 3600.0 + minute * 60.0 + second;
}

// Reads exactly `count` digits at `pos`.
bool read_digits(const std::string& text, std::size_t& pos, std::size_t count, int& value) {
    if (pos + count > text.size()) return false;
    value = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const char c = text[pos + i];
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        value = value * 10 + (c - '0');
    }
    pos += count;
    return true;
}

bool expect_char(const std::string& text, std::size_t& pos, char c) {
    if (pos >= text.size() || text[pos] != c) return false;
    ++pos;
    return true;
}

std::optional<double> header_number(const std::map<std::string, std::string>& headers,
                                    const std::string& name) {
    auto it = headers.find(name);
    if (it == headers.end()) return std::nullopt;
    return parse_plain_number(trim(it->second));
}

}  // namespace

const std::vector<long>& transient_statuses() {
    // 408: the server gave up waiting; 529: Anthropic is overloaded.
    static const std::vector<long> statuses = {408, 429, 500, 502, 503, 504, 529};
    return statuses;
}

bool is_transient_status(long status) {
    const auto& statuses = transient_statuses();
    return std::find(statuses.begin(), statuses.end(), status) != statuses.end();
}

const char* error_code_for_status(long status) {
    if (status >= 200 && status < 300) return "";
    if (status == 401 || status == 403) return code::provider_auth;
    if (status == 404) return code::provider_not_found;
    if (status == 429) return code::provider_rate_limited;
    if (status == 408) return code::provider_server;  // the server gave up waiting
    if (status >= 400 && status < 500) return code::provider_bad_request;
    return code::provider_server;
}

std::optional<double> parse_http_date(const std::string& value) {
    static const char* const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    const std::string text = trim(value);
    std::size_t pos = 0;
    const std::size_t comma = text.find(',');
    if (comma != std::string::npos) pos = comma + 1;  // the weekday is not needed
    while (pos < text.size() && text[pos] == ' ') ++pos;
    int day = 0, year = 0, hour = 0, minute = 0, second = 0;
    if (!read_digits(text, pos, 2, day) || !expect_char(text, pos, ' ')) return std::nullopt;
    if (pos + 3 > text.size()) return std::nullopt;
    const std::string month_name = text.substr(pos, 3);
    pos += 3;
    int month = 0;
    for (int m = 0; m < 12; ++m) {
        if (month_name == months[m]) month = m + 1;
    }
    if (month == 0 || !expect_char(text, pos, ' ') || !read_digits(text, pos, 4, year) ||
        !expect_char(text, pos, ' ') || !read_digits(text, pos, 2, hour) ||
        !expect_char(text, pos, ':') || !read_digits(text, pos, 2, minute) ||
        !expect_char(text, pos, ':') || !read_digits(text, pos, 2, second)) {
        return std::nullopt;
    }
    const std::string zone = trim(text.substr(pos));
    if (zone != "GMT" && zone != "UTC") return std::nullopt;
    if (!valid_time(year, month, day, hour, minute, second)) return std::nullopt;
    return to_epoch(year, month, day, hour, minute, second);
}

std::optional<double> parse_rfc3339(const std::string& value) {
    const std::string text = trim(value);
    std::size_t pos = 0;
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, whole_second = 0;
    if (!read_digits(text, pos, 4, year) || !expect_char(text, pos, '-') ||
        !read_digits(text, pos, 2, month) || !expect_char(text, pos, '-') ||
        !read_digits(text, pos, 2, day)) {
        return std::nullopt;
    }
    if (pos >= text.size() || (text[pos] != 'T' && text[pos] != 't' && text[pos] != ' ')) {
        return std::nullopt;
    }
    ++pos;
    if (!read_digits(text, pos, 2, hour) || !expect_char(text, pos, ':') ||
        !read_digits(text, pos, 2, minute) || !expect_char(text, pos, ':') ||
        !read_digits(text, pos, 2, whole_second)) {
        return std::nullopt;
    }
    double second = whole_second;
    if (pos < text.size() && text[pos] == '.') {
        ++pos;
        double scale = 0.1;
        bool any = false;
        while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
            second += (text[pos] - '0') * scale;
            scale /= 10;
            ++pos;
            any = true;
        }
        if (!any) return std::nullopt;
    }
    double offset_seconds = 0;
    if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
        ++pos;
    } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
        const int sign = text[pos] == '+' ? 1 : -1;
        ++pos;
        int offset_hours = 0, offset_minutes = 0;
        if (!read_digits(text, pos, 2, offset_hours) || !expect_char(text, pos, ':') ||
            !read_digits(text, pos, 2, offset_minutes)) {
            return std::nullopt;
        }
        offset_seconds = sign * (offset_hours * 3600.0 + offset_minutes * 60.0);
    } else {
        return std::nullopt;
    }
    if (pos != text.size() || !valid_time(year, month, day, hour, minute, second)) {
        return std::nullopt;
    }
    return to_epoch(year, month, day, hour, minute, second) - offset_seconds;
}

std::optional<double> parse_go_duration(const std::string& value) {
    const std::string text = trim(value);
    if (text.empty()) return std::nullopt;
    if (auto plain = parse_plain_number(text)) return plain;  // bare seconds
    double total = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t number_start = pos;
        while (pos < text.size() &&
               (std::isdigit(static_cast<unsigned char>(text[pos])) || text[pos] == '.')) {
            ++pos;
        }
        auto number = parse_plain_number(text.substr(number_start, pos - number_start));
        if (!number) return std::nullopt;
        const std::size_t unit_start = pos;
        while (pos < text.size() && !std::isdigit(static_cast<unsigned char>(text[pos])) &&
               text[pos] != '.') {
            ++pos;
        }
        const std::string unit = text.substr(unit_start, pos - unit_start);
        double scale = 0;
        if (unit == "h") {
            scale = 3600;
        } else if (unit == "m") {
            scale = 60;
        } else if (unit == "s") {
            scale = 1;
        } else if (unit == "ms") {
            scale = 1e-3;
        } else if (unit == "us" || unit == "\xC2\xB5s") {
            scale = 1e-6;
        } else if (unit == "ns") {
            scale = 1e-9;
        } else {
            return std::nullopt;
        }
        total += *number * scale;
    }
    return total;
}

std::optional<double> parse_retry_after(const std::string& value, double now_epoch) {
    const std::string text = trim(value);
    if (auto seconds = parse_plain_number(text)) return *seconds;
    if (auto date = parse_http_date(text)) return std::max(0.0, *date - now_epoch);
    return std::nullopt;
}

namespace {

// The "remaining" header that goes with a "reset" one: the name with its hyphen-separated part
// "reset" replaced by "remaining"; "" when the name has no such part.
std::string reset_partner(const std::string& name) {
    std::size_t start = 0;
    while (start <= name.size()) {
        std::size_t end = name.find('-', start);
        if (end == std::string::npos) end = name.size();
        if (name.compare(start, end - start, "reset") == 0) {
            return name.substr(0, start) + "remaining" + name.substr(end);
        }
        start = end + 1;
    }
    return "";
}

}  // namespace

std::optional<double> server_requested_wait(const std::map<std::string, std::string>& headers,
                                            double now_epoch) {
    if (auto ms = header_number(headers, "retry-after-ms")) return *ms / 1000.0;
    if (auto it = headers.find("retry-after"); it != headers.end()) {
        if (auto wait = parse_retry_after(it->second, now_epoch)) return *wait;
    }
    // Reset headers: the wait until the exhausted limit refills. When no "remaining" header
    // says which limit is exhausted, the longest reset is the safe reading.
    std::optional<double> exhausted, any;
    auto consider = [&](const std::string& remaining_name, std::optional<double> wait) {
        if (!wait) return;
        *wait = std::max(0.0, *wait);
        any = std::max(any.value_or(0.0), *wait);
        auto remaining = header_number(headers, remaining_name);
        if (remaining && *remaining == 0) exhausted = std::max(exhausted.value_or(0.0), *wait);
    };
    // Every rate-limit reset header, by its shape rather than by vendor: a name with
    // "ratelimit" in it and a "reset" part (x-ratelimit-reset-tokens,
    // <vendor>-ratelimit-input-tokens-reset), whose partner has "remaining" in that place. Its
    // value is a time (RFC 3339) or a wait (Go-style duration or bare seconds).
    for (const auto& [name, value] : headers) {
        if (name.find("ratelimit") == std::string::npos) continue;
        const std::string remaining_name = reset_partner(name);
        if (remaining_name.empty()) continue;
        if (auto at = parse_rfc3339(value)) {
            consider(remaining_name, *at - now_epoch);
        } else {
            consider(remaining_name, parse_go_duration(value));
        }
    }
    return exhausted ? exhausted : any;
}

}  // namespace llmv
