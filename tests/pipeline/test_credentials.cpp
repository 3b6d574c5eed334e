// Each credential goes only to its own vendor's endpoint (issue 10): chat from Anthropic and
// embeddings from OpenAI, both served by the fake provider server on 127.0.0.1, which records
// the headers of every request. The Anthropic key must never reach the OpenAI endpoint, nor
// the OpenAI key the Anthropic one; from the engine's API and from the CLI.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/pipeline.hpp"

using namespace llmv;

namespace {

const char* anthropic_key = "sk-ant-only-for-anthropic";
const char* openai_key = "sk-openai-only-for-openai";

// Every request saw only its vendor's key, and each endpoint was called.
void check_credentials(const fake::FakeServer& server) {
    std::size_t chat = 0, embeddings = 0;
    for (const fake::RecordedRequest& request : server.recorded(100000)) {
        std::string credentials;
        for (const char* name : {"authorization", "x-api-key", "api-key"}) {
            const auto found = request.headers.find(name);
            if (found != request.headers.end()) credentials += std::string(name) + "=" + found->second + ";";
        }
        INFO(request.endpoint << ": " << credentials);
        if (request.endpoint == "anthropic.messages") {
            ++chat;
            CHECK(credentials == std::string("x-api-key=") + anthropic_key + ";");
        } else if (request.endpoint == "openai.embeddings") {
            ++embeddings;
            CHECK(credentials == std::string("authorization=Bearer ") + openai_key + ";");
        } else {
            FAIL("unexpected endpoint " << request.endpoint);
        }
    }
    CHECK(chat > 0);
    CHECK(embeddings > 0);
}

// The server takes any key: the tests check, from its record, which key each endpoint got.
fake::FakeServerOptions accept_any_key() {
    fake::FakeServerOptions options;
    options.api_key = "";
    return options;
}

struct ScopedEnv {
    std::string name;
    ScopedEnv(const std::string& variable, const std::string& value) : name(variable) {
        ::setenv(name.c_str(), value.c_str(), 1);
    }
    ~ScopedEnv() { ::unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("chat from one vendor, embeddings from another: each request carries only its own "
          "vendor's key (engine)",
          "[credentials]") {
    fake::FakeServer server(accept_any_key());
    server.start();
    const ScopedEnv openai("OPENAI_API_KEY", openai_key);
    pipeline::ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "anthropic";
    config.model = "fake-claude";
    config.base_url = server.base_url();
    config.api_key = anthropic_key;  // what Stata's ado passes: the chat provider's key
    config.embedding_provider = "openai";
    config.embedding_model = "fake-embedding";
    config.embedding_base_url = server.base_url() + "/v1";
    config.m = 20;
    config.n = 10;
    config.tests.permutations = 99;
    const pipeline::PassageResult result =
        pipeline::validate_passage(config, {"p1", "Revenue grew strongly this quarter.", "", {}, ""});
    INFO(result.error_message);
    CHECK(result.ok);
    check_credentials(server);
}

TEST_CASE("chat from one vendor, embeddings from another: each request carries only its own "
          "vendor's key (CLI)",
          "[credentials][cli]") {
    fake::FakeServer server(accept_any_key());
    server.start();
    const ScopedEnv anthropic("ANTHROPIC_API_KEY", anthropic_key);
    const ScopedEnv openai("OPENAI_API_KEY", openai_key);
    const cli_test::CliResult result = cli_test::run_cli(
        {"run", "--task", "simple_sentiment", "--provider", "anthropic", "--model", "fake-claude",
         "--base-url", server.base_url(), "--embedding-provider", "openai", "--embedding-model",
         "fake-embedding", "--embedding-base-url", server.base_url() + "/v1", "-M", "20", "-n",
         "10", "--permutations", "99", "--no-cache", "--quiet",
         "--text", "Revenue grew strongly this quarter."});
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.out.find(anthropic_key) == std::string::npos);
    CHECK(result.err.find(openai_key) == std::string::npos);
    check_credentials(server);
}
