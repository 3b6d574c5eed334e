// Tables 7 and 8 from the CLI against the fake provider server: `run --passages` with several
// chat models (one embedding model for all) validates the passages with each, caches each
// model's answers under its own keys (a re-run that adds a model pays only for that model),
// and prints the overview; several tasks give the overview of Table 7.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"

using namespace llmv;
using cli_test::CliResult;
using cli_test::run_cli;

namespace {

fake::FakeServerOptions keyless() {
    fake::FakeServerOptions options;
    options.api_key = "";
    return options;
}

std::vector<std::string> comparison_run(const fake::FakeServer& server, const std::string& cache,
                                        const std::string& models) {
    // clang-format off
    return {"run", "--task", "simple_sentiment",
            "--passages", LLMV_SOURCE_DIR "/prompts/passages/section4.toml",
            "--models", models, "--provider", "openai", "--base-url", server.base_url() + "/v1",
            "--embedding-model", "fake-embedding", "--cache", cache,
            "-M", "20", "-n", "10", "--permutations", "99", "--seed", "7", "--quiet"};
    // clang-format on
}

// The chat requests the server answered, counted by the model they named.
std::map<std::string, int> chat_requests_by_model(const fake::FakeServer& server) {
    std::map<std::string, int> by_model;
    for (const fake::ServedAnswer& answer : server.served()) {
        if (answer.endpoint != "openai.chat") continue;
        ++by_model[nlohmann::json::parse(answer.request_body)["model"].get<std::string>()];
    }
    return by_model;
}

std::set<std::string> embedding_models(const fake::FakeServer& server) {
    std::set<std::string> models;
    for (const fake::ServedAnswer& answer : server.served()) {
        if (answer.endpoint != "openai.embeddings") continue;
        models.insert(nlohmann::json::parse(answer.request_body)["model"].get<std::string>());
    }
    return models;
}

}  // namespace

TEST_CASE(
    "a model comparison caches each model under its own keys, and adding a model pays only for it",
    "[cli][models][paper]") {
    fake::FakeServer server(keyless());
    server.start();
    cli_test::TempDir dir;
    const std::string cache = dir.file("cache.sqlite");

    const CliResult two = run_cli(comparison_run(server, cache, "chat-a,chat-b"));
    INFO(two.err);
    REQUIRE(two.exit_code == 0);
    const auto first = chat_requests_by_model(server);
    REQUIRE(first.size() == 2);
    CHECK(first.at("chat-a") > 0);
    CHECK(first.at("chat-a") == first.at("chat-b"));
    CHECK(embedding_models(server) == std::set<std::string>{"fake-embedding"});
    // Table 8's layout: one row per passage, one column per model, label (verdict) in each cell.
    INFO(two.out);
    CHECK(two.out.find("Overview: label (verdict) of each passage, by model (Table 8)") !=
          std::string::npos);
    CHECK(two.out.find("== chat-a ==") != std::string::npos);
    CHECK(two.out.find("== chat-b ==") != std::string::npos);
    CHECK(two.out.find("Reddit Comment (reddit_comment)") != std::string::npos);

    server.reset_counters();
    const CliResult three = run_cli(comparison_run(server, cache, "chat-a,chat-b,chat-c"));
    INFO(three.err);
    REQUIRE(three.exit_code == 0);
    const auto second = chat_requests_by_model(server);
    // Only the new model is paid for, and for as many calls as each model needed at first.
    CHECK(second == std::map<std::string, int>{{"chat-c", first.at("chat-a")}});
    // chat-a's and chat-b's panels are the first run's, read from the cache.
    const auto panels = [](const std::string& out, const std::string& model) {
        const auto begin = out.find("== " + model + " ==");
        return out.substr(begin, out.find("\nCalls: ", begin) - begin);
    };
    CHECK(panels(three.out, "chat-a") == panels(two.out, "chat-a"));
    CHECK(panels(three.out, "chat-b") == panels(two.out, "chat-b"));
    CHECK(three.out.find("== chat-c ==") != std::string::npos);
}

TEST_CASE("several tasks give the overview of Table 7, a task's own variables in brackets",
          "[cli][task][paper]") {
    fake::FakeServer server(keyless());
    server.start();
    cli_test::TempDir dir;
    const CliResult result = run_cli({"run",
                                      "--task",
                                      "simple_sentiment,temporal_focus",
                                      "--passages",
                                      LLMV_SOURCE_DIR "/prompts/passages/section4.toml",
                                      "--provider",
                                      "openai",
                                      "--model",
                                      "fake-chat",
                                      "--base-url",
                                      server.base_url() + "/v1",
                                      "--embedding-model",
                                      "fake-embedding",
                                      "--cache",
                                      dir.file("cache.sqlite"),
                                      "-M",
                                      "20",
                                      "-n",
                                      "10",
                                      "--permutations",
                                      "99",
                                      "--quiet",
                                      "--json"});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    std::map<std::string, int> rows_by_column;
    std::istringstream lines(result.out);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty()) continue;
        const nlohmann::json row = nlohmann::json::parse(line);
        ++rows_by_column[row["column"].get<std::string>()];
        CHECK(row["task"].get<std::string>() == row["column"].get<std::string>());
    }
    CHECK(rows_by_column ==
          std::map<std::string, int>{{"simple_sentiment", 5}, {"temporal_focus", 5}});

    const CliResult bad = run_cli({"run", "--task", "topic[topic]", "--passages",
                                   LLMV_SOURCE_DIR "/prompts/passages/section4.toml", "--provider",
                                   "simulated", "--dry-run"});
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("TASK[NAME=VALUE;...]; received `topic`") != std::string::npos);
    // One passage compared across models (issue 42): --text with --models is an overview of
    // one row, a column per model.
    const CliResult one_passage =
        run_cli({"run", "--task", "simple_sentiment", "--text", "Profit fell 40%.", "--id",
                 "profit", "--models", "sim-a,sim-b", "--provider", "simulated", "--quiet"});
    INFO(one_passage.err);
    REQUIRE(one_passage.exit_code == 0);
    CHECK(one_passage.out.find("== sim-a ==") != std::string::npos);
    CHECK(one_passage.out.find("== sim-b ==") != std::string::npos);
    CHECK(one_passage.out.find("Overview: label (verdict) of each passage") != std::string::npos);
    CHECK(one_passage.out.find("profit") != std::string::npos);
}
