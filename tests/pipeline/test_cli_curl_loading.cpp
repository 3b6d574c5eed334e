// The CLI loads libcurl on first use (issue 26): `--version`, `--help`, `test` and a dry run
// make no request and load none of libcurl's dependency chain; a run that sends a request
// loads it. Seen through the dynamic loader's own log (LD_DEBUG=libs, on standard error).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"

using namespace llmv;
using cli_test::CliResult;

namespace {

// The command run with the loader logging every library it looks for.
CliResult run_logging_libraries(const std::vector<std::string>& args) {
    ::setenv("LD_DEBUG", "libs", 1);
    CliResult result = cli_test::run_cli(args);
    ::unsetenv("LD_DEBUG");
    return result;
}

bool loads_libcurl(const CliResult& result) {
    return result.err.find("libcurl") != std::string::npos;
}

}  // namespace

TEST_CASE("the CLI loads libcurl only when it sends a request", "[cli][transport]") {
    fake::FakeServerOptions options;
    options.api_key = "";
    fake::FakeServer server(options);
    server.start();
    cli_test::TempDir dir;
    const std::vector<std::string> run = {
        "run", "--task", "simple_sentiment", "--text", "Profit rose.", "--provider", "openai",
        "--model", "fake-chat", "--base-url", server.base_url() + "/v1", "--embedding-model",
        "fake-embedding", "--cache", dir.file("cache.sqlite"), "-M", "4", "-n", "4",
        "--permutations", "19", "--quiet"};

    const std::string example = std::string(LLMV_SOURCE_DIR) + "/examples/test-input.json";
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"--version"}, {"--help"}, {"test", example}}) {
        const CliResult result = run_logging_libraries(args);
        INFO(args.front() << "\n" << result.err.substr(0, 2000));
        CHECK(result.exit_code == 0);
        CHECK(result.err.find("find library=") != std::string::npos);  // the log is there
        CHECK_FALSE(loads_libcurl(result));
    }
    std::vector<std::string> dry_run = run;
    dry_run.push_back("--dry-run");
    const CliResult dry = run_logging_libraries(dry_run);
    INFO(dry.err.substr(0, 2000));
    CHECK(dry.exit_code == 0);
    CHECK_FALSE(loads_libcurl(dry));
    CHECK(server.total_count() == 0);

    // The control: a run that sends requests loads it, at its first request.
    const CliResult sent = run_logging_libraries(run);
    CHECK(sent.exit_code == 0);
    CHECK(loads_libcurl(sent));
    CHECK(server.total_count() > 0);
}
