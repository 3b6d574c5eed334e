// Issue 28: a provider is declared once. A throwaway provider, "acme" (a vendor that speaks the
// OpenAI-compatible chat protocol, with its own key variable, no embeddings and no batch API),
// is added as a real one is: its factory in the registry and one row of the provider table,
// here at run time instead of in llm/registry.cpp and pipeline/resolution.cpp. Resolution and
// its default model, `auto`, the secrets R redacts, the batch-API check and a run against the
// fake server all follow from those two declarations, with no other change (docs/architecture.md
// counts the files a real provider takes).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "cache/temp_cache_dir.hpp"
#include "fake_config.hpp"
#include "fake_server/fake_server.hpp"
#include "llm/provider.hpp"
#include "llm/provider_spec.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/models.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/resolution.hpp"

using namespace llmv;
using namespace llmv::pipeline;

namespace {

// Its requests are OpenAI-compatible; its key is ACME_API_KEY, read for its server only.
std::unique_ptr<ChatProvider> make_acme_chat_provider(const ProviderConfig& config) {
    ProviderConfig acme = config;
    acme.server_key_env = "ACME_API_KEY";
    return make_chat_provider("openai", acme);
}

// The provider's declarations for one test; the table is restored after it.
struct ThrowawayProvider {
    ThrowawayProvider() {
        register_chat_provider("acme", make_acme_chat_provider);
        ProviderDefaults row;
        row.kind = "chat";
        row.provider = "acme";
        row.model = "acme-small";
        row.credential = "ACME_API_KEY";
        row.checked = "2026-12-06";
        row.source = "a throwaway provider of the tests";
        row.key_variables = {"ACME_API_KEY"};
        row.auto_rank = 4;  // after AWS credentials
        row.auto_variables = {"ACME_API_KEY"};
        row.auto_label = "ACME_API_KEY";
        row.batch_api = false;
        register_provider_defaults(row);
    }
    ~ThrowawayProvider() { remove_provider_defaults("chat", "acme"); }
};

// The same vendor with the capabilities of its protocol, declared as a vendor's file in cpp/llm/
// declares its provider: one spec (provider_spec.hpp), registered by one line. Its model list
// and its batch API are OpenAI's, at its own base URL and with its own key.
struct ThrowawaySpec {
    ThrowawaySpec() {
        ProviderSpec spec;
        spec.defaults.kind = "chat";
        spec.defaults.provider = "acme";
        spec.defaults.model = "acme-small";
        spec.defaults.credential = "ACME_API_KEY";
        spec.defaults.checked = "2026-12-07";
        spec.defaults.source = "a throwaway provider of the tests";
        spec.defaults.key_variables = {"ACME_API_KEY"};
        spec.make_chat = make_acme_chat_provider;
        spec.batch_api = openai_batch_api_for;
        spec.model_list = [](const ProviderConfig& config) {
            ProviderConfig acme = config;
            acme.server_key_env = "ACME_API_KEY";
            return vendor_model_list("openai")(acme);
        };
        register_provider_spec(spec);
    }
    ~ThrowawaySpec() { remove_provider_spec("chat", "acme"); }
};

}  // namespace

TEST_CASE(
    "a throwaway provider declared once is resolved, picked by auto, redacted, refused a "
    "batch API and run") {
    const ThrowawayProvider acme;

    // Its default model, from its row.
    ValidationConfig named;
    named.provider = "acme";
    named.embedding_provider = "openai";
    named.embedding_model = "text-embedding-3-small";
    ResolveOptions options;
    options.environment = std::map<std::string, std::string>{{"ACME_API_KEY", "k"}};
    const ResolvedProviders resolved = resolve_providers(named, options);
    CHECK(resolved.chat_provider == "acme");
    CHECK(resolved.chat_model == "acme-small");
    CHECK_FALSE(resolved.synthetic_chat);

    // `auto` picks it when its variable alone is set, after the other vendors, and says so.
    ValidationConfig automatic;
    automatic.provider = "auto";
    automatic.embedding_provider = "openai";
    automatic.embedding_model = "text-embedding-3-small";
    CHECK(resolve_providers(automatic, options).chat_provider == "acme");
    options.environment =
        std::map<std::string, std::string>{{"ACME_API_KEY", "k"}, {"OPENAI_API_KEY", "o"}};
    CHECK(resolve_providers(automatic, options).chat_provider == "openai");
    CHECK(auto_sources() ==
          "LLMV_BASE_URL, ANTHROPIC_API_KEY, OPENAI_API_KEY, AWS credentials, ACME_API_KEY");

    // Its key is a secret the front ends redact.
    const std::vector<std::string> secrets = secret_variables();
    CHECK(std::count(secrets.begin(), secrets.end(), "ACME_API_KEY") == 1);
    CHECK(provider_names("chat").find("acme") != std::string::npos);

    // No batch API: refused before any call, naming those that have one.
    CHECK_FALSE(has_batch_api("acme"));
    CHECK(batch_api_provider_names() == "openai or anthropic");

    // A run against the fake server: its requests go out with its own key.
    fake::FakeServerOptions server_options;
    server_options.api_key = "acme-key";
    fake::FakeServer server(server_options);
    server.start();
    test::TempCacheDir dir;
    ValidationConfig config = test::fake_config(server, dir.cache());
    config.provider = "acme";
    config.model = "";  // its row's default
    config.api_key = "";
    config.embedding_base_url = server.base_url() + "/v1";
    ::setenv("ACME_API_KEY", "acme-key", 1);
    ::setenv("LLMV_EMBEDDING_API_KEY", "acme-key", 1);
    PassageInput passage;
    passage.id = "p1";
    passage.text = "Revenue grew strongly.";
    const BatchResult result = validate_batch(config, {passage});
    ::unsetenv("ACME_API_KEY");
    ::unsetenv("LLMV_EMBEDDING_API_KEY");
    REQUIRE(result.passages.size() == 1);
    INFO(result.passages[0].error_message);
    CHECK(result.passages[0].ok);
    CHECK(result.passages[0].model == "acme-small");
    CHECK(server.count("openai.chat") > 0);

    CHECK_THROWS_WITH(
        validate_with_batch_api(config, {}, {}, {}),
        Catch::Matchers::Contains(
            "used only with a chat provider that has a batch API: openai or anthropic"));
}

TEST_CASE("the throwaway provider leaves the table as it was") {
    { const ThrowawayProvider acme; }
    for (const ProviderDefaults& row : provider_defaults()) CHECK(row.provider != "acme");
    CHECK(auto_sources() == "LLMV_BASE_URL, ANTHROPIC_API_KEY, OPENAI_API_KEY, AWS credentials");
}

TEST_CASE(
    "a throwaway provider declared by one spec lists its models and runs through its batch "
    "API, with no other change",
    "[batch]") {
    const ThrowawaySpec acme;
    CHECK(has_batch_api("acme"));
    CHECK(batch_api_provider_names() == "openai or anthropic or acme");
    fake::FakeServerOptions server_options;
    server_options.api_key = "acme-key";
    fake::FakeServer server(server_options);
    server.start();

    // Its model list, read from its server with its own key.
    ProviderConfig where;
    where.base_url = server.base_url() + "/v1";
    where.environment = std::map<std::string, std::string>{{"ACME_API_KEY", "acme-key"}};
    const ModelList list = list_models("acme", where);
    CHECK(list.provider == "acme");
    CHECK_FALSE(list.models.empty());
    CHECK(server.count("openai.models") >= 1);

    // A batch-API run: its lines go up as a file, one batch is created, polled and read back.
    test::TempCacheDir dir;
    ValidationConfig config = test::fake_config(server, dir.cache());
    config.provider = "acme";
    config.model = "";  // its row's default
    config.api_key = "";
    config.embedding_base_url = server.base_url() + "/v1";
    config.poll_interval_seconds = 0;
    ::setenv("ACME_API_KEY", "acme-key", 1);
    ::setenv("LLMV_EMBEDDING_API_KEY", "acme-key", 1);
    PassageInput passage;
    passage.id = "p1";
    passage.text = "Revenue grew strongly.";
    std::vector<std::string> lines;
    BatchApiOptions batch_options;
    batch_options.on_status = [&](const std::string& line) { lines.push_back(line); };
    BatchApiReport report;
    const BatchResult result =
        validate_with_batch_api(config, {passage}, {}, batch_options, &report);
    ::unsetenv("ACME_API_KEY");
    ::unsetenv("LLMV_EMBEDDING_API_KEY");
    REQUIRE(result.passages.size() == 1);
    INFO(result.passages[0].error_message);
    CHECK(result.passages[0].ok);
    CHECK(result.passages[0].model == "acme-small");
    CHECK_FALSE(report.submitted.empty());
    CHECK(server.count("openai.files") >= 1);
    CHECK(server.count("openai.batches") >= 1);
    bool said = false;
    for (const std::string& line : lines) said = said || line.find("submitted openai batch") == 0;
    CHECK(said);
}

TEST_CASE("the throwaway spec leaves the registry as it was") {
    { const ThrowawaySpec acme; }
    CHECK_FALSE(find_provider_spec("chat", "acme"));
    CHECK(batch_api_provider_names() == "openai or anthropic");
    CHECK_THROWS_WITH(list_models("acme", ProviderConfig{}),
                      Catch::Matchers::Contains("a vendor with a model list"));
}
