// Each credential goes only to its own vendor's endpoint (issue 10): chat from Anthropic and
// embeddings from OpenAI, both served by the fake provider server on 127.0.0.1, which records
// the headers of every request. The Anthropic key must never reach the OpenAI endpoint, nor
// the OpenAI key the Anthropic one; from the engine's API and from the CLI.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <memory>
#include <vector>
#include <string>

#include "cli/cli_runner.hpp"
#include "cli_process.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/pipeline.hpp"

using namespace llmv;
using llmv::test::ScopedEnv;

namespace {

const char* anthropic_key = "sk-ant-only-for-anthropic";
// The key named for the loopback embedding server (LLMV_EMBEDDING_API_KEY): OPENAI_API_KEY
// itself goes to OpenAI's hosts only (issue 25).
const char* openai_key = "sk-named-for-the-embedding-server";
const char* openai_vendor_key = "sk-openai-never-to-another-host";

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
            CHECK(credentials.find(openai_vendor_key) == std::string::npos);
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

}  // namespace

TEST_CASE("chat from one vendor, embeddings from another: each request carries only its own "
          "vendor's key (engine)",
          "[credentials]") {
    fake::FakeServer server(accept_any_key());
    server.start();
    const ScopedEnv openai("OPENAI_API_KEY", openai_vendor_key);
    const ScopedEnv named("LLMV_EMBEDDING_API_KEY", openai_key);
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
    // ANTHROPIC_API_KEY goes to Anthropic's hosts only (issue 41): the chat server on loopback
    // gets the key named for it, LLMV_API_KEY.
    const ScopedEnv anthropic("ANTHROPIC_API_KEY", "sk-ant-vendor-key-never-to-loopback");
    const ScopedEnv named_chat("LLMV_API_KEY", anthropic_key);
    const ScopedEnv openai("OPENAI_API_KEY", openai_vendor_key);
    const ScopedEnv named("LLMV_EMBEDDING_API_KEY", openai_key);
    const cli_test::CliResult result = cli_test::run_cli(
        {"run", "--task", "simple_sentiment", "--provider", "anthropic", "--model", "fake-claude",
         "--base-url", server.base_url(), "--embedding-provider", "openai", "--embedding-model",
         "fake-embedding", "--embedding-base-url", server.base_url() + "/v1", "-M", "20", "-n",
         "10", "--permutations", "99", "--no-cache", "--quiet",
         "--text", "Revenue grew strongly this quarter."});
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.out.find(anthropic_key) == std::string::npos);
    CHECK(result.err.find("sk-ant-vendor-key-never-to-loopback") == std::string::npos);
    CHECK(result.err.find(openai_key) == std::string::npos);
    CHECK(result.err.find(openai_vendor_key) == std::string::npos);
    check_credentials(server);
}

// Issue 25: OPENAI_API_KEY goes to OpenAI's hosts only. A server of your own (--base-url,
// LLMV_BASE_URL, --embedding-base-url) gets a key only when one is named for it:
// LLMV_API_KEY for the chat server (and its embeddings), LLMV_EMBEDDING_API_KEY for another
// embedding server. Two loopback servers that echo every credential they receive.
namespace {

std::vector<std::string> credentials_seen(const fake::FakeServer& server) {
    std::vector<std::string> seen;
    for (const fake::RecordedRequest& request : server.recorded(100000)) {
        std::string credentials = request.endpoint + ":";
        for (const char* name : {"authorization", "x-api-key", "api-key"}) {
            const auto found = request.headers.find(name);
            if (found != request.headers.end()) credentials += std::string(name) + "=" + found->second;
        }
        seen.push_back(credentials);
    }
    return seen;
}

cli_test::CliResult run_own_servers(const fake::FakeServer& chat, const fake::FakeServer* embeddings,
                                    bool base_url_from_environment) {
    std::vector<std::string> args = {"run", "--task", "simple_sentiment", "--model", "fake-chat",
                                     "--embedding-model", "fake-embedding", "-M", "20", "-n", "10",
                                     "--permutations", "99", "--no-cache", "--quiet",
                                     "--text", "Revenue grew strongly this quarter."};
    if (!base_url_from_environment) {
        args.push_back("--base-url");
        args.push_back(chat.base_url() + "/v1");
    }
    if (embeddings) {
        args.push_back("--embedding-base-url");
        args.push_back(embeddings->base_url() + "/v1");
    }
    return cli_test::run_cli(args);
}

}  // namespace

TEST_CASE("OPENAI_API_KEY never reaches a server of your own, and the key named for it does (CLI)",
          "[credentials][cli]") {
    const bool from_environment = GENERATE(false, true);
    INFO((from_environment ? "LLMV_BASE_URL" : "--base-url"));
    fake::FakeServer chat(accept_any_key());
    chat.start();
    const ScopedEnv openai("OPENAI_API_KEY", openai_vendor_key);
    std::unique_ptr<ScopedEnv> base_url;
    if (from_environment) base_url = std::make_unique<ScopedEnv>("LLMV_BASE_URL", chat.base_url() + "/v1");

    // No key named: no request carries one.
    cli_test::CliResult result = run_own_servers(chat, nullptr, from_environment);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    std::vector<std::string> seen = credentials_seen(chat);
    REQUIRE(!seen.empty());
    for (const std::string& entry : seen) {
        INFO(entry);
        CHECK(entry.find('=') == std::string::npos);
    }

    // LLMV_API_KEY names the chat server's key: every request (chat and its embeddings) carries
    // it, and only it.
    chat.reset_counters();
    const ScopedEnv named("LLMV_API_KEY", "sk-named-for-the-chat-server");
    result = run_own_servers(chat, nullptr, from_environment);
    REQUIRE(result.exit_code == 0);
    seen = credentials_seen(chat);
    REQUIRE(!seen.empty());
    for (const std::string& entry : seen) {
        INFO(entry);
        CHECK(entry.substr(entry.find(':')) == ":authorization=Bearer sk-named-for-the-chat-server");
    }

    // Another embedding server gets neither OPENAI_API_KEY nor the chat server's key: only
    // LLMV_EMBEDDING_API_KEY.
    fake::FakeServer embeddings(accept_any_key());
    embeddings.start();
    chat.reset_counters();
    result = run_own_servers(chat, &embeddings, from_environment);
    REQUIRE(result.exit_code == 0);
    for (const std::string& entry : credentials_seen(embeddings)) {
        INFO(entry);
        CHECK(entry == "openai.embeddings:");
    }
    const ScopedEnv named_embedding("LLMV_EMBEDDING_API_KEY", "sk-named-for-the-embedding-server");
    embeddings.reset_counters();
    result = run_own_servers(chat, &embeddings, from_environment);
    REQUIRE(result.exit_code == 0);
    seen = credentials_seen(embeddings);
    REQUIRE(!seen.empty());
    for (const std::string& entry : seen) {
        INFO(entry);
        CHECK(entry == "openai.embeddings:authorization=Bearer sk-named-for-the-embedding-server");
    }
    CHECK(result.err.find("sk-named") == std::string::npos);
}
