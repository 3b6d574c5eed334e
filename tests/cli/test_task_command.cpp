// `llmvalidate task list | show | new`, and the task that run and batch build from --labels,
// --annotation-prompt and --simulation-prompt: the same results as the same task in a file.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli/cli_runner.hpp"

using cli_test::CliResult;
using cli_test::run_cli;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

void expect_usage(const CliResult& result, const std::vector<std::string>& fragments) {
    INFO("stderr: " << result.err);
    CHECK(result.exit_code == 2);
    CHECK(contains(result.err, "llmvalidate: error [llmv.cli.usage]: "));
    for (const std::string& fragment : fragments) {
        INFO("expected fragment: " << fragment);
        CHECK(contains(result.err, fragment));
    }
}

const std::string kAnnotation = "Classify the stance of this comment as one of: {labels}.\nCOMMENT: {text}";
const std::string kSimulation =
    "Write {n} comments from an investing forum that are {label} about the stock, "
    "informal, one or two sentences each.";

std::vector<std::string> simulated_run(std::vector<std::string> task_args) {
    std::vector<std::string> args = {"run", "--text", "Loving this dip, buying more tomorrow.",
                                     "--provider", "simulated", "-M", "12", "-n", "4",
                                     "--permutations", "99", "--seed", "7", "--no-cache", "--json",
                                     "--quiet"};
    args.insert(args.end(), task_args.begin(), task_args.end());
    return args;
}

}  // namespace

TEST_CASE("task list names every shipped task with its aliases, labels and required variables",
          "[cli][task]") {
    const CliResult result = run_cli({"task", "list"});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(contains(result.out, "simple_sentiment (or sentiment)"));
    CHECK(contains(result.out, "general_sentiment\n"));
    CHECK(contains(result.out, "requires: genre"));
    CHECK(contains(result.out, "labels: True, False"));
}

TEST_CASE("task show prints a shipped task's TOML after its aliases, file and provenance",
          "[cli][task]") {
    const CliResult result = run_cli({"task", "show", "sentiment"});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(contains(result.out, "# Task simple_sentiment (also known as sentiment)"));
    CHECK(contains(result.out, "simple_sentiment.toml"));
    CHECK(contains(result.out, "# Provenance: Hansen (2026), Section 4.1"));
    CHECK(contains(result.out, "name = \"simple_sentiment\""));
    CHECK(contains(result.out, "[simulation]"));
}

TEST_CASE("task show output, saved, runs as a task file", "[cli][task]") {
    cli_test::TempDir dir;
    const CliResult shown = run_cli({"task", "show", "clarity"});
    REQUIRE(shown.exit_code == 0);
    cli_test::write_file(dir.file("clarity.toml"), shown.out);
    const CliResult from_copy = run_cli(simulated_run({"--task", dir.file("clarity.toml")}));
    const CliResult from_name = run_cli(simulated_run({"--task", "clarity"}));
    INFO(from_copy.err);
    REQUIRE(from_copy.exit_code == 0);
    CHECK(from_copy.out == from_name.out);
}

TEST_CASE("task new writes a template that loads and tells the user to describe their texts",
          "[cli][task]") {
    cli_test::TempDir dir;
    const std::string path = dir.file("mine.toml");
    const CliResult written = run_cli({"task", "new", "--output", path});
    INFO(written.err);
    REQUIRE(written.exit_code == 0);
    const std::string text = cli_test::read_file(path);
    CHECK(contains(text, "kind of text"));
    CHECK(contains(text, "style"));
    CHECK(contains(text, "length"));
    CHECK(contains(text, "Section 4.1"));
    CHECK(run_cli({"task", "new"}).out == text);
    // It runs once the user's texts are described.
    const CliResult run = run_cli(simulated_run({"--task", path, "--vars", "genre=forum comments"}));
    INFO(run.err);
    CHECK(run.exit_code == 0);
    // and not before: genre is required.
    const CliResult unset = run_cli(simulated_run({"--task", path}));
    CHECK(unset.exit_code == 3);
    CHECK(contains(unset.err, "\"genre\""));
}

TEST_CASE("task: a wrong action or operand is a usage error naming it", "[cli][task]") {
    expect_usage(run_cli({"task"}), {"list, show NAME or new", "received none"});
    expect_usage(run_cli({"task", "shwo"}), {"`shwo`", "list, show NAME or new"});
    expect_usage(run_cli({"task", "show"}), {"`task show` takes the name of one shipped task",
                                             "simple_sentiment (or sentiment)"});
    expect_usage(run_cli({"task", "list", "extra"}), {"`task list` takes no further operand", "`extra`"});
    expect_usage(run_cli({"task", "list", "--output", "x.toml"}), {"`--output` goes with `task new` only"});
    const CliResult unknown = run_cli({"task", "show", "nosuch"});
    CHECK(unknown.exit_code == 3);
    CHECK(contains(unknown.err, "\"nosuch\""));
    CHECK(contains(unknown.err, "general_sentiment"));
}

TEST_CASE("a task from --labels, --annotation-prompt and --simulation-prompt gives the results of "
          "the same task in a file", "[cli][task]") {
    cli_test::TempDir dir;
    cli_test::write_file(dir.file("stance.toml"),
                         "name = \"custom\"\nlabels = [\"Bullish\", \"Neutral\", \"Bearish\"]\n"
                         "[annotation]\ntemplate = '''" + kAnnotation + "'''\n"
                         "[simulation]\ntemplate = '''" + kSimulation + "'''\n");
    const CliResult from_file = run_cli(simulated_run({"--task", dir.file("stance.toml")}));
    const CliResult from_options = run_cli(simulated_run(
        {"--labels", "Bullish, Neutral,Bearish", "--annotation-prompt", kAnnotation,
         "--simulation-prompt", kSimulation}));
    INFO(from_file.err << from_options.err);
    REQUIRE(from_file.exit_code == 0);
    REQUIRE(from_options.exit_code == 0);
    CHECK(contains(from_options.out, "\"verdict\""));
    CHECK(from_options.out == from_file.out);
}

TEST_CASE("a task from options: every misuse is a usage error naming the option", "[cli][task]") {
    expect_usage(run_cli(simulated_run({"--task", "sentiment", "--labels", "A,B", "--annotation-prompt",
                                        "{text}", "--simulation-prompt", "{label}"})),
                 {"either `--task` or `--labels`", "--task sentiment"});
    expect_usage(run_cli(simulated_run({"--labels", "A,B", "--annotation-prompt", "{text}"})),
                 {"missing `--simulation-prompt`"});
    expect_usage(run_cli(simulated_run({"--labels", "A,B", "--annotation-prompt", "Classify it.",
                                        "--simulation-prompt", "Write {n} {label} texts."})),
                 {"`--annotation-prompt` must quote the passage with {text}"});
    expect_usage(run_cli(simulated_run({"--labels", "A,B", "--annotation-prompt", "{text}",
                                        "--simulation-prompt", "Write {n} texts about {firm}."})),
                 {"`--simulation-prompt` uses the unknown placeholder {firm}"});
    expect_usage(run_cli(simulated_run({"--labels", "A", "--annotation-prompt", "{text}",
                                        "--simulation-prompt", "Write {n} {label} texts."})),
                 {"`--labels` must hold at least two labels"});
    expect_usage(run_cli({"run", "--text", "x", "--provider", "simulated"}),
                 {"`--task` is required", "--labels"});
}

TEST_CASE("a task from options declares the variables given with --vars", "[cli][task]") {
    const CliResult result = run_cli(simulated_run(
        {"--labels", "Bullish,Bearish", "--annotation-prompt", "{text}", "--simulation-prompt",
         "Write {n} {genre} that are {label}.", "--vars", "genre=forum comments"}));
    INFO(result.err);
    CHECK(result.exit_code == 0);
}

TEST_CASE("batch: a task from options requires the variables of --variable-columns", "[cli][task]") {
    cli_test::TempDir dir;
    cli_test::write_file(dir.file("in.csv"),
                         "text,genre\nLoving this dip.,forum comments\nSold it all today.,tweets\n");
    const CliResult result = run_cli(
        {"batch", "--input", dir.file("in.csv"), "--output", dir.file("rows.csv"), "--provider",
         "simulated", "-M", "20", "-n", "5", "--permutations", "99", "--no-cache", "--quiet",
         "--labels", "Bullish,Bearish", "--annotation-prompt", "{text}", "--simulation-prompt",
         "Write {n} {genre} that are {label}.", "--variable-columns", "genre"});
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(contains(cli_test::read_file(dir.file("rows.csv")), "Bullish"));
}
