// Issue 23 from Stata: a model the vendor has retired is refused before any call, naming
// model(); a model the vendor does not serve stops the command after exactly one request.
// Against the fake provider server on 127.0.0.1 (Anthropic's Messages protocol).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fake_server_process.hpp"
#include "fake_stata.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

void anthropic_run(Stata& stata, const FakeServerProcess& server, const std::string& model) {
    stata.clear();
    stata.add_string("text", {"Revenue grew strongly this quarter.", "Clients defaulted on their loans."},
                     /*strl=*/true);
    stata.select_all();
    stata.set_local("llmv_task", std::string(LLMV_SOURCE_DIR) + "/prompts/simple_sentiment.toml");
    stata.set_local("llmv_provider", "anthropic");
    stata.set_local("llmv_model", model);
    stata.set_local("llmv_embedding", "openai");
    stata.set_local("llmv_embedding_model", "fake-embed");
    stata.set_local("llmv_base_url", server.root_url());
    stata.set_local("llmv_embedding_base_url", server.base_url());
    stata.set_local("llmv_apikey", "sk-host-secret");
    stata.set_local("llmv_cache", "");
}

const std::vector<std::string> validate_words = {
    "validate", "text=1", "human=0", "generate=1", "m=6", "n=3", "repeats=1", "alpha=0.05",
    "threshold=0.9", "seed=11", "permutations=99", "concurrency=4", "dryrun=0"};

}  // namespace

TEST_CASE("validate: a retired model is refused before any call, naming model()", "[validate][models]") {
    FakeServerProcess server;
    ::setenv("OPENAI_API_KEY", "sk-host-secret", 1);
    Stata stata;
    load_plugin(stata);
    anthropic_run(stata, server, "claude-3-5-haiku-latest");
    const RunResult r = run_like_ado(stata, {"text"}, validate_words, "v_");
    INFO(stata.errors << stata.output);
    CHECK(r.rc == 198);
    CHECK(stata.errors.find("`model()` must be a model anthropic still serves") != std::string::npos);
    CHECK(stata.errors.find("claude-haiku-4-5") != std::string::npos);
    CHECK(server.control("/_control/counters").value("total", -1) == 0);

    // temperature(0.7) with a model that takes only 1 (issue 23): refused before any call too.
    anthropic_run(stata, server, "claude-opus-4-8");
    stata.errors.clear();
    std::vector<std::string> warm = validate_words;
    warm.push_back("temperature=0.7");
    const RunResult refused = run_like_ado(stata, {"text"}, warm, "t_");
    INFO(stata.errors << stata.output);
    CHECK(refused.rc == 198);
    CHECK(stata.errors.find("`temperature()` must be 1 only for model claude-opus-4-8") !=
          std::string::npos);
    CHECK(stata.errors.find("received 0.7") != std::string::npos);
    CHECK(server.control("/_control/counters").value("total", -1) == 0);

    // A model the vendor does not serve: one request, then the command stops.
    anthropic_run(stata, server, "claude-retired-9");
    stata.errors.clear();
    const RunResult stopped = run_like_ado(stata, {"text"}, validate_words, "w_");
    ::unsetenv("OPENAI_API_KEY");
    INFO(stata.errors << stata.output);
    CHECK(stopped.rc != 0);
    CHECK(stata.errors.find("Model claude-retired-9 is not available at Anthropic") != std::string::npos);
    CHECK(server.control("/_control/counters").value("total", -1) == 1);
}
