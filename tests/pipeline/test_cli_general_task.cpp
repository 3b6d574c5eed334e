// A general task (prompts/general_sentiment.toml) against the fake provider server: without
// genre it fails before any request, naming genre; with it, every simulation prompt carries
// the description of the user's texts.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"

using namespace llmv;
using cli_test::CliResult;
using cli_test::run_cli;

namespace {

std::vector<std::string> general_run(const fake::FakeServer& server, const std::string& cache) {
    return {"run", "--task", "general_sentiment", "--text", "To the moon, holding forever.",
            "--provider", "openai", "--model", "fake-chat", "--base-url", server.base_url() + "/v1",
            "--embedding-model", "fake-embedding", "--cache", cache, "-M", "8", "-n", "4",
            "--permutations", "99", "--quiet"};
}

fake::FakeServerOptions keyless() {
    fake::FakeServerOptions options;
    options.api_key = "";
    return options;
}

}  // namespace

TEST_CASE("a general task without genre fails before any request and says why", "[cli][task]") {
    fake::FakeServer server(keyless());
    server.start();
    cli_test::TempDir dir;
    const CliResult result = run_cli(general_run(server, dir.file("cache.sqlite")));
    INFO(result.err);
    CHECK(result.exit_code == 3);
    CHECK(result.err.find("\"genre\"") != std::string::npos);
    CHECK(result.err.find("the simulation prompt must describe your texts") != std::string::npos);
    CHECK(server.total_count() == 0);
}

TEST_CASE("a general task with genre puts the description in every simulation prompt", "[cli][task]") {
    fake::FakeServer server(keyless());
    server.start();
    cli_test::TempDir dir;
    std::vector<std::string> args = general_run(server, dir.file("cache.sqlite"));
    args.push_back("--vars");
    args.push_back("genre=comments on a Reddit investing forum");
    const CliResult result = run_cli(args);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    int simulation_prompts = 0;
    for (const fake::ServedAnswer& answer : server.served()) {
        if (answer.endpoint != "openai.chat") continue;
        const nlohmann::json request = nlohmann::json::parse(answer.request_body);
        std::string prompt;
        for (const auto& message : request["messages"])
            if (message["content"].is_string()) prompt += message["content"].get<std::string>();
        if (prompt.find("TASK: Write ") == std::string::npos) continue;
        ++simulation_prompts;
        CHECK(prompt.find("of the following kind: comments on a Reddit investing forum.") !=
              std::string::npos);
    }
    CHECK(simulation_prompts == 3 * 2);  // K = 3 labels, M / n = 2 calls each
}
