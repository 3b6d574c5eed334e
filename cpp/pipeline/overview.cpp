// The overview of Tables 7 and 8 (overview.hpp).
#include "llmvalidate/overview.hpp"

#include <algorithm>

namespace llmv::pipeline {

std::string overview_cell(bool ok, const std::string& label, const std::string& verdict,
                          const std::string& error_code) {
    if (ok) return label + " (" + verdict + ")";
    return error_code.empty() ? "error" : "error [" + error_code + "]";
}

std::string format_overview(const std::string& by, const std::vector<std::string>& passages,
                            const std::vector<OverviewColumn>& columns) {
    // Widths count bytes: the CLI's passages and labels are the user's, and the terminal's
    // alignment of non-ASCII text is out of reach anyway.
    std::size_t first = 8;
    for (const std::string& passage : passages) first = std::max(first, passage.size() + 2);
    std::vector<std::size_t> widths;
    for (const OverviewColumn& column : columns) {
        std::size_t width = column.header.size() + 2;
        for (const std::string& cell : column.cells) width = std::max(width, cell.size() + 2);
        widths.push_back(width);
    }
    const auto padded = [](std::string text, std::size_t width) {
        if (text.size() < width) text.resize(width, ' ');
        return text;
    };
    std::string out =
        "Overview: label (verdict) of each passage, by " + by + "\n  " + padded("Passage", first);
    for (std::size_t c = 0; c < columns.size(); ++c) out += padded(columns[c].header, widths[c]);
    out += "\n";
    for (std::size_t row = 0; row < passages.size(); ++row) {
        out += "  " + padded(passages[row], first);
        for (std::size_t c = 0; c < columns.size(); ++c)
            out += padded(row < columns[c].cells.size() ? columns[c].cells[row] : "", widths[c]);
        out += "\n";
    }
    return out;
}

}  // namespace llmv::pipeline
