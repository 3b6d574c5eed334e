// The portable plugin (stata/portable/): libcurl is loaded at run time. Requests to the fake
// provider server go through the loaded libcurl, also with the fallback for libcurl < 7.66
// (no curl_multi_poll); without libcurl, provider requests stop with rc 677 and a message that
// names the library, while the simulated provider needs no libcurl.
//
// Each test sets its environment before the plugin's first request: CTest runs every test case
// in a process of its own, and the plugin loads libcurl once per process.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fake_server_process.hpp"
#include "fake_stata.hpp"

using namespace host;

#if LLMV_PORTABLE_PLUGIN

namespace {

const std::string kTask = std::string(LLMV_SOURCE_DIR) + "/prompts/simple_sentiment.toml";

void load_passages(Stata& stata) {
    stata.load(LLMV_PLUGIN_PATH);
    REQUIRE(stata.pginit_result == 3);
    stata.clear();
    stata.add_string("text",
                     {"Clients reported record profits in every segment.",
                      "Several clients defaulted on their loans.",
                      "The outlook for the bank's clients remains uncertain."},
                     /*strl=*/true);
    stata.select_all();
}

std::vector<std::string> words() {
    return {"validate", "text=1",      "human=0",  "generate=1",      "m=4",
            "n=2",      "repeats=1",   "alpha=0.05", "threshold=0.9", "seed=5",
            "permutations=49", "concurrency=2", "dryrun=0"};
}

// The three passages validated against `server`, as the ado-file would run them.
RunResult validate_against(Stata& stata, const FakeServerProcess& server) {
    load_passages(stata);
    stata.set_local("llmv_task", kTask);
    set_server_locals(stata, server);
    return run_like_ado(stata, {"text"}, words(), "v_");
}

}  // namespace

TEST_CASE("portable plugin: requests to the fake server through the libcurl loaded at run time",
          "[portable][server]") {
    FakeServerProcess server;
    Stata stata;
    const RunResult r = validate_against(stata, server);
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.scalars.at("N") == 3);
    REQUIRE(r.scalars.at("N_failed") == 0);
    REQUIRE(r.scalars.at("calls") > 0);
    CHECK(server.control("/_control/counters")["total"].get<double>() > 0);
}

TEST_CASE("portable plugin: without curl_multi_poll (libcurl before 7.66) requests still complete",
          "[portable][server]") {
    REQUIRE(setenv("LLMV_CURL_WITHOUT_MULTI_POLL", "1", 1) == 0);
    FakeServerProcess server;
    Stata stata;
    const RunResult r = validate_against(stata, server);
    unsetenv("LLMV_CURL_WITHOUT_MULTI_POLL");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.scalars.at("N") == 3);
    REQUIRE(r.scalars.at("N_failed") == 0);
    REQUIRE(r.scalars.at("calls") > 0);
}

TEST_CASE("portable plugin: without libcurl a provider request stops with rc 677 naming libcurl",
          "[portable][errors]") {
    REQUIRE(setenv("LLMV_LIBCURL", "/nonexistent/libcurl.so.4", 1) == 0);
    FakeServerProcess server;
    Stata stata;
    const RunResult r = validate_against(stata, server);
    INFO(stata.errors << stata.output);
    CHECK(r.rc == 677);
    CHECK(stata.errors.find("libcurl could not be loaded") != std::string::npos);
    CHECK(stata.errors.find("/nonexistent/libcurl.so.4") != std::string::npos);
    CHECK(stata.errors.find("LLMV_LIBCURL") != std::string::npos);
    CHECK(server.control("/_control/counters")["total"] == 0);

    // The simulated provider makes no request, so it runs without libcurl.
    stata.set_local("llmv_provider", "simulated");
    stata.set_local("llmv_base_url", "");
    stata.set_local("llmv_apikey", "");
    stata.errors.clear();
    const RunResult simulated = run_like_ado(stata, {"text"}, words(), "s_");
    INFO(stata.errors << stata.output);
    CHECK(simulated.rc == 0);
    CHECK(simulated.scalars.at("N") == 3);
    unsetenv("LLMV_LIBCURL");
}

#endif  // LLMV_PORTABLE_PLUGIN
