// The routes to every table of docs/paper-fidelity.md, run as the doc shows them: every
// `llmvalidate` line of its CLI block through bash (so quoting, pipes and `$PAPER` act as in a
// reader's terminal), with PAPER set to the simulated provider (a synthetic data-generating
// process) and the paper's preset. Each must print its table, so the doc cannot rot.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "doc_shell.hpp"

using cli_test::CliResult;
using llmv::test::DocCommand;
using llmv::test::DocSandbox;

TEST_CASE("every CLI route of docs/paper-fidelity.md runs through bash and prints its table",
          "[cli][paper][docs]") {
    const std::vector<DocCommand> commands =
        llmv::test::sh_commands("docs/paper-fidelity.md", "## Routes to every table");
    REQUIRE(!commands.empty());
    DocSandbox sandbox;
    int runs = 0, batches = 0;
    for (const DocCommand& command : commands) {
        const std::string& line = command.text;
        INFO(command.file << ":" << command.line << "\n" << command.comment << "\n" << line);
        if (line.rfind("PAPER=", 0) == 0) {
            // The paper's models and preset, as the doc gives them; the test's PAPER replaces it.
            CHECK(line.find("--paper") != std::string::npos);
            CHECK(line.find("bedrock-titan") != std::string::npos);
            continue;
        }
        REQUIRE(line.rfind("llmvalidate ", 0) == 0);
        REQUIRE(line.find("$PAPER") != std::string::npos);  // every route is the paper's way
        const bool batch = line.rfind("llmvalidate batch", 0) == 0;
        if (line.find("financial_phrasebank.csv") != std::string::npos &&
            !sandbox.has_phrasebank()) {
            WARN("skipped (no Financial PhraseBank beside the repository): " << line);
            continue;
        }
        const CliResult result =
            sandbox.run(line + " --quiet", {{"PAPER", "--provider simulated --paper"}});
        INFO(result.err.substr(0, 2000));
        REQUIRE(result.exit_code == 0);
        CHECK((result.out + result.err).find("SYNTHETIC RESULTS") != std::string::npos);
        if (!batch) {
            ++runs;
            // Each panel in the paper's layout: statistics to 3 decimals, accuracies in percent.
            CHECK(result.out.find("Panel (a)") != std::string::npos);
            CHECK(std::regex_search(result.out,
                                    std::regex("Validation +[A-Za-z -]+ +[0-9]\\.[0-9]{3} ")));
            CHECK(std::regex_search(
                result.out, std::regex("Backtranslation accuracy +[A-Za-z -]+ +[0-9.]+% +90% ")));
            CHECK(result.out.find("methods paper/paper") != std::string::npos);
            const bool overview =
                line.find("--models") != std::string::npos || line.find(',') != std::string::npos;
            if (overview)
                CHECK(result.out.find("Overview: label (verdict) of each passage") !=
                      std::string::npos);
        } else {
            ++batches;
            // Tables 9 and 10 in the paper's form (percent, the cross-tabulation with totals),
            // Table 11 with its sentences.
            CHECK(result.err.find("(Table 9)") != std::string::npos);
            CHECK(std::regex_search(result.err, std::regex("\n  All +[0-9]+ +[0-9]+ +[0-9.]+% ")));
            CHECK(result.err.find("(Table 10)") != std::string::npos);
            CHECK(std::regex_search(result.err, std::regex("\n  Total +[0-9]+ ")));
            CHECK(result.err.find("(Table 11)") != std::string::npos);
            const std::string output = line.substr(line.find("--output ") + 9);
            CHECK(llmv::test::path_exists(sandbox.file(output.substr(0, output.find(' ')))));
        }
    }
    CHECK(runs == 10);  // Tables 1-8, the Reddit conversation, footnote 14
    if (sandbox.has_phrasebank()) CHECK(batches == 2);
}
