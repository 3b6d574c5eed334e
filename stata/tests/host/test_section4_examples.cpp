// The help's Section 4 examples (Tables 1 to 6 of the paper) run through the host: the data
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

TEST_CASE("the help's Section 4 examples (Tables 1-6) run on the shipped data",
          "[validate][examples][section4]") {
    const std::string help = read_whole_file(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.sthlp");
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

    std::vector<std::string> prefixes;
    for (const Example& example : examples) {
        INFO(example.line);
        for (const auto& [name, argument] : example.options)
            if (name != "task" && name != "simprompt" && name != "vars" && name != "paper" &&
                name != "provider" && name != "generate")
                FAIL("the runner does not know option " << name << "()");
        REQUIRE(example.options.at("provider") == "simulated");
        Stata stata;
        load_plugin(stata);
        load_section4(stata);
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
        std::vector<std::string> words = {"validate",   "text=1",         "human=0",
                                          "simprompt=2", "varstart=3",    "generate=1",
                                          "seed=20260101", "dryrun=0",    "continue=0",
                                          "matrix=1",   "matrixmax=11000"};
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
        CHECK(r.scalars.at("permutations") == 999);
        REQUIRE(r.matrices.count("results") == 1);
        CHECK(r.matrices.at("results").rows == 5);
        // The variables the help's `list` shows.
        for (const std::string suffix : {"label", "verdict"})
            CHECK(stata.find(prefix + suffix) >= 0);
        prefixes.push_back(prefix);
    }
    CHECK(prefixes == std::vector<std::string>({"t1_", "t2_", "t3_", "t4_", "t5_", "t6_"}));
    CHECK(help.find("{cmd:list id t1_label t1_verdict t5_verdict t6_verdict}") !=
          std::string::npos);
}
