// The batch path's fault suite (issue 24): provider batches through the fake server's OpenAI
// Batch API and Anthropic Message Batches, with the server's batch faults (downloads cut
// short, lines missing, the vendors' caps) and with the run killed (kill -9, through
// LLMV_DEBUG_KILL_AT) or interrupted at each point: after the upload, after the intent, right
// after the provider's "created" reply, after the record, while polling, while downloading and
// between phases. In every case the rows equal a synchronous run's, and no custom id is
// submitted twice (the count paid twice is 0). No assertion on wall time: the interrupt tests
// wait with a poll interval of an hour, so that only the interrupt can end the wait.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "batch_cli.hpp"
#include "cli_process.hpp"
#include "fake_server/fake_server.hpp"
#include "llm/provider_batch.hpp"
#include "llm/synthetic_text.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/pipeline.hpp"

namespace fs = std::filesystem;
using namespace llmv;
using namespace llmv::pipeline;
using llmv::test::result_rows;
using llmv::test::ScopedEnv;
using llmv::test::slurp;
using llmv::test::spawn_cli;
using llmv::test::Spawned;
using llmv::test::wait_cli;
using llmv::test::cli_args;
using llmv::test::passages;
using llmv::test::VendorKeys;
using llmv::test::write_input;

namespace {

std::string batch_dir(const std::string& name) {
    return llmv::test::scratch_dir("llmv-batchfaults", name);
}

// The files a batch-API run keeps beside the cache while it runs (its work file, downloads).
std::vector<std::string> run_files_in(const std::string& dir) {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.find(".batch-work-") != std::string::npos ||
            name.find(".download-") != std::string::npos)
            found.push_back(name);
    }
    return found;
}


// Chat from `vendor` (openai or anthropic), embeddings from OpenAI's Batch API.
ValidationConfig vendor_config(const fake::FakeServer& server, const std::string& vendor,
                               const std::string& cache) {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = vendor;
    config.model = vendor == "anthropic" ? "fake-claude" : "fake-chat";
    config.base_url = vendor == "anthropic" ? server.base_url() : server.base_url() + "/v1";
    config.api_key = "test-key";
    config.embedding_provider = "openai";
    config.embedding_model = "fake-embedding";
    config.embedding_base_url = server.base_url() + "/v1";
    config.cache_path = cache;
    config.m = 10;
    config.n = 5;
    config.tests.permutations = 99;
    config.tests.seed = 11;
    config.poll_interval_seconds = 0;
    return config;
}

// Labels and verdicts; the statistics too where the fake server's answers are reproducible
// (OpenAI: two synchronous Anthropic runs of the fake server already differ in their pools).
void check_same_rows(const BatchResult& synchronous, const BatchResult& batched,
                     bool exact = true) {
    REQUIRE(synchronous.passages.size() == batched.passages.size());
    for (std::size_t i = 0; i < synchronous.passages.size(); ++i) {
        const PassageResult& x = synchronous.passages[i];
        const PassageResult& y = batched.passages[i];
        INFO("passage " << x.id << ": " << x.error_message << " / " << y.error_message);
        REQUIRE(x.ok);
        REQUIRE(y.ok);
        CHECK(x.label == y.label);
        CHECK(x.verdict_name == y.verdict_name);
        if (!exact) continue;
        CHECK(x.tests.validation.statistic == y.tests.validation.statistic);
        CHECK(x.tests.validation.p_value == y.tests.validation.p_value);
        CHECK(x.tests.backtranslation.accuracy == y.tests.backtranslation.accuracy);
    }
}

// Custom ids the server accepted in more than one batch: requests paid twice.
std::size_t paid_twice(const fake::FakeServer& server) {
    std::size_t twice = 0;
    for (const auto& [id, times] : server.submitted_custom_ids())
        twice += times > 1 ? times - 1 : 0;
    return twice;
}

BatchResult synchronous_reference(fake::FakeServer& server, const std::string& vendor, int count) {
    const BatchResult result = validate_batch(
        vendor_config(server, vendor, batch_dir("sync") + "/c.sqlite"), passages(count));
    server.reset_counters();
    return result;
}

// The input of two passages in `dir` (in.csv) and the synchronous run's rows of it (sync.jsonl),
// the reference a batch run's rows must equal.
void run_synchronous_reference(const fake::FakeServer& server, const std::string& vendor,
                               const std::string& dir) {
    write_input(dir + "/in.csv", 2);
    const Spawned reference = spawn_cli(
        cli_args(server, vendor, dir + "/in.csv", dir + "/sync.sqlite", dir + "/sync.jsonl", false),
        dir);
    REQUIRE(wait_cli(reference) == 0);
}

}  // namespace

TEST_CASE("batch faults: the vendors' documented caps are the engine's constants", "[batch]") {
    // OpenAI API reference, Create batch; Anthropic docs, Batch processing (limitations).
    const BatchCaps openai = vendor_batch_caps(BatchApiKind::openai);
    CHECK(openai.requests == 50000);
    CHECK(openai.embedding_inputs == 50000);
    CHECK(openai.bytes == 200000000);
    const BatchCaps anthropic = vendor_batch_caps(BatchApiKind::anthropic);
    CHECK(anthropic.requests == 100000);
    CHECK(anthropic.bytes == 256000000);
}

TEST_CASE(
    "batch faults: result downloads cut short at every first GET are read again, and nothing is "
    "submitted twice",
    "[batch]") {
    const VendorKeys keys;  // the embeddings' OpenAI key
    const std::string vendor = GENERATE(as<std::string>{}, "openai", "anthropic");
    INFO(vendor);
    fake::FakeServerOptions options;
    options.truncate_first_downloads = true;
    fake::FakeServer server(options);
    server.start();
    const BatchResult synchronous = synchronous_reference(server, vendor, 3);
    std::vector<std::string> lines;
    BatchApiOptions batch_options;
    batch_options.on_status = [&](const std::string& line) { lines.push_back(line); };
    BatchApiReport report;
    const BatchResult batched =
        validate_with_batch_api(vendor_config(server, vendor, batch_dir("cut") + "/c.sqlite"),
                                passages(3), {}, batch_options, &report);
    check_same_rows(synchronous, batched, vendor == "openai");
    CHECK(paid_twice(server) == 0);
    CHECK(report.synchronous_requests == 0);
    bool said = false;
    for (const std::string& line : lines)
        said = said || line.find("cut short") != std::string::npos;
    CHECK(said);  // the cut was seen, and read again
}

// Issue 25, item 8: a failed batch-API run wrote no rows, not even for passages whose
// answers were all in the cache.
TEST_CASE("batch faults: a batch-API run that fails still hands over the passages it could finish",
          "[batch]") {
    const VendorKeys keys;
    fake::FakeServer server;
    server.start();
    const std::string cache = batch_dir("failed") + "/c.sqlite";
    const ValidationConfig config = vendor_config(server, "openai", cache);
    // Two passages answered earlier (synchronously); two new ones need provider batches.
    const BatchResult earlier = validate_batch(config, passages(2));
    REQUIRE(earlier.passages.size() == 2);
    server.reset_counters();
    // Creating a batch is refused (a 400 is not retried): the run fails in its first phase.
    server.push_faults("openai.batches", std::vector<fake::Fault>(4, fake::Fault::http(400)));
    std::vector<std::string> finished;
    BatchCallbacks callbacks;
    callbacks.on_passage = [&](const PassageResult& result) {
        finished.push_back(result.id);
        CHECK(result.error_code.empty());
    };
    std::vector<std::string> lines;
    BatchApiOptions batch_options;
    batch_options.on_status = [&](const std::string& line) { lines.push_back(line); };
    std::string failure;
    try {
        validate_with_batch_api(config, passages(4), callbacks, batch_options);
    } catch (const Error& error) {
        failure = error.code();
    }
    CHECK_FALSE(failure.empty());
    CHECK(failure != code::cancelled);
    std::sort(finished.begin(), finished.end());
    CHECK(finished == std::vector<std::string>{"p1", "p2"});
    CHECK_FALSE(lines.empty());
    CHECK(lines.back().find("the 2 of 4 passages whose answers were all received are written") !=
          std::string::npos);
    // Their rows are the earlier run's: nothing was asked again for them.
    CHECK(server.count("openai.chat") == 0);
}

TEST_CASE(
    "batch faults: a line missing from a whole results file is asked again alone, once, and said "
    "so",
    "[batch]") {
    const VendorKeys keys;  // the embeddings' OpenAI key
    const std::string vendor = GENERATE(as<std::string>{}, "openai", "anthropic");
    INFO(vendor);
    fake::FakeServer server;
    server.start();
    const BatchResult synchronous = synchronous_reference(server, vendor, 3);
    fake::BatchScript cut;  // the vendor's own file lacks its last lines, at every read
    cut.kind = fake::BatchScript::Kind::truncated_results;
    server.push_batch_scripts({cut});
    std::vector<std::string> lines;
    BatchApiOptions batch_options;
    batch_options.on_status = [&](const std::string& line) { lines.push_back(line); };
    const BatchResult batched =
        validate_with_batch_api(vendor_config(server, vendor, batch_dir("miss") + "/c.sqlite"),
                                passages(3), {}, batch_options);
    check_same_rows(synchronous, batched, vendor == "openai");
    // Only the line the vendor's file lacks was asked again (alone: synchronously, or in a
    // batch of its own), and only once.
    std::size_t again = 0;
    for (const auto& [id, times] : server.submitted_custom_ids()) {
        INFO(id);
        CHECK(times <= 2);
        again += times - 1;
    }
    for (const auto& answer : server.served()) again += answer.batch_id.empty() ? 1 : 0;
    CHECK(again == 1);
    bool said = false;
    for (const std::string& line : lines)
        said = said || line.find("asked again, alone and once") != std::string::npos;
    CHECK(said);
}

TEST_CASE(
    "batch faults: more embedding inputs than an embeddings batch may hold go into several "
    "batches, "
    "each within the cap",
    "[batch]") {
    fake::FakeServerOptions options;
    options.batch_max_embedding_inputs = 10;  // as OpenAI's 50,000, scaled down
    fake::FakeServer server(options);
    server.start();
    const BatchResult synchronous = synchronous_reference(server, "openai", 3);
    BatchApiOptions batch_options;
    batch_options.max_embedding_inputs_per_batch = 10;
    const BatchResult batched =
        validate_with_batch_api(vendor_config(server, "openai", batch_dir("cap") + "/c.sqlite"),
                                passages(3), {}, batch_options);
    check_same_rows(synchronous, batched);
    std::size_t over_one_batch = 0;
    for (std::size_t inputs : server.embedding_batch_inputs()) {
        CHECK(inputs <= 10);
        over_one_batch += inputs > 0 ? 1 : 0;
    }
    CHECK(over_one_batch > 2);
    CHECK(paid_twice(server) == 0);
    // Without the split the server refuses the batch, as OpenAI does.
    batch_options.max_embedding_inputs_per_batch = 0;
    CHECK_THROWS_WITH(
        validate_with_batch_api(vendor_config(server, "openai", batch_dir("cap") + "/c.sqlite"),
                                passages(3), {}, batch_options),
        Catch::Matchers::Contains("embedding inputs"));
}

// The other caps of one batch (issue 23): requests per batch and bytes per batch, for both
// vendors, scaled down. Each batch the server accepts is within the cap (the server refuses
// one over it, as the vendors do), the work goes into several batches, nothing is paid twice,
// and the rows are the synchronous run's.
TEST_CASE("batch faults: more requests or bytes than a batch may hold go into several batches",
          "[batch]") {
    const VendorKeys keys;
    for (const std::string vendor : {"openai", "anthropic"}) {
        for (const bool by_bytes : {false, true}) {
            INFO(vendor << (by_bytes ? ": the byte cap" : ": the request cap"));
            fake::FakeServerOptions options;
            if (by_bytes)
                options.batch_max_bytes = 8000;
            else
                options.batch_max_requests = 8;
            fake::FakeServer server(options);
            server.start();
            const BatchResult synchronous = synchronous_reference(server, vendor, 3);
            BatchApiOptions batch_options;
            if (by_bytes)
                batch_options.max_bytes_per_batch = 8000;
            else
                batch_options.max_requests_per_batch = 8;
            const std::string cache =
                batch_dir(vendor + (by_bytes ? "-bytes" : "-requests")) + "/c.sqlite";
            const BatchResult batched = validate_with_batch_api(
                vendor_config(server, vendor, cache), passages(3), {}, batch_options);
            check_same_rows(synchronous, batched, vendor == "openai");
            CHECK(paid_twice(server) == 0);
            std::size_t chat_batches = 0;
            for (const auto& [id, lines] : server.batches()) {
                if (!by_bytes) CHECK(lines <= 8);
                chat_batches += lines > 0 ? 1 : 0;
            }
            CHECK(chat_batches > 2);
            // Without the split the server refuses the batch, as the vendors do.
            BatchApiOptions unsplit;
            CHECK_THROWS(validate_with_batch_api(
                vendor_config(server, vendor,
                              batch_dir(vendor + (by_bytes ? "-b2" : "-r2")) + "/c.sqlite"),
                passages(3), {}, unsplit));
        }
    }
}

TEST_CASE(
    "batch faults: a split run killed after its first embeddings batch resumes without "
    "resubmitting it",
    "[batch][cli]") {
    const VendorKeys keys;
    fake::FakeServerOptions options;
    options.batch_max_embedding_inputs = 10;
    options.api_key = "test-key";
    fake::FakeServer server(options);
    server.start();
    const std::string dir = batch_dir("capkill");
    write_input(dir + "/in.csv", 3);
    const Spawned reference = spawn_cli(cli_args(server, "openai", dir + "/in.csv",
                                                 dir + "/sync.sqlite", dir + "/sync.jsonl", false),
                                        dir);
    REQUIRE(wait_cli(reference) == 0);
    server.reset_counters();
    const ScopedEnv caps("LLMV_DEBUG_BATCH_CAPS", "0,10,0");
    {
        // Killed after the third batch recorded: some are done or out, the rest not yet made.
        const ScopedEnv kill("LLMV_DEBUG_KILL_AT", "after_record:3");
        const Spawned killed = spawn_cli(cli_args(server, "openai", dir + "/in.csv",
                                                  dir + "/c.sqlite", dir + "/cut.jsonl", true),
                                         dir);
        CHECK(wait_cli(killed) == 128 + SIGKILL);
    }
    const std::size_t before = server.batches().size();
    const Spawned resumed = spawn_cli(
        cli_args(server, "openai", dir + "/in.csv", dir + "/c.sqlite", dir + "/out.jsonl", true),
        dir);
    INFO(slurp(resumed.err));
    REQUIRE(wait_cli(resumed) == 0);
    CHECK(server.batches().size() > before);
    CHECK(paid_twice(server) == 0);
    for (std::size_t inputs : server.embedding_batch_inputs()) CHECK(inputs <= 10);
    CHECK(server.embedding_batch_inputs().size() > 2);
    CHECK(result_rows(slurp(dir + "/out.jsonl")) == result_rows(slurp(dir + "/sync.jsonl")));
}

TEST_CASE(
    "batch faults: kill -9 at each point of a batch run: the resume pays nothing twice and gives "
    "the "
    "synchronous rows",
    "[batch][cli]") {
    const VendorKeys keys;
    const std::string vendor = GENERATE(as<std::string>{}, "openai", "anthropic");
    const std::string point =
        GENERATE(as<std::string>{}, "after_upload", "after_intent", "after_create", "after_record",
                 "polling", "downloading", "between_phases");
    if (vendor == "anthropic" && point == "after_upload") return;  // Anthropic uploads no file
    INFO(vendor << ", killed at " << point);
    fake::FakeServer server;
    server.start();
    const std::string dir = batch_dir("kill");
    run_synchronous_reference(server, vendor, dir);
    server.reset_counters();
    {
        const ScopedEnv kill("LLMV_DEBUG_KILL_AT", point + ":2");  // the second time: mid-run
        const Spawned killed = spawn_cli(
            cli_args(server, vendor, dir + "/in.csv", dir + "/c.sqlite", dir + "/cut.jsonl", true),
            dir);
        CHECK(wait_cli(killed) == 128 + SIGKILL);
    }
    // Killed, the run left its work file; the resume removes it with its own.
    CHECK_FALSE(run_files_in(dir).empty());
    const Spawned resumed = spawn_cli(
        cli_args(server, vendor, dir + "/in.csv", dir + "/c.sqlite", dir + "/out.jsonl", true),
        dir);
    const int code = wait_cli(resumed);
    const std::string err = slurp(resumed.err);
    INFO(err);
    REQUIRE(code == 0);
    CHECK(paid_twice(server) == 0);
    CHECK(result_rows(slurp(dir + "/out.jsonl"), vendor == "openai") ==
          result_rows(slurp(dir + "/sync.jsonl"), vendor == "openai"));
    CHECK(run_files_in(dir) == std::vector<std::string>{});
    if (point == "after_create")
        CHECK_THAT(err,
                   Catch::Matchers::Contains("created by a run that stopped before recording it"));
}

// Issue 41: Anthropic's batches carry no metadata, so a batch created by a run killed before it
// recorded the id is known by its size alone. Another study's batch of the same size, made
// minutes earlier on the same account, was adopted (it is the oldest) and this run's lines
// were paid for again; its results' custom ids now tell the two apart.
TEST_CASE("batch faults: an Anthropic run killed after create adopts its own batch, not another "
          "run's of the same size",
          "[batch][cli]") {
    const VendorKeys keys;
    fake::FakeServer server;
    server.start();
    const std::string dir = batch_dir("identity");
    run_synchronous_reference(server, "anthropic", dir);
    // Another study: as many passages (so batches of the same sizes), other texts, its own cache.
    {
        std::ofstream other(dir + "/other.csv");
        other << "id,text\n";
        for (const PassageInput& passage : passages(2))
            other << passage.id << ",\"" << passage.text << " Another study.\"\n";
    }
    const Spawned other = spawn_cli(cli_args(server, "anthropic", dir + "/other.csv",
                                             dir + "/other.sqlite", dir + "/other.jsonl", true),
                                    dir);
    REQUIRE(wait_cli(other) == 0);
    server.reset_counters();
    {
        const ScopedEnv kill("LLMV_DEBUG_KILL_AT", "after_create:1");
        const Spawned killed = spawn_cli(
            cli_args(server, "anthropic", dir + "/in.csv", dir + "/c.sqlite", dir + "/cut.jsonl",
                     true),
            dir);
        CHECK(wait_cli(killed) == 128 + SIGKILL);
    }
    const Spawned resumed = spawn_cli(
        cli_args(server, "anthropic", dir + "/in.csv", dir + "/c.sqlite", dir + "/out.jsonl", true),
        dir);
    const int code = wait_cli(resumed);
    const std::string err = slurp(resumed.err);
    INFO(err);
    REQUIRE(code == 0);
    CHECK(paid_twice(server) == 0);
    CHECK_THAT(err, Catch::Matchers::Contains("created by a run that stopped before recording it"));
    CHECK_THAT(err, Catch::Matchers::Contains("is another run's"));
    CHECK(result_rows(slurp(dir + "/out.jsonl"), false) ==
          result_rows(slurp(dir + "/sync.jsonl"), false));
}

// Issue 41: interrupting a batch-API run (or submitting with --submit-only) and running the same
// command without --batch-api paid for every answer again, synchronously, with no word of the
// batches out. The synchronous run of the same work is now refused, naming --batch-api; another
// run's work on the same cache is not.
TEST_CASE("batch faults: a synchronous run of work whose batches are out is refused, naming "
          "--batch-api, and pays nothing",
          "[batch][cli]") {
    const VendorKeys keys;
    fake::FakeServer server;
    server.start();
    const std::string dir = batch_dir("batches-out");
    run_synchronous_reference(server, "openai", dir);
    server.reset_counters();
    std::vector<std::string> submit =
        cli_args(server, "openai", dir + "/in.csv", dir + "/c.sqlite", dir + "/cut.jsonl", true);
    submit.push_back("--submit-only");
    const Spawned submitted = spawn_cli(submit, dir);
    INFO(slurp(submitted.err));
    REQUIRE(wait_cli(submitted) == 0);
    const std::size_t paid = server.total_count();

    const Spawned synchronous = spawn_cli(
        cli_args(server, "openai", dir + "/in.csv", dir + "/c.sqlite", dir + "/twice.jsonl", false),
        dir);
    const int refused = wait_cli(synchronous);
    const std::string err = slurp(synchronous.err);
    INFO(err);
    CHECK(refused != 0);
    CHECK_THAT(err, Catch::Matchers::Contains("`--batch-api`"));
    CHECK_THAT(err, Catch::Matchers::Contains("provider batches are out"));
    CHECK(server.total_count() == paid);  // nothing sent

    // Another study's passages on the same cache run synchronously.
    {
        std::ofstream other(dir + "/other.csv");
        other << "id,text\nq1,\"Margins held steady as costs rose.\"\n";
    }
    const Spawned other = spawn_cli(cli_args(server, "openai", dir + "/other.csv",
                                             dir + "/c.sqlite", dir + "/other.jsonl", false),
                                    dir);
    CHECK(wait_cli(other) == 0);

    const Spawned collected = spawn_cli(
        cli_args(server, "openai", dir + "/in.csv", dir + "/c.sqlite", dir + "/out.jsonl", true),
        dir);
    INFO(slurp(collected.err));
    REQUIRE(wait_cli(collected) == 0);
    CHECK(paid_twice(server) == 0);
    CHECK(result_rows(slurp(dir + "/out.jsonl")) == result_rows(slurp(dir + "/sync.jsonl")));
    // Collected, the batches are no longer out: the synchronous run reads every answer cached.
    const std::size_t before = server.total_count();
    const Spawned again = spawn_cli(
        cli_args(server, "openai", dir + "/in.csv", dir + "/c.sqlite", dir + "/again.jsonl", false),
        dir);
    CHECK(wait_cli(again) == 0);
    CHECK(server.total_count() == before);
}

TEST_CASE(
    "batch faults: SIGINT during a poll wait ends the CLI with 130, submits nothing after it, and "
    "the "
    "same command then completes without resubmitting",
    "[batch][cli]") {
    const VendorKeys keys;
    const std::string vendor = GENERATE(as<std::string>{}, "openai", "anthropic");
    INFO(vendor);
    fake::FakeServerOptions options;
    options.batch_polls_in_progress = 1000000;  // the batch stays in progress
    fake::FakeServer server(options);
    server.start();
    const std::string dir = batch_dir("sigint");
    run_synchronous_reference(server, vendor, dir);
    server.reset_counters();
    const std::string batches_endpoint =
        vendor == "anthropic" ? "anthropic.batches" : "openai.batches";
    // An hour between polls: only the interrupt can end the wait.
    const Spawned run = spawn_cli(cli_args(server, vendor, dir + "/in.csv", dir + "/c.sqlite",
                                           dir + "/cut.jsonl", true, "3600"),
                                  dir);
    while (server.count(batches_endpoint) < 2)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));  // created, polled
    std::this_thread::sleep_for(std::chrono::milliseconds(300));     // in the wait
    const std::size_t batches_at_signal = server.batches().size();
    ::kill(run.pid, SIGINT);
    const int code = wait_cli(run);
    const std::string err = slurp(run.err);
    INFO(err);
    CHECK(code == 130);
    CHECK_THAT(err, Catch::Matchers::Contains("llmv.cancelled") &&
                        Catch::Matchers::Contains("waiting for batch"));
    CHECK(err.find("not a JSON object") == std::string::npos);  // not a provider failure
    CHECK(server.batches().size() == batches_at_signal);        // nothing submitted after it
    server.set_batch_polls_in_progress(0);
    const Spawned again = spawn_cli(
        cli_args(server, vendor, dir + "/in.csv", dir + "/c.sqlite", dir + "/out.jsonl", true),
        dir);
    REQUIRE(wait_cli(again) == 0);
    CHECK(paid_twice(server) == 0);
    CHECK(result_rows(slurp(dir + "/out.jsonl"), vendor == "openai") ==
          result_rows(slurp(dir + "/sync.jsonl"), vendor == "openai"));
}

TEST_CASE(
    "batch faults: the front end's interrupt check ends a poll wait in-process (as R and Stata's "
    "do), and "
    "the same call then collects without resubmitting",
    "[batch]") {
    fake::FakeServerOptions options;
    options.batch_polls_in_progress = 1000000;
    fake::FakeServer server(options);
    server.start();
    const BatchResult synchronous = synchronous_reference(server, "openai", 2);
    const std::string cache = batch_dir("hook") + "/c.sqlite";
    ValidationConfig config = vendor_config(server, "openai", cache);
    config.poll_interval_seconds = 3600;
    std::atomic<int> checks{0};
    std::size_t batches_at_break = 0;
    {
        // Break once the batch has been polled (as Stata's SF_poll would return it).
        const ScopedInterruptCheck check([&] {
            ++checks;
            if (server.count("openai.batches") < 2) return false;
            if (batches_at_break == 0) batches_at_break = server.batches().size();
            return true;
        });
        try {
            validate_with_batch_api(config, passages(2), {}, {});
            FAIL("the run was not interrupted");
        } catch (const Error& error) {
            CHECK(error.code() == std::string(code::cancelled));
            CHECK_THAT(error.what(),
                       Catch::Matchers::Contains("resumes without submitting anything twice"));
        }
    }
    CHECK(checks.load() > 0);
    CHECK(server.batches().size() == batches_at_break);
    server.set_batch_polls_in_progress(0);
    config.poll_interval_seconds = 0;
    const BatchResult collected = validate_with_batch_api(config, passages(2), {}, {});
    check_same_rows(synchronous, collected);
    CHECK(paid_twice(server) == 0);
}

TEST_CASE(
    "batch faults: interruptible_wait looks at the check several times a second, on its thread "
    "only",
    "[batch]") {
    int calls = 0;
    {
        const ScopedInterruptCheck check([&] { return ++calls >= 3; });
        CHECK_FALSE(interruptible_wait(3600));  // ends by the check, not the hour
        CHECK(calls == 3);
        CHECK(interrupt_requested());  // latched
        bool seen_elsewhere = false;
        std::thread other([&] { seen_elsewhere = interrupt_requested(); });
        other.join();
        CHECK(seen_elsewhere);  // the latch is read by every thread
        CHECK(calls == 3);      // the check itself ran on its own thread only
    }
    CHECK_FALSE(interrupt_requested());  // removed with its scope
    CHECK(interruptible_wait(0.01));
}

// Issue 40: the batch-API CSV came out in another row order than the synchronous one (rows 15
// and 16 swapped on 20 rows). Both paths hand rows over in input order.
TEST_CASE("batch faults: rows come in input order, through the batch API and synchronously",
          "[batch][input-order]") {
    const VendorKeys keys;
    fake::FakeServer server;
    server.start();
    const auto order_of = [](const auto& run) {
        std::vector<std::size_t> indexes;
        BatchCallbacks callbacks;
        callbacks.on_passage = [&](const PassageResult& result) {
            indexes.push_back(result.index);
        };
        run(callbacks);
        return indexes;
    };
    std::vector<std::size_t> expected(20);
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i;
    ValidationConfig synchronous =
        vendor_config(server, "openai", batch_dir("order-sync") + "/c.sqlite");
    synchronous.concurrency = 16;
    CHECK(order_of([&](const BatchCallbacks& callbacks) {
              validate_batch(synchronous, passages(20), callbacks);
          }) == expected);
    const ValidationConfig batch =
        vendor_config(server, "openai", batch_dir("order-batch") + "/c.sqlite");
    CHECK(order_of([&](const BatchCallbacks& callbacks) {
              validate_with_batch_api(batch, passages(20), callbacks, BatchApiOptions());
          }) == expected);
}
