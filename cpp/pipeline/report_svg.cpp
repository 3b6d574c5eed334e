// The report's drawings, inline SVG: a statistic's null distribution (its bars one path, so
// that thousands of them stay light) and the share valid with its interval per column. Each
// has a title for screen readers, and every mark a text label beside its colour.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "pipeline/report_html.hpp"

namespace llmv::report::html {

namespace {

std::string px(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", x);
    return buffer;
}

double number_at(const json& doc, const std::string& ptr) {
    const json::json_pointer pointer(ptr);
    if (!doc.contains(pointer) || !doc.at(pointer).is_number()) return NAN;
    return doc.at(pointer).get<double>();
}

// A marked value inside SVG text (a tspan keeps data-j and data-t for the browser test).
std::string tspan(const json& doc, const std::string& ptr, const std::string& fmt) {
    std::string marked = value(doc, ptr, fmt);  // <span ...>text</span>
    marked.replace(0, 5, "<tspan");
    marked.replace(marked.size() - 7, 7, "</tspan>");
    return marked;
}

}  // namespace

std::string histogram_svg(const json& doc, const std::string& hist_ptr, const std::string& symbol,
                          const std::string& stat_ptr, const std::string& crit_ptr) {
    const json::json_pointer pointer(hist_ptr);
    if (!doc.contains(pointer) || !doc.at(pointer).is_object())
        return "<p class=\"note\">No null distribution was drawn.</p>";
    const json& h = doc.at(pointer);
    const double lo = h["lo"].get<double>(), hi = h["hi"].get<double>();
    const json& counts = h["counts"];
    const double W = 340, H = 132, ml = 10, mr = 10, top = 34, bottom = 20;
    const double base = H - bottom, width = W - ml - mr;
    int most = 1, total = 0;
    for (const auto& c : counts) {
        most = std::max(most, c.get<int>());
        total += c.get<int>();
    }
    const auto x_of = [&](double v) { return ml + (v - lo) / (hi - lo) * width; };
    const double bin_width = width / static_cast<double>(counts.size());
    std::string path;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const int c = counts[i].get<int>();
        if (c == 0) continue;
        const double x0 = ml + static_cast<double>(i) * bin_width;
        const double y = base - (base - top) * c / most;
        path += "M" + px(x0) + " " + px(base) + "V" + px(y) + "H" + px(x0 + bin_width - 1) + "V" +
                px(base) + "Z";
    }
    const double stat = number_at(doc, stat_ptr), crit = number_at(doc, crit_ptr);
    char title[256];
    std::snprintf(title, sizeof title,
                  "Null distribution of %s over %d draws, from %.3f to %.3f; the statistic is "
                  "%.3f (solid line), the critical value %.3f (dashed line).",
                  symbol.c_str(), total, lo, hi, stat, crit);
    std::string svg = "<svg class=\"hist\" viewBox=\"0 0 " + px(W) + " " + px(H) +
                      "\" role=\"img\" aria-label=\"" + esc(title) + "\"><title>" + esc(title) +
                      "</title>";
    svg += "<path class=\"bars\" d=\"" + path + "\"/>";
    svg += "<line class=\"axis\" x1=\"" + px(ml) + "\" x2=\"" + px(W - mr) + "\" y1=\"" + px(base) +
           "\" y2=\"" + px(base) + "\"/>";
    svg += "<text class=\"tick\" x=\"" + px(ml) + "\" y=\"" + px(H - 5) + "\">" +
           tspan(doc, hist_ptr + "/lo", "f3") + "</text>";
    svg += "<text class=\"tick\" text-anchor=\"end\" x=\"" + px(W - mr) + "\" y=\"" + px(H - 5) +
           "\">" + tspan(doc, hist_ptr + "/hi", "f3") + "</text>";
    // The two marks; their labels on two rows so that close values do not overprint.
    const auto mark = [&](double v, const std::string& ptr, const std::string& cls,
                          const std::string& name, double label_y) {
        if (!std::isfinite(v)) return std::string();
        const double x = x_of(v);
        const char* anchor = x > W * 0.6 ? "end" : "start";
        const double label_x = x > W * 0.6 ? x - 3 : x + 3;
        return "<line class=\"" + cls + "\" x1=\"" + px(x) + "\" x2=\"" + px(x) + "\" y1=\"" +
               px(label_y + 3) + "\" y2=\"" + px(base) + "\"/><text class=\"lab\" x=\"" +
               px(label_x) + "\" y=\"" + px(label_y) + "\" text-anchor=\"" + anchor + "\">" + name +
               " " + tspan(doc, ptr, "f3") + "</text>";
    };
    svg += mark(crit, crit_ptr, "crit", "critical", 25);
    svg += mark(stat, stat_ptr, "stat", esc(symbol), 12);
    svg += "</svg>";
    return svg;
}

std::string shares_svg(const json& doc) {
    // A row per column: its name on a line of its own, then the track (0 to 100%), the dot and
    // its interval, and the numbers in words; narrow enough to stay legible on a phone.
    const json& columns = doc["columns"];
    const double W = 480, row = 46, track0 = 8, track1 = 250, top = 20;
    const double H = top + row * static_cast<double>(columns.size()) + 4;
    std::string title = "Share of passages valid, with its interval, by";
    title += columns.size() > 1 ? " task and model." : " run.";
    std::string svg = "<svg class=\"shares\" viewBox=\"0 0 " + px(W) + " " + px(H) +
                      "\" role=\"img\" aria-label=\"" + esc(title) + "\"><title>" + esc(title) +
                      "</title>";
    const auto x_of = [&](double share) { return track0 + share * (track1 - track0); };
    for (double tick : {0.0, 0.5, 1.0}) {
        svg += "<line class=\"grid\" x1=\"" + px(x_of(tick)) + "\" x2=\"" + px(x_of(tick)) +
               "\" y1=\"" + px(top - 4) + "\" y2=\"" + px(H - 4) + "\"/>";
        svg += "<text class=\"tick\" text-anchor=\"" +
               std::string(tick == 0   ? "start"
                           : tick == 1 ? "end"
                                       : "middle") +
               "\" x=\"" + px(x_of(tick)) + "\" y=\"" + px(top - 8) + "\">" +
               std::to_string(static_cast<int>(tick * 100)) + "%</text>";
    }
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const std::string base = "/columns/" + std::to_string(c) + "/summary";
        const double y = top + row * static_cast<double>(c);
        std::string name = column_name(columns[c]);
        if (name.size() > 60) name = name.substr(0, 58) + "...";
        svg += "<text class=\"name\" x=\"" + px(track0) + "\" y=\"" + px(y + 14) + "\">" +
               esc(name) + "</text>";
        const double line_y = y + 30;
        const double share = number_at(doc, base + "/share_valid");
        const double low = number_at(doc, base + "/ci_low"),
                     high = number_at(doc, base + "/ci_high");
        if (std::isfinite(low) && std::isfinite(high))
            svg += "<line class=\"ci\" x1=\"" + px(x_of(low)) + "\" x2=\"" + px(x_of(high)) +
                   "\" y1=\"" + px(line_y) + "\" y2=\"" + px(line_y) + "\"/>";
        if (std::isfinite(share))
            svg += "<circle class=\"pt\" cx=\"" + px(x_of(share)) + "\" cy=\"" + px(line_y) +
                   "\" r=\"5\"/>";
        svg += "<text class=\"val\" x=\"" + px(track1 + 10) + "\" y=\"" + px(line_y + 4) + "\">" +
               tspan(doc, base + "/share_valid", "pct1") + " [" +
               tspan(doc, base + "/ci_low", "pct1") + ", " + tspan(doc, base + "/ci_high", "pct1") +
               "]</text>";
    }
    svg += "</svg>";
    return svg;
}

}  // namespace llmv::report::html
