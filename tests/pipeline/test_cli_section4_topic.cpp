// Tables 5 and 6 from the CLI against the fake provider server: `run --task topic --passages
// prompts/passages/section4.toml --paper` validates all five Section 4 passages, each with its
// own topic in its simulation prompts (Table 5: the topic the passage discusses; Table 6, with
// --vars topic=@topic_not_discussed: the one it does not).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"

using namespace llmv;
using cli_test::CliResult;
using cli_test::run_cli;

namespace {

fake::FakeServerOptions topic_server() {
    fake::FakeServerOptions options;
    options.api_key = "";
    options.labels = {"True", "False"};
    return options;
}

std::vector<std::string> topic_run(const fake::FakeServer& server, const std::string& cache) {
    return {"run",
            "--task",
            "topic",
            "--passages",
            LLMV_SOURCE_DIR "/prompts/passages/section4.toml",
            "--paper",
            "--provider",
            "openai",
            "--model",
            "fake-chat",
            "--base-url",
            server.base_url() + "/v1",
            "--embedding-model",
            "fake-embedding",
            "--cache",
            cache,
            "-M",
            "20",
            "-n",
            "10",
            "--paper-b",
            "20",
            "--json",
            "--quiet"};
}

// Each Section 4 passage's simulation prompt names its kind of document in its own words.
const std::map<std::string, std::string>& passage_marks() {
    static const std::map<std::string, std::string> marks = {
        {"10k_filing", "annual 10-K filing"},
        {"earnings_call", "earnings call transcript"},
        {"news_article", "financial newspaper article"},
        {"speech", "governor of the Federal"},
        {"reddit_comment", "Reddit conversation thread"},
    };
    return marks;
}

// The simulation prompts the server received, by passage.
std::map<std::string, std::vector<std::string>> simulation_prompts(const fake::FakeServer& server) {
    std::map<std::string, std::vector<std::string>> by_passage;
    for (const fake::ServedAnswer& answer : server.served()) {
        if (answer.endpoint != "openai.chat") continue;
        const nlohmann::json request = nlohmann::json::parse(answer.request_body);
        std::string prompt;
        for (const auto& message : request["messages"])
            if (message["content"].is_string()) prompt += message["content"].get<std::string>();
        if (prompt.rfind("TASK: Write ", 0) != 0) continue;
        for (const auto& [id, mark] : passage_marks())
            if (prompt.find(mark) != std::string::npos) by_passage[id].push_back(prompt);
    }
    return by_passage;
}

void check_topics(const CliResult& result, const fake::FakeServer& server,
                  const std::map<std::string, std::string>& topics) {
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    int rows = 0;
    std::istringstream out(result.out);
    for (std::string line; std::getline(out, line);) {
        if (line.empty()) continue;
        const nlohmann::json row = nlohmann::json::parse(line);
        INFO(line.substr(0, 400));
        CHECK_FALSE(row.contains("error_code"));
        CHECK(row["verdict"].get<std::string>() != "error");
        ++rows;
    }
    CHECK(rows == 5);
    const auto prompts = simulation_prompts(server);
    REQUIRE(prompts.size() == 5);
    for (const auto& [id, list] : prompts) {
        INFO("passage " << id);
        CHECK(list.size() >= 4);  // both labels, two calls of n = 10 each, and the B references
        for (const std::string& prompt : list) {
            INFO(prompt);
            CHECK(prompt.find("the topic '" + topics.at(id) + "'") != std::string::npos);
        }
    }
}

}  // namespace

TEST_CASE(
    "run --task topic --passages validates the five passages, each with its own topic (Table 5)",
    "[cli][task][paper]") {
    fake::FakeServer server(topic_server());
    server.start();
    cli_test::TempDir dir;
    const CliResult result = run_cli(topic_run(server, dir.file("cache.sqlite")));
    check_topics(result, server,
                 {{"10k_filing", "economic risks"},
                  {"earnings_call", "technological developments"},
                  {"news_article", "crypto investing"},
                  {"speech", "financial crises"},
                  {"reddit_comment", "interest rates"}});
}

TEST_CASE("vars topic=@topic_not_discussed takes each passage's own other topic (Table 6)",
          "[cli][task][paper]") {
    fake::FakeServer server(topic_server());
    server.start();
    cli_test::TempDir dir;
    std::vector<std::string> args = topic_run(server, dir.file("cache.sqlite"));
    args.insert(args.end(), {"--vars", "topic=@topic_not_discussed"});
    const CliResult result = run_cli(args);
    check_topics(result, server,
                 {{"10k_filing", "investments"},
                  {"earnings_call", "geopolitical risks"},
                  {"news_article", "interest rates"},
                  {"speech", "new technologies"},
                  {"reddit_comment", "stock market"}});
}

TEST_CASE("a reference to a variable the passage lacks fails before any request and names it",
          "[cli][task][paper]") {
    fake::FakeServer server(topic_server());
    server.start();
    cli_test::TempDir dir;
    std::vector<std::string> args = topic_run(server, dir.file("cache.sqlite"));
    args.insert(args.end(), {"--vars", "topic=@topic_discussed"});
    const CliResult result = run_cli(args);
    CHECK(result.exit_code != 0);
    CHECK(result.err.find("topic=@topic_discussed (passage \"10k_filing\")") != std::string::npos);
    CHECK(result.err.find("topic_not_discussed") != std::string::npos);
    CHECK(server.total_count() == 0);
}
