// Every user-facing error of `llmvalidate test`: exit code 3, the stable code, and a message
// that names the field, the value received and what is allowed (issue 2, item 5).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <cstring>
#include <sstream>

#include "cli/cli_runner.hpp"
#include "cli/test_inputs.hpp"

using nlohmann::json;
using namespace cli_test;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

CliResult run_test_text(const std::string& text) { return run_cli({"test"}, text); }
CliResult run_test(const json& input) { return run_test_text(input.dump()); }

void expect_error(const CliResult& result, const std::string& error_code,
                  const std::vector<std::string>& fragments) {
    INFO("stderr: " << result.err);
    CHECK(result.exit_code == 3);
    CHECK(contains(result.err, "llmvalidate: error [" + error_code + "]: "));
    for (const std::string& fragment : fragments) {
        INFO("expected fragment: " << fragment);
        CHECK(contains(result.err, fragment));
    }
    CHECK(result.out.empty());
    // One line: the message is for a terminal and for log files alike.
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
}

const char* invalid_embedding = "llmv.input.invalid_embedding";
const char* invalid_argument = "llmv.input.invalid_argument";

}  // namespace

TEST_CASE("the base input of these tests is valid", "[cli][errors]") {
    const CliResult result = run_test(make_input());
    INFO(result.err);
    CHECK(result.exit_code == 0);
}

TEST_CASE("a zero vector", "[cli][errors]") {
    json input = make_input();
    input["pools"]["B"][2] = std::vector<double>(6, 0.0);
    expect_error(run_test(input), invalid_embedding, {"B", "3", "zero"});

    json passage = make_input();
    passage["passage"] = std::vector<double>(6, 0.0);
    expect_error(run_test(passage), invalid_embedding, {"passage", "zero"});
}

TEST_CASE("NaN and Inf cannot be written in JSON so null and NaN strings and 1e400 are refused",
          "[cli][errors]") {
    json with_null = make_input();
    with_null["pools"]["A"][1][2] = nullptr;
    expect_error(run_test(with_null), invalid_embedding,
                 {"`pools.A` row 2, entry 3", "finite number", "received null"});

    json with_nan = make_input();
    with_nan["passage"][4] = "NaN";
    expect_error(run_test(with_nan), invalid_embedding,
                 {"`passage` entry 5", "finite number", "\"NaN\"", "JSON has no NaN"});

    json with_inf = make_input();
    with_inf["pools"]["C"][0][0] = "-Infinity";
    expect_error(run_test(with_inf), invalid_embedding,
                 {"`pools.C` row 1, entry 1", "\"-Infinity\""});

    // An overflowing literal is refused by the parser, with its position.
    std::string text = make_input().dump();
    const std::size_t at = text.find("\"passage\":[") + std::strlen("\"passage\":[");
    text.insert(at, "1e400,");
    expect_error(run_test_text(text), "llmv.input.malformed_json",
                 {"line 1, column " + std::to_string(at + 1), "1e400", "too large"});
}

TEST_CASE("embeddings of different dimensions", "[cli][errors]") {
    json ragged = make_input();
    ragged["pools"]["B"][3].erase(0);
    expect_error(run_test(ragged), "llmv.input.dimension_mismatch",
                 {"`pools.B` row 4", "6 numbers", "received 5 numbers"});

    json passage = make_input();
    passage["passage"].push_back(0.5);
    expect_error(run_test(passage), "llmv.input.dimension_mismatch", {"passage", "7", "6"});

    json other_pool = make_input();
    for (json& row : other_pool["pools"]["C"]) row.push_back(0.1);
    expect_error(run_test(other_pool), "llmv.input.dimension_mismatch", {"C", "7", "6"});

    json reference = make_input();
    reference["validation_method"] = "paper";
    reference["paper_reference"] = {{"A", {{1, 2, 3}, {1, 2, 3}}}};
    expect_error(run_test(reference), "llmv.input.dimension_mismatch",
                 {"paper_reference", "3", "6"});
}

TEST_CASE("a pool smaller than 2", "[cli][errors]") {
    json one = make_input();
    one["pools"]["B"] = json::array({one["pools"]["B"][0]});
    expect_error(run_test(one), "llmv.input.pool_too_small", {"B", "1", "2"});

    json empty = make_input();
    empty["pools"]["A"] = json::array();
    expect_error(run_test(empty), "llmv.input.pool_too_small", {"A", "0", "2"});
}

TEST_CASE("the LLM's label not in labels or without a pool", "[cli][errors]") {
    json unknown = make_input();
    unknown["label"] = "Z";
    expect_error(run_test(unknown), "llmv.input.unknown_label",
                 {"`label`", "'Z'", "'A', 'B', 'C'"});

    json no_pool = make_input();
    no_pool["pools"].erase("A");
    expect_error(run_test(no_pool), invalid_argument, {"`pools`", "'B', 'C'", "'A'"});
}

TEST_CASE("alpha outside 0 to 0.5 (the engine range everywhere) and threshold outside 0 to 1",
          "[cli][errors]") {
    for (double alpha : {0.0, 0.6, 1.0, 1.5, -0.1}) {
        json input = make_input();
        input["alpha"] = alpha;
        std::ostringstream received;  // "0", "1", "1.5", "-0.1": in any number format
        received << alpha;
        expect_error(run_test(input), invalid_argument,
                     {"`alpha`", "received " + received.str(), "a number in [1e-06, 0.5]"});
    }
    for (double threshold : {1.2, -0.1}) {
        json input = make_input();
        input["threshold"] = threshold;
        expect_error(
            run_test(input), invalid_argument,
            {"`threshold`", threshold > 1 ? "received 1.2" : "received -0.1", "a number in [0, 1]"});
    }
    json text_alpha = make_input();
    text_alpha["alpha"] = "0.05";
    // A string is told the same range as a number out of it (issue 25: it was told "(0, 1)").
    expect_error(run_test(text_alpha), invalid_argument,
                 {"`alpha`", "\"0.05\" (a string)", "a number in [1e-06, 0.5]"});
}

// Issue 25: so small an alpha that no size could decide hung `test` (the deciding-size search
// counted up from 1/alpha) and `run` after paying; both now stop at once with the table's range.
TEST_CASE("alpha 1e-20 is refused at once by test and by run, before any request", "[cli][errors]") {
    json input = make_input();
    input["alpha"] = 1e-20;
    expect_error(run_test(input), invalid_argument,
                 {"`alpha`", "received 1e-20", "a number in [1e-06, 0.5]"});
    // The port is closed: had the run started, it would fail on the connection instead.
    const CliResult run = run_cli({"run", "--task", "sentiment", "--text", "Revenue grew.", "--provider", "openai",
                                   "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                                   "--embedding-model", "e", "--alpha", "1e-20",
                                   "--no-cache", "--quiet"});
    INFO(run.err);
    CHECK(run.exit_code == 3);
    CHECK(contains(run.err, "`--alpha` must be a number in [1e-06, 0.5]; received 1e-20."));
    CHECK(!contains(run.err, "127.0.0.1:9"));
}

TEST_CASE("unknown methods and rules", "[cli][errors]") {
    json validation = make_input();
    validation["validation_method"] = "bootstrap";
    expect_error(run_test(validation), invalid_argument,
                 {"validation_method", "bootstrap", "exact", "paper"});

    json separation = make_input();
    separation["separation_method"] = "mmd";
    expect_error(run_test(separation), invalid_argument,
                 {"separation_method", "mmd", "permutation", "paper"});

    json rule = make_input();
    rule["backtranslation_rule"] = "strict";
    expect_error(run_test(rule), invalid_argument,
                 {"backtranslation_rule", "strict", "point", "bound"});

    json type = make_input();
    type["validation_method"] = 1;
    expect_error(run_test(type), invalid_argument,
                 {"`validation_method`", "received 1", "\"exact\""});
}

TEST_CASE("paper methods without their reference texts", "[cli][errors]") {
    json input = make_input();
    input["validation_method"] = "paper";
    expect_error(run_test(input), invalid_argument,
                 {"`paper_reference`", "'A'", "no reference texts"});
}

TEST_CASE("malformed JSON gives the line and the column", "[cli][errors]") {
    const std::string text =
        "{\n"
        "  \"label\": \"A\",\n"
        "  \"labels\": [\"A\", \"B\"],,\n"
        "}\n";
    const std::string line3 = "  \"labels\": [\"A\", \"B\"],,";
    const std::size_t column = line3.rfind(',') + 1;
    expect_error(run_test_text(text), "llmv.input.malformed_json",
                 {"standard input", "line 3, column " + std::to_string(column), "near"});

    // Columns count characters, not bytes: "é" is two bytes of UTF-8.
    // The position is that of the last character read: the end of the unexpected token.
    const std::string accented = "{\"label\": \"Négatif\" \"labels\": []}";
    const std::size_t token_end = accented.find("\"labels\"") + std::strlen("\"labels\"");
    expect_error(run_test_text(accented), "llmv.input.malformed_json",
                 {"line 1, column " + std::to_string(token_end - 1)});  // é: 2 bytes, 1 column

    expect_error(run_test_text(""), "llmv.input.malformed_json", {"line 1, column 1", "empty"});
    expect_error(run_test_text(" \n"), "llmv.input.malformed_json",
                 {"line 1, column 1", "white space"});
    expect_error(run_test_text("{\"label\": \"A\"\n"), "llmv.input.malformed_json",
                 {"line 2, column 1"});

    // A file gives its name.
    TempDir dir;
    const std::string path = dir.file("broken.json");
    write_file(path, "[1, 2");
    expect_error(run_cli({"test", path}), "llmv.input.malformed_json",
                 {"`" + path + "`", "line 1, column 6"});
}

TEST_CASE("JSON of the wrong shape", "[cli][errors]") {
    expect_error(run_test_text("[1, 2]"), invalid_argument, {"`input`", "a JSON object"});

    json missing = make_input();
    missing.erase("passage");
    expect_error(run_test(missing), invalid_argument, {"`passage`", "no such field", "array"});

    std::string twice = make_input().dump();
    twice.insert(1, "\"alpha\":0.5,\"alpha\":0.01,");
    expect_error(run_test_text(twice), invalid_argument, {"`alpha`", "twice", "once"});
    std::string pool_twice = make_input().dump();
    const std::size_t pools_at = pool_twice.find("\"pools\":{") + std::strlen("\"pools\":{");
    pool_twice.insert(pools_at, "\"B\":[[1,2,3,4,5,6],[1,2,3,4,5,7]],");
    expect_error(run_test_text(pool_twice), invalid_argument, {"`B`", "twice"});

    json typo = make_input();
    typo["aplha"] = 0.1;
    expect_error(run_test(typo), invalid_argument,
                 {"`aplha`", "did you mean \"alpha\"", "allowed fields", "threshold"});

    json labels = make_input();
    labels["labels"] = "A,B,C";
    expect_error(run_test(labels), invalid_argument,
                 {"`labels`", "\"A,B,C\" (a string)", "array of strings"});

    json label_entry = make_input();
    label_entry["labels"][1] = 2;
    expect_error(run_test(label_entry), invalid_argument,
                 {"`labels` entry 2", "a string", "received 2"});

    json flat_pool = make_input();
    flat_pool["pools"]["B"] = flat_pool["passage"];
    expect_error(run_test(flat_pool), invalid_embedding,
                 {"`pools.B` row 1", "array of finite numbers"});

    json pools = make_input();
    pools["pools"] = json::array();
    expect_error(run_test(pools), invalid_argument, {"`pools`", "an object"});

    json back = make_input();
    back["backtranslation"]["A"][3] = 1;
    expect_error(run_test(back), invalid_argument,
                 {"`backtranslation.A` entry 4", "a string", "received 1"});

    json back_label = make_input();
    back_label["backtranslation"]["Q"] = {"A", "A"};
    expect_error(run_test(back_label), "llmv.input.unknown_label", {"`backtranslation`", "'Q'"});

    json permutations = make_input();
    permutations["permutations"] = 1e10;
    expect_error(run_test(permutations), invalid_argument,
                 {"`permutations`", "10000000000", "whole number"});

    json zero_permutations = make_input();
    zero_permutations["permutations"] = 0;
    expect_error(run_test(zero_permutations), invalid_argument, {"permutations", "0"});
}

// Issue 10 and 11: provider resolution, the sampler and the structured setting, as the CLI's
// user meets them. Exit code 3 for invalid input, 2 for usage; each names the option.
TEST_CASE("run and batch: resolution, sample and structured errors name the option", "[cli][errors]") {
    CliResult own_server = run_cli({"run", "--task", "sentiment", "--text", "x", "--provider", "openai",
                                    "--base-url", "http://127.0.0.1:9/v1", "--dry-run", "--no-cache"});
    CHECK(own_server.exit_code == 3);
    CHECK(contains(own_server.err, "`--model` must be the name of the model the server at http://127.0.0.1:9/v1"));
    CliResult structured = run_cli({"run", "--task", "sentiment", "--text", "x", "--provider", "simulated",
                                    "--structured", "json", "--dry-run"});
    CHECK(structured.exit_code == 3);
    CHECK(contains(structured.err, "`--structured` must be one of \"schema\", \"prompt\", \"none\"; received \"json\""));
    CliResult embedding = run_cli({"run", "--task", "sentiment", "--text", "x", "--provider", "openai",
                                   "--model", "m", "--embedding-provider", "cohere", "--dry-run", "--no-cache"});
    CHECK(embedding.exit_code == 3);
    CHECK(contains(embedding.err, "`--embedding-provider` must be one of"));
    CHECK(contains(embedding.err, "received \"cohere\""));
}

TEST_CASE("batch --sample and --where: too many rows, an unknown column, a seed alone", "[cli][errors]") {
    const std::string input = (std::filesystem::temp_directory_path() /
                               ("llmv-sample-input-" + std::to_string(::getpid()) + ".csv")).string();
    {
        std::ofstream out(input);
        out << "text,agreement\n";
        for (int i = 0; i < 6; ++i) out << "Sentence " << i << "," << (i % 2 ? 100 : 50) << "\n";
    }
    const std::vector<std::string> base = {"batch", "--task", "sentiment", "--input", input,
                                           "--provider", "simulated", "--dry-run"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = base;
        args.insert(args.end(), extra.begin(), extra.end());
        return run_cli(args);
    };
    CliResult too_many = with({"--sample", "4", "--where", "agreement=100"});
    CHECK(too_many.exit_code == 3);
    CHECK(contains(too_many.err, "`--sample` must be at most the 3 rows there are to draw from; received 4."));
    CliResult column = with({"--where", "score=1"});
    CHECK(column.exit_code == 3);
    CHECK(contains(column.err, "`--where` must be a column of"));
    CHECK(contains(column.err, "received \"score\""));
    CliResult seed_alone = with({"--sample-seed", "3"});
    CHECK(seed_alone.exit_code == 2);
    CHECK(contains(seed_alone.err, "option `--sample-seed` needs `--sample N`"));
    CliResult kept = with({"--sample", "3", "--where", "agreement=100"});
    CHECK(kept.exit_code == 0);
    CHECK(contains(kept.err, "Sample: 3 of 3 rows"));
    // Issue 25: a --where that keeps no row is an error, not a silent run of nothing.
    for (const std::vector<std::string>& extra : {std::vector<std::string>{"--where", "agreement=66"},
                                                  std::vector<std::string>{"--where", "agreement=66", "--sample", "1"}}) {
        CliResult none = with(extra);
        INFO(none.err);
        CHECK(none.exit_code == 3);
        CHECK(contains(none.err, "`--where` must be a condition some row of " + input +
                                     " meets (none of its 6 rows does); received \"agreement=66\"."));
    }
    std::vector<std::string> no_dry_run = base;
    no_dry_run.pop_back();
    no_dry_run.insert(no_dry_run.end(), {"--where", "agreement=66", "--no-cache", "--quiet"});
    const CliResult run_none = run_cli(no_dry_run);
    CHECK(run_none.exit_code == 3);
    CHECK(contains(run_none.err, "`--where` must be a condition some row of"));
    // Whole numbers only (core/key_value.hpp), of at most 9 digits (n) and 19 (the seed).
    for (const std::string bad : {"-1", "1.5", "1234567890"}) {
        CliResult n = with({"--sample=" + bad});
        CHECK(n.exit_code == 2);
        CHECK(contains(n.err, "option `--sample` takes a whole number of rows; received `" + bad + "`."));
    }
    CliResult seed = with({"--sample", "2", "--sample-seed", "x1"});
    CHECK(seed.exit_code == 2);
    CHECK(contains(seed.err, "option `--sample-seed` takes a whole number; received `x1`."));
    std::filesystem::remove(input);
}

TEST_CASE("power --replications and --vars: malformed values are named", "[cli][errors]") {
    for (const std::string bad : {"0x10", "+5", "12345678"}) {
        CliResult replications = run_cli({"power", "--task", "sentiment", "--replications=" + bad});
        CHECK(replications.exit_code == 2);
        CHECK(contains(replications.err, "option `--replications` needs a positive integer; received `" +
                                             bad + "`."));
    }
    CliResult vars = run_cli({"run", "--task", "sentiment", "--provider", "simulated", "--dry-run",
                              "--text", "A fine day.", "--vars", "genre=news,=x"});
    CHECK(vars.exit_code == 2);
    CHECK(contains(vars.err, "option `--vars` takes NAME=VALUE pairs separated by commas; received `=x`."));
}

// Issue 25: a side file cut mid-line (its writer was killed) gives its complete lines, and only
// answers new to the cache are counted.
TEST_CASE("cache --import: a cut last line is skipped and only new answers are counted", "[cli][errors]") {
    const std::string stem = (std::filesystem::temp_directory_path() /
                              ("llmv-import-cut-" + std::to_string(::getpid()))).string();
    const std::string cache = stem + ".sqlite", side = stem + ".jsonl";
    std::string lines;
    for (int i = 0; i < 3; ++i) {
        lines += "{\"key\": {\"provider\": \"openai\", \"endpoint\": \"chat\", \"model\": \"m\", "
                 "\"parameters\": {}, \"prompt\": \"p" + std::to_string(i) + "\", \"draw_index\": 0, \"attempt\": 0}, "
                 "\"entry\": {\"status\": \"ok\", \"body\": \"{}\", \"text\": \"a\", \"response_model\": \"m\", "
                 "\"input_tokens\": 1, \"output_tokens\": 1}}\n";
    }
    std::ofstream(side, std::ios::binary) << lines << lines.substr(0, 70);  // cut mid-line
    CliResult first = run_cli({"cache", "--cache", cache, "--import", side});
    INFO(first.err);
    CHECK(first.exit_code == 0);
    CHECK(contains(first.out, "Imported 3 new answers from " + side));
    CHECK(contains(first.out, "The last line was cut short"));
    CliResult again = run_cli({"cache", "--cache", cache, "--import", side});
    CHECK(again.exit_code == 0);
    CHECK(contains(again.out, "Imported 0 new answers from " + side + " into " + cache + " (3 were there already)."));
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(cache + suffix);
    std::filesystem::remove(side);
}

TEST_CASE("cache --import: a missing side file is named", "[cli][errors]") {
    const std::string cache = (std::filesystem::temp_directory_path() /
                               ("llmv-import-" + std::to_string(::getpid()) + ".sqlite")).string();
    CliResult missing = run_cli({"cache", "--cache", cache, "--import", "/nonexistent/side.jsonl"});
    CHECK(missing.exit_code != 0);
    CHECK(contains(missing.err, "`--import` must be a readable side file of answers; received /nonexistent/side.jsonl."));
    std::filesystem::remove(cache);
}

// Issue 12: the request timeout, the drain and the encoding come from the settings table; an
// out-of-range value names the option, the value and the range.
TEST_CASE("run: --timeout, --drain and --encoding outside their range", "[cli][errors]") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--timeout", "0"}, "`--timeout` must be a number in (0, 86400]; received 0."},
        {{"--timeout", "90000"}, "`--timeout` must be a number in (0, 86400]; received 90000."},
        {{"--drain", "-1"}, "`--drain` must be a number in [0, 3600]; received -1."},
        {{"--encoding", "utf8"}, "`--encoding` must be one of \"utf-8\", \"latin1\"; received \"utf8\"."},
    };
    for (const auto& [extra, message] : cases) {
        std::vector<std::string> args = {"run", "--task", "sentiment", "--text", "x", "--provider", "simulated"};
        args.insert(args.end(), extra.begin(), extra.end());
        const CliResult result = run_cli(args);
        INFO(result.err);
        CHECK(result.exit_code == 3);
        CHECK(contains(result.err, message));
    }
}
