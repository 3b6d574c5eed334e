// `llmvalidate test` and the command-line skeleton, run as a subprocess of the built binary.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <functional>
#include <set>

#include "cli/cli_runner.hpp"
#include "cli/test_inputs.hpp"

using nlohmann::json;
using namespace cli_test;

namespace {

const std::string example_input = std::string(LLMV_SOURCE_DIR) + "/examples/test-input.json";
const std::string example_paper = std::string(LLMV_SOURCE_DIR) + "/examples/test-input-paper.json";

CliResult run_test(const json& input, std::vector<std::string> args = {}) {
    args.insert(args.begin(), "test");
    return run_cli(args, input.dump());
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// One error line: the stable prefix and code, then every expected fragment (field, value
// received, what is allowed), and nothing on standard output.
void expect_error(const CliResult& result, int exit_code, const std::string& error_code,
                  const std::vector<std::string>& fragments) {
    INFO("stderr: " << result.err);
    CHECK(result.exit_code == exit_code);
    CHECK(contains(result.err, "llmvalidate: error [" + error_code + "]: "));
    for (const std::string& fragment : fragments) {
        INFO("expected fragment: " << fragment);
        CHECK(contains(result.err, fragment));
    }
    CHECK(result.out.empty());
}

bool is_number_or_null(const json& value) { return value.is_number() || value.is_null(); }

// Every field docs/test-format.md promises, with its type.
void check_full_result(const json& out, const json& input) {
    const std::vector<std::string> labels = input["labels"].get<std::vector<std::string>>();
    const std::string label = input["label"];

    REQUIRE(out.is_object());
    CHECK(std::set<std::string>{"valid", "invalid", "inconclusive"}.count(
              out["verdict"].get<std::string>()) == 1);
    CHECK(out["verdict_reason"].is_string());
    CHECK_FALSE(out["verdict_reason"].get<std::string>().empty());
    CHECK(out["label"] == label);

    const json& validation = out["validation"];
    CHECK(validation["statistic"].is_number());
    CHECK(is_number_or_null(validation["critical_value"]));
    CHECK(validation["p_value"].is_number());
    CHECK(validation["reject"].is_boolean());
    CHECK(validation["method"].is_string());
    CHECK(validation["m"].is_number_integer());
    CHECK(validation["alpha"].is_number());

    const json& separation = out["separation"];
    REQUIRE(separation.is_array());
    std::vector<std::string> expected_others;
    for (const std::string& other : labels)
        if (other != label && input["pools"].contains(other)) expected_others.push_back(other);
    REQUIRE(separation.size() == expected_others.size());
    for (std::size_t i = 0; i < separation.size(); ++i) {
        const json& entry = separation[i];
        CHECK(entry["label"] == expected_others[i]);  // S's order
        CHECK(entry["statistic"].is_number());
        CHECK(is_number_or_null(entry["critical_value"]));
        CHECK(is_number_or_null(entry["p_value"]));
        CHECK(entry["pass"].is_boolean());
        CHECK(entry["method"].is_string());
        CHECK(entry["m_beta"].is_number_integer());
        CHECK(entry["m_gamma"].is_number_integer());
        CHECK(entry["permutations"].is_number_integer());
    }

    const json& back = out["backtranslation"];
    for (const char* field :
         {"accuracy", "lower_bound", "counts", "pass", "rule", "threshold", "run"})
        CHECK(back.contains(field));
    CHECK(back["counts"].is_object());
    CHECK(back["rule"].is_string());
    CHECK(back["threshold"].is_number());
    if (back["run"] == true) {
        CHECK(back["accuracy"].is_number());
        CHECK(back["lower_bound"].is_number());
        CHECK(back["pass"].is_boolean());
    } else {
        CHECK(back["accuracy"].is_null());
        CHECK(back["pass"].is_null());
    }
    CHECK(out["backtranslation_other"].is_array());
    CHECK(out["alpha"].is_number());
    CHECK(out["threshold"].is_number());
    CHECK(out["permutations"].is_number_integer());
    CHECK((out["seed"].is_number_unsigned() || out["seed"].is_string()));

    // The verdict follows from the tests (METHOD.md, Verdict).
    bool prerequisites = back["pass"] == true;
    for (const json& entry : separation) prerequisites = prerequisites && entry["pass"] == true;
    if (!prerequisites)
        CHECK(out["verdict"] == "inconclusive");
    else if (validation["reject"] == true)
        CHECK(out["verdict"] == "invalid");
    else
        CHECK(out["verdict"] == "valid");
}

}  // namespace

// ---- the skeleton ------------------------------------------------------------------------------

TEST_CASE("version and help", "[cli]") {
    const CliResult version = run_cli({"--version"});
    CHECK(version.exit_code == 0);
    CHECK(contains(version.out, "llmvalidate 0."));

    const CliResult help = run_cli({"--help"});
    CHECK(help.exit_code == 0);
    CHECK(contains(help.out, "Usage: llmvalidate <command>"));
    CHECK(contains(help.out, "  test"));
    CHECK(contains(help.out, "Exit codes"));

    const CliResult help_word = run_cli({"help", "test"});
    CHECK(help_word.exit_code == 0);
    CHECK(contains(help_word.out, "Usage: llmvalidate test"));

    const CliResult test_help = run_cli({"test", "--help"});
    CHECK(test_help.exit_code == 0);
    for (const char* option : {"--output", "--pretty", "--null-distributions", "--help"})
        CHECK(contains(test_help.out, option));
    CHECK(contains(test_help.out, "docs/test-format.md"));
}

TEST_CASE("usage errors exit with 2 and say what is allowed", "[cli]") {
    const CliResult none = run_cli({});
    CHECK(none.exit_code == 2);
    CHECK(contains(none.err, "llmvalidate: error [llmv.cli.usage]: no command given"));

    expect_error(run_cli({"tset"}), 2, "llmv.cli.usage", {"`tset`", "allowed: test"});
    expect_error(run_cli({"test", "--outptu", "x.json"}), 2, "llmv.cli.usage",
                 {"`--outptu`", "did you mean --output?", "--pretty"});
    expect_error(run_cli({"test", "a.json", "b.json"}), 2, "llmv.cli.usage",
                 {"`b.json`", "at most 1"});
    expect_error(run_cli({"test", "--output"}), 2, "llmv.cli.usage", {"`--output`", "PATH"});
    expect_error(run_cli({"test", "--pretty=yes"}), 2, "llmv.cli.usage",
                 {"`--pretty`", "takes no value"});
}

// ---- the example -------------------------------------------------------------------------------

TEST_CASE("the shipped example gives a full result that matches an independent computation",
          "[cli][example]") {
    const json input = json::parse(read_file(example_input));
    const CliResult result = run_cli({"test", example_input});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(result.err.empty());
    const json out = json::parse(result.out);
    check_full_result(out, input);

    const Vector passage = input["passage"];
    const std::string label = input["label"];
    const Matrix pool = matrix_of(input["pools"][label]);
    const ExactReference reference = exact_reference(passage, pool);
    CHECK(out["validation"]["method"] == "exact");
    CHECK(out["validation"]["m"] == pool.size());
    CHECK(out["validation"]["statistic"].get<double>() == Approx(tau(passage, pool)).margin(1e-12));
    CHECK(out["validation"]["p_value"].get<double>() == Approx(reference.p_value).margin(1e-12));
    // M = 20 at α = 0.05: ⌊α(M+1)⌋ = 1, so the critical value is the smallest T(s_j).
    CHECK(
        out["validation"]["critical_value"].get<double>() ==
        Approx(*std::min_element(reference.scores.begin(), reference.scores.end())).margin(1e-12));
    CHECK(out["validation"]["reject"] == (reference.p_value <= 0.05));

    for (const json& entry : out["separation"]) {
        const Matrix other = matrix_of(input["pools"][entry["label"].get<std::string>()]);
        CHECK(entry["method"] == "permutation");
        CHECK(entry["permutations"] == 999);
        CHECK(entry["statistic"].get<double>() == Approx(xi(pool, other)).margin(1e-12));
        const double p = entry["p_value"].get<double>();
        CHECK(p >= 1.0 / 1000);
        CHECK(p <= 1.0);
        CHECK(p * 1000 == Approx(std::round(p * 1000)).margin(1e-9));  // (1 + count) / (R + 1)
        CHECK(entry["pass"] == (p <= 0.05));
    }

    const std::vector<std::string> answers = input["backtranslation"][label];
    const int correct = static_cast<int>(std::count(answers.begin(), answers.end(), label));
    const json& back = out["backtranslation"];
    CHECK(back["run"] == true);
    CHECK(back["rule"] == "point");
    CHECK(back["threshold"] == 0.9);
    CHECK(back["accuracy"].get<double>() == Approx(double(correct) / answers.size()).margin(1e-15));
    CHECK(back["counts"][label] == correct);
    int total = 0;
    for (const auto& item : back["counts"].items()) total += item.value().get<int>();
    CHECK(total == static_cast<int>(answers.size()));
    CHECK(back["lower_bound"].get<double>() ==
          Approx(clopper_pearson_lower_reference(correct, static_cast<int>(answers.size()), 0.05))
              .margin(1e-9));
    CHECK(back["pass"] == (double(correct) / answers.size() >= 0.9));

    // Backtranslation was given for the other labels too: reported in S's order.
    REQUIRE(out["backtranslation_other"].size() == 2);
    CHECK(out["backtranslation_other"][0]["label"] == "Neutral");
    CHECK(out["backtranslation_other"][1]["label"] == "Negative");
    CHECK(out["seed"] == 1);
}

TEST_CASE("the paper-method example gives paper variants and NaN p-values as null",
          "[cli][example]") {
    const json input = json::parse(read_file(example_paper));
    const CliResult result = run_cli({"test", example_paper, "--null-distributions"});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const json out = json::parse(result.out);
    check_full_result(out, input);
    CHECK(out["validation"]["method"] == "paper");
    const std::size_t b = input["paper_reference"]["Positive"].size();
    CHECK(out["validation"]["b"] == b);
    CHECK(out["validation"]["null_distribution"].size() == b);
    // τ̃_b = mean_i cos(ỹ_b, A_i): recompute the null distribution independently.
    const Matrix pool = matrix_of(input["pools"]["Positive"]);
    const Matrix reference = matrix_of(input["paper_reference"]["Positive"]);
    for (std::size_t i = 0; i < b; ++i)
        CHECK(out["validation"]["null_distribution"][i].get<double>() ==
              Approx(tau(reference[i], pool)).margin(1e-12));
    for (const json& entry : out["separation"]) {
        CHECK(entry["method"] == "paper");
        CHECK(entry["p_value"].is_null());  // the reference reports none: NaN -> null
        CHECK(entry["critical_value"].is_number());
    }
}

// ---- input and output channels -------------------------------------------------------------

TEST_CASE("stdin and dash and a file give the same output and output option writes it",
          "[cli][io]") {
    const std::string text = read_file(example_input);
    const CliResult from_file = run_cli({"test", example_input});
    const CliResult from_stdin = run_cli({"test"}, text);
    const CliResult from_dash = run_cli({"test", "-"}, text);
    REQUIRE(from_file.exit_code == 0);
    CHECK(from_stdin.exit_code == 0);
    CHECK(from_dash.exit_code == 0);
    CHECK(from_stdin.out == from_file.out);
    CHECK(from_dash.out == from_file.out);
    CHECK(from_file.out.back() == '\n');

    TempDir dir;
    const std::string path = dir.file("out.json");
    const CliResult written = run_cli({"test", example_input, "--output", path});
    CHECK(written.exit_code == 0);
    CHECK(written.out.empty());
    CHECK(read_file(path) == from_file.out);
    std::remove(path.c_str());
    const CliResult written_short = run_cli({"test", "-o", path}, text);
    CHECK(written_short.exit_code == 0);
    CHECK(read_file(path) == from_file.out);
    const CliResult written_equals = run_cli({"test", "--output=" + path, "--pretty"}, text);
    CHECK(written_equals.exit_code == 0);
    CHECK(json::parse(read_file(path)) == json::parse(from_file.out));
    CHECK(contains(read_file(path), "\n  \"validation\": {"));  // --pretty indents
}

TEST_CASE("I/O failures exit with 5 and name the path", "[cli][io]") {
    expect_error(run_cli({"test", "/nonexistent/input.json"}), 5, "llmv.io.failed",
                 {"\"/nonexistent/input.json\"", "No such file"});
    expect_error(run_cli({"test", example_input, "--output", "/nonexistent/dir/out.json"}), 5,
                 "llmv.io.failed", {"`--output`", "\"/nonexistent/dir/out.json\""});
}

// ---- reproducibility and the number format ----------------------------------------------------

TEST_CASE("output round-trips bit-identically through parse and dump", "[cli][format]") {
    const CliResult result = run_cli({"test", example_input, "--null-distributions"});
    REQUIRE(result.exit_code == 0);
    const nlohmann::ordered_json first = nlohmann::ordered_json::parse(result.out);
    const std::string dumped = first.dump();
    CHECK(dumped + "\n" == result.out);  // shortest round-trip form, fixed field order
    const nlohmann::ordered_json second = nlohmann::ordered_json::parse(dumped);
    const double tau_first = first["validation"]["statistic"];
    const double tau_second = second["validation"]["statistic"];
    CHECK(std::memcmp(&tau_first, &tau_second, sizeof(double)) == 0);
    const auto& null_first = first["validation"]["null_distribution"];
    const auto& null_second = second["validation"]["null_distribution"];
    REQUIRE(null_first.size() == null_second.size());
    for (std::size_t i = 0; i < null_first.size(); ++i) {
        const double a = null_first[i], b = null_second[i];
        CHECK(std::memcmp(&a, &b, sizeof(double)) == 0);
    }
}

TEST_CASE("same seed gives same output and seeds may be numbers or strings", "[cli][seed]") {
    json input = make_input();
    input["permutations"] = 199;
    const CliResult first = run_test(input);
    const CliResult second = run_test(input);
    REQUIRE(first.exit_code == 0);
    CHECK(first.out == second.out);

    input["seed"] = "18446744073709551615";
    const CliResult big = run_test(input);
    REQUIRE(big.exit_code == 0);
    CHECK(json::parse(big.out)["seed"] == "18446744073709551615");

    input["seed"] = 9007199254740992ULL;  // 2^53: still exact as a JSON number
    const CliResult exact = run_test(input);
    REQUIRE(exact.exit_code == 0);
    CHECK(json::parse(exact.out)["seed"] == 9007199254740992ULL);
    input["seed"] = "9007199254740992";  // the same seed as a string gives the same run
    CHECK(run_test(input).out == exact.out);

    // Separation p-values depend on the seed; the exact validation test does not.
    json a = make_input(), b = make_input();
    a["seed"] = 1;
    b["seed"] = 2;
    const json out_a = json::parse(run_test(a).out), out_b = json::parse(run_test(b).out);
    CHECK(out_a["validation"] == out_b["validation"]);
    CHECK(out_a["seed"] == 1);
    CHECK(out_b["seed"] == 2);
    CHECK_FALSE(out_a["separation"][0].contains("null_distribution"));  // only on request
    const json da = json::parse(run_test(a, {"--null-distributions"}).out);
    const json db = json::parse(run_test(b, {"--null-distributions"}).out);
    CHECK(da["separation"][0]["null_distribution"] != db["separation"][0]["null_distribution"]);
    CHECK(da["separation"][0]["null_distribution"].size() == 999);
}

TEST_CASE("seed errors", "[cli][seed][errors]") {
    json input = make_input();
    input["seed"] = 9007199254740993ULL;
    expect_error(run_test(input), 3, "llmv.input.invalid_argument",
                 {"`seed`", "9007199254740993", "string of digits"});
    input["seed"] = -1;
    expect_error(run_test(input), 3, "llmv.input.invalid_argument", {"`seed`", "-1", "0 to 2^53"});
    input["seed"] = 1.5;
    expect_error(run_test(input), 3, "llmv.input.invalid_argument", {"`seed`", "1.5"});
    input["seed"] = "12a";
    expect_error(run_test(input), 3, "llmv.input.invalid_argument", {"`seed`", "\"12a\""});
    input["seed"] = "18446744073709551616";  // 2^64
    expect_error(run_test(input), 3, "llmv.input.invalid_argument",
                 {"`seed`", "18446744073709551616", "18446744073709551615"});
}

TEST_CASE("a critical value of minus infinity is written as null", "[cli][format]") {
    // M = 10 at α = 0.05: ⌊α(M+1)⌋ = 0, no value of τ can reject: the critical value is -inf.
    InputShape shape;
    shape.m = 10;
    const CliResult result = run_test(make_input(shape));
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const json out = json::parse(result.out);
    CHECK(out["validation"]["critical_value"].is_null());
    CHECK(out["validation"]["reject"] == false);
    CHECK(out["validation"]["p_value"].get<double>() >= 1.0 / 11);
}

TEST_CASE("without backtranslation it is reported as not run and the verdict is inconclusive",
          "[cli]") {
    InputShape shape;
    shape.backtranslation = false;
    const json input = make_input(shape);
    const CliResult result = run_test(input);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const json out = json::parse(result.out);
    check_full_result(out, input);
    CHECK(out["backtranslation"]["run"] == false);
    CHECK(out["backtranslation"]["accuracy"].is_null());
    CHECK(out["backtranslation"]["lower_bound"].is_null());
    CHECK(out["backtranslation"]["pass"].is_null());
    CHECK(out["backtranslation"]["counts"] == json::object());
    CHECK(out["backtranslation"]["rule"] == "point");
    CHECK(out["verdict"] == "inconclusive");
    CHECK(contains(out["verdict_reason"].get<std::string>(), "acktranslation"));
}

TEST_CASE("options reach the tests", "[cli]") {
    json input = make_input();
    input["alpha"] = 0.1;
    input["threshold"] = 0.5;
    input["permutations"] = 99;
    input["backtranslation_rule"] = "bound";
    input["_note"] = "fields starting with _ are ignored";
    const CliResult result = run_test(input);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const json out = json::parse(result.out);
    check_full_result(out, input);
    CHECK(out["alpha"] == 0.1);
    CHECK(out["threshold"] == 0.5);
    CHECK(out["permutations"] == 99);
    CHECK(out["validation"]["alpha"] == 0.1);
    CHECK(out["backtranslation"]["rule"] == "bound");
    CHECK(out["backtranslation"]["threshold"] == 0.5);
    CHECK(out["separation"][0]["permutations"] == 99);
    const double p = out["separation"][0]["p_value"];
    CHECK(p * 100 == Approx(std::round(p * 100)).margin(1e-9));  // (1 + count) / (R + 1)
    // The bound rule passes exactly when the Clopper-Pearson bound reaches the threshold.
    const json& back = out["backtranslation"];
    CHECK(back["pass"] == (back["lower_bound"].get<double>() >= 0.5));
    CHECK(back["lower_bound"].get<double>() ==
          Approx(clopper_pearson_lower_reference(back["counts"]["A"], 12, 0.1)).margin(1e-9));
}

TEST_CASE("no input on a terminal is a usage error rather than a hang", "[cli][io]") {
    // `script` (util-linux, essential on Debian) gives the command a terminal as stdin.
    if (::access("/usr/bin/script", X_OK) != 0) {
        WARN("no /usr/bin/script: terminal check skipped");
        return;
    }
    TempDir dir;
    const std::string output = dir.file("terminal");
    const std::string command = "/usr/bin/script -qec \"'" + std::string(LLMV_CLI) +
                                "' test\" /dev/null < /dev/null > '" + output + "' 2>&1";
    const int status = std::system(command.c_str());
    if (!contains(read_file(output), "llmvalidate:")) {  // e.g. no pseudo-terminals here
        WARN("script could not run the command on a terminal: " << read_file(output));
        return;
    }
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(contains(read_file(output), "llmvalidate: error [llmv.cli.usage]: no input"));
}

// Every "permutations" of a run's JSON line is the R the separation tests used: the line's
// top-level provenance came from defaults before (999 beside tests that used 99).
TEST_CASE("a run's JSON line reports the permutations its tests used, everywhere", "[cli]") {
    const TempDir folder;
    const std::string cache = folder.file("cache.sqlite");
    const CliResult result =
        run_cli({"run", "--provider", "simulated", "--task", "simple_sentiment", "--text",
                 "Profit rose 40% on strong demand.", "-M", "20", "-n", "5", "--permutations", "99",
                 "--seed", "3", "--cache", cache, "--json", "--quiet"});
    REQUIRE(result.exit_code == 0);
    const json line = json::parse(result.out.substr(0, result.out.find('\n')));
    int seen = 0;
    std::function<void(const json&)> visit = [&](const json& value) {
        if (value.is_object()) {
            for (auto it = value.begin(); it != value.end(); ++it) {
                if (it.key() == "permutations") {
                    CHECK(it.value() == 99);
                    ++seen;
                }
                visit(it.value());
            }
        } else if (value.is_array()) {
            for (const json& element : value) visit(element);
        }
    };
    visit(line);
    CHECK(seen >= 2);  // the line's own provenance and at least one separation test
}

// Issue 40 (one run in the engine) and issue 42, item 18: the dry run of `batch` is a report on
// standard output; the rows' file is created only by a run that writes rows, and a file option
// that cannot be written is refused before anything is paid for.
TEST_CASE("batch --dry-run reports on standard output and creates no --output file", "[cli]") {
    TempDir dir;
    const std::string inputs = std::string(LLMV_FIXTURES) + "/golden/inputs";
    const std::vector<std::string> common = {"batch",
                                             "--input",
                                             inputs + "/passages.csv",
                                             "--id-column",
                                             "id",
                                             "--provider",
                                             "simulated",
                                             "--task",
                                             inputs + "/sentiment.toml",
                                             "-M",
                                             "20",
                                             "-n",
                                             "5",
                                             "--quiet",
                                             "--cache",
                                             dir.file("cache.sqlite")};
    std::vector<std::string> dry = common;
    for (const char* arg : {"--dry-run", "--output", "", "--save-generations", ""})
        dry.push_back(arg);
    dry[dry.size() - 3] = dir.file("rows.csv");
    dry.back() = dir.file("generations.csv");
    const CliResult estimated = run_cli(dry);
    INFO(estimated.err);
    CHECK(estimated.exit_code == 0);
    CHECK(contains(estimated.out, "Dry run: no call made."));
    CHECK_FALSE(std::ifstream(dir.file("rows.csv")).good());
    CHECK_FALSE(std::ifstream(dir.file("generations.csv")).good());

    std::vector<std::string> unwritable = common;
    unwritable.push_back("--output");
    unwritable.push_back(dir.file("no-such-folder/rows.csv"));
    const CliResult refused = run_cli(unwritable);
    CHECK(refused.exit_code != 0);
    CHECK(contains(refused.err, "`--output` must be a writable file path"));
    CHECK(contains(refused.err, "no-such-folder/rows.csv"));
}
