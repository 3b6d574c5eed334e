// The pieces of the HTML report (llmvalidate/report.hpp), private to the engine:
// report_html.cpp (the page, summary, comparisons, provenance), report_passages.cpp (one
// section per passage, the index), report_svg.cpp (the drawings).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace llmv::report::html {

using json = nlohmann::ordered_json;

std::string esc(const std::string& text);

// A value of the document at JSON pointer `ptr`, in the page: a number in format `fmt`
// ("i": whole, "f3": 3 decimals, "pct1": a share in percent with 1 decimal), a boolean ("yes" /
// "no"), a string as it is, null as "n/a"; marked with data-j and data-t for the browser test.
std::string value(const json& doc, const std::string& ptr, const std::string& fmt = "s");
// The number alone, formatted (no markup); "n/a" when null.
std::string format(const json& number, const std::string& fmt);
// A verdict as a badge: its word always, its colour and border pattern besides.
std::string badge(const std::string& verdict);
// A short name of a column: its header, else its task and model.
std::string column_name(const json& column);

// The null distribution of a statistic (the document's binned histogram at `hist_ptr`) with
// the statistic and the critical value marked; `stat_ptr` and `crit_ptr` point at them.
std::string histogram_svg(const json& doc, const std::string& hist_ptr, const std::string& symbol,
                          const std::string& stat_ptr, const std::string& crit_ptr);
// Share valid with its interval, one row per column (pointer base "/columns/<c>/summary").
std::string shares_svg(const json& doc);

// One passage's section, and the searchable index of every passage.
std::string passage_section(const json& doc, std::size_t column, std::size_t passage);
// `detail[c][i]`: whether passage i of column c has its section (every passage of a small run;
// else those not valid, up to detail_limit).
std::string passage_index(const json& doc, const std::vector<std::vector<bool>>& detail);
std::string passage_anchor(std::size_t column, std::size_t passage);

}  // namespace llmv::report::html
