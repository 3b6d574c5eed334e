// The routes to every table of docs/paper-fidelity.md, run as the doc shows them: every
// `llmvalidate` line of its CLI block, with PAPER set to the simulated provider (a synthetic
// data-generating process) and the paper's preset. Each must print its table, so the doc
// cannot rot.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"

using cli_test::CliResult;
using cli_test::run_cli;

namespace {

std::string read_doc(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

// The lines of the first ```sh block after the heading.
std::vector<std::string> sh_block_after(const std::string& doc, const std::string& heading) {
    const auto at = doc.find(heading);
    REQUIRE(at != std::string::npos);
    const auto open = doc.find("```sh\n", at);
    REQUIRE(open != std::string::npos);
    const auto close = doc.find("\n```", open + 6);
    std::istringstream block(doc.substr(open + 6, close - open - 6));
    std::vector<std::string> lines;
    for (std::string line; std::getline(block, line);) lines.push_back(line);
    return lines;
}

// Words as a POSIX shell splits this doc's lines: blanks, and double quotes around a word.
std::vector<std::string> shell_words(const std::string& line) {
    std::vector<std::string> words;
    std::string word;
    bool quoted = false, any = false;
    for (char c : line) {
        if (c == '"') {
            quoted = !quoted;
            any = true;
        } else if (c == ' ' && !quoted) {
            if (any) words.push_back(word);
            word.clear();
            any = false;
        } else {
            word += c;
            any = true;
        }
    }
    if (any) words.push_back(word);
    return words;
}

bool exists(const std::string& path) {
    struct stat status {};
    return stat(path.c_str(), &status) == 0;
}

}  // namespace

TEST_CASE("every CLI route of docs/paper-fidelity.md runs and prints its table",
          "[cli][paper][docs]") {
    const std::string doc = read_doc(LLMV_SOURCE_DIR "/docs/paper-fidelity.md");
    const std::vector<std::string> lines = sh_block_after(doc, "## Routes to every table");
    const std::string phrasebank =
        LLMV_SOURCE_DIR "/../shared/data/financial-phrasebank/financial_phrasebank.csv";
    cli_test::TempDir dir;
    int runs = 0, batches = 0;
    std::string comment;
    for (const std::string& line : lines) {
        if (line.rfind("# ", 0) == 0) comment = line;
        if (line.rfind("PAPER=", 0) == 0) {
            // The paper's models and preset, as the doc gives them.
            CHECK(line.find("--paper") != std::string::npos);
            CHECK(line.find("amazon") == std::string::npos);  // bedrock-titan names Titan v2 itself
        }
        if (line.rfind("llmvalidate ", 0) != 0) continue;
        INFO(comment << "\n" << line);
        std::vector<std::string> args;
        for (const std::string& word : shell_words(line)) {
            if (word == "llmvalidate" && args.empty()) continue;
            if (word == "$PAPER") {
                args.insert(args.end(), {"--provider", "simulated", "--paper"});
            } else if (word.rfind("prompts/", 0) == 0) {
                args.push_back(LLMV_SOURCE_DIR "/" + word);
            } else if (word == "financial_phrasebank.csv") {
                args.push_back(phrasebank);
            } else if (!args.empty() && args.back() == "--output") {
                args.push_back(dir.file(word));
            } else {
                args.push_back(word);
            }
        }
        REQUIRE(line.find("$PAPER") != std::string::npos);  // every route is the paper's way
        if (line.find("financial_phrasebank.csv") != std::string::npos && !exists(phrasebank)) {
            WARN("skipped (the Financial PhraseBank is not at " << phrasebank << "): " << line);
            continue;
        }
        args.push_back("--quiet");
        const CliResult result = run_cli(args);
        INFO(result.err.substr(0, 2000));
        REQUIRE(result.exit_code == 0);
        CHECK((result.out + result.err).find("SYNTHETIC RESULTS") != std::string::npos);
        if (args[0] == "run") {
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
            CHECK(result.err.find("(Table 9)") != std::string::npos);
            CHECK(result.err.find("(Table 10)") != std::string::npos);
            CHECK(result.err.find("(Table 11)") != std::string::npos);
        }
    }
    CHECK(runs == 10);  // Tables 1-8, the Reddit conversation, footnote 14
    if (exists(phrasebank)) CHECK(batches == 2);
}
