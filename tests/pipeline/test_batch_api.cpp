// Batch-API runs against the fake server: the same results, bit for bit, as the synchronous
// run with the same seed, from exactly the same requests, each submitted once; a run stopped
// after its second phase was submitted resumes without submitting anything twice; lines that
// fail inside a batch are asked again.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cache/batch_ledger.hpp"
#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"

namespace fs = std::filesystem;
using namespace llmv;
using namespace llmv::pipeline;

namespace {

std::string temp_cache(const std::string& name) {
    static int counter = 0;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    fs::path dir = fs::temp_directory_path() /
                   ("llmv-batchapi-" + std::to_string(stamp) + "-" + std::to_string(++counter));
    fs::create_directories(dir);
    return (dir / (name + ".sqlite")).string();
}

// 20 sentences in the style of financial news (written for this test).
std::vector<PassageInput> sentences() {
    const char* verbs[] = {"rose", "fell", "was unchanged", "doubled", "dropped sharply"};
    const char* items[] = {"operating profit", "net sales", "the order backlog", "quarterly revenue"};
    std::vector<PassageInput> passages;
    for (int i = 0; i < 20; ++i) {
        PassageInput passage;
        passage.id = std::to_string(i + 1);
        passage.text = std::string("The company said ") + items[i % 4] + " " + verbs[i % 5] + " in the period to EUR " +
                       std::to_string(10 + i) + " million.";
        passages.push_back(passage);
    }
    return passages;
}

ValidationConfig config_for(const fake::FakeServer& server, const std::string& cache) {
    ValidationConfig config;
    config.task_path = "financial_phrasebank";
    config.provider = "openai";
    config.model = "gpt-4o-mini";
    config.base_url = server.base_url() + "/v1";
    config.api_key = "test-key";
    config.embedding_provider = "openai";
    config.embedding_model = "text-embedding-3-small";
    config.cache_path = cache;
    config.m = 20;
    config.n = 5;
    config.tests.permutations = 99;
    config.tests.seed = 7;
    config.poll_interval_seconds = 0;
    return config;
}

// The request bodies the server answered, by endpoint, synchronous or from batches.
std::multiset<std::string> bodies(const fake::FakeServer& server, const std::string& endpoint, bool batch) {
    std::multiset<std::string> set;
    for (const auto& served : server.served()) {
        if (served.endpoint != endpoint || served.batch_id.empty() == batch) continue;
        nlohmann::json body = nlohmann::json::parse(served.request_body);
        set.insert(body.dump());
    }
    return set;
}

void check_identical(const BatchResult& a, const BatchResult& b) {
    REQUIRE(a.passages.size() == b.passages.size());
    for (std::size_t i = 0; i < a.passages.size(); ++i) {
        const PassageResult& x = a.passages[i];
        const PassageResult& y = b.passages[i];
        INFO("passage " << x.id << ": " << x.error_message << " / " << y.error_message);
        REQUIRE(x.ok);
        REQUIRE(y.ok);
        CHECK(x.label == y.label);
        CHECK(x.verdict_name == y.verdict_name);
        CHECK(x.tests.validation.statistic == y.tests.validation.statistic);
        CHECK(x.tests.validation.p_value == y.tests.validation.p_value);
        CHECK(x.tests.backtranslation.accuracy == y.tests.backtranslation.accuracy);
    }
}

}  // namespace

TEST_CASE("a batch-API run gives the synchronous run's results from the same requests, each submitted once") {
    fake::FakeServer server;
    server.start();
    const std::vector<PassageInput> passages = sentences();
    const BatchResult synchronous = validate_batch(config_for(server, temp_cache("sync")), passages);
    const auto sync_chat = bodies(server, "openai.chat", false);
    const auto sync_embeddings = bodies(server, "openai.embeddings", false);
    server.reset_counters();

    BatchApiOptions options;
    BatchApiReport report;
    const std::string cache = temp_cache("batch");
    const BatchResult batched = validate_with_batch_api(config_for(server, cache), passages, {}, options, &report);
    check_identical(synchronous, batched);
    // The batches' embedding tokens are counted (and priced) as the synchronous run's: the same
    // texts, the same tokens (issue 23), and they are more than none.
    const auto tokens = [](const BatchResult& result) {
        const auto found = result.usage.find("text-embedding-3-small");
        return found == result.usage.end() ? std::uint64_t{0} : found->second.input_tokens;
    };
    CHECK(tokens(synchronous) > 0);
    CHECK(tokens(batched) == tokens(synchronous));
    // Each run says which price it paid (issue 29): the same tokens, priced for its route.
    CHECK(synchronous.cost.paid_through == "synchronous");
    CHECK(batched.cost.paid_through == "batch");
    REQUIRE(batched.cost.complete);
    CHECK(batched.cost.paid_dollars() == batched.cost.batch_dollars);
    CHECK(synchronous.cost.paid_dollars() == synchronous.cost.dollars);
    CHECK(batched.cost.paid_dollars() < synchronous.cost.paid_dollars());
    CHECK(batched.cost.dollars == Approx(synchronous.cost.dollars).epsilon(1e-12));
    CHECK(server.count("openai.chat") == 0);
    CHECK(server.count("openai.embeddings") == 0);
    const auto batch_chat = bodies(server, "openai.chat", true);
    CHECK(batch_chat == sync_chat);  // the same set, each once (a multiset)
    // Two provider round trips (issue 26): the annotations with the K pools (and the pools'
    // embeddings), then the backtranslations (and the passages' embeddings); a third pass
    // reads everything from the cache and submits nothing.
    CHECK(report.submitted.size() == server.batches().size());
    CHECK(report.phases == 3);
    CHECK(server.batches().size() >= 3);  // chat and embeddings batches of the two round trips
    CHECK(report.synchronous_requests == 0);
    // Embedded texts: the same set of texts (grouped differently).
    std::multiset<std::string> sync_texts, batch_texts;
    // Each body is parsed into a named value: a range-for over a member of a temporary reads freed memory.
    const auto add_inputs = [](const std::string& body, std::multiset<std::string>& texts) {
        const nlohmann::json request = nlohmann::json::parse(body);
        for (const auto& text : request["input"]) texts.insert(text.get<std::string>());
    };
    for (const auto& body : sync_embeddings) add_inputs(body, sync_texts);
    for (const auto& body : bodies(server, "openai.embeddings", true)) add_inputs(body, batch_texts);
    CHECK(batch_texts == sync_texts);
    // A later synchronous run with the batch run's cache makes no call.
    server.reset_counters();
    const BatchResult again = validate_batch(config_for(server, cache), passages);
    CHECK(server.total_count() == 0);
    check_identical(synchronous, again);
}

TEST_CASE("a batch-API run stopped after its second phase was submitted resumes without submitting twice") {
    fake::FakeServer server;
    server.start();
    const std::vector<PassageInput> passages = sentences();
    const BatchResult synchronous = validate_batch(config_for(server, temp_cache("sync")), passages);
    const auto sync_chat = bodies(server, "openai.chat", false);
    server.reset_counters();

    const std::string cache = temp_cache("batch");
    BatchApiOptions options;
    options.submit_only = true;
    BatchApiReport first, second;
    const BatchResult none = validate_with_batch_api(config_for(server, cache), passages, {}, options, &first);
    CHECK(first.waiting);
    CHECK(none.passages.empty());
    // Each call polls the batches out once: the first finds phase 1 still in progress (the
    // fake server answers a batch at its second poll), a later one reads them and submits phase 2.
    int calls = 0;
    while (second.submitted.empty() && calls++ < 5) {
        second = BatchApiReport();
        validate_with_batch_api(config_for(server, cache), passages, {}, options, &second);
        CHECK(second.waiting);
    }
    CHECK(calls >= 2);  // phase 1 has a chat and an embedding batch, each polled once per call
    CHECK(second.submitted.size() >= 1);  // phase 2 is out
    const std::size_t before = server.batches().size();
    {
        Cache registry_cache(cache);
        BatchLedger registry(registry_cache);
        CHECK(registry.provider_batches("submitted").size() == second.submitted.size());
    }
    // The run is stopped here; the same command without --submit-only finishes it.
    options.submit_only = false;
    BatchApiReport last;
    const BatchResult finished = validate_with_batch_api(config_for(server, cache), passages, {}, options, &last);
    check_identical(synchronous, finished);
    // With the annotations and the K pools in one phase, the second phase may be the last: the
    // finishing run then collects it and submits nothing new.
    CHECK(server.batches().size() >= before);
    // Every request once over all the batches: the same multiset as the synchronous run's.
    CHECK(bodies(server, "openai.chat", true) == sync_chat);
    Cache registry_cache(cache);
    BatchLedger registry(registry_cache);
    CHECK(registry.provider_batches("submitted").empty());
}

TEST_CASE("lines that fail inside a batch are asked again, and the results stay the synchronous ones") {
    fake::FakeServer server;
    server.start();
    const std::vector<PassageInput> passages = sentences();
    const BatchResult synchronous = validate_batch(config_for(server, temp_cache("sync")), passages);
    server.reset_counters();
    fake::BatchScript errored;
    errored.kind = fake::BatchScript::Kind::errored_lines;
    errored.every = 4;
    fake::BatchScript expired;
    expired.kind = fake::BatchScript::Kind::expire_part;
    expired.done_share = 0.6;
    fake::BatchScript cut;
    cut.kind = fake::BatchScript::Kind::truncated_results;
    server.push_batch_scripts({errored, expired, cut});
    server.push_faults("openai.batches", {fake::Fault::http(429, "0"), fake::Fault::http(429, "0")});
    BatchApiOptions options;
    options.sync_retry_max = 3;
    BatchApiReport report;
    const BatchResult batched =
        validate_with_batch_api(config_for(server, temp_cache("batch")), passages, {}, options, &report);
    check_identical(synchronous, batched);
    CHECK(report.submitted.size() > 3);
}

TEST_CASE("batch-API runs need a cache file and a provider with a batch API") {
    fake::FakeServer server;
    server.start();
    ValidationConfig config = config_for(server, "");
    CHECK_THROWS_WITH(validate_with_batch_api(config, sentences(), {}, {}),
                      Catch::Matchers::Contains("`cache`") && Catch::Matchers::Contains("a cache file"));
    config = config_for(server, temp_cache("x"));
    config.provider = "simulated";
    config.embedding_provider = "hashed";
    CHECK_THROWS_WITH(validate_with_batch_api(config, sentences(), {}, {}),
                      Catch::Matchers::Contains("batch_api") && Catch::Matchers::Contains("Bedrock"));
}

// The engine's refusals of a batch-API run, in the CLI's own terms: the option, the value
// received, what is allowed; nothing is sent.
TEST_CASE("CLI batch --batch-api: a provider without a batch API and --no-cache name the options",
          "[cli][errors]") {
    fake::FakeServerOptions keyless;
    keyless.api_key = "";
    fake::FakeServer server(keyless);
    server.start();
    cli_test::TempDir dir;
    cli_test::write_file(dir.file("in.csv"), "id,text\nq1,Operating profit rose to EUR 13.1 mn.\n");
    const std::vector<std::string> common = {"batch",   "--task",           "financial_phrasebank",
                                             "--input", dir.file("in.csv"), "--id-column",
                                             "id",      "--batch-api",      "--quiet"};
    std::vector<std::string> simulated = common;
    for (const char* arg : {"--provider", "simulated", "--cache", ""}) simulated.push_back(arg);
    simulated.back() = dir.file("c.sqlite");
    const cli_test::CliResult refused = cli_test::run_cli(simulated);
    INFO(refused.err);
    CHECK(refused.exit_code == 3);
    CHECK(refused.err.find("`--batch-api` must be used only with a chat provider that has a batch "
                           "API: openai or anthropic") != std::string::npos);
    CHECK(refused.err.find("received the chat provider simulated.") != std::string::npos);
    std::vector<std::string> no_cache = common;
    for (const char* arg : {"--provider", "openai", "--model", "gpt-4o-mini", "--base-url", "",
                            "--embedding-model", "text-embedding-3-small", "--no-cache"})
        no_cache.push_back(arg);
    no_cache[no_cache.size() - 4] = server.base_url() + "/v1";
    const cli_test::CliResult uncached = cli_test::run_cli(no_cache);
    INFO(uncached.err);
    CHECK(uncached.exit_code == 3);
    CHECK(uncached.err.find("`--cache` must be a cache file") != std::string::npos);
    CHECK(server.total_count() == 0);
}

TEST_CASE("CLI batch --batch-api: --submit-only until the last phase, then the rows of the synchronous run", "[cli]") {
    fake::FakeServerOptions keyless;
    keyless.api_key = "";  // like a local server: the CLI sends no key
    fake::FakeServer server(keyless);
    server.start();
    cli_test::TempDir dir;
    cli_test::write_file(dir.file("in.csv"),
                         "id,text\nq1,Operating profit rose to EUR 13.1 mn from EUR 8.7 mn.\n"
                         "q2,The company expects its net sales to decrease in 2009.\n");
    const auto args = [&](const std::string& cache, const std::string& output, std::vector<std::string> extra) {
        std::vector<std::string> list = {"batch", "--task", "financial_phrasebank", "--input", dir.file("in.csv"),
                                         "--id-column", "id", "--output", dir.file(output), "--provider", "openai",
                                         "--model", "gpt-4o-mini", "--base-url", server.base_url() + "/v1",
                                         "--embedding-provider", "openai", "--embedding-model",
                                         "text-embedding-3-small", "-M", "10", "-n", "5", "--permutations", "99",
                                         "--seed", "3", "--cache", dir.file(cache), "--quiet"};
        for (auto& arg : extra) list.push_back(arg);
        return list;
    };
    const cli_test::CliResult synchronous = cli_test::run_cli(args("sync.sqlite", "sync.csv", {}));
    INFO(synchronous.err);
    REQUIRE(synchronous.exit_code == 0);
    int runs = 0;
    cli_test::CliResult step;
    do {
        step = cli_test::run_cli(args("batch.sqlite", "batch.csv", {"--batch-api", "--submit-only"}));
        INFO(step.err);
        REQUIRE(step.exit_code == 0);
    } while (step.err.find("waiting for the provider") != std::string::npos && ++runs < 20);
    CHECK(runs > 2);  // one call per phase and poll
    CHECK_THAT(step.err, Catch::Matchers::Contains("provider batches"));
    // The price paid: the batch API's for the batch run, the synchronous APIs' for the other,
    // each with the other route's price beside it (the table gives both models a discount).
    CHECK_THAT(step.err, Catch::Matchers::Contains("paid through the batch API (the synchronous APIs: $"));
    CHECK_THAT(synchronous.err,
               Catch::Matchers::Contains("paid through the synchronous APIs (the batch API: $"));
    // The rows: those of the synchronous run, but for the call counts.
    const auto rows = [](const std::string& text) {
        std::vector<std::string> lines;
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line)) lines.push_back(line);
        return lines;
    };
    // Rows come in the order passages finish: compared sorted (each starts with its index).
    auto sync_rows = rows(cli_test::read_file(dir.file("sync.csv")));
    auto batch_rows = rows(cli_test::read_file(dir.file("batch.csv")));
    std::sort(sync_rows.begin(), sync_rows.end());
    std::sort(batch_rows.begin(), batch_rows.end());
    REQUIRE(sync_rows.size() == 3);
    REQUIRE(batch_rows.size() == 3);
    const auto before_counts = [](const std::string& row) { return row.substr(0, row.find(",gpt-4o-mini")); };
    for (std::size_t i = 0; i < 3; ++i) CHECK(before_counts(sync_rows[i]) == before_counts(batch_rows[i]));

    const cli_test::CliResult usage = cli_test::run_cli(args("x.sqlite", "x.csv", {"--submit-only"}));
    CHECK(usage.exit_code != 0);
    CHECK_THAT(usage.err, Catch::Matchers::Contains("--batch-api"));
    const cli_test::CliResult interval =
        cli_test::run_cli(args("x.sqlite", "x.csv", {"--batch-api", "--poll-interval", "soon"}));
    CHECK(interval.exit_code != 0);
    CHECK_THAT(interval.err, Catch::Matchers::Contains("--poll-interval") && Catch::Matchers::Contains("soon"));
}

TEST_CASE("CLI batch --submit-only --pending FILE, then --collect FILE: the rows of the synchronous run", "[cli][pending]") {
    fake::FakeServerOptions keyless;
    keyless.api_key = "";  // like a local server: the CLI sends no key
    fake::FakeServer server(keyless);
    server.start();
    cli_test::TempDir dir;
    cli_test::write_file(dir.file("in.csv"),
                         "id,text\nq1,Operating profit rose to EUR 13.1 mn from EUR 8.7 mn.\n"
                         "q2,The company expects its net sales to decrease in 2009.\n");
    const std::vector<std::string> settings = {
        "--task", "financial_phrasebank", "--input", dir.file("in.csv"), "--id-column", "id",
        "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", server.base_url() + "/v1",
        "--embedding-provider", "openai", "--embedding-model", "text-embedding-3-small", "-M", "10",
        "-n", "5", "--permutations", "99", "--seed", "3", "--quiet"};
    const auto with = [&](std::vector<std::string> list, const std::vector<std::string>& extra) {
        for (const auto& arg : extra) list.push_back(arg);
        return list;
    };
    std::vector<std::string> sync_args = {"batch"};
    for (const auto& arg : settings) sync_args.push_back(arg);
    const cli_test::CliResult synchronous = cli_test::run_cli(
        with(sync_args, {"--cache", dir.file("sync.sqlite"), "--output", dir.file("sync.csv")}));
    INFO(synchronous.err);
    REQUIRE(synchronous.exit_code == 0);

    const std::string handle = dir.file("pending.json");
    const cli_test::CliResult submitted = cli_test::run_cli(
        with(sync_args, {"--cache", dir.file("batch.sqlite"), "--batch-api", "--submit-only",
                         "--pending", handle}));
    INFO(submitted.err);
    REQUIRE(submitted.exit_code == 0);
    CHECK_THAT(submitted.err, Catch::Matchers::Contains("batch --collect " + handle));
    CHECK_THAT(cli_test::read_file(handle), Catch::Matchers::Contains("llmvalidate pending batch"));

    // Polled from the handle alone (no input, no settings), until the run is done.
    int runs = 0;
    cli_test::CliResult step;
    do {
        step = cli_test::run_cli({"batch", "--collect", handle, "--submit-only", "--quiet",
                                  "--output", dir.file("batch.csv")});
        INFO(step.err);
        REQUIRE(step.exit_code == 0);
    } while (step.err.find("waiting for the provider") != std::string::npos && ++runs < 20);
    CHECK(runs >= 1);
    CHECK_THAT(step.err, Catch::Matchers::Contains("paid through the batch API"));
    for (const auto& [custom_id, times] : server.submitted_custom_ids()) {
        INFO(custom_id);
        CHECK(times == 1);
    }
    const auto rows = [](const std::string& text) {
        std::vector<std::string> lines;
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line)) lines.push_back(line);
        std::sort(lines.begin(), lines.end());
        return lines;
    };
    const auto sync_rows = rows(cli_test::read_file(dir.file("sync.csv")));
    const auto batch_rows = rows(cli_test::read_file(dir.file("batch.csv")));
    REQUIRE(sync_rows.size() == 3);
    REQUIRE(batch_rows.size() == 3);
    const auto before_counts = [](const std::string& row) { return row.substr(0, row.find(",gpt-4o-mini")); };
    for (std::size_t i = 0; i < 3; ++i) CHECK(before_counts(sync_rows[i]) == before_counts(batch_rows[i]));

    // Collecting a finished run again sends nothing; --collect takes no input or task.
    const std::size_t requests = server.total_count();
    const cli_test::CliResult again = cli_test::run_cli(
        {"batch", "--collect", handle, "--quiet", "--output", dir.file("again.csv")});
    INFO(again.err);
    CHECK(again.exit_code == 0);
    CHECK(server.total_count() == requests);
    CHECK(rows(cli_test::read_file(dir.file("again.csv"))) == batch_rows);
    const cli_test::CliResult mixed =
        cli_test::run_cli({"batch", "--collect", handle, "--input", dir.file("in.csv")});
    CHECK(mixed.exit_code != 0);
    CHECK_THAT(mixed.err, Catch::Matchers::Contains("--collect"));
}
