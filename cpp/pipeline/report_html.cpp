// render_html (llmvalidate/report.hpp): the page from the run document. Self-contained: inline
// CSS and SVG, one optional inline script (the index's search box), no request anywhere.
#include <string>
#include <vector>

#include "llmvalidate/report.hpp"
#include "pipeline/report_html.hpp"

namespace llmv::report {

namespace {

using html::badge;
using html::esc;
using html::value;
using json = nlohmann::ordered_json;

const char* const style = R"CSS(
:root{--fg:#1b1f24;--mute:#59636e;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--ok:#1a7f37;--bad:#cf222e;--unk:#9a6700;--fail:#57606a}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1120px;margin:0 auto;padding:0 18px 40px}
h1{font-size:1.6em;margin:.6em 0 .1em}h2{font-size:1.3em;margin:1.6em 0 .4em;border-bottom:2px solid var(--line);padding-bottom:.2em}
h3{font-size:1.08em;margin:0 0 .5em}h4{margin:.6em 0 .2em;font-size:.95em}
.synthetic{position:sticky;top:0;z-index:5;background:#fff3cd;color:#5c3c00;border-bottom:3px double #9a6700;padding:8px 18px;font-weight:600;text-align:center}
.meta,.created,.note{color:var(--mute);font-size:.9em;margin:.2em 0}
nav{margin:.6em 0 0;font-size:.92em}nav a{margin-right:1em}
.wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.92em}
caption{text-align:left;font-weight:600;padding:.2em 0;color:var(--fg)}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
thead th{background:var(--soft)}tbody th{font-weight:500;background:#fbfcfd}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.badge{display:inline-block;padding:0 7px;border-radius:10px;font-size:.85em;font-weight:600;border:2px solid;white-space:nowrap}
.v-valid{color:var(--ok);border-style:solid}.v-invalid{color:var(--bad);border-style:double;border-width:3px}
.v-inconclusive{color:var(--unk);border-style:dashed}.v-failed{color:var(--fail);border-style:dotted}
.passage{border:1px solid var(--line);border-radius:6px;padding:12px 14px;margin:14px 0;content-visibility:auto;contain-intrinsic-size:auto 640px}
table,figure,h3{break-inside:avoid}h2,h3{break-after:avoid}
table.panel{width:100%}
blockquote.text{margin:.2em 0 .8em;padding:.4em .8em;border-left:4px solid var(--line);background:var(--soft);white-space:pre-wrap}
.cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,360px);gap:18px}
.charts figure{margin:0 0 10px}.charts figcaption{font-size:.85em;color:var(--mute)}
svg{max-width:100%;height:auto;display:block}.charts svg{width:360px}svg.shares{width:480px}
figure{margin:0 0 12px}svg.shares text{font-size:13px}
svg text{font:11px system-ui,sans-serif;fill:var(--fg)}
.hist .bars{fill:#8c959f}.hist .axis{stroke:var(--fg)}
.hist .stat{stroke:var(--fg);stroke-width:2}.hist .crit{stroke:var(--bad);stroke-width:2;stroke-dasharray:4 3}
.shares .grid{stroke:var(--line)}.shares .ci{stroke:var(--fg);stroke-width:2}.shares .pt{fill:var(--fg)}
.shares .name{font-size:12px}.error{color:var(--bad)}
.grid7 td{white-space:nowrap}
input[type=search]{font:inherit;padding:3px 6px;width:min(360px,90%)}
.index td{font-size:.9em}
dl.kv{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 14px}dl.kv dt{color:var(--mute)}dl.kv dd{margin:0;overflow-wrap:anywhere;min-width:0}
@media (max-width:720px){.cols{grid-template-columns:1fr}main{padding:0 10px 30px}body{font-size:14px}.passage{padding:10px 8px}dl.kv{grid-template-columns:1fr}dl.kv dd{margin-bottom:6px}}
@media print{
 body{font-size:10.5pt}.noprint,nav{display:none}.synthetic{display:none}
 .passage{content-visibility:visible}a{color:inherit;text-decoration:none}
 @page{size:A4;margin:18mm 12mm 14mm}
}
)CSS";

// The banner in the margin of every printed page.
std::string print_banner(const json& doc) {
    if (!doc.value("synthetic", false)) return "";
    return "@media print{@page{@top-center{content:\"SYNTHETIC: the simulated provider, not an "
           "LLM\";font:600 9pt sans-serif;color:#5c3c00}}}\n";
}

const char* const script = R"JS(
(function(){var q=document.getElementById('q');if(!q)return;var rows=document.querySelectorAll('#index tbody tr');
q.addEventListener('input',function(){var v=q.value.toLowerCase();for(var i=0;i<rows.length;i++){rows[i].style.display=rows[i].textContent.toLowerCase().indexOf(v)<0?'none':'';}});})();
)JS";

std::string th(const std::string& text) { return "<th scope=\"col\">" + text + "</th>"; }
std::string td(const std::string& text) { return "<td class=\"num\">" + text + "</td>"; }

// An array of objects as a table, with its headers and each key's format.
std::string table_of(const json& doc, const std::string& ptr, const std::string& caption,
                     const std::vector<std::vector<std::string>>& keys) {
    const json& rows = doc.at(json::json_pointer(ptr));
    std::string out = "<div class=\"wrap\"><table><caption>" + caption + "</caption><thead><tr>";
    for (const auto& key : keys) out += th(key[1]);
    out += "</tr></thead><tbody>";
    for (std::size_t r = 0; r < rows.size(); ++r) {
        out += "<tr>";
        for (const auto& key : keys)
            out += td(value(doc, ptr + "/" + std::to_string(r) + "/" + key[0], key[2]));
        out += "</tr>";
    }
    return out + "</tbody></table></div>";
}

// Whether the run had human labels (Tables 9's agreement, 10 and 11).
bool has_human(const json& doc) {
    if (!doc.value("human_label_column", "").empty()) return true;
    for (const auto& column : doc["columns"])
        if (!column["summary"]["table10"].empty()) return true;
    return false;
}

std::string summary_section(const json& doc) {
    const json& columns = doc["columns"];
    const bool human = has_human(doc);
    std::string out =
        "<section id=\"summary\"><h2>Summary</h2><p>" + value(doc, "/totals/passages", "i") +
        (doc["totals"].value("passages", 0) == 1 ? " passage: " : " passages: ") +
        value(doc, "/totals/valid", "i") + " valid, " + value(doc, "/totals/invalid", "i") +
        " invalid, " + value(doc, "/totals/inconclusive", "i") + " inconclusive, " +
        value(doc, "/totals/failed", "i") + " failed. Share valid " +
        value(doc, "/totals/share_valid", "pct1") + ", " + value(doc, "/totals/ci_level", "pct0") +
        " interval [" + value(doc, "/totals/ci_low", "pct1") + ", " +
        value(doc, "/totals/ci_high", "pct1") +
        "] (exact Clopper-Pearson, over the passages with a verdict).</p>";
    out += "<div class=\"wrap\"><table><caption>Verdicts by task and model</caption><thead><tr>" +
           th("task / model") + th("status") + th("passages") + th(badge("valid")) +
           th(badge("invalid")) + th(badge("inconclusive")) + th(badge("failed")) +
           th("share valid") + th("interval") + "</tr></thead><tbody>";
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const std::string s = "/columns/" + std::to_string(c) + "/summary";
        out += "<tr><th scope=\"row\">" + esc(html::column_name(columns[c])) + "</th><td>" +
               value(doc, "/columns/" + std::to_string(c) + "/status") + "</td>" +
               td(value(doc, s + "/passages", "i")) + td(value(doc, s + "/valid", "i")) +
               td(value(doc, s + "/invalid", "i")) + td(value(doc, s + "/inconclusive", "i")) +
               td(value(doc, s + "/failed", "i")) + td(value(doc, s + "/share_valid", "pct1")) +
               td("[" + value(doc, s + "/ci_low", "pct1") + ", " +
                  value(doc, s + "/ci_high", "pct1") + "]") +
               "</tr>";
    }
    out += "</tbody></table></div>";
    bool any_share = false;  // a run whose every passage failed has no share to draw
    for (const auto& column : columns)
        any_share = any_share || column["summary"]["share_valid"].is_number();
    if (any_share)
        out += "<figure>" + html::shares_svg(doc) +
               "<figcaption class=\"note\">Dot: share valid; line: its "
               "interval.</figcaption></figure>";
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const std::string base = "/columns/" + std::to_string(c);
        if (columns[c].contains("first_failure"))
            out += "<p class=\"error\"><strong>" + esc(html::column_name(columns[c])) +
                   "</strong>: the first failure, passage " +
                   value(doc, base + "/first_failure/id") + " (" +
                   value(doc, base + "/first_failure/code") +
                   "): " + value(doc, base + "/first_failure/message") + "</p>";
        if (columns[c]["summary"]["table9"].empty()) continue;
        out += table_of(
            doc, base + "/summary/table9",
            "Share valid by the LLM's label (Table 9)" +
                (columns.size() > 1 ? ": " + esc(html::column_name(columns[c])) : ""),
            human
                ? std::vector<std::vector<std::string>>{{"llm_label", "LLM label", "s"},
                                                        {"n", "passages (prerequisites pass)", "i"},
                                                        {"n_valid", "valid", "i"},
                                                        {"share_valid", "share valid", "pct1"},
                                                        {"n_human_agree", "agree with human", "i"},
                                                        {"share_human", "share agreeing", "pct1"}}
                : std::vector<std::vector<std::string>>{{"llm_label", "LLM label", "s"},
                                                        {"n", "passages (prerequisites pass)", "i"},
                                                        {"n_valid", "valid", "i"},
                                                        {"share_valid", "share valid", "pct1"}});
    }
    return out + "</section>";
}

std::string comparisons_section(const json& doc) {
    const json& columns = doc["columns"];
    const bool human = has_human(doc);
    if (columns.size() < 2 && !human) return "";
    std::string out = "<section id=\"comparisons\"><h2>Comparisons</h2>";
    if (columns.size() > 1) {
        // Table 8: one task, several models; Table 7: several tasks.
        const bool by_model = columns[0].value("task", "") == columns[1].value("task", "");
        out +=
            "<div class=\"wrap\"><table class=\"grid7\"><caption>Label and verdict of each "
            "passage by " +
            std::string(by_model ? "model (Table 8)" : "task (Table 7)") + "</caption><thead><tr>" +
            th("passage");
        for (const auto& column : columns) out += th(esc(html::column_name(column)));
        out += "</tr></thead><tbody>";
        for (std::size_t i = 0; i < columns[0]["passages"].size(); ++i) {
            const json& first = columns[0]["passages"][i];
            const std::string title = first.value("title", "");
            out += "<tr><th scope=\"row\">" +
                   (title.empty() ? value(doc, "/columns/0/passages/" + std::to_string(i) + "/id")
                                  : esc(title)) +
                   "</th>";
            for (std::size_t c = 0; c < columns.size(); ++c) {
                if (i >= columns[c]["passages"].size()) {
                    out += "<td></td>";
                    continue;
                }
                const std::string p =
                    "/columns/" + std::to_string(c) + "/passages/" + std::to_string(i);
                const json& passage = columns[c]["passages"][i];
                const bool ok = passage.value("status", "") == "ok";
                out += "<td><a href=\"#" + html::passage_anchor(c, i) + "\">" +
                       (ok ? value(doc, p + "/label") : std::string("&ndash;")) + "</a> " +
                       badge(ok ? passage.value("verdict", "") : "failed") + "</td>";
            }
            out += "</tr>";
        }
        out += "</tbody></table></div>";
    }
    for (std::size_t c = 0; c < columns.size() && human; ++c) {
        const std::string base = "/columns/" + std::to_string(c) + "/summary";
        const std::string of = columns.size() > 1 ? ": " + esc(html::column_name(columns[c])) : "";
        out += table_of(doc, base + "/table10",
                        "Share valid by LLM label and human label (Table 10)" + of,
                        {{"llm_label", "LLM label", "s"},
                         {"human_label", "human label", "s"},
                         {"n", "passages", "i"},
                         {"n_valid", "valid", "i"},
                         {"share_valid", "share valid", "pct1"}});
        if (columns[c]["summary"]["table11"].empty()) {
            out +=
                "<p class=\"note\">Table 11: no passage whose LLM label differs from its human "
                "label is valid.</p>";
        } else {
            out += table_of(doc, base + "/table11",
                            "Valid annotations that disagree with the human label (Table 11)" + of,
                            {{"id", "passage", "s"},
                             {"llm_label", "LLM label", "s"},
                             {"human_label", "human label", "s"}});
        }
    }
    return out + "</section>";
}

std::string provenance_section(const json& doc) {
    std::string out = "<section id=\"provenance\"><h2>Provenance</h2><dl class=\"kv\">";
    out += "<dt>llmvalidate</dt><dd>" + value(doc, "/llmvalidate_version") + "</dd>";
    out += "<dt>method</dt><dd>" + value(doc, "/method") + "</dd>";
    out += "<dt>cost paid</dt><dd>$" + value(doc, "/totals/dollars", "f4") + "</dd>";
    if (!doc.value("human_label_column", "").empty())
        out += "<dt>human labels</dt><dd>column " + value(doc, "/human_label_column") + "</dd>";
    out += "</dl>";
    out += table_of(doc, "/models", "Models, with their vendor lifecycle status at run time",
                    {{"role", "role", "s"},
                     {"provider", "provider", "s"},
                     {"model", "model", "s"},
                     {"lifecycle", "lifecycle", "s"}});
    const json& columns = doc["columns"];
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const std::string base = "/columns/" + std::to_string(c);
        const json& column = columns[c];
        out += "<h3>" + esc(html::column_name(column)) + "</h3><dl class=\"kv\">";
        out += "<dt>task</dt><dd>" + value(doc, base + "/task") + "</dd>";
        for (const auto& [name, text] : column["variables"].items())
            out +=
                "<dt>variable " + esc(name) + "</dt><dd>" + esc(text.get<std::string>()) + "</dd>";
        if (column.contains("prompt_hashes"))
            for (const auto& [name, hash] : column["prompt_hashes"].items())
                out += "<dt>prompt " + esc(name) + "</dt><dd><code>" +
                       esc(hash.get<std::string>()) + "</code></dd>";
        out += "<dt>route</dt><dd>" + value(doc, base + "/route") + "</dd>";
        out += "<dt>cost</dt><dd>$" + value(doc, base + "/cost/dollars", "f4") + " through " +
               value(doc, base + "/cost/paid_through") +
               (column["cost"].value("complete", true) ? "" : " (not every line priced)") + "</dd>";
        if (!column["cost"].value("note", "").empty())
            out += "<dt>cost note</dt><dd>" + value(doc, base + "/cost/note") + "</dd>";
        out += "<dt>calls</dt><dd>";
        bool first = true;
        for (const auto& [name, count] : column["calls"].items()) {
            out += std::string(first ? "" : ", ") + esc(name) + " " +
                   value(doc, base + "/calls/" + name, "i");
            first = false;
        }
        out += "</dd>";
        for (std::size_t k = 0; k < column["setting_changes"].size(); ++k) {
            const std::string s = base + "/setting_changes/" + std::to_string(k);
            out += "<dt>changed " + value(doc, s + "/setting") + "</dt><dd>" +
                   value(doc, s + "/from") + " &rarr; " + value(doc, s + "/to") + ": " +
                   value(doc, s + "/reason") + "</dd>";
        }
        out += "</dl>";
    }
    if (!doc["warnings"].empty()) {
        out += "<h3>Warnings</h3><ul>";
        for (std::size_t k = 0; k < doc["warnings"].size(); ++k)
            out += "<li>" + value(doc, "/warnings/" + std::to_string(k) + "/text") + "</li>";
        out += "</ul>";
    }
    out += "<div class=\"wrap\"><table><caption>Every setting as used</caption><thead><tr>" +
           th("setting") + th("value") + "</tr></thead><tbody>";
    for (const auto& [name, text] : doc["settings"].items())
        out += "<tr><th scope=\"row\">" + esc(name) + "</th><td>" +
               value(doc, "/settings/" + name) + "</td></tr>";
    return out + "</tbody></table></div></section>";
}

}  // namespace

std::string render_html(const nlohmann::ordered_json& doc) {
    const json& columns = doc["columns"];
    std::size_t total = 0;
    for (const auto& column : columns) total += column["passages"].size();
    std::vector<std::vector<bool>> detail;
    std::size_t kept = 0, left_out = 0;
    for (const auto& column : columns) {
        detail.emplace_back();
        for (const auto& passage : column["passages"]) {
            const bool keep = total <= all_detail_up_to ||
                              (passage.value("verdict", "") != "valid" && kept < detail_limit);
            detail.back().push_back(keep);
            kept += keep ? 1 : 0;
            left_out += keep ? 0 : 1;
        }
    }
    const bool synthetic = doc.value("synthetic", false);
    std::string tasks;
    for (const auto& column : columns)
        tasks += (tasks.empty() ? "" : "; ") + html::column_name(column);
    std::string out =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        "<title>llmvalidate report: " +
        esc(tasks) + (synthetic ? " (SYNTHETIC)" : "") + "</title><style>" + style +
        print_banner(doc) + "</style></head><body>\n";
    if (synthetic)
        out += "<div class=\"synthetic\" role=\"note\">SYNTHETIC: " +
               esc(doc.value("banner", "").empty() ? "the simulated provider, not an LLM"
                                                   : doc.value("banner", "")) +
               "</div>\n";
    out += "<main><header><h1>Validation report</h1><p class=\"meta\">" + esc(tasks) +
           " &middot; " + value(doc, "/method") + "</p>\n";
    out += "<p class=\"created\">Created " + value(doc, "/created") + " by llmvalidate " +
           value(doc, "/llmvalidate_version") + "</p>\n";
    out += "<nav class=\"noprint\"><a href=\"#summary\">Summary</a>";
    const std::string comparisons = comparisons_section(doc);
    if (!comparisons.empty()) out += "<a href=\"#comparisons\">Comparisons</a>";
    out += "<a href=\"#passages\">Passages</a>";
    const bool index = total > 20 || left_out > 0;
    if (index) out += "<a href=\"#index-section\">Index</a>";
    out += "<a href=\"#provenance\">Provenance</a></nav></header>\n";
    out += summary_section(doc) + "\n" + comparisons + "\n";
    out += "<section id=\"passages\"><h2>Passages</h2>";
    if (left_out > 0)
        out += "<p class=\"note\">" + std::to_string(total) + " passages: the " +
               std::to_string(kept) +
               " not valid have a section here, every passage is in the index below.</p>";
    for (std::size_t c = 0; c < columns.size(); ++c)
        for (std::size_t i = 0; i < columns[c]["passages"].size(); ++i)
            if (detail[c][i]) out += html::passage_section(doc, c, i) + "\n";
    out += "</section>\n";
    if (index)
        out += "<section id=\"index-section\"><h2>Index of passages</h2>" +
               html::passage_index(doc, detail) + "</section>\n";
    out += provenance_section(doc) + "\n</main>";
    if (index) out += "<script>" + std::string(script) + "</script>";
    return out + "</body></html>\n";
}

}  // namespace llmv::report
