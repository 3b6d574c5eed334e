// The CLI's audit trail against the fake provider server: `--save-generations` writes every
// annotation and every generated text of a run, the texts the server served.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"
#include "llm/structured_output.hpp"

using namespace llmv;
using cli_test::CliResult;
using cli_test::run_cli;

namespace {

fake::FakeServer keyless_server() {
    fake::FakeServerOptions options;
    options.api_key = "";  // like a local llama-server: no key needed
    return fake::FakeServer(options);
}

std::vector<std::string> provider_args(const fake::FakeServer& server, const std::string& cache) {
    return {"--provider", "openai", "--model", "fake-chat", "--base-url", server.base_url() + "/v1",
            "--embedding-model", "fake-embedding", "--cache", cache, "-M", "12", "-n", "4",
            "--permutations", "99", "--quiet"};
}

std::multiset<std::string> served_texts(const fake::FakeServer& server) {
    std::multiset<std::string> texts;
    for (const fake::ServedAnswer& answer : server.served()) {
        if (answer.endpoint != "openai.chat") continue;
        const auto body = nlohmann::json::parse(answer.response_body);
        const PassagesAnswer parsed =
            parse_passages_answer(body["choices"][0]["message"]["content"].get<std::string>());
        if (parsed.status == AnswerStatus::ok) texts.insert(parsed.passages.begin(), parsed.passages.end());
    }
    return texts;
}

}  // namespace

TEST_CASE("batch --save-generations writes K*M texts per passage, those the server served", "[cli]") {
    fake::FakeServer server = keyless_server();
    server.start();
    cli_test::TempDir dir;
    cli_test::write_file(dir.file("in.csv"),
                         "id,text\nq1,Operating profit rose to EUR 13.1 mn from EUR 8.7 mn.\n"
                         "q2,The company expects its net sales to decrease in 2009.\n");
    std::vector<std::string> args = {"batch", "--task", "financial_phrasebank", "--input", dir.file("in.csv"),
                                     "--id-column", "id", "--output", dir.file("rows.csv"),
                                     "--save-generations", dir.file("generations.jsonl")};
    for (const auto& arg : provider_args(server, dir.file("cache.sqlite"))) args.push_back(arg);
    const CliResult result = run_cli(args);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);

    std::istringstream lines(cli_test::read_file(dir.file("generations.jsonl")));
    std::string line;
    std::multiset<std::string> texts;
    std::map<std::string, int> simulated_per_passage, annotations_per_passage, backtranslated;
    while (std::getline(lines, line)) {
        const auto row = nlohmann::json::parse(line);
        const std::string id = row["id"];
        CHECK(row["model"] == "fake-chat");
        CHECK(row["prompt_hash"].get<std::string>().size() == 64);
        if (row["kind"] == "annotation") {
            ++annotations_per_passage[id];
            CHECK(row["draw"] == 1);
            continue;
        }
        CHECK(row["kind"] == "simulation");
        ++simulated_per_passage[id];
        texts.insert(row["text"].get<std::string>());
        if (!row["answer"].get<std::string>().empty()) ++backtranslated[id];
    }
    for (const std::string id : {"q1", "q2"}) {
        CHECK(annotations_per_passage[id] == 1);
        CHECK(simulated_per_passage[id] == 3 * 12);  // K * M
        CHECK(backtranslated[id] == 12);             // M: the pool of the passage's label
    }
    CHECK(texts == served_texts(server));

    // CSV, from the cache: the same texts, and no call.
    server.reset_counters();
    args[args.size() - 1 - provider_args(server, "").size()] = dir.file("generations.csv");
    const CliResult again = run_cli(args);
    REQUIRE(again.exit_code == 0);
    CHECK(server.total_count() == 0);
    const std::string csv = cli_test::read_file(dir.file("generations.csv"));
    CHECK(csv.rfind("index,id,kind,label,draw,text,answer,model,prompt_hash\n", 0) == 0);
    for (const std::string& text : texts) CHECK(csv.find(text) != std::string::npos);
}

TEST_CASE("run --save-generations to an unwritable path fails before any call", "[cli][io]") {
    fake::FakeServer server = keyless_server();
    server.start();
    cli_test::TempDir dir;
    std::vector<std::string> args = {"run", "--task", "simple_sentiment", "--text", "Sales grew.",
                                     "--save-generations", dir.file("missing/dir/g.csv")};
    for (const auto& arg : provider_args(server, dir.file("cache.sqlite"))) args.push_back(arg);
    const CliResult result = run_cli(args);
    CHECK(result.exit_code != 0);
    CHECK_THAT(result.err, Catch::Matchers::Contains("--save-generations") &&
                               Catch::Matchers::Contains("a writable file path"));
    CHECK(server.total_count() == 0);
}

TEST_CASE("batch --simulation-column: each passage's simulation prompt is its own", "[cli]") {
    fake::FakeServer server = keyless_server();
    server.start();
    cli_test::TempDir dir;
    cli_test::write_file(
        dir.file("in.csv"),
        "id,text,prompt\n"
        "a,Rates rose.,\"Write {n} short comments on a forum about mortgage rates, with sentiment {label}.\"\n"
        "b,Oil fell.,\"Write {n} short comments on a forum about crude oil prices, with sentiment {label}.\"\n");
    std::vector<std::string> args = {"batch", "--task", "simple_sentiment", "--input", dir.file("in.csv"),
                                     "--id-column", "id", "--simulation-column", "prompt",
                                     "--output", dir.file("rows.csv")};
    for (const auto& arg : provider_args(server, dir.file("cache.sqlite"))) args.push_back(arg);
    const CliResult result = run_cli(args);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    std::size_t mortgage = 0, oil = 0, paper = 0;
    for (const fake::ServedAnswer& answer : server.served()) {
        if (answer.endpoint != "openai.chat") continue;
        const auto request = nlohmann::json::parse(answer.request_body);
        const std::string prompt = request["messages"].back()["content"].get<std::string>();
        if (prompt.find("about mortgage rates") != std::string::npos) ++mortgage;
        if (prompt.find("about crude oil prices") != std::string::npos) ++oil;
        if (prompt.find("10-K filing") != std::string::npos) ++paper;
    }
    CHECK(mortgage == 3 * 3);  // K labels x ceil(M / n) calls, for passage a only
    CHECK(oil == 3 * 3);
    CHECK(paper == 0);  // the task's own simulation prompt is not used

    const CliResult missing = run_cli({"batch", "--task", "simple_sentiment", "--input", dir.file("in.csv"),
                                       "--simulation-column", "promt", "--provider", "simulated"});
    CHECK(missing.exit_code != 0);
    CHECK_THAT(missing.err, Catch::Matchers::Contains("--simulation-column") &&
                                Catch::Matchers::Contains("\"promt\"") &&
                                Catch::Matchers::Contains("id, text, prompt"));
}

TEST_CASE("run refuses a white-space-only passage before any call", "[cli][errors]") {
    fake::FakeServer server = keyless_server();
    server.start();
    cli_test::TempDir dir;
    std::vector<std::string> args = {"run", "--task", "simple_sentiment", "--text", "  \t "};
    for (const auto& arg : provider_args(server, dir.file("cache.sqlite"))) args.push_back(arg);
    const CliResult result = run_cli(args);
    CHECK(result.exit_code == 3);
    CHECK_THAT(result.err, Catch::Matchers::Contains("llmv.input.invalid_argument") &&
                               Catch::Matchers::Contains("passage \"1\" (row 1): only white space") &&
                               Catch::Matchers::Contains("a passage with text to annotate"));
    CHECK(server.total_count() == 0);
}
