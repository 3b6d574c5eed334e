// Small text helpers shared by every area (one trim, one split: issue 14).
#pragma once

#include <string>
#include <vector>

namespace llmv::text {

// Without leading and trailing white space (space, \t, \r, \n, \f, \v: isspace in the C locale).
inline std::string trim(const std::string& value) {
    const char* space = " \t\r\n\f\v";
    const auto begin = value.find_first_not_of(space);
    if (begin == std::string::npos) return "";
    return value.substr(begin, value.find_last_not_of(space) - begin + 1);
}

// The pieces between separators, empty ones included ("a,,b" -> "a", "", "b").
inline std::vector<std::string> split(const std::string& value, char separator) {
    std::vector<std::string> parts;
    std::string current;
    for (char c : value) {
        if (c == separator) {
            parts.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    parts.push_back(current);
    return parts;
}

// A list as a message says it: "a, b or c" (`separator` between items, `last` before the last
// one), each item wrapped in `quote` ("\"a\", \"b\" or \"c\"").
inline std::string join_list(const std::vector<std::string>& items,
                             const std::string& separator = ", ", const std::string& last = " or ",
                             const std::string& quote = "") {
    std::string text;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) text += i + 1 == items.size() ? last : separator;
        text += quote + items[i] + quote;
    }
    return text;
}

// `value` with the credentials of every URL in it replaced ("http://user:PASS@host/v1" ->
// "http://<redacted>@host/v1"): a password in a base URL is never printed or stored. Applied
// to every error message, row error, log and trace line, and cache endpoint (issue 41).
inline std::string without_url_credentials(std::string value) {
    const std::string marker = "://";
    const char* authority_end = "/?#\"'`<>()[]{} \t\r\n";
    for (auto at = value.find(marker); at != std::string::npos; at = value.find(marker, at + 1)) {
        const std::size_t start = at + marker.size();
        std::size_t end = value.find_first_of(authority_end, start);
        if (end == std::string::npos) end = value.size();
        const std::size_t user_end = value.rfind('@', end == 0 ? 0 : end - 1);
        if (user_end == std::string::npos || user_end < start) continue;
        const std::string redacted = "<redacted>";
        if (value.compare(start, user_end - start, redacted) == 0) continue;
        value.replace(start, user_end - start, redacted);
    }
    return value;
}

}  // namespace llmv::text
