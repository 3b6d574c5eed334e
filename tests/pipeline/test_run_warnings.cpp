// Issue 42, item 3: a run that cannot reach a decision (M <= 18 at alpha 0.05: every verdict is
// "inconclusive") says so before its first paid call, through the engine's typed warning
// (RunWarning "cannot_decide"), which the CLI prints on standard error.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_config.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/pipeline.hpp"

using namespace llmv;

namespace {

const pipeline::PassageInput passage = {"p1", "Revenue grew strongly this quarter.", "", {}, ""};

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
    return count;
}

}  // namespace

TEST_CASE("a run whose pool cannot reject warns before its first call", "[warnings]") {
    fake::FakeServer server;
    server.start();
    pipeline::ValidationConfig config = test::fake_config(server, "");  // no cache
    config.m = 10;
    std::vector<pipeline::RunWarning> warnings;
    std::size_t calls_at_warning = 999;
    pipeline::BatchCallbacks callbacks;
    callbacks.on_warning = [&](const pipeline::RunWarning& warning) {
        warnings.push_back(warning);
        if (warning.kind == "cannot_decide") calls_at_warning = server.total_count();
    };
    const pipeline::BatchResult result = pipeline::validate_batch(config, {passage}, callbacks);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings.front().kind == "cannot_decide");
    INFO(warnings.front().text);
    CHECK(warnings.front().text.rfind(
              "The exact validation test cannot reject at \u03b1 = 0.05 with M = 10 pool texts",
              0) == 0);
    CHECK(warnings.front().text.find("M >= 19 is needed") != std::string::npos);
    CHECK(calls_at_warning == 0);  // before the first call
    CHECK(server.count("openai.chat") > 0);
    REQUIRE(result.passages.size() == 1);
    CHECK(result.passages.front().verdict_name == "inconclusive");

    // A size that can decide says nothing.
    warnings.clear();
    config.m = 19;
    (void)pipeline::validate_batch(config, {passage}, callbacks);
    CHECK(warnings.empty());
}

TEST_CASE("the CLI prints the warning of a run that cannot decide, once", "[warnings][cli]") {
    fake::FakeServer server;
    server.start();
    const std::vector<std::string> args = {"run",
                                           "--task",
                                           "simple_sentiment",
                                           "--provider",
                                           "openai",
                                           "--base-url",
                                           server.base_url() + "/v1",
                                           "--model",
                                           "fake-chat",
                                           "--embedding-model",
                                           "fake-embedding",
                                           "-M",
                                           "10",
                                           "-n",
                                           "5",
                                           "--no-cache",
                                           "--quiet",
                                           "--text",
                                           "Revenue grew strongly this quarter."};
    ::setenv("LLMV_API_KEY", server.options().api_key.c_str(), 1);
    const cli_test::CliResult result = cli_test::run_cli(args);
    ::unsetenv("LLMV_API_KEY");
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(occurrences(result.err,
                      "Warning: The exact validation test cannot reject at \u03b1 = "
                      "0.05 with M = 10 pool texts") == 1);
    CHECK(server.count("openai.chat") > 0);
}
