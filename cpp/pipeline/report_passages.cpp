// The report's passages: one section each (the passage, its label and annotation stability,
// the Table-1-style panel, the null distributions, the backtranslation counts, a sample of the
// generated texts), and the searchable index of every passage.
#include <algorithm>

#include "pipeline/report_html.hpp"

namespace llmv::report::html {

namespace {

std::string row(const std::string& head, const std::string& cell) {
    return "<tr><th scope=\"row\">" + head + "</th><td class=\"num\">" + cell + "</td></tr>";
}

// A key as one token of a JSON pointer (RFC 6901: "~" is "~0", "/" is "~1").
std::string pointer_token(const std::string& key) {
    std::string out;
    for (char ch : key) out += ch == '~' ? "~0" : ch == '/' ? "~1" : std::string(1, ch);
    return out;
}

// The labels the model gave back to the texts written for each label: rows are the label the
// texts were written for, columns the label read back.
std::string backtranslation_table(const json& doc, const std::string& base) {
    const json& tests = doc.at(json::json_pointer(base + "/tests"));
    std::vector<std::pair<std::string, std::string>> rows;  // written-for label, pointer
    if (tests["backtranslation"].value("run", false))
        rows.emplace_back(tests["backtranslation"].value("label", ""),
                          base + "/tests/backtranslation");
    for (std::size_t k = 0; k < tests["backtranslation_other"].size(); ++k)
        if (tests["backtranslation_other"][k].value("run", false))
            rows.emplace_back(tests["backtranslation_other"][k].value("label", ""),
                              base + "/tests/backtranslation_other/" + std::to_string(k));
    if (rows.empty()) return "<p class=\"note\">Backtranslation did not run.</p>";
    std::vector<std::string> read_back;
    for (const auto& [label, ptr] : rows) {
        for (const auto& [answer, count] : doc.at(json::json_pointer(ptr + "/counts")).items())
            if (std::find(read_back.begin(), read_back.end(), answer) == read_back.end())
                read_back.push_back(answer);
        (void)label;
    }
    std::string out =
        "<div class=\"wrap\"><table class=\"confusion\"><caption>Backtranslation: the labels "
        "the model gave back (columns) to the texts it wrote for a label (rows)</caption><thead>"
        "<tr><th scope=\"col\">texts for</th>";
    for (const auto& label : read_back) out += "<th scope=\"col\">" + esc(label) + "</th>";
    out += "<th scope=\"col\">accuracy</th></tr></thead><tbody>";
    for (const auto& [label, ptr] : rows) {
        out += "<tr><th scope=\"row\">" + esc(label) + "</th>";
        const json& counts = doc.at(json::json_pointer(ptr + "/counts"));
        for (const auto& answer : read_back) {
            out += "<td class=\"num\">";
            out += counts.contains(answer)
                       ? value(doc, ptr + "/counts/" + pointer_token(answer), "i")
                       : "0";
            out += "</td>";
        }
        out += "<td class=\"num\">" + value(doc, ptr + "/accuracy", "f2") + "</td></tr>";
    }
    return out + "</tbody></table></div>";
}

}  // namespace

std::string passage_section(const json& doc, std::size_t c, std::size_t i) {
    const std::string base = "/columns/" + std::to_string(c) + "/passages/" + std::to_string(i);
    const json& p = doc.at(json::json_pointer(base));
    const bool ok = p.value("status", "") == "ok";
    const std::string verdict = p.value("verdict", "");
    const std::string title = p.value("title", "");
    std::string out = "<section class=\"passage\" id=\"" + passage_anchor(c, i) +
                      "\" aria-labelledby=\"h" + passage_anchor(c, i) + "\"><h3 id=\"h" +
                      passage_anchor(c, i) + "\">";
    if (doc["columns"].size() > 1) out += esc(column_name(doc["columns"][c])) + ": ";
    // A title names the passage (the CLI's titles carry the id: "10-K Filing (10k_filing)").
    out += (title.empty() ? "Passage " + value(doc, base + "/id") : esc(title)) + " " +
           badge(ok ? verdict : "failed") + "</h3>";
    if (!p.value("text", "").empty())
        out += "<blockquote class=\"text\">" + esc(p.value("text", "")) + "</blockquote>";
    if (!ok) {
        return out + "<p class=\"error\"><strong>Failed</strong> (" +
               value(doc, base + "/error_code") + "): " + value(doc, base + "/error_message") +
               "</p></section>";
    }
    const std::string t = base + "/tests";
    // The Table-1-style panel.
    out +=
        "<div class=\"cols\"><div><div class=\"wrap\"><table class=\"panel\"><caption>The tests "
        "(Table 1 of the "
        "paper)</caption><tbody>";
    out += row("LLM label &beta;&#770;", value(doc, base + "/label"));
    if (!p.value("human_label", "").empty())
        out += row("Human label", value(doc, base + "/human_label"));
    out += row("Annotation stability (share of the " + value(doc, base + "/R", "i") +
                   " annotations giving &beta;&#770;)",
               value(doc, base + "/annotation_stability", "f2"));
    out += row("Validation statistic &tau;", value(doc, t + "/validation/statistic", "f3"));
    out += row("Critical value", value(doc, t + "/validation/critical_value", "f3"));
    out += row("p-value (" + value(doc, t + "/validation/method") + ")",
               value(doc, t + "/validation/p_value", "f3"));
    out += row("Validation test rejects", value(doc, t + "/validation/reject"));
    out += row("Backtranslation accuracy", value(doc, t + "/backtranslation/accuracy", "f2"));
    out += row("Its lower bound (rule " + value(doc, t + "/backtranslation/rule") + ", threshold " +
                   value(doc, t + "/backtranslation/threshold", "f2") + ")",
               value(doc, t + "/backtranslation/lower_bound", "f2"));
    out += row("Backtranslation passes", value(doc, t + "/backtranslation/pass"));
    out += "<tr><th scope=\"row\">Verdict</th><td>" + badge(verdict) + " " +
           value(doc, t + "/verdict_reason") + "</td></tr></tbody></table></div>";
    const json& separation = p["tests"]["separation"];
    if (!separation.empty()) {
        out +=
            "<div class=\"wrap\"><table class=\"sep\"><caption>Separation: the texts written for "
            "&beta;&#770; "
            "against those for each other label</caption><thead><tr><th scope=\"col\">other "
            "label</th><th scope=\"col\">&xi;</th><th scope=\"col\">critical</th><th "
            "scope=\"col\">p-value</th><th scope=\"col\">passes</th></tr></thead><tbody>";
        for (std::size_t k = 0; k < separation.size(); ++k) {
            const std::string s = t + "/separation/" + std::to_string(k);
            out += "<tr><th scope=\"row\">" + value(doc, s + "/label") + "</th><td class=\"num\">" +
                   value(doc, s + "/statistic", "f3") + "</td><td class=\"num\">" +
                   value(doc, s + "/critical_value", "f3") + "</td><td class=\"num\">" +
                   value(doc, s + "/p_value", "f3") + "</td><td>" + value(doc, s + "/pass") +
                   "</td></tr>";
        }
        out += "</tbody></table></div>";
    }
    out += backtranslation_table(doc, base);
    out += "<p class=\"note\">Annotations: ";
    for (std::size_t r = 0; r < p["annotations"].size(); ++r)
        out += (r ? ", " : "") + value(doc, base + "/annotations/" + std::to_string(r));
    out += ". M = " + value(doc, base + "/M", "i") + " texts per label, seed " +
           value(doc, t + "/seed", "i") + ".</p></div>";
    // The distributions.
    out +=
        "<div class=\"charts\"><figure><figcaption>Validation: &tau; against its null "
        "distribution</figcaption>" +
        histogram_svg(doc, base + "/histograms/validation", "\u03c4", t + "/validation/statistic",
                      t + "/validation/critical_value") +
        "</figure>";
    for (std::size_t k = 0; k < separation.size(); ++k) {
        const std::string s = t + "/separation/" + std::to_string(k);
        out += "<figure><figcaption>Separation from " + value(doc, s + "/label") + " (" +
               value(doc, s + "/method") + ")</figcaption>" +
               histogram_svg(doc, base + "/histograms/separation/" + std::to_string(k), "\u03be",
                             s + "/statistic", s + "/critical_value") +
               "</figure>";
    }
    out += "</div></div>";
    if (p.contains("samples")) {
        out +=
            "<details class=\"samples\"><summary>A sample of the texts the model wrote for each "
            "label</summary>";
        for (const auto& [label, texts] : p["samples"].items()) {
            out += "<h4>" + esc(label) + "</h4><ul>";
            for (const auto& text : texts) out += "<li>" + esc(text.get<std::string>()) + "</li>";
            out += "</ul>";
        }
        out += "</details>";
    }
    return out + "</section>";
}

std::string passage_index(const json& doc, const std::vector<std::vector<bool>>& detail) {
    const bool several = doc["columns"].size() > 1;
    std::string out =
        "<p class=\"noprint\"><label for=\"q\">Search passages (id, text, label, "
        "verdict):</label> <input id=\"q\" type=\"search\" placeholder=\"e.g. invalid\"></p>"
        "<div class=\"wrap\"><table id=\"index\" class=\"index\"><caption>Every passage; those "
        "with a section are "
        "linked</caption><thead><tr><th scope=\"col\">#</th>";
    if (several) out += "<th scope=\"col\">task / model</th>";
    out +=
        "<th scope=\"col\">id</th><th scope=\"col\">passage</th><th scope=\"col\">label</th><th "
        "scope=\"col\">verdict</th><th scope=\"col\">p-value</th><th "
        "scope=\"col\">stability</th></tr></thead><tbody>";
    for (std::size_t c = 0; c < doc["columns"].size(); ++c) {
        const json& passages = doc["columns"][c]["passages"];
        for (std::size_t i = 0; i < passages.size(); ++i) {
            const json& p = passages[i];
            const std::string base =
                "/columns/" + std::to_string(c) + "/passages/" + std::to_string(i);
            const bool ok = p.value("status", "") == "ok";
            std::string text = p.value("text", "");
            if (text.size() > 90) {
                std::size_t cut = 87;
                while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
                text = text.substr(0, cut) + "...";
            }
            std::string id = value(doc, base + "/id");
            if (detail[c][i]) id = "<a href=\"#" + passage_anchor(c, i) + "\">" + id + "</a>";
            out += "<tr><td class=\"num\">" + value(doc, base + "/index", "i") + "</td>";
            if (several) out += "<td>" + esc(column_name(doc["columns"][c])) + "</td>";
            out += "<td>" + id + "</td><td>" + esc(text) + "</td><td>" +
                   value(doc, base + "/label") + "</td><td>" +
                   badge(ok ? p.value("verdict", "") : "failed") + "</td><td class=\"num\">" +
                   (ok ? value(doc, base + "/tests/validation/p_value", "f3") : "") +
                   "</td><td class=\"num\">" +
                   (ok ? value(doc, base + "/annotation_stability", "f2") : "") + "</td></tr>";
        }
    }
    return out + "</tbody></table></div>";
}

}  // namespace llmv::report::html
