// Provider, model, key and cache resolution (resolution.hpp), the one copy the run, the dry run
// and every front end use. Issue 10: only the CLI knew default models; a documented default
// ("embedding = NULL takes the chat provider's family") failed in R; an Anthropic key reached
// OpenAI's embeddings endpoint from Stata.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cache/temp_cache_dir.hpp"
#include "cli_process.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/resolution.hpp"

using namespace llmv;
using namespace llmv::pipeline;

namespace {

using Environment = std::map<std::string, std::string>;

ResolvedProviders resolve(ValidationConfig config, const Environment& environment,
                          bool fallback = false) {
    ResolveOptions options;
    options.environment = environment;
    options.allow_synthetic_fallback = fallback;
    return resolve_providers(config, options);
}

ValidationConfig with_provider(const std::string& provider) {
    ValidationConfig config;
    config.provider = provider;
    return config;
}

const ProviderDefaults& row(const std::string& kind, const std::string& provider) {
    for (const ProviderDefaults& entry : provider_defaults()) {
        if (entry.kind == kind && entry.provider == provider) return entry;
    }
    FAIL("no row " << kind << " " << provider);
    throw;
}

std::string error_message(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("auto picks the provider from the environment, in the documented order") {
    const Environment anthropic = {{"ANTHROPIC_API_KEY", "sk-ant"}, {"OPENAI_API_KEY", "sk-oa"}};
    CHECK(resolve(with_provider("auto"), anthropic).chat_provider == "anthropic");
    CHECK(resolve(with_provider("auto"), anthropic).chosen_from == "ANTHROPIC_API_KEY");
    CHECK(resolve(with_provider("auto"), {{"OPENAI_API_KEY", "sk-oa"}}).chat_provider == "openai");
    CHECK(resolve(with_provider("auto"), {{"AWS_BEARER_TOKEN_BEDROCK", "t"}}).chat_provider ==
          "bedrock");
    // An AWS key id alone is not a credential.
    CHECK_THROWS(resolve(with_provider("auto"), {{"AWS_ACCESS_KEY_ID", "a"}}));
    // With its secret it is ("A+B" in the table), and so is a named profile.
    const Environment aws_keys = {{"AWS_ACCESS_KEY_ID", "a"}, {"AWS_SECRET_ACCESS_KEY", "s"}};
    CHECK(resolve(with_provider("auto"), aws_keys).chat_provider == "bedrock");
    CHECK(resolve(with_provider("auto"), aws_keys).chosen_from == "AWS credentials");
    CHECK(resolve(with_provider("auto"), {{"AWS_PROFILE", "research"}}).chat_provider == "bedrock");
    // OpenAI's key outranks AWS credentials.
    CHECK(resolve(with_provider("auto"), {{"OPENAI_API_KEY", "k"}, {"AWS_PROFILE", "p"}})
              .chat_provider == "openai");
    // The order the help and the messages print is the order resolution follows.
    CHECK(auto_sources() == "LLMV_BASE_URL, ANTHROPIC_API_KEY, OPENAI_API_KEY, AWS credentials");
    const std::string none = error_message([] { resolve(with_provider("auto"), {}); });
    CHECK(none.find(
              "one of LLMV_BASE_URL, ANTHROPIC_API_KEY, OPENAI_API_KEY or AWS credentials set") !=
          std::string::npos);
    const auto local =
        resolve(with_provider("auto"), {{"LLMV_BASE_URL", "http://127.0.0.1:8080/v1"},
                                        {"ANTHROPIC_API_KEY", "k"},
                                        {"LLMV_EMBEDDING_MODEL", "embed-x"}});
    CHECK(local.chat_provider == "openai");
    CHECK(local.chat.base_url == "http://127.0.0.1:8080/v1");
    CHECK(local.chat_model == "default");
    CHECK(local.embedding_model == "embed-x");
    CHECK(local.embedding.base_url == "http://127.0.0.1:8080/v1");
}

// Issue 29, item 1: the chat model's name went to the embeddings endpoint of a server of your
// own (`embeddings chat-x`; with LLMV_BASE_URL alone, both as "default").
TEST_CASE("a server of your own without an embedding model stops before any call") {
    const std::string only_url = error_message([] {
        resolve(with_provider("auto"), {{"LLMV_BASE_URL", "http://127.0.0.1:8080/v1"}});
    });
    CHECK(only_url.rfind("`embedding_model` must be the name of the embedding model the server at "
                         "http://127.0.0.1:8080/v1 serves, or LLMV_EMBEDDING_MODEL set",
                         0) == 0);
    ValidationConfig config = with_provider("openai");
    config.base_url = "http://127.0.0.1:11434/v1";
    config.model = "chat-x";
    const std::string named_chat = error_message([&] { resolve(config, {}); });
    CHECK(named_chat.find("chat model is never used for embeddings") != std::string::npos);
    CHECK(named_chat.find("received none") != std::string::npos);
    // Each front end names its own argument.
    try {
        resolve(config, {});
        FAIL("no error");
    } catch (const Error& error) {
        // From what the error carries, not from its sentence.
        CHECK(error.subject().setting == "embedding_model");
        CHECK(error.subject().received == "none");
        CHECK(settings::message(error, settings::FrontEnd::r).rfind("`embedding`", 0) == 0);
        CHECK(settings::message(error, settings::FrontEnd::cli).rfind("`--embedding-model`", 0) ==
              0);
        CHECK(settings::message(error, settings::FrontEnd::stata).rfind("`embmodel()`", 0) == 0);
    }
    config.embedding_model = "embed-y";
    CHECK(resolve(config, {}).embedding_model == "embed-y");
}

// Issue 29: llm_provider_openai() (provider "openai" named) ignored LLMV_BASE_URL.
TEST_CASE("openai named explicitly reads LLMV_BASE_URL as auto does") {
    const Environment environment = {{"LLMV_BASE_URL", "http://127.0.0.1:8081/v1"},
                                     {"LLMV_MODEL", "chat-x"},
                                     {"LLMV_EMBEDDING_MODEL", "embed-x"}};
    const auto resolved = resolve(with_provider("openai"), environment);
    CHECK(resolved.chat.base_url == "http://127.0.0.1:8081/v1");
    CHECK(resolved.chat_model == "chat-x");
    CHECK(resolved.embedding.base_url == "http://127.0.0.1:8081/v1");
    CHECK(resolved.embedding_model == "embed-x");
    ValidationConfig given = with_provider("openai");
    given.base_url = "http://127.0.0.1:8082/v1";  // an explicit URL wins
    CHECK(resolve(given, environment).chat.base_url == "http://127.0.0.1:8082/v1");
    CHECK(resolve(with_provider("openai"), {}).chat.base_url.empty());  // OpenAI's own API
}

TEST_CASE("auto with nothing configured is an error, unless the front end allows the stand-in") {
    const std::string message = error_message([] { resolve(with_provider("auto"), {}); });
    CHECK(message.find("provider") != std::string::npos);
    CHECK(message.find("ANTHROPIC_API_KEY") != std::string::npos);
    CHECK(message.find("\"anthropic\"") != std::string::npos);  // the names, from the table
    const auto fallback = resolve(with_provider("auto"), {}, true);
    CHECK(fallback.synthetic_chat);
    CHECK(fallback.local_embedding);
}

TEST_CASE("every real provider has its default models from the one table") {
    for (const std::string provider : {"openai", "anthropic", "bedrock"}) {
        INFO(provider);
        const Environment environment = {{"OPENAI_API_KEY", "sk-oa"}};
        const auto resolved = resolve(with_provider(provider), environment);
        CHECK(resolved.chat_model == row("chat", provider).model);
        CHECK_FALSE(resolved.chat_model.empty());
        CHECK_FALSE(resolved.embedding_model.empty());
        CHECK(resolved.embedding_model == row("embedding", resolved.embedding_provider).model);
    }
    // An explicit model wins over LLMV_MODEL, which wins over the table.
    ValidationConfig config = with_provider("anthropic");
    config.embedding_provider = "ollama";
    CHECK(resolve(config, {{"LLMV_MODEL", "claude-x"}}).chat_model == "claude-x");
    config.model = "claude-y";
    CHECK(resolve(config, {{"LLMV_MODEL", "claude-x"}}).chat_model == "claude-y");
    CHECK(resolve(config, {}).embedding_model == row("embedding", "ollama").model);
    CHECK(resolve(config, {{"LLMV_EMBEDDING_MODEL", "e5"}}).embedding_model == "e5");
}

TEST_CASE("a server of your own must name its model") {
    ValidationConfig config = with_provider("openai");
    config.base_url = "http://127.0.0.1:9/v1";
    const std::string message = error_message([&] { resolve(config, {}); });
    CHECK(message.find("model") != std::string::npos);
    CHECK(message.find("http://127.0.0.1:9/v1") != std::string::npos);
    config.model = "qwen";
    config.embedding_model = "qwen-embed";
    const auto resolved = resolve(config, {});
    CHECK(resolved.embedding_model == "qwen-embed");
    CHECK(resolved.embedding.base_url == config.base_url);
}

TEST_CASE("each key goes only to its own vendor's endpoint") {
    ValidationConfig config = with_provider("anthropic");
    config.api_key = "sk-ant-secret";
    config.base_url = "http://127.0.0.1:7/anthropic";
    config.embedding_provider = "openai";
    const auto resolved = resolve(config, {});
    CHECK(resolved.chat.api_key == "sk-ant-secret");
    CHECK(resolved.embedding.api_key.empty());   // OpenAI's provider reads OPENAI_API_KEY itself
    CHECK(resolved.embedding.base_url.empty());  // not Anthropic's URL
    config.embedding_api_key = "sk-oa-own";
    CHECK(resolve(config, {}).embedding.api_key == "sk-oa-own");

    // The same vendor shares its key and URL.
    ValidationConfig openai = with_provider("openai");
    openai.api_key = "sk-oa";
    openai.base_url = "http://127.0.0.1:8/v1";
    openai.model = "m";
    openai.embedding_model = "e";
    CHECK(resolve(openai, {}).embedding.api_key == "sk-oa");
    ValidationConfig bedrock = with_provider("bedrock");
    bedrock.api_key = "bearer";
    CHECK(resolve(bedrock, {}).embedding_provider == "bedrock-titan");
    CHECK(resolve(bedrock, {}).embedding.api_key == "bearer");
}

TEST_CASE("a chat provider without embeddings: OpenAI's when its key is set, else an error") {
    CHECK(resolve(with_provider("anthropic"), {{"OPENAI_API_KEY", "k"}}).embedding_provider ==
          "openai");
    const std::string message = error_message([] { resolve(with_provider("anthropic"), {}); });
    CHECK(message.find("embedding_provider") != std::string::npos);
    CHECK(message.find("\"ollama\"") != std::string::npos);
    const auto fallback = resolve(with_provider("anthropic"), {}, true);
    CHECK(fallback.local_embedding);
    CHECK(fallback.synthetic_embedding_reason.find("hashed bag of words") != std::string::npos);
    CHECK(fallback.description().find("SYNTHETIC EMBEDDINGS") != std::string::npos);
}

TEST_CASE("unknown provider names list the registry's names") {
    const std::string chat = error_message([] { resolve(with_provider("gemini"), {}); });
    CHECK(chat.find("\"gemini\"") != std::string::npos);
    CHECK(chat.find("\"bedrock\"") != std::string::npos);
    ValidationConfig config = with_provider("openai");
    config.embedding_provider = "cohere";
    const std::string embedding = error_message([&] { resolve(config, {}); });
    CHECK(embedding.find("\"cohere\"") != std::string::npos);
    CHECK(embedding.find("\"bedrock-titan\"") != std::string::npos);
}

TEST_CASE("resolving the applied configuration again changes nothing") {
    ValidationConfig config = with_provider("auto");
    const Environment environment = {{"OPENAI_API_KEY", "sk"}};
    const auto first = resolve(config, environment);
    apply_resolution(config, first);
    const auto second = resolve(config, environment);
    CHECK(second.chat_provider == first.chat_provider);
    CHECK(second.chat_model == first.chat_model);
    CHECK(second.embedding_provider == first.embedding_provider);
    CHECK(second.embedding_model == first.embedding_model);
}

TEST_CASE("the default cache is the file R's tools::R_user_dir names, unless LLMV_CACHE says") {
    CHECK(default_cache_path(Environment{{"LLMV_CACHE", "/x/c.sqlite"}, {"HOME", "/h"}}) ==
          "/x/c.sqlite");
    CHECK(default_cache_path(Environment{{"R_USER_CACHE_DIR", "/r"}, {"XDG_CACHE_HOME", "/x"}}) ==
          "/r/R/llmvalidate/cache.sqlite");
    CHECK(default_cache_path(Environment{{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}}) ==
          "/x/R/llmvalidate/cache.sqlite");
#if !defined(_WIN32) && !defined(__APPLE__)
    CHECK(default_cache_path(Environment{{"HOME", "/h"}}) ==
          "/h/.cache/R/llmvalidate/cache.sqlite");
#endif
}

// The dry run resolves providers with the run's own code: after a run, it finds every request
// of the same configuration in the cache, for each vendor's protocol (the fake server speaks
// all of them). A dry run that built its keys differently would count them as calls to make.
TEST_CASE("the dry run and the run look up the same cache keys, for every provider", "[dry-run]") {
    struct Pair {
        std::string chat, embedding, chat_path, embedding_path;
    };
    const Pair pair =
        GENERATE(Pair{"openai", "openai", "/v1", "/v1"}, Pair{"anthropic", "openai", "", "/v1"},
                 Pair{"bedrock", "bedrock-titan", "", ""});
    INFO(pair.chat << " with " << pair.embedding);
    fake::FakeServerOptions server_options;
    server_options.api_key = "";  // any key
    fake::FakeServer server(server_options);
    server.start();
    test::TempCacheDir directory("llmv-resolution");
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = pair.chat;
    config.model = "fake-chat";
    config.base_url = server.base_url() + pair.chat_path;
    // Bedrock's bearer token must have the fake server's prefix, as AWS's must.
    config.api_key = pair.chat == "bedrock" ? server.options().bedrock_api_key : "chat-key";
    config.embedding_provider = pair.embedding;
    config.embedding_model =
        pair.embedding == "bedrock-titan" ? "amazon.titan-embed-text-v2:0" : "fake-embedding";
    if (pair.embedding != default_embedding_provider(pair.chat)) {
        config.embedding_base_url = server.base_url() + pair.embedding_path;
        config.embedding_api_key = "embedding-key";
    }
    config.cache_path = directory.cache();
    config.m = 20;
    config.n = 10;
    config.tests.permutations = 99;
    const PassageInput passage{"p", "Revenue grew strongly this quarter.", "", {}, ""};
    const PassageResult result = validate_passage(config, passage);
    INFO(result.error_message);
    REQUIRE(result.ok);
    const std::size_t served = server.total_count();
    const DryRunReport after = dry_run(config, {passage});
    CHECK(after.chat_calls_to_make == 0);
    CHECK(after.texts_to_embed == 0);
    CHECK(after.cached_calls == after.calls.chat_calls);
    CHECK(server.total_count() == served);  // the dry run made no call
}

// Issue 28: one declaration per provider. The secrets R redacts and the batch-API providers
// come from the table's rows.
TEST_CASE("the provider table declares the secrets and the batch APIs") {
    const std::vector<std::string> secrets = secret_variables();
    for (const char* name :
         {"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_BEARER_TOKEN_BEDROCK",
          "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "LLMV_API_KEY", "LLMV_EMBEDDING_API_KEY"}) {
        CHECK(std::count(secrets.begin(), secrets.end(), name) == 1);
    }
    // A key id names a key; it is not a secret.
    CHECK(std::count(secrets.begin(), secrets.end(), "AWS_ACCESS_KEY_ID") == 0);
    CHECK(batch_api_provider_names() == "openai or anthropic");
    ValidationConfig config = with_provider("bedrock");
    config.task_path = "simple_sentiment";
    config.cache_path = "/tmp/llmv-test-batch-api-bedrock.sqlite";
    try {
        validate_with_batch_api(config, {}, {}, {});
        FAIL("no error");
    } catch (const Error& engine) {
        const std::string refused = engine.what();
        INFO(refused);
        CHECK(refused.find(
                  "used only with a chat provider that has a batch API: openai or anthropic") !=
              std::string::npos);
        // Each front end names its own option for the batch API.
        CHECK(
            settings::message(engine, settings::FrontEnd::cli).rfind("`--batch-api` must be", 0) ==
            0);
        CHECK(settings::message(engine, settings::FrontEnd::r).rfind("`batch` must be", 0) == 0);
        CHECK(settings::message(engine, settings::FrontEnd::stata).rfind("`batchapi` must be", 0) ==
              0);
    }
}

// Issue 39: the Bedrock default was the US inference profile, which is callable from US Regions
// only, so a user in eu-west-1 without a model failed at the first call. The default now
// follows the region the requests go to; a model named by the user is never rewritten.
TEST_CASE("Bedrock's default inference profile follows the configured region") {
    const auto model_from = [](const Environment& environment) {
        return resolve(with_provider("bedrock"), environment).chat_model;
    };
    const std::string base = "anthropic.claude-sonnet-4-6";
    CHECK(model_from({}) == "global." + base);  // no region: us-east-1, as the AWS SDKs
    CHECK(model_from({{"AWS_REGION", "eu-west-1"}}) == "global." + base);
    CHECK(model_from({{"AWS_DEFAULT_REGION", "ap-southeast-2"}}) == "global." + base);
    CHECK(model_from({{"AWS_REGION", "us-gov-west-1"}}) == "us-gov." + base);
    // The region of the AWS config file's profile counts too.
    test::TempCacheDir home("llmv-bedrock-region");
    std::filesystem::create_directories(home.path + "/.aws");
    std::ofstream(home.path + "/.aws/config") << "[profile gov]\nregion = us-gov-east-1\n";
    CHECK(model_from({{"HOME", home.path}, {"AWS_PROFILE", "gov"}}) == "us-gov." + base);
    std::filesystem::remove_all(home.path + "/.aws");
    // Named models, geographic profiles and ARNs included, are the user's choice.
    ValidationConfig named = with_provider("bedrock");
    named.model = "eu." + base;
    CHECK(resolve(named, {{"AWS_REGION", "us-gov-west-1"}}).chat_model == "eu." + base);
    CHECK(resolve(with_provider("bedrock"),
                  {{"AWS_REGION", "eu-west-1"}, {"LLMV_MODEL", "us." + base}})
              .chat_model == "us." + base);
}

TEST_CASE("a Bedrock run from eu-west-1 without a model sends the global profile's id") {
    fake::FakeServer server;
    server.start();
    test::TempCacheDir directory("llmv-bedrock-eu");
    test::ScopedEnv region("AWS_REGION", "eu-west-1");
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "bedrock";  // no model: the default
    config.base_url = server.base_url();
    config.api_key = server.options().bedrock_api_key;
    config.embedding_provider = "bedrock-titan";
    config.embedding_model = "amazon.titan-embed-text-v2:0";
    config.cache_path = directory.cache();
    config.m = 20;
    config.n = 10;
    config.tests.permutations = 99;
    const PassageResult result =
        validate_passage(config, {"p", "Revenue grew strongly this quarter.", "", {}, ""});
    INFO(result.error_message);
    REQUIRE(result.ok);
    std::size_t converse = 0;
    for (const fake::RecordedRequest& request : server.recorded(1000)) {
        if (request.path.find("/converse") == std::string::npos) continue;
        ++converse;
        CHECK(request.path == "/model/global.anthropic.claude-sonnet-4-6/converse");
    }
    CHECK(converse > 0);
}
