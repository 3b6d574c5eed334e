// `llmvalidate overview stub1 stub2 ...`: the paper's Tables 7 and 8 from the variables that
// earlier runs made with generate(stub): one row per observation, one column per run (a task,
// or a model), each cell "label (verdict)", in the layout the command-line tool prints
// (llmvalidate/overview.hpp). The ado-file passes
//
//   varlist:  for each column, <stub>label (string) and <stub>verdict (numeric, 1 valid,
//             2 invalid, 3 inconclusive), then a string copy of titles() when given
//   words:    columns=K titles=0|1
//   locals:   llmv_stubs (the generate() prefixes), llmv_headers (a header per column: the
//             stubs, or names())
//
// An observation a run did not validate (verdict missing) shows ".". Sets the locals
// llmv_overview_n (rows shown), llmv_overview_valid (valid cells per column).
#include <map>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "commands.hpp"
#include "llmvalidate/overview.hpp"
#include "llmvalidate/record_csv.hpp"
#include "llmvalidate/records.hpp"
#include "return_codes.hpp"

namespace llmv::stata {

int command_overview(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({"columns", "titles"});
    const int columns = args.integer("columns", 0);
    const bool titles = args.integer("titles", 0) == 1;
    const auto stubs = split_stata_list(api.local("llmv_stubs").value_or(""), "overview");
    const auto headers = split_stata_list(api.local("llmv_headers").value_or(""), "names()");
    if (columns < 1 || api.variables() != 2 * columns + (titles ? 1 : 0) ||
        static_cast<int>(stubs.size()) != columns || static_cast<int>(headers.size()) != columns)
        throw StataFailure(kRcSyntax,
                           "llmvalidate plugin: overview expects a label and a verdict variable "
                           "per column, a prefix and a header per column and the titles when given");
    for (int c = 0; c < columns; ++c)
        if (!api.is_string(2 * c + 1) || api.is_string(2 * c + 2))
            throw StataFailure(kRcSyntax,
                               "llmvalidate plugin: overview expects a string label and a "
                               "numeric verdict per column");

    // The verdict of each code of <prefix>verdict, and the codes as a message lists them: the
    // engine's names and Stata codes (records.hpp), not a copy.
    std::map<double, std::string> verdict_of_code;
    std::string codes;
    for (const stats::Verdict verdict :
         {stats::Verdict::valid, stats::Verdict::invalid, stats::Verdict::inconclusive}) {
        const int code = records::stata_verdict_code(verdict);
        verdict_of_code[code] = stats::verdict_name(verdict);
        codes += std::to_string(code) + " " + stats::verdict_name(verdict) + ", ";
    }
    const double valid_code = records::stata_verdict_code(stats::Verdict::valid);
    std::vector<pipeline::OverviewColumn> grid(static_cast<std::size_t>(columns));
    std::vector<int> valid(static_cast<std::size_t>(columns), 0);
    for (int c = 0; c < columns; ++c)
        grid[static_cast<std::size_t>(c)].header = headers[static_cast<std::size_t>(c)];
    std::vector<std::string> rows;
    for (int obs = api.in_first(); obs <= api.in_last(); ++obs) {
        if (!api.selected(obs)) continue;
        api.check_break();
        rows.push_back(titles ? api.string(2 * columns + 1, obs) : std::to_string(obs));
        for (int c = 0; c < columns; ++c) {
            const double code = api.number(2 * c + 2, obs);
            auto& column = grid[static_cast<std::size_t>(c)];
            if (api.is_missing(code)) {
                column.cells.push_back(".");
                continue;
            }
            const auto verdict = verdict_of_code.find(code);
            if (verdict == verdict_of_code.end())
                throw StataFailure(kRcSyntax, "overview: " + stubs[static_cast<std::size_t>(c)] +
                                                  "verdict must hold verdicts (" + codes +
                                                  "or missing); received " +
                                                  records::csv_number(code) + " in observation " +
                                                  std::to_string(obs));
            if (code == valid_code) ++valid[static_cast<std::size_t>(c)];
            column.cells.push_back(
                pipeline::overview_cell(true, api.string(2 * c + 1, obs), verdict->second));
        }
    }
    api.text(pipeline::format_overview("run (Tables 7 and 8)", rows, grid));
    std::string counts;  // numbers: a plain list, as r(valid) shows it
    for (int n : valid) counts += (counts.empty() ? "" : " ") + std::to_string(n);
    api.set_local("llmv_overview_n", std::to_string(rows.size()));
    api.set_local("llmv_overview_valid", counts);
    return 0;
}

}  // namespace llmv::stata
