// Golden outputs of the CLI: fixed inputs (tests/fixtures/golden/inputs/, copies of a task, the
// price table, the Section 4 passages and the `test` examples, so that editing the shipped
// files does not move them), the simulated provider (a synthetic DGP, docs/simulated.md;
// offline) with fixed seeds, and every output format: the text report, JSON lines, CSV, the
// batch summary, the generations, the dry run with its cost, `test` on embeddings and `power`.
// Each case's exit code, standard output, standard error and every file it writes are compared
// byte for byte with tests/fixtures/golden/cli/<case>.txt, so that a refactoring that moves
// one byte of any output fails here.
//
// Masked, because they legitimately differ between runs and machines: the run's temporary
// folder (printed as <tmp>) and the source folder (printed as <source>). Nothing else.
//
// To regenerate the goldens deliberately (after a change of an output that is meant):
//   LLMV_UPDATE_GOLDEN=1 build/tests/test_cli "[golden]"
// then review and commit the diff of tests/fixtures/golden/.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_runner.hpp"

using cli_test::CliResult;
using cli_test::run_cli;

namespace {

const std::string golden_dir = std::string(LLMV_FIXTURES) + "/golden";
const std::string inputs = golden_dir + "/inputs";

struct GoldenCase {
    std::string name;
    std::vector<std::string> args;       // "{tmp}" and "{inputs}" are replaced
    std::vector<std::string> files = {};  // files the case writes in {tmp}, in the golden too
    std::string stdin_text = "";
};

void replace_all(std::string& text, const std::string& from, const std::string& to) {
    if (from.empty()) return;
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
        text.replace(at, from.size(), to);
}

// The simulated provider with fixed seeds and a cache of the run's own (nothing is written to
// it: the simulated provider's answers are recomputed), small M and n so that the cases stay fast.
std::vector<std::string> simulated(std::vector<std::string> args, const std::string& m = "20",
                                   const std::string& n = "5") {
    const std::vector<std::string> common = {
        "--provider", "simulated", "--task", "{inputs}/sentiment.toml", "-M", m, "-n", n,
        "--permutations", "99", "--seed", "3", "--dgp-seed", "3",
        "--cache", "{tmp}/cache.sqlite", "--price-table", "{inputs}/prices.csv", "--quiet"};
    args.insert(args.end(), common.begin(), common.end());
    return args;
}

std::vector<std::string> batch(std::vector<std::string> args,
                               const std::string& passages = "passages.csv") {
    // One request at a time (rows come in input order on every path; the request order of the
    // counts does not vary either).
    const std::vector<std::string> input = {"batch",         "--input",      "{inputs}/" + passages,
                                            "--id-column",   "id",           "--human-label-column",
                                            "human",         "--concurrency", "1"};
    args.insert(args.begin(), input.begin(), input.end());
    return simulated(args);
}

const std::string passage = "Revenue grew strongly and margins improved across every segment this year.";

std::vector<GoldenCase> cases() {
    return {
        {"run_report", simulated({"run", "--text", passage})},
        {"run_json", simulated({"run", "--text", passage, "--json"})},
        {"run_small_m_json", simulated({"run", "--text", passage, "--json"}, "8", "4")},
        {"run_paper_methods", simulated({"run", "--text", passage, "--json", "--methods", "paper",
                                         "--backtranslate-all"})},
        {"run_passages_report", simulated({"run", "--passages", "{inputs}/section4.toml"})},
        {"run_passages_json", simulated({"run", "--passages", "{inputs}/section4.toml", "--json"})},
        {"run_dry_run", simulated({"run", "--text", passage, "--dry-run"})},
        {"run_generations_csv",
         simulated({"run", "--text", passage, "--save-generations", "{tmp}/generations.csv",
                    "--output", "{tmp}/report.txt"}),
         {"generations.csv", "report.txt"}},
        {"batch_csv", batch({"--summary", "{tmp}/summary.json"}), {"summary.json"}},
        {"batch_jsonl", batch({"--format", "jsonl", "--output", "{tmp}/rows.jsonl", "--summary",
                               "{tmp}/summary.json", "--save-generations", "{tmp}/generations.jsonl"}),
         {"rows.jsonl", "summary.json", "generations.jsonl"}},
        {"batch_dry_run", batch({"--dry-run"})},
        // A passage that fails (only white space) next to an invalid verdict: the error rows.
        {"batch_error_rows_csv", batch({}, "passages_with_error.csv")},
        {"batch_error_rows_jsonl", batch({"--format", "jsonl"}, "passages_with_error.csv")},
        {"test_compact", {"test", "{inputs}/test-input.json"}},
        {"test_pretty_null", {"test", "{inputs}/test-input.json", "--pretty", "--null-distributions"}},
        {"test_paper_stdin", {"test", "-", "--pretty"}, {}, cli_test::read_file(inputs + "/test-input-paper.json")},
        {"power", {"power", "--task", "{inputs}/sentiment.toml", "--replications", "4", "-M", "20",
                   "-n", "5", "--permutations", "99", "--seed", "3"}},
    };
}

std::string golden_text(const GoldenCase& golden, const cli_test::TempDir& dir, const CliResult& result) {
    std::string text = "exit " + std::to_string(result.exit_code) + "\n== stdout\n" + result.out +
                       "\n== stderr\n" + result.err + "\n";
    for (const std::string& file : golden.files)
        text += "== file " + file + "\n" + cli_test::read_file(dir.file(file)) + "\n";
    replace_all(text, dir.path(), "<tmp>");
    replace_all(text, LLMV_SOURCE_DIR, "<source>");
    return text;
}

// The first line where two texts differ, for the failure message.
std::string first_difference(const std::string& expected, const std::string& actual) {
    std::size_t line = 1, start = 0;
    for (std::size_t i = 0; i < std::min(expected.size(), actual.size()); ++i) {
        if (expected[i] != actual[i]) break;
        if (expected[i] == '\n') {
            ++line;
            start = i + 1;
        }
    }
    const auto line_at = [&](const std::string& text) {
        if (start >= text.size()) return std::string("<end>");
        return text.substr(start, text.find('\n', start) - start);
    };
    return "line " + std::to_string(line) + "\n  golden: " + line_at(expected) + "\n  now:    " +
           line_at(actual);
}

}  // namespace

TEST_CASE("golden: every CLI output is byte-identical to the stored one", "[cli][golden]") {
    const char* update = std::getenv("LLMV_UPDATE_GOLDEN");
    const bool updating = update && std::string(update) == "1";
    for (const GoldenCase& golden : cases()) {
        cli_test::TempDir dir;
        std::vector<std::string> args = golden.args;
        for (std::string& arg : args) {
            replace_all(arg, "{tmp}", dir.path());
            replace_all(arg, "{inputs}", inputs);
        }
        const CliResult result = run_cli(args, golden.stdin_text);
        const std::string actual = golden_text(golden, dir, result);
        const std::string path = golden_dir + "/cli/" + golden.name + ".txt";
        if (updating) {
            cli_test::write_file(path, actual);
            continue;
        }
        const std::string expected = cli_test::read_file(path);
        INFO("case " << golden.name << " (" << path
                     << "; LLMV_UPDATE_GOLDEN=1 rewrites it): first difference at "
                     << first_difference(expected, actual));
        const bool identical = actual == expected;  // not CHECK(a == b): no dump of both texts
        CHECK(identical);
    }
}
