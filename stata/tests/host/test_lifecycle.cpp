// Issue 39 from Stata, against the fake provider server serving the vendors' lifecycle fields
// (--lifecycle-models 1: per vendor a model retiring 30 days after the server's start and a
// retired one): `llmvalidate models` returns each model's lifecycle and retirement date in r();
// a run on the model retiring in 30 days warns before its first call; on the retired one it
// sends nothing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "fake_server_process.hpp"
#include "fake_stata.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

std::string in_30_days() {
    const std::time_t time = std::time(nullptr) + 30 * 24 * 60 * 60;
    std::tm utc{};
    gmtime_r(&time, &utc);
    char buffer[16];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%d", &utc);
    return buffer;
}

void anthropic_run(Stata& stata, const FakeServerProcess& server, const std::string& model) {
    stata.clear();
    stata.add_string("text", {"Revenue grew strongly this quarter."}, /*strl=*/true);
    stata.select_all();
    stata.set_local("llmv_task", std::string(LLMV_SOURCE_DIR) + "/prompts/simple_sentiment.toml");
    stata.set_local("llmv_provider", "anthropic");
    stata.set_local("llmv_model", model);
    stata.set_local("llmv_embedding", "simulated");
    stata.set_local("llmv_base_url", server.root_url());
    stata.set_local("llmv_apikey", "sk-host-secret");
    stata.set_local("llmv_cache", "");
}

const std::vector<std::string> validate_words = {
    "validate",      "text=1",  "human=0",         "generate=1",
    "m=6",           "n=3",     "repeats=1",       "alpha=0.05",
    "threshold=0.9", "seed=11", "permutations=99", "concurrency=4",
    "dryrun=0"};

int counter(const FakeServerProcess& server, const char* endpoint) {
    return server.control("/_control/counters").value(endpoint, 0);
}

}  // namespace

TEST_CASE("models: each model's lifecycle and retirement date in r()",
          "[models][server][lifecycle]") {
    FakeServerProcess server({"--api-key", "sk-host-secret", "--lifecycle-models", "1"});
    ::setenv("ANTHROPIC_API_KEY", "sk-host-secret", 1);
    // ANTHROPIC_API_KEY goes to Anthropic's hosts only: the server on loopback gets the key
    // named for it (docs/providers.md, "Keys").
    ::setenv("LLMV_API_KEY", "sk-host-secret", 1);
    Stata stata;
    load_plugin(stata);
    stata.clear();
    stata.set_local("llmv_provider", "anthropic");
    stata.set_local("llmv_base_url", server.root_url());
    stata.set_local("llmv_apikey", "");
    stata.set_local("llmv_keyenv", "");
    stata.set_local("llmv_price_table", std::string(LLMV_SOURCE_DIR) + "/prompts/prices.csv");
    const RunResult r = run_like_ado(stata, {}, {"models", "quiet=0"}, "");
    ::unsetenv("ANTHROPIC_API_KEY");
    ::unsetenv("LLMV_API_KEY");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.store_rc == 0);
    CHECK(r.macros.at("ids") ==
          "`\"claude-haiku-5-5\"' `\"claude-sonnet-4-6\"' `\"claude-opus-4-8\"' "
          "`\"claude-fake-retiring\"' `\"claude-fake-retired\"'");
    const std::string date = in_30_days();
    CHECK(r.macros.at("retires").find(". . . " + date + " ") == 0);
    CHECK(std::count(r.macros.at("retires").begin(), r.macros.at("retires").end(), ' ') == 4);
    CHECK(r.macros.at("deprecated") == "`\"claude-fake-retiring\"'");
    CHECK(r.macros.at("retired") == "`\"claude-fake-retired\"'");
    CHECK(r.scalars.at("N_deprecated") == 1);
    CHECK(r.scalars.at("N_retired") == 1);
    const Matrix& catalogue = r.matrices.at("catalogue");
    REQUIRE(catalogue.rows == 5);
    CHECK(catalogue.at(4, 4) == 1);  // deprecated
    CHECK(catalogue.at(5, 4) == 2);  // retired
    CHECK(catalogue.at(1, 4) == 0);
    // The retirement date as a Stata date: days since 01jan1960.
    const double today_stata =
        static_cast<double>(std::time(nullptr) / (24 * 60 * 60)) + 3653;  // 1970 is day 3653
    CHECK(catalogue.at(4, 5) == today_stata + 30);
    CHECK(stata.output.find("deprecated, retires " + date) != std::string::npos);
}

TEST_CASE(
    "validate: a model retiring in 30 days warns before its first call, and a retired one sends "
    "nothing",
    "[validate][server][lifecycle]") {
    FakeServerProcess server({"--api-key", "sk-host-secret", "--lifecycle-models", "1"});
    ::setenv("LLMV_MODEL_LIST", "always", 1);  // the fake server's base URL as Anthropic's list
    Stata stata;
    load_plugin(stata);
    anthropic_run(stata, server, "claude-fake-retiring");
    const RunResult r = run_like_ado(stata, {"text"}, validate_words, "v_");
    INFO(stata.errors << stata.output);
    CHECK(r.rc == 0);
    const std::string warning =
        "Warning: Model claude-fake-retiring (anthropic, the `model` setting) retires on " +
        in_30_days();
    const auto warned_at = stata.output.find(warning);
    CHECK(warned_at != std::string::npos);
    CHECK(counter(server, "anthropic.messages") > 0);

    anthropic_run(stata, server, "claude-fake-retired");
    stata.errors.clear();
    stata.output.clear();
    server.control("/_control/reset", "{}");
    const RunResult refused = run_like_ado(stata, {"text"}, validate_words, "w_");
    ::unsetenv("LLMV_MODEL_LIST");
    INFO(stata.errors << stata.output);
    CHECK(refused.rc == 198);
    CHECK(stata.errors.find("`model()` must be a model anthropic still serves: this one was "
                            "retired on") != std::string::npos);
    CHECK(counter(server, "anthropic.messages") == 0);
    CHECK(counter(server, "total") == counter(server, "anthropic.models"));
}
