// Issue 39 against the fake provider server: a model that refuses forced tool use completes the
// run through the fallback (one extra call, the switch in the run's settings and a warning,
// Anthropic and Bedrock); the rules send no forced tool to a model documented to refuse one; a
// model-level 400 on the first call stops the run with nothing else sent; a reasoning model's
// requests carry its effort and its reasoning tokens are counted.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"

using namespace llmv;
using nlohmann::json;

namespace {

const pipeline::PassageInput passage = {"p1", "Revenue grew strongly this quarter.", "", {}, ""};

pipeline::ValidationConfig config_for(const fake::FakeServer& server, const std::string& provider,
                                      const std::string& model) {
    pipeline::ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = provider;
    config.model = model;
    config.base_url = provider == "openai" ? server.base_url() + "/v1" : server.base_url();
    config.api_key =
        provider == "bedrock" ? server.options().bedrock_api_key : server.options().api_key;
    config.embedding_provider = "hashed";
    config.m = 20;
    config.n = 10;
    config.concurrency = 8;
    config.tests.permutations = 99;
    return config;
}

// Chat requests a model needs for one passage without the fallback: R + K*ceil(M/n) + M (at most
// K*M with every label's pool) ... the count is read from a run that needs no fallback.
std::size_t requests_without_refusal(const std::string& provider, const std::string& model,
                                     const std::string& endpoint) {
    fake::FakeServer server;
    server.start();
    const pipeline::PassageResult result =
        pipeline::validate_passage(config_for(server, provider, model), passage);
    REQUIRE(result.ok);
    return server.count(endpoint);
}

}  // namespace

TEST_CASE("a Claude model that refuses forced tool use completes the run through the fallback",
          "[models][fallback]") {
    // claude-sonnet-4-6 takes a forced tool by the table; this server's copy refuses one, as a
    // model changed by its vendor would (Anthropic's 400 in its own words).
    const std::size_t needed =
        requests_without_refusal("anthropic", "claude-sonnet-4-6", "anthropic.messages");
    fake::FakeServerOptions options;
    options.forced_tool_refused_models = {"claude-sonnet-4-6"};
    fake::FakeServer server(options);
    server.start();
    std::vector<std::string> warnings;
    pipeline::BatchCallbacks callbacks;
    callbacks.on_warning = [&](const pipeline::RunWarning& warning) {
        CHECK(warning.kind == "fallback");
        warnings.push_back(warning.text);
    };
    const pipeline::BatchResult batch = pipeline::validate_batch(
        config_for(server, "anthropic", "claude-sonnet-4-6"), {passage}, callbacks);
    REQUIRE(batch.passages.size() == 1);
    INFO(batch.passages[0].error_message);
    CHECK(batch.passages[0].ok);
    // One extra call: the refused first request, sent again with the JSON-schema output.
    CHECK(server.count("anthropic.messages") == needed + 1);
    REQUIRE(batch.setting_changes.size() == 1);
    CHECK(batch.setting_changes[0].setting == "structured_output");
    CHECK(batch.setting_changes[0].from == "schema (a forced tool)");
    CHECK(batch.setting_changes[0].to == "schema (the API's JSON-schema output)");
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("refused forced tool use") != std::string::npos);
    CHECK(batch.warnings == warnings);
    // Every request after the switch asks for output_config.format, none forces a tool.
    const auto requests = server.recorded(1000);
    std::size_t forced = 0, json_output = 0;
    for (const auto& request : requests) {
        if (request.endpoint != "anthropic.messages") continue;
        const json body = json::parse(request.body);
        forced += body.contains("tool_choice") ? 1 : 0;
        json_output += body.contains("output_config") && body["output_config"].contains("format");
    }
    CHECK(forced == 1);
    CHECK(json_output == needed);

    // With a cache, the switch is remembered: a re-run starts switched, repeats no refused call
    // and reads every answer from the cache.
    cli_test::TempDir dir;
    pipeline::ValidationConfig cached = config_for(server, "anthropic", "claude-sonnet-4-6");
    cached.cache_path = dir.path() + "/cache.sqlite";
    const pipeline::BatchResult first = pipeline::validate_batch(cached, {passage});
    REQUIRE(first.passages.size() == 1);
    CHECK(first.passages[0].ok);
    server.reset_counters();
    const pipeline::BatchResult again = pipeline::validate_batch(cached, {passage});
    REQUIRE(again.passages.size() == 1);
    CHECK(again.passages[0].ok);
    CHECK(server.total_count() == 0);
    REQUIRE(again.setting_changes.size() == 1);
    CHECK(again.setting_changes[0].to == "schema (the API's JSON-schema output)");
    REQUIRE(again.warnings.size() == 1);
    CHECK(again.warnings[0].find("The cache records that a run switched") != std::string::npos);
}

TEST_CASE("Bedrock Converse: a Claude model that refuses toolChoice falls back once too",
          "[models][fallback]") {
    const std::string model = "us.anthropic.claude-sonnet-4-6";
    const std::size_t needed = requests_without_refusal("bedrock", model, "bedrock.converse");
    fake::FakeServerOptions options;
    options.forced_tool_refused_models = {model};
    fake::FakeServer server(options);
    server.start();
    const pipeline::BatchResult batch =
        pipeline::validate_batch(config_for(server, "bedrock", model), {passage});
    REQUIRE(batch.passages.size() == 1);
    INFO(batch.passages[0].error_message);
    CHECK(batch.passages[0].ok);
    CHECK(server.count("bedrock.converse") == needed + 1);
    REQUIRE(batch.setting_changes.size() == 1);
    CHECK(batch.setting_changes[0].to == "schema (the API's JSON-schema output)");
    const json last = json::parse(server.recorded(1).back().body);
    CHECK_FALSE(last.contains("toolConfig"));
    CHECK(last["outputConfig"]["textFormat"]["type"] == "json_schema");
}

TEST_CASE("Claude Sonnet 5.5 is sent no forced tool: its rules ask for JSON-schema output",
          "[models][fallback]") {
    fake::FakeServerOptions options;
    options.forced_tool_refused_models = {"claude-sonnet-5-5"};
    fake::FakeServer server(options);
    server.start();
    const pipeline::BatchResult batch =
        pipeline::validate_batch(config_for(server, "anthropic", "claude-sonnet-5-5"), {passage});
    REQUIRE(batch.passages.size() == 1);
    INFO(batch.passages[0].error_message);
    CHECK(batch.passages[0].ok);
    CHECK(batch.setting_changes.empty());
    const json first = json::parse(server.recorded(1000).front().body);
    CHECK_FALSE(first.contains("tool_choice"));
    CHECK(first["output_config"]["format"]["type"] == "json_schema");
    CHECK(first["output_config"]["effort"] == "low");  // the lowest level it takes
    CHECK_FALSE(first.contains("temperature"));
}

TEST_CASE("a model-level 400 on the first call stops the run with nothing else sent",
          "[models][fallback]") {
    fake::FakeServer server;
    server.start();
    fake::Fault refused = fake::Fault::http(400);
    refused.message = "model: this model is not available for your organization";
    server.push_faults("anthropic.messages", {refused});
    std::string message, error_code;
    try {
        (void)pipeline::validate_batch(config_for(server, "anthropic", "claude-haiku-4-5"),
                                       {passage});
    } catch (const Error& error) {
        message = error.what();
        error_code = error.code();
    }
    INFO(message);
    CHECK(error_code == code::provider_bad_request);
    CHECK(message.find("refused the run's first request") != std::string::npos);
    CHECK(message.find("not available for your organization") != std::string::npos);
    CHECK(server.total_count() == 1);
}

TEST_CASE("a reasoning model: its effort reaches the request, no temperature, reasoning counted",
          "[models][reasoning]") {
    fake::FakeServer server;
    server.start();
    pipeline::ValidationConfig config = config_for(server, "openai", "gpt-6-luna");
    config.max_tokens = 900;
    config.reasoning_effort = "low";
    const pipeline::BatchResult batch = pipeline::validate_batch(config, {passage});
    REQUIRE(batch.passages.size() == 1);
    INFO(batch.passages[0].error_message);
    CHECK(batch.passages[0].ok);
    const json first = json::parse(server.recorded(1000).front().body);
    CHECK(first["reasoning_effort"] == "low");
    CHECK_FALSE(first.contains("temperature"));
    CHECK_FALSE(first.contains("top_p"));
    CHECK_FALSE(first.contains("max_tokens"));
    CHECK(first["max_completion_tokens"] == 900);
    REQUIRE(batch.usage.count("gpt-6-luna") == 1);
    const ModelUsage& usage = batch.usage.at("gpt-6-luna");
    CHECK(usage.reasoning_tokens == 50 * server.count("openai.chat"));
    CHECK(usage.output_tokens > usage.reasoning_tokens);

    // auto: the lowest level it takes, none, which the fake server answers without reasoning.
    config.reasoning_effort = "auto";
    fake::FakeServer second;
    second.start();
    config.base_url = second.base_url() + "/v1";
    const pipeline::BatchResult automatic = pipeline::validate_batch(config, {passage});
    CHECK(json::parse(second.recorded(1).back().body)["reasoning_effort"] == "none");
    CHECK(automatic.usage.at("gpt-6-luna").reasoning_tokens == 0);
}

TEST_CASE("the dry run of a reasoning model includes its reasoning tokens", "[models][reasoning]") {
    fake::FakeServer server;
    server.start();
    pipeline::ValidationConfig config = config_for(server, "openai", "gpt-6-luna");
    config.reasoning_effort = "medium";
    const pipeline::DryRunReport medium = pipeline::dry_run(config, {passage});
    config.reasoning_effort = "none";
    const pipeline::DryRunReport none = pipeline::dry_run(config, {passage});
    CHECK(none.estimated_reasoning_tokens == 0);
    CHECK(medium.estimated_reasoning_tokens == 800 * medium.calls.chat_calls);
    CHECK(medium.estimated_output_tokens - none.estimated_output_tokens ==
          medium.estimated_reasoning_tokens);
    CHECK(medium.note.find("800 reasoning tokens a call") != std::string::npos);
    CHECK(server.total_count() == 0);
}

TEST_CASE("a reasoning effort outside the model's levels is refused before any request (CLI)",
          "[models][reasoning][cli]") {
    fake::FakeServer server;
    server.start();
    ::setenv("ANTHROPIC_API_KEY", server.options().api_key.c_str(), 1);
    const std::vector<std::string> args = {"run",
                                           "--task",
                                           "simple_sentiment",
                                           "--provider",
                                           "anthropic",
                                           "--base-url",
                                           server.base_url(),
                                           "--embedding-provider",
                                           "hashed",
                                           "-M",
                                           "20",
                                           "-n",
                                           "10",
                                           "--no-cache",
                                           "--quiet",
                                           "--model",
                                           "claude-haiku-4-5",
                                           "--reasoning-effort",
                                           "low",
                                           "--text",
                                           "Revenue grew strongly this quarter."};
    const cli_test::CliResult result = cli_test::run_cli(args);
    INFO(result.err);
    CHECK(result.exit_code == 3);
    CHECK(result.err.find("`--reasoning-effort` must be auto for model claude-haiku-4-5") !=
          std::string::npos);
    CHECK(result.err.find("the model takes no reasoning effort") != std::string::npos);
    CHECK(server.total_count() == 0);
}
