// Issue 39 against the fake provider server serving the vendors' lifecycle fields (its
// lifecycle models: per vendor one retiring 30 days after the server's start, one retired):
// `models` shows the dates; a run on a model retiring in 30 days warns before its first call;
// on a retired one it sends nothing; the day cache answers a second listing without a request;
// a list that cannot be read falls back to the shipped table.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <ctime>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/models.hpp"
#include "llmvalidate/pipeline.hpp"

using namespace llmv;

namespace {

// The date the fake server gives its retiring models: 30 days after now (UTC).
std::string in_30_days() {
    const std::time_t time = std::time(nullptr) + 30 * 24 * 60 * 60;
    std::tm utc{};
    gmtime_r(&time, &utc);
    char buffer[16];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%d", &utc);
    return buffer;
}

fake::FakeServerOptions lifecycle_options() {
    fake::FakeServerOptions options;
    options.lifecycle_models = true;
    return options;
}

// LLMV_MODEL_LIST=always: the fake server's base URL is read as the vendor's list.
struct ListAlways {
    ListAlways() { ::setenv("LLMV_MODEL_LIST", "always", 1); }
    ~ListAlways() { ::unsetenv("LLMV_MODEL_LIST"); }
};

pipeline::ValidationConfig anthropic_config(const fake::FakeServer& server,
                                            const std::string& model) {
    pipeline::ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "anthropic";
    config.model = model;
    config.base_url = server.base_url();
    config.api_key = server.options().api_key;
    config.embedding_provider = "hashed";
    config.m = 20;
    config.n = 10;
    config.concurrency = 4;
    config.tests.permutations = 99;
    return config;
}

const pipeline::PassageInput passage = {"p1", "Revenue grew strongly this quarter.", "", {}, ""};

}  // namespace

TEST_CASE("models shows the shutdown date of an OpenAI and an Anthropic model (CLI)",
          "[lifecycle][cli]") {
    fake::FakeServer server(lifecycle_options());
    server.start();
    ::setenv("ANTHROPIC_API_KEY", server.options().api_key.c_str(), 1);
    // A base URL of your own takes the key named for it (docs/providers.md, "Keys").
    ::setenv("LLMV_API_KEY", server.options().api_key.c_str(), 1);
    cli_test::CliResult openai = cli_test::run_cli(
        {"models", "--provider", "openai", "--base-url", server.base_url() + "/v1"});
    cli_test::CliResult anthropic =
        cli_test::run_cli({"models", "--provider", "anthropic", "--base-url", server.base_url()});
    cli_test::CliResult json = cli_test::run_cli(
        {"models", "--provider", "anthropic", "--base-url", server.base_url(), "--json"});
    ::unsetenv("ANTHROPIC_API_KEY");
    ::unsetenv("LLMV_API_KEY");
    INFO(openai.out << openai.err << anthropic.out << anthropic.err);
    REQUIRE(openai.exit_code == 0);
    REQUIRE(anthropic.exit_code == 0);
    const std::string date = in_30_days();
    CHECK(openai.out.find("fake-chat-retiring  deprecated, retires " + date) != std::string::npos);
    CHECK(openai.out.find("fake-chat-retired  RETIRED") != std::string::npos);
    CHECK(anthropic.out.find("claude-fake-retiring  (Fake claude-fake-retiring)  deprecated, "
                             "retires " +
                             date) != std::string::npos);
    CHECK(anthropic.out.find("claude-fake-retired  (Fake claude-fake-retired)  RETIRED") !=
          std::string::npos);
    // A current model shows no date.
    CHECK(anthropic.out.find("claude-haiku-5-5  (Fake claude-haiku-5-5)  active  DEFAULT chat") !=
          std::string::npos);
    REQUIRE(json.exit_code == 0);
    const nlohmann::json listed = nlohmann::json::parse(json.out);
    bool seen = false;
    for (const auto& model : listed["models"]) {
        if (model["id"] != "claude-fake-retiring") continue;
        seen = true;
        CHECK(model["lifecycle"] == "deprecated");
        CHECK(model["retires"] == date);
        CHECK(model["status"] == "deprecated");
        CHECK(model["lifecycle_source"] == "vendor");
    }
    CHECK(seen);
}

TEST_CASE("a run on a model retiring in 30 days warns before its first call", "[lifecycle]") {
    fake::FakeServer server(lifecycle_options());
    server.start();
    const ListAlways always;
    pipeline::BatchCallbacks callbacks;
    std::vector<std::string> warnings;
    std::size_t messages_at_warning = 999;
    callbacks.on_warning = [&](const pipeline::RunWarning& warning) {
        CHECK(warning.kind == "model_retiring");
        warnings.push_back(warning.text);
        messages_at_warning = server.count("anthropic.messages");
    };
    const pipeline::BatchResult result = pipeline::validate_batch(
        anthropic_config(server, "claude-fake-retiring"), {passage}, callbacks);
    REQUIRE(warnings.size() == 1);
    INFO(warnings.front());
    CHECK(messages_at_warning == 0);  // before the first call
    CHECK(warnings.front().find("Model claude-fake-retiring (anthropic, the `model` setting) "
                                "retires on " +
                                in_30_days() + ", in 30 days") != std::string::npos);
    CHECK(warnings.front().find("the model list of anthropic") != std::string::npos);
    // The run itself goes on.
    REQUIRE(result.passages.size() == 1);
    CHECK(result.passages.front().ok);
    CHECK(server.count("anthropic.messages") > 0);
    CHECK(server.count("anthropic.models") == 1);

    // Its dry run says the same (from the list it may not ask for: the day cache).
    cli_test::TempDir dir;
    pipeline::ValidationConfig config = anthropic_config(server, "claude-fake-retiring");
    config.cache_path = dir.file("cache.sqlite");
    ProviderConfig provider;
    provider.base_url = server.base_url();
    provider.api_key = server.options().api_key;
    (void)pipeline::list_models("anthropic", provider, "", {}, config.cache_path);
    const pipeline::DryRunReport report = pipeline::dry_run(config, {passage});
    bool dry_run_warned = false;
    for (const std::string& warning : report.warnings)
        dry_run_warned |= warning.find("claude-fake-retiring") != std::string::npos;
    CHECK(dry_run_warned);
}

TEST_CASE("a run on a retired model sends nothing: the vendor's list says so", "[lifecycle]") {
    fake::FakeServer server(lifecycle_options());
    server.start();
    const ListAlways always;
    std::string message, error_code;
    try {
        (void)pipeline::validate_batch(anthropic_config(server, "claude-fake-retired"), {passage});
    } catch (const Error& error) {
        message = error.what();
        error_code = error.code();
    }
    INFO(message);
    CHECK(error_code == code::invalid_argument);
    CHECK(message.rfind("`model` must be a model anthropic still serves: this one was retired on ",
                        0) == 0);
    CHECK(message.find("(the model list of anthropic)") != std::string::npos);
    CHECK(server.count("anthropic.messages") == 0);
    CHECK(server.total_count() == server.count("anthropic.models"));

    // OpenAI, at a base URL of its own read as OpenAI's (LLMV_MODEL_LIST=always), from the CLI.
    ::setenv("LLMV_API_KEY", server.options().api_key.c_str(), 1);
    server.reset_counters();
    const cli_test::CliResult result =
        cli_test::run_cli({"run", "--task", "simple_sentiment", "--provider", "openai",
                           "--base-url", server.base_url() + "/v1", "--model", "fake-chat-retired",
                           "--embedding-provider", "hashed", "-M", "20", "-n", "10", "--no-cache",
                           "--quiet", "--text", "Revenue grew strongly this quarter."});
    ::unsetenv("LLMV_API_KEY");
    INFO(result.err);
    CHECK(result.exit_code == 3);
    CHECK(
        result.err.find("`--model` must be a model openai still serves: this one was retired on") !=
        std::string::npos);
    CHECK(server.count("openai.chat") == 0);
    CHECK(server.total_count() == server.count("openai.models"));
}

TEST_CASE("a run on a model retiring in 30 days warns in the CLI, before its first call",
          "[lifecycle][cli]") {
    fake::FakeServer server(lifecycle_options());
    server.start();
    const ListAlways always;
    ::setenv("LLMV_API_KEY", server.options().api_key.c_str(), 1);
    const cli_test::CliResult result =
        cli_test::run_cli({"run", "--task", "simple_sentiment", "--provider", "openai",
                           "--base-url", server.base_url() + "/v1", "--model", "fake-chat-retiring",
                           "--embedding-provider", "hashed", "-M", "20", "-n", "10", "--no-cache",
                           "--quiet", "--text", "Revenue grew strongly this quarter."});
    ::unsetenv("LLMV_API_KEY");
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.err.find("Warning: Model fake-chat-retiring (openai, the `model` setting) retires "
                          "on " +
                          in_30_days()) != std::string::npos);
    CHECK(server.count("openai.chat") > 0);
}

TEST_CASE("the day cache answers a second listing without a request", "[lifecycle]") {
    fake::FakeServer server(lifecycle_options());
    server.start();
    cli_test::TempDir dir;
    const std::string cache = dir.file("cache.sqlite");
    ProviderConfig provider;
    provider.base_url = server.base_url();
    provider.api_key = server.options().api_key;
    const pipeline::ModelList first = pipeline::list_models("anthropic", provider, "", {}, cache);
    const pipeline::ModelList second = pipeline::list_models("anthropic", provider, "", {}, cache);
    CHECK(server.count("anthropic.models") == 1);
    CHECK_FALSE(first.from_cache);
    CHECK(second.from_cache);
    CHECK(second.fetched == first.fetched);
    REQUIRE(second.models.size() == first.models.size());
    CHECK(second.models.back().retires == first.models.back().retires);
    // Without a cache every listing asks.
    (void)pipeline::list_models("anthropic", provider);
    CHECK(server.count("anthropic.models") == 2);

    // Runs on that cache read the list from it: no listing on each start.
    const ListAlways always;
    pipeline::ValidationConfig config = anthropic_config(server, "claude-fake-retiring");
    config.cache_path = cache;
    std::vector<std::string> warnings;
    pipeline::BatchCallbacks callbacks;
    callbacks.on_warning = [&](const pipeline::RunWarning& warning) {
        CHECK(warning.kind == "model_retiring");
        warnings.push_back(warning.text);
    };
    (void)pipeline::validate_batch(config, {passage}, callbacks);
    (void)pipeline::validate_batch(config, {passage}, callbacks);
    CHECK(warnings.size() == 2);
    CHECK(server.count("anthropic.models") == 2);
}

TEST_CASE("a list that cannot be read falls back to the shipped table, and never fails a run",
          "[lifecycle]") {
    fake::FakeServer server(lifecycle_options());
    server.start();
    const ListAlways always;
    // A server without the list (404).
    server.push_faults("anthropic.models", {fake::Fault::http(404)});
    // Retired by the table (Anthropic retired Claude Haiku 3.5 on 2026-02-19): nothing sent.
    std::string message;
    try {
        (void)pipeline::validate_batch(anthropic_config(server, "claude-3-5-haiku-latest"),
                                       {passage});
    } catch (const Error& error) {
        message = error.what();
    }
    INFO(message);
    CHECK(message.find("this one was retired on 2026-02-19 (Anthropic model deprecations page") !=
          std::string::npos);
    CHECK(message.find("the vendor's replacement is claude-haiku-4-5") != std::string::npos);
    CHECK(server.count("anthropic.messages") == 0);
    CHECK(server.count("anthropic.models") == 1);
    // A model the table does not know runs, without a word, though its list could not be read
    // (a server error, not retried before a run).
    server.push_faults("anthropic.models", {fake::Fault::http(500)});
    std::vector<std::string> warnings;
    pipeline::BatchCallbacks callbacks;
    callbacks.on_warning = [&](const pipeline::RunWarning& warning) {
        CHECK(warning.kind == "model_retiring");
        warnings.push_back(warning.text);
    };
    const pipeline::BatchResult result = pipeline::validate_batch(
        anthropic_config(server, "claude-fake-retiring"), {passage}, callbacks);
    INFO((warnings.empty() ? std::string() : warnings.front()));
    CHECK(warnings.empty());
    REQUIRE(result.passages.size() == 1);
    CHECK(result.passages.front().ok);
}
