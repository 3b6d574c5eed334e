// The report's small pieces of markup: escaping, the marked values (data-j, data-t), badges.
#include <cmath>
#include <cstdio>

#include "pipeline/report_html.hpp"

namespace llmv::report::html {

std::string esc(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string format(const json& number, const std::string& fmt) {
    if (!number.is_number()) return "n/a";
    const double x = number.get<double>();
    if (!std::isfinite(x)) return "n/a";
    char buffer[64];
    if (fmt == "i") {
        std::snprintf(buffer, sizeof buffer, "%.0f", x);
    } else if (fmt.rfind("pct", 0) == 0) {
        std::snprintf(buffer, sizeof buffer, "%.*f%%", std::stoi(fmt.substr(3)), x * 100);
    } else if (fmt.rfind("f", 0) == 0) {
        std::snprintf(buffer, sizeof buffer, "%.*f", std::stoi(fmt.substr(1)), x);
    } else {
        std::snprintf(buffer, sizeof buffer, "%.6g", x);
    }
    std::string out = buffer;
    if (out == "-0" || out.rfind("-0.", 0) == 0) {
        // "-0.000": a tiny negative shown as zero keeps its sign, which reads as a typo
        bool zero = true;
        for (char c : out.substr(1))
            if (c != '0' && c != '.' && c != '%') zero = false;
        if (zero) out = out.substr(1);
    }
    return out;
}

std::string value(const json& doc, const std::string& ptr, const std::string& fmt) {
    const json::json_pointer pointer(ptr);
    const json* found = doc.contains(pointer) ? &doc.at(pointer) : nullptr;
    std::string type = fmt;
    std::string text;
    if (found == nullptr || found->is_null()) {
        type = "null";
        text = "n/a";
    } else if (found->is_boolean()) {
        type = "b";
        text = found->get<bool>() ? "yes" : "no";
    } else if (found->is_string()) {
        type = "s";
        text = esc(found->get<std::string>());
    } else if (found->is_number()) {
        text = format(*found, fmt == "s" ? "g" : fmt);
        if (fmt == "s") type = "g";
    } else {
        return "";
    }
    return "<span data-j=\"" + esc(ptr) + "\" data-t=\"" + type + "\">" + text + "</span>";
}

std::string badge(const std::string& verdict) {
    const std::string kind = verdict == "valid" || verdict == "invalid" || verdict == "inconclusive"
                                 ? verdict
                                 : "failed";
    const char* mark = kind == "valid"     ? "&#10003; "
                       : kind == "invalid" ? "&#10007; "
                       : kind == "failed"  ? "! "
                                           : "? ";
    return "<span class=\"badge v-" + kind + "\">" + mark + esc(kind) + "</span>";
}

std::string column_name(const json& column) {
    const std::string header = column.value("header", "");
    if (!header.empty()) return header;
    return column.value("task", "") + " / " + column.value("model", "");
}

std::string passage_anchor(std::size_t column, std::size_t passage) {
    return "p" + std::to_string(column) + "-" + std::to_string(passage);
}

}  // namespace llmv::report::html
