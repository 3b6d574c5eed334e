// `llmvalidate sample`: marks a reproducible sample of the observations, drawn by the engine's
// sampler (llmvalidate/sample.hpp), so that the same seed draws the same rows as the
// command-line tool's `batch --sample N --sample-seed S --where COL=V` and R's llm_sample()
// (the paper's Section 5 samples of Financial PhraseBank sentences). Two plugin calls:
//
//   wherecolumns   local llmv_where (the where() text) -> local llmv_where_columns, the
//                  variables it names (the engine's parser; a malformed text names where())
//   sample         varlist: the marker variable (numeric, 0), then a string copy of each
//                  where() variable that exists, in the order of llmv_where_vars;
//                  words: n= seed=; locals llmv_where, llmv_where_vars.
//                  Stores 1 in the marker for the drawn observations; sets the locals
//                  llmv_sample_n (drawn), llmv_sample_population (observations kept by if, in
//                  and where()).
//
// Rows are the observations in the dataset's order, as rows are the lines of the CLI's file.
#include <map>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "commands.hpp"
#include "llmvalidate/sample.hpp"
#include "return_codes.hpp"

namespace llmv::stata {

namespace {
RowFilter where_filter(const Api& api) {
    return RowFilter::parse(api.local("llmv_where").value_or(""), "where()");
}
}  // namespace

int command_where_columns(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({});
    api.set_local("llmv_where_columns", join_stata_list(where_filter(api).columns()));
    return 0;
}

int command_sample(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({"n", "seed"});
    const int n = args.integer("n", -1);
    if (n < 0)
        throw StataFailure(kRcSyntax,
                           "option n() must be a whole number of observations to "
                           "draw, 0 or more; received `" +
                               args.text("n", "") + "'");
    const std::uint64_t seed = args.seed("seed", default_sample_seed);
    const RowFilter filter = where_filter(api);
    const auto given = split_stata_list(api.local("llmv_where_vars").value_or(""), "where()");
    std::map<std::string, int> position;  // where() variable -> its place in the varlist
    for (std::size_t i = 0; i < given.size(); ++i) position[given[i]] = static_cast<int>(i) + 2;
    for (const std::string& column : filter.columns())
        if (!position.count(column))
            throw StataFailure(kRcSyntax,
                               "option where() must name variables of the data; "
                               "received " +
                                   column + ", which is not a variable");
    if (api.variables() != static_cast<int>(given.size()) + 1 || api.is_string(1))
        throw StataFailure(kRcSyntax,
                           "llmvalidate plugin: sample expects a numeric marker and "
                           "one string variable per where() variable");

    std::vector<int> kept;
    for (int obs = api.in_first(); obs <= api.in_last(); ++obs) {
        if (!api.selected(obs)) continue;
        if (!filter.matches(
                [&](const std::string& column) { return api.string(position.at(column), obs); }))
            continue;
        kept.push_back(obs);
    }
    // In Stata's words (the engine's sampler counts rows).
    if (static_cast<std::size_t>(n) > kept.size())
        throw StataFailure(kRcSyntax, "option n() must be at most the " +
                                          std::to_string(kept.size()) + " observation" +
                                          (kept.size() == 1 ? "" : "s") +
                                          " there are to draw from (after if, in and where()); "
                                          "received " +
                                          std::to_string(n));
    const auto drawn = sample_rows(kept.size(), static_cast<std::size_t>(n), seed, "n()");
    for (std::size_t row : drawn) api.store(1, kept[row], 1.0);
    api.set_local("llmv_sample_n", std::to_string(drawn.size()));
    api.set_local("llmv_sample_population", std::to_string(kept.size()));
    api.set_local("llmv_sample_seed", std::to_string(seed));
    return 0;
}

}  // namespace llmv::stata
