// Issue 23 against the fake provider server: a model the vendor does not serve stops the run
// after exactly one request; a setting the model refuses stops it before any (engine and CLI);
// `llmvalidate models` lists the vendor's catalogue with the defaults marked and priced.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/models.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/settings.hpp"

using namespace llmv;

namespace {

pipeline::ValidationConfig anthropic_config(const fake::FakeServer& server,
                                            const std::string& model) {
    pipeline::ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "anthropic";
    config.model = model;
    config.base_url = server.base_url();
    config.api_key = server.options().api_key;
    config.embedding_provider = "openai";
    config.embedding_model = "fake-embedding";
    config.embedding_base_url = server.base_url() + "/v1";
    config.embedding_api_key = server.options().api_key;
    config.m = 20;
    config.n = 10;
    config.concurrency = 8;
    config.tests.permutations = 99;
    return config;
}

const pipeline::PassageInput passage = {"p1", "Revenue grew strongly this quarter.", "", {}, ""};

}  // namespace

TEST_CASE("a model the vendor does not serve stops the run after exactly one request", "[models]") {
    fake::FakeServer server;
    server.start();
    const pipeline::ValidationConfig config = anthropic_config(server, "claude-retired-9");
    std::string message, error_code;
    try {
        (void)pipeline::validate_passage(config, passage);
    } catch (const Error& error) {
        message = error.what();
        error_code = error.code();
    }
    INFO(message);
    CHECK(error_code == code::provider_not_found);
    CHECK(message.find("Model claude-retired-9 is not available at Anthropic") !=
          std::string::npos);
    CHECK(message.find("llmvalidate models --provider anthropic") != std::string::npos);
    CHECK(message.find("model: claude-retired-9") != std::string::npos);
    CHECK(server.total_count() == 1);  // nothing else sent, nothing else paid
    CHECK(server.count("anthropic.messages") == 1);

    // Each front end is pointed at its own way to list the models (issue 40: R printed the
    // command line's).
    const std::vector<std::pair<settings::FrontEnd, std::string>> pointers = {
        {settings::FrontEnd::cli,
         "`llmvalidate models --provider anthropic` and name one with "
         "`--model`"},
        {settings::FrontEnd::r, "`llm_models(\"anthropic\")` and name one with `model`"},
        {settings::FrontEnd::stata,
         "`llmvalidate models, provider(anthropic)` and name one with `model()`"}};
    for (const auto& [front_end, pointer] : pointers) {
        pipeline::ValidationConfig spelled = config;
        spelled.messages_for = front_end;
        std::string said;
        try {
            (void)pipeline::validate_passage(spelled, passage);
        } catch (const Error& error) {
            said = error.what();
        }
        INFO(said);
        CHECK(said.find(pointer) != std::string::npos);
        if (front_end != settings::FrontEnd::cli)
            CHECK(said.find("llmvalidate models --provider") == std::string::npos);
    }
}

TEST_CASE("a model past its end of life on Bedrock stops the run after one request too",
          "[models]") {
    fake::FakeServer server;
    server.start();
    pipeline::ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "bedrock";
    config.model = "anthropic.claude-retired-v1:0";
    config.base_url = server.base_url();
    config.api_key = server.options().bedrock_api_key;
    config.embedding_provider = "bedrock-titan";
    config.embedding_model = "amazon.titan-embed-text-v2:0";
    config.m = 20;
    config.n = 10;
    config.concurrency = 8;
    std::string message;
    try {
        (void)pipeline::validate_passage(config, passage);
    } catch (const Error& error) {
        message = error.what();
    }
    CHECK(message.find("not available at Amazon Bedrock in this region") != std::string::npos);
    CHECK(message.find("end of its life") != std::string::npos);
    // One Converse call (the embeddings, another model, have their own first request).
    CHECK(server.count("bedrock.converse") == 1);
}

TEST_CASE("a current model runs as before: the first request alone, then the rest", "[models]") {
    fake::FakeServer server;
    server.start();
    const pipeline::PassageResult result =
        pipeline::validate_passage(anthropic_config(server, "claude-haiku-4-5"), passage);
    INFO(result.error_message);
    CHECK(result.ok);
    CHECK(server.count("anthropic.messages") > 1);
}

TEST_CASE("a temperature of 0.7 with a model that takes only 1 is refused before any request (CLI)",
          "[models][cli]") {
    fake::FakeServer server;
    server.start();
    ::setenv("ANTHROPIC_API_KEY", server.options().api_key.c_str(), 1);
    // ANTHROPIC_API_KEY goes to Anthropic's hosts only: the server on loopback gets the key
    // named for it (docs/providers.md, "Keys").
    ::setenv("LLMV_API_KEY", server.options().api_key.c_str(), 1);
    const std::vector<std::string> common = {"run",
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
                                             "--text",
                                             "Revenue grew strongly this quarter."};
    std::vector<std::string> args = common;
    for (const char* extra : {"--model", "claude-opus-4-8", "--temperature", "0.7"})
        args.push_back(extra);
    cli_test::CliResult result = cli_test::run_cli(args);
    CHECK(result.exit_code == 3);
    CHECK(result.err.find("`--temperature` must be 1 only for model claude-opus-4-8") !=
          std::string::npos);
    CHECK(result.err.find("received 0.7") != std::string::npos);
    CHECK(server.total_count() == 0);

    // A retired model: refused before any request, with its replacement.
    args = common;
    for (const char* extra : {"--model", "claude-3-5-haiku-latest"}) args.push_back(extra);
    result = cli_test::run_cli(args);
    CHECK(result.exit_code == 3);
    CHECK(result.err.find("`--model` must be a model anthropic still serves") != std::string::npos);
    CHECK(result.err.find("claude-haiku-4-5") != std::string::npos);
    CHECK(server.total_count() == 0);

    // An unknown model: the run stops at its first request.
    args = common;
    for (const char* extra : {"--model", "claude-retired-9"}) args.push_back(extra);
    result = cli_test::run_cli(args);
    INFO(result.err);
    CHECK(result.exit_code != 0);
    CHECK(result.err.find("Model claude-retired-9 is not available at Anthropic") !=
          std::string::npos);
    CHECK(server.total_count() == 1);
    ::unsetenv("ANTHROPIC_API_KEY");
    ::unsetenv("LLMV_API_KEY");
}

TEST_CASE(
    "llmvalidate models lists the vendor's catalogue, marks the defaults, says which are priced",
    "[models][cli]") {
    fake::FakeServer server;
    server.start();
    ::setenv("ANTHROPIC_API_KEY", server.options().api_key.c_str(), 1);
    // ANTHROPIC_API_KEY goes to Anthropic's hosts only: the server on loopback gets the key
    // named for it (docs/providers.md, "Keys").
    ::setenv("LLMV_API_KEY", server.options().api_key.c_str(), 1);
    cli_test::CliResult result = cli_test::run_cli(
        {"models", "--provider", "anthropic", "--base-url", server.base_url(), "--json"});
    ::unsetenv("ANTHROPIC_API_KEY");
    ::unsetenv("LLMV_API_KEY");
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const nlohmann::json listed = nlohmann::json::parse(result.out);
    CHECK(listed["provider"] == "anthropic");
    std::vector<std::string> ids;
    for (const auto& model : listed["models"]) {
        ids.push_back(model["id"]);
        if (model["id"] == "claude-haiku-5-5") {
            CHECK(model["default_for"] == "chat");
            CHECK(model["priced"] == true);
            CHECK(model["name"] == "Fake claude-haiku-5-5");
        }
        if (model["id"] == "claude-opus-4-8") CHECK(model["default_for"] == "");
    }
    CHECK(ids ==
          std::vector<std::string>{"claude-haiku-5-5", "claude-sonnet-4-6", "claude-opus-4-8"});
    CHECK(server.count("anthropic.models") == 1);

    // Bedrock: foundation models and inference profiles, signed like every Bedrock request.
    // AWS credentials go to AWS's hosts only: the server on loopback gets the key named for it.
    ::setenv("AWS_BEARER_TOKEN_BEDROCK", "aws-token-never-to-loopback", 1);
    ::setenv("LLMV_API_KEY", server.options().bedrock_api_key.c_str(), 1);
    result =
        cli_test::run_cli({"models", "--provider", "bedrock", "--base-url", server.base_url()});
    ::unsetenv("AWS_BEARER_TOKEN_BEDROCK");
    ::unsetenv("LLMV_API_KEY");
    INFO(result.out);
    REQUIRE(result.exit_code == 0);
    CHECK(result.out.find(
              "global.anthropic.claude-sonnet-4-6  (Fake global.anthropic.claude-sonnet-4-6)  "
              "[inference profile]  ACTIVE  DEFAULT chat  priced") != std::string::npos);
    CHECK(result.out.find(
              "amazon.titan-embed-text-v2:0  (Fake amazon.titan-embed-text-v2:0)  ACTIVE  "
              "DEFAULT embedding  priced") != std::string::npos);
    CHECK(result.out.find("meta.llama3-8b-instruct-v1:0") != std::string::npos);
    CHECK(server.count("bedrock.models") == 2);

    // OpenAI, from the engine's API.
    ProviderConfig config;
    config.base_url = server.base_url() + "/v1";
    config.api_key = server.options().api_key;
    const pipeline::ModelList openai = pipeline::list_models("openai", config);
    REQUIRE(openai.models.size() == 4);
    CHECK(openai.models[2].id == "gpt-6-luna");
    CHECK(openai.models[2].default_for == "chat");
    CHECK(openai.models[3].default_for == "embedding");
    CHECK_FALSE(openai.models[0].priced);  // fake-chat has no price

    // A vendor without a list: the error names the option and the vendors that have one.
    result = cli_test::run_cli({"models", "--provider", "ollama"});
    CHECK(result.exit_code == 3);
    CHECK(result.err.find("`--provider` must be a vendor with a model list") != std::string::npos);
    CHECK(result.err.find(R"("openai", "anthropic" or "bedrock")") != std::string::npos);
}

TEST_CASE("the vendors with a model list are one list: the engine's, the CLI's help and message",
          "[models]") {
    const std::vector<std::string>& vendors = pipeline::model_list_vendors();
    REQUIRE(vendors == std::vector<std::string>{"openai", "anthropic", "bedrock"});
    CHECK(pipeline::model_list_vendors_text() == "openai, anthropic or bedrock");
    // The CLI names them in its usage, its help and the message for a missing --provider.
    const auto missing = cli_test::run_cli({"models"});
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find("is required: openai, anthropic or bedrock.") != std::string::npos);
    const auto help = cli_test::run_cli({"models", "--help"});
    CHECK(help.out.find("--provider openai|anthropic|bedrock") != std::string::npos);
    CHECK(help.out.find("The vendor: openai, anthropic or bedrock.") != std::string::npos);
}
