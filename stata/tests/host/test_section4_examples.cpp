// The help's Section 4 examples (Tables 1 to 7 of the paper) run through the host: the data
// are the shipped stata/llmv_section4.csv (what `import delimited` reads after `net get`), and
// every `llmvalidate text, ...` line of the help that uses simprompt() is read from
// llmvalidate.sthlp and turned into the plugin calls the ado-file makes, so the help cannot show
// a command that does not run. An option the runner does not know fails the test.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fake_stata.hpp"
#include "host_test_helpers.hpp"
#include "section4_csv.hpp"

using namespace host;

namespace {

struct Example {
    std::string line, varname;
    std::map<std::string, std::string> options;  // name -> argument ("" for a bare word)
};

// `llmvalidate VARNAME, opt(arg) word ...` taken apart.
Example parse_example(const std::string& line) {
    Example example;
    example.line = line;
    std::smatch head;
    REQUIRE(std::regex_match(line, head, std::regex(R"(llmvalidate (\w+), (.*))")));
    example.varname = head[1].str();
    const std::string rest = head[2].str();
    const std::regex option(R"((\w+)(?:\(([^()]*)\))?)");
    for (auto it = std::sregex_iterator(rest.begin(), rest.end(), option);
         it != std::sregex_iterator(); ++it)
        example.options[(*it)[1].str()] = (*it)[2].str();
    return example;
}

}  // namespace

TEST_CASE("the help's Section 4 examples (Tables 1-7) run on the shipped data",
          "[validate][examples][section4]") {
    const std::string help =
        read_whole_file(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.sthlp");
    // The data step the help shows, and the file net get installs.
    REQUIRE(help.find("{cmd:import delimited using llmv_section4.csv, clear varnames(1) "
                      "encoding(\"utf-8\") bindquote(strict)}") != std::string::npos);
    REQUIRE(read_whole_file(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.pkg")
                .find("\nf llmv_section4.csv\n") != std::string::npos);

    std::vector<Example> examples;
    const std::regex command(
        R"(\{phang2\}\{cmd:(llmvalidate text, [^}]*simprompt\([^}]*)\}\{p_end\})");
    for (auto it = std::sregex_iterator(help.begin(), help.end(), command);
         it != std::sregex_iterator(); ++it)
        examples.push_back(parse_example((*it)[1].str()));
    REQUIRE(examples.size() == 6);

    // One dataset, as a do-file runs the six commands one after another.
    Stata stata;
    load_plugin(stata);
    load_section4(stata);
    std::vector<std::string> prefixes;
    for (const Example& example : examples) {
        INFO(example.line);
        for (const auto& [name, argument] : example.options)
            if (name != "task" && name != "simprompt" && name != "vars" && name != "paper" &&
                name != "provider" && name != "generate")
                FAIL("the runner does not know option " << name << "()");
        REQUIRE(example.options.at("provider") == "simulated");
        stata.set_local("llmv_taskvars", "");
        stata.set_local("llmv_taskvars_found", "");
        stata.select_all();
        stata.set_local("llmv_task", std::string(LLMV_SOURCE_DIR) + "/prompts/" +
                                         example.options.at("task") + ".toml");
        stata.set_local("llmv_provider", "simulated");
        stata.set_local("llmv_cache", "");
        // The ado's varlist: the passages, simprompt(), then a copy of each vars() variable.
        std::vector<std::string> varlist = {example.varname, example.options.at("simprompt")};
        if (example.options.count("vars")) {
            std::smatch pair;
            const std::string spec = example.options.at("vars");
            REQUIRE(std::regex_match(spec, pair, std::regex(R"((\w+)=(\w+))")));
            stata.set_local("llmv_taskvars", spec);
            stata.set_local("llmv_taskvars_found", pair[2].str());
            varlist.push_back(pair[2].str());
        }
        // The ado's words: a setting only when given (none is), so the engine's table holds
        // the defaults; paper is the preset.
        std::vector<std::string> words = {"validate",      "text=1",         "human=0",
                                          "simprompt=2",   "varstart=3",     "generate=1",
                                          "seed=20260101", "dryrun=0",       "continue=0",
                                          "matrix=1",      "matrixmax=11000"};
        if (example.options.count("paper")) words.push_back("preset=paper");
        const std::string prefix = example.options.at("generate");
        const RunResult r = run_like_ado(stata, varlist, words, prefix);
        INFO(stata.errors << stata.output);
        REQUIRE(r.rc == 0);
        REQUIRE(r.store_rc == 0);
        CHECK(r.scalars.at("N") == 5);
        CHECK(r.scalars.at("N_failed") == 0);
        CHECK(r.macros.at("vmethod") == "paper");
        // The table's defaults, as the help states them.
        CHECK(r.scalars.at("alpha") == 0.05);
        // The paper's separation test draws no permutations: r(permutations) is missing
        // (Stata's missing value, .), not the unused default (issue 40: `permutations` is R alone).
        CHECK(r.scalars.at("permutations") >= 8.98e307);
        REQUIRE(r.matrices.count("results") == 1);
        CHECK(r.matrices.at("results").rows == 5);
        // The variables the help's `list` shows.
        for (const std::string suffix : {"label", "verdict"})
            CHECK(stata.find(prefix + suffix) >= 0);
        prefixes.push_back(prefix);
    }
    CHECK(prefixes == std::vector<std::string>({"t1_", "t2_", "t3_", "t4_", "t5_", "t6_"}));

    // Table 7: the help's overview of the six runs, as the ado-file calls the plugin (a label
    // and a verdict variable per prefix, then the titles); its cells are the runs' variables.
    std::smatch overview;
    REQUIRE(std::regex_search(
        help, overview,
        std::regex(
            R"(\{phang2\}\{cmd:llmvalidate overview ([^,]*), titles\((\w+)\) names\(([^)]*)\)\}\{p_end\})")));
    const std::vector<std::string> stubs = split_list(overview[1].str());
    CHECK(stubs == prefixes);
    const std::string titles = overview[2].str();
    std::vector<std::string> varlist;
    for (const std::string& stub : stubs) {
        varlist.push_back(stub + "label");
        varlist.push_back(stub + "verdict");
    }
    varlist.push_back(titles);
    stata.set_local("llmv_stubs", overview[1].str());
    stata.set_local("llmv_headers", overview[3].str());
    stata.set_varlist(varlist);
    stata.select_all();
    stata.output.clear();
    stata.errors.clear();
    const int rc = stata.call({"overview", "columns=" + std::to_string(stubs.size()), "titles=1"});
    INFO(stata.errors << stata.output);
    REQUIRE(rc == 0);
    CHECK(stata.local("llmv_overview_n") == "5");
    const std::vector<std::string> headers = split_list(overview[3].str());
    REQUIRE(headers.size() == 6);
    CHECK(headers[5] == "topic absent");
    // The header line, then a line per passage: its title and each run's "label (verdict)".
    std::istringstream lines(stata.output);
    std::string line;
    std::getline(lines, line);
    CHECK(line == "Overview: label (verdict) of each passage, by run (Tables 7 and 8)");
    std::getline(lines, line);
    std::size_t at = 0;
    for (const std::string& header : headers) {
        at = line.find(header, at);
        CHECK(at != std::string::npos);
    }
    static const char* const verdicts[] = {"", "valid", "invalid", "inconclusive"};
    std::vector<int> valid(stubs.size(), 0);
    for (int obs = 1; obs <= 5; ++obs) {
        REQUIRE(std::getline(lines, line));
        const auto index = static_cast<std::size_t>(obs - 1);
        const std::string title = stata.var(titles).strings.at(index);
        CHECK(line.find("  " + title) == 0);
        std::size_t from = title.size();
        for (std::size_t c = 0; c < stubs.size(); ++c) {
            const int code = static_cast<int>(stata.var(stubs[c] + "verdict").numbers.at(index));
            REQUIRE((code >= 1 && code <= 3));
            if (code == 1) ++valid[c];
            const std::string cell =
                stata.var(stubs[c] + "label").strings.at(index) + " (" + verdicts[code] + ")";
            from = line.find(cell, from);
            CHECK(from != std::string::npos);
        }
    }
    std::string counts;
    for (int n : valid) counts += (counts.empty() ? "" : " ") + std::to_string(n);
    CHECK(stata.local("llmv_overview_valid") == counts);

    // A verdict variable that holds something else is refused, naming the variable (its prefix,
    // not the header names() gave), the codes allowed, the value and the observation; a missing
    // verdict (an observation that run did not validate) shows ".".
    std::vector<double>& verdict1 = stata.var("t1_verdict").numbers;
    const double kept = verdict1.at(0);
    verdict1.at(0) = 7;
    stata.errors.clear();
    CHECK(stata.call({"overview", "columns=6", "titles=1"}) == 198);
    CHECK(stata.errors.find("overview: t1_verdict must hold verdicts (1 valid, 2 invalid, "
                            "3 inconclusive, or missing); received 7 in observation 1") !=
          std::string::npos);
    verdict1.at(0) = missing();
    stata.output.clear();
    REQUIRE(stata.call({"overview", "columns=6", "titles=1"}) == 0);
    std::istringstream shown(stata.output);
    std::getline(shown, line);
    std::getline(shown, line);
    std::getline(shown, line);  // the first passage's row: its first cell is "."
    const std::string title = stata.var(titles).strings.at(0);
    CHECK(line.substr(2 + title.size()).find_first_not_of(' ') ==
          line.substr(2 + title.size()).find(". "));
    verdict1.at(0) = kept;
}
