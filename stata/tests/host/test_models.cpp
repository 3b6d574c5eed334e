// `llmvalidate models, provider()` (issue 23): the vendor's own list of models, read from its API
// by the engine, against the fake provider server on 127.0.0.1 (its catalogue: three Anthropic
// models, among them the engine's default claude-haiku-5-5). r() holds the ids in the vendor's
// order, the defaults, the priced ones and the matrix r(catalogue); keyenv() naming an unset
// variable and an unknown provider are refused in Stata's terms before any request.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "fake_server_process.hpp"
#include "fake_stata.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

void models_locals(Stata& stata, const std::string& provider, const std::string& base_url) {
    stata.clear();
    stata.set_local("llmv_provider", provider);
    stata.set_local("llmv_base_url", base_url);
    stata.set_local("llmv_apikey", "");
    stata.set_local("llmv_keyenv", "");
    stata.set_local("llmv_price_table", std::string(LLMV_SOURCE_DIR) + "/prompts/prices.csv");
}

}  // namespace

TEST_CASE("models: the vendor's list from its API, defaults and prices marked, in r()",
          "[models][server]") {
    FakeServerProcess server;
    ::setenv("ANTHROPIC_API_KEY", "sk-host-secret", 1);
    // ANTHROPIC_API_KEY goes to Anthropic's hosts only: the server on loopback gets the key
    // named for it (docs/providers.md, "Keys").
    ::setenv("LLMV_API_KEY", "sk-host-secret", 1);
    Stata stata;
    load_plugin(stata);
    models_locals(stata, "anthropic", server.root_url());
    const RunResult r = run_like_ado(stata, {}, {"models", "quiet=0"}, "");
    ::unsetenv("ANTHROPIC_API_KEY");
    ::unsetenv("LLMV_API_KEY");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.store_rc == 0);
    // The fake server's Anthropic models, in its order.
    CHECK(r.macros.at("ids") ==
          "`\"claude-haiku-5-5\"' `\"claude-sonnet-4-6\"' `\"claude-opus-4-8\"'");
    CHECK(r.scalars.at("N") == 3);
    CHECK(r.macros.at("provider") == "anthropic");
    CHECK(r.macros.at("chat_default") == "claude-haiku-5-5");
    CHECK(r.macros.at("embedding_default").empty());  // Anthropic has no embedding model
    const Matrix& catalogue = r.matrices.at("catalogue");
    REQUIRE(catalogue.rows == 3);
    REQUIRE(catalogue.cols == 5);
    CHECK(r.matrix_colnames.at("catalogue") ==
          std::vector<std::string>{"default", "priced", "profile", "lifecycle", "retires"});
    CHECK(catalogue.at(1, 1) == 1);  // the default chat model
    CHECK(catalogue.at(2, 1) == 0);
    CHECK(catalogue.at(1, 3) == 0);  // models, not inference profiles
    // r(priced) and the matrix's column agree, and the default model has a price.
    CHECK(catalogue.at(1, 2) == 1);
    double priced = 0;
    for (int row = 1; row <= 3; ++row) priced += catalogue.at(row, 2);
    CHECK(r.scalars.at("N_priced") == priced);
    CHECK(r.macros.at("priced").find("claude-haiku-5-5") != std::string::npos);
    // The listing on screen, and one request (no tokens).
    CHECK(stata.output.find("Models of") != std::string::npos);
    CHECK(stata.output.find("default chat") != std::string::npos);
    CHECK(server.control("/_control/counters").value("total", -1) == 1);
    CHECK(stata.output.find("sk-host-secret") == std::string::npos);
}

TEST_CASE("models: keyenv() naming an unset variable and an unknown provider are refused first",
          "[models][server][errors]") {
    FakeServerProcess server;
    Stata stata;
    load_plugin(stata);

    models_locals(stata, "anthropic", server.root_url());
    ::unsetenv("LLMV_HOST_UNSET_KEY");
    stata.set_local("llmv_keyenv", "LLMV_HOST_UNSET_KEY");
    const RunResult unset = run_like_ado(stata, {}, {"models", "quiet=1"}, "");
    INFO(stata.errors);
    CHECK(unset.rc == 198);
    CHECK(stata.errors.find("option keyenv(LLMV_HOST_UNSET_KEY)") != std::string::npos);

    stata.errors.clear();
    models_locals(stata, "mistral", server.root_url());
    const RunResult unknown = run_like_ado(stata, {}, {"models", "quiet=1"}, "");
    INFO(stata.errors);
    CHECK(unknown.rc != 0);
    CHECK(stata.errors.find("mistral") != std::string::npos);
    CHECK(stata.errors.find("anthropic") != std::string::npos);  // what is allowed

    stata.errors.clear();
    models_locals(stata, "", server.root_url());
    const RunResult missing_provider = run_like_ado(stata, {}, {"models", "quiet=1"}, "");
    CHECK(missing_provider.rc == 198);
    CHECK(stata.errors.find("option provider() is required") != std::string::npos);
    CHECK(server.control("/_control/counters").value("total", -1) == 0);
}
