// Issue 41, item 5: secrets.
// - ANTHROPIC_API_KEY goes to Anthropic's hosts only (anthropic_spec.cpp declares them), as
//   OPENAI_API_KEY goes to OpenAI's: a server at another base URL (--base-url,
//   ANTHROPIC_BASE_URL) gets a key only when one is named for it (LLMV_API_KEY, or the
//   variable option api_key_env names). The fake provider server on loopback records every
//   header it receives.
// - A password inside a base URL (http://user:S3cretPW9@host) appears in no output: standard output
//   and error, the CSV rows (error_message), the cache file.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli_process.hpp"
#include "fake_server/fake_server.hpp"
#include "llm/provider.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/text.hpp"

using namespace llmv;
using llmv::test::ScopedEnv;
using llmv::test::scratch_dir;
using llmv::test::slurp;
using llmv::test::spawn_cli;
using llmv::test::wait_cli;

namespace {

const char* planted = "sk-ant-planted-never-elsewhere";
const char* named = "sk-named-for-this-server";

std::string header(const HttpRequest& request, const std::string& name) {
    for (const auto& [key, value] : request.headers)
        if (key == name) return value;
    return "";
}

HttpRequest anthropic_request(const std::map<std::string, std::string>& environment,
                              const std::string& base_url) {
    ProviderConfig config;
    config.base_url = base_url;
    config.environment = environment;
    const auto provider = make_chat_provider("anthropic", config);
    return provider->build_request(ChatRequest::user_prompt("claude-haiku-5-5", "Hello."));
}

// Every credential header the server received, one string per request.
std::string credentials_received(const fake::FakeServer& server) {
    std::string seen;
    for (const fake::RecordedRequest& request : server.recorded(100000)) {
        seen += request.endpoint + ":";
        for (const char* name : {"authorization", "x-api-key", "api-key"}) {
            const auto found = request.headers.find(name);
            if (found != request.headers.end()) seen += std::string(name) + "=" + found->second;
        }
        seen += "\n";
    }
    return seen;
}

std::string file_bytes(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << file.rdbuf();
    return bytes.str();
}

}  // namespace

TEST_CASE("secrets: the Anthropic provider sends ANTHROPIC_API_KEY to Anthropic's hosts only",
          "[secrets]") {
    const std::map<std::string, std::string> vendor_key = {{"ANTHROPIC_API_KEY", planted}};
    // Its own host (and a subdomain): the vendor key.
    CHECK(header(anthropic_request(vendor_key, ""), "x-api-key") == planted);
    CHECK(header(anthropic_request(vendor_key, "https://api.anthropic.com"), "x-api-key") ==
          planted);
    // Any other base URL: no key unless one is named for it.
    for (const std::string other :
         {"http://127.0.0.1:8080", "https://proxy.example.test", "http://api.anthropic.com",
          "https://api.anthropic.com.evil.test", "https://api.anthropic.com@evil.test"}) {
        INFO(other);
        const HttpRequest request = anthropic_request(vendor_key, other);
        CHECK(header(request, "x-api-key").empty());
        for (const auto& [key, value] : request.headers)
            CHECK(value.find(planted) == std::string::npos);
    }
    // ANTHROPIC_BASE_URL pointing elsewhere is another server too.
    std::map<std::string, std::string> environment = vendor_key;
    environment["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:8080";
    CHECK(header(anthropic_request(environment, ""), "x-api-key").empty());
    // A key named for that server: LLMV_API_KEY.
    environment["LLMV_API_KEY"] = named;
    CHECK(header(anthropic_request(environment, ""), "x-api-key") == named);
    // At Anthropic's own host without its key: the error names the variable.
    CHECK_THROWS_WITH(anthropic_request({}, "https://api.anthropic.com"),
                      Catch::Contains("ANTHROPIC_API_KEY"));
}

TEST_CASE("secrets: ANTHROPIC_API_KEY reaches no non-Anthropic host (CLI, fake server)",
          "[secrets][cli]") {
    fake::FakeServerOptions options;
    options.api_key = "";  // takes any key: the record says which one came
    fake::FakeServer server(options);
    server.start();
    const std::string dir = scratch_dir("llmv-secrets", "anthropic");
    const ScopedEnv vendor("ANTHROPIC_API_KEY", planted);
    const bool with_named_key = GENERATE(false, true);
    INFO("LLMV_API_KEY set: " << with_named_key);
    std::unique_ptr<ScopedEnv> server_key;
    if (with_named_key) server_key = std::make_unique<ScopedEnv>("LLMV_API_KEY", named);
    const llmv::test::Spawned run = spawn_cli({"run",
                                               "--task",
                                               "simple_sentiment",
                                               "--provider",
                                               "anthropic",
                                               "--model",
                                               "fake-claude",
                                               "--base-url",
                                               server.base_url(),
                                               "--embedding-provider",
                                               "openai",
                                               "--embedding-model",
                                               "fake-embedding",
                                               "--embedding-base-url",
                                               server.base_url() + "/v1",
                                               "-M",
                                               "20",
                                               "-n",
                                               "10",
                                               "--permutations",
                                               "99",
                                               "--no-cache",
                                               "--quiet",
                                               "--text",
                                               "Revenue grew strongly this quarter."},
                                              dir);
    const int code = wait_cli(run);
    const std::string seen = credentials_received(server);
    INFO(slurp(run.err) << "\n" << seen);
    CHECK(code == 0);
    CHECK(server.count("anthropic.messages") > 0);
    CHECK(seen.find(planted) == std::string::npos);
    for (const fake::RecordedRequest& request : server.recorded(100000)) {
        if (request.endpoint != "anthropic.messages") continue;
        const auto key = request.headers.find("x-api-key");
        if (with_named_key) {
            REQUIRE(key != request.headers.end());
            CHECK(key->second == named);
        } else {
            CHECK(key == request.headers.end());
        }
    }
}

TEST_CASE("secrets: without_url_credentials() takes the user part out of every URL", "[secrets]") {
    CHECK(text::without_url_credentials("http://user:S3cretPW9@127.0.0.1:8080/v1") ==
          "http://<redacted>@127.0.0.1:8080/v1");
    CHECK(text::without_url_credentials("at https://u:p@a.test/x and http://v:q@b.test.") ==
          "at https://<redacted>@a.test/x and http://<redacted>@b.test.");
    CHECK(text::without_url_credentials("http://127.0.0.1:8080/v1?a=b@c") ==
          "http://127.0.0.1:8080/v1?a=b@c");
    CHECK(text::without_url_credentials("mail me@example.test") == "mail me@example.test");
    const Error error(code::invalid_argument, "the server at http://user:S3cretPW9@host/v1 failed");
    CHECK(std::string(error.what()).find("S3cretPW9") == std::string::npos);
}

TEST_CASE("secrets: user:S3cretPW9@ in a base URL appears in no output, row or cache",
          "[secrets][cli]") {
    fake::FakeServerOptions options;
    options.api_key = "";
    fake::FakeServer server(options);
    server.start();
    const std::string dir = scratch_dir("llmv-secrets", "url");
    {
        std::ofstream input(dir + "/in.csv");
        input << "id,text\n1,Revenue grew strongly this quarter.\n2,Costs rose sharply.\n";
    }
    const std::string with_password =
        "http://user:S3cretPW9@" + server.base_url().substr(std::string("http://").size()) + "/v1";
    const std::string closed_port = "http://user:S3cretPW9@127.0.0.1:1/v1";
    const auto batch = [&](const std::string& base_url, const std::string& name,
                           std::vector<std::string> extra) {
        std::vector<std::string> args = {"batch",
                                         "--task",
                                         "simple_sentiment",
                                         "--input",
                                         dir + "/in.csv",
                                         "--text-column",
                                         "text",
                                         "--id-column",
                                         "id",
                                         "--provider",
                                         "openai",
                                         "--base-url",
                                         base_url,
                                         "--model",
                                         "fake-chat",
                                         "--embedding-provider",
                                         "openai",
                                         "--cache",
                                         dir + "/" + name + ".sqlite",
                                         "-M",
                                         "20",
                                         "-n",
                                         "5",
                                         "--permutations",
                                         "99",
                                         "--max-retries",
                                         "0",
                                         "--quiet",
                                         "--output",
                                         dir + "/" + name + ".csv"};
        args.insert(args.end(), extra.begin(), extra.end());
        const llmv::test::Spawned run = spawn_cli(args, dir);
        const int code = wait_cli(run);
        return std::make_pair(code, slurp(run.out) + slurp(run.err));
    };
    // A run that answers, with a cache; a server that cannot be reached (each row's error);
    // an error before the run (no embedding model: the message names the server); a dry run.
    const auto ok = batch(with_password, "ok", {"--embedding-model", "fake-embedding"});
    const auto unreachable =
        batch(closed_port, "unreachable", {"--embedding-model", "fake-embedding"});
    const auto refused = batch(with_password, "refused", {});
    const auto dry =
        batch(with_password, "dry", {"--embedding-model", "fake-embedding", "--dry-run"});
    INFO(ok.second << "\n" << unreachable.second << "\n" << refused.second << "\n" << dry.second);
    CHECK(ok.first == 0);
    CHECK(server.count("openai.chat") > 0);  // the URL with its password was used
    CHECK(unreachable.first != 0);
    CHECK(refused.first == 3);
    CHECK_THAT(refused.second, Catch::Contains("<redacted>@127.0.0.1"));  // the URL, redacted
    CHECK(dry.first == 0);
    std::vector<std::string> outputs = {ok.second, unreachable.second, refused.second, dry.second};
    for (const char* file : {"ok.csv", "unreachable.csv", "ok.sqlite", "ok.sqlite-wal",
                             "unreachable.sqlite", "unreachable.sqlite-wal"})
        outputs.push_back(file_bytes(dir + "/" + file));
    CHECK(file_bytes(dir + "/unreachable.csv").find("error") != std::string::npos);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        INFO("output " << i);
        CHECK(outputs[i].find("user:S3cretPW9@") == std::string::npos);  // user:PASS@
        CHECK(outputs[i].find("S3cretPW9") == std::string::npos);
    }
}
