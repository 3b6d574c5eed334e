// Issue 40, item 1: one run in the engine. pipeline::run() chooses the route from the settings
// (dry run, batch API, synchronous), warns before the first call, streams rows in input order
// and classifies how the run ended; the front ends only render the outcome.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_config.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/settings.hpp"

using namespace llmv;

namespace {

std::vector<pipeline::PassageInput> passages(std::size_t count) {
    const char* texts[] = {"Revenue grew strongly this quarter.", "Margins fell sharply.",
                           "The board met on Tuesday.", "Sales doubled on strong demand."};
    std::vector<pipeline::PassageInput> out;
    for (std::size_t i = 0; i < count; ++i)
        out.push_back({"p" + std::to_string(i + 1), texts[i % 4], "", {}, ""});
    return out;
}

struct Recorded {
    std::vector<std::string> warning_kinds;
    std::vector<std::size_t> rows;
    std::vector<std::string> status_lines;
    pipeline::RunSink sink() {
        pipeline::RunSink sink;
        sink.on_warning = [this](const pipeline::RunWarning& w) {
            warning_kinds.push_back(w.kind);
        };
        sink.on_passage = [this](const pipeline::PassageResult& r) { rows.push_back(r.index); };
        sink.on_status = [this](const std::string& line) { status_lines.push_back(line); };
        return sink;
    }
    bool warned(const std::string& kind) const {
        for (const std::string& k : warning_kinds)
            if (k == kind) return true;
        return false;
    }
};

}  // namespace

TEST_CASE("run: a dry run calls nothing and warns as the run would", "[run]") {
    fake::FakeServer server;
    server.start();
    pipeline::ValidationConfig config =
        test::fake_config(server, "");  // no cache: paid, kept nowhere
    config.m = 10;                      // cannot decide at 0.05
    config.dry_run = true;
    Recorded seen;
    const pipeline::RunOutcome outcome = pipeline::run(config, passages(2), seen.sink());
    CHECK(outcome.status == pipeline::RunStatus::estimated);
    CHECK(std::string(pipeline::status_name(outcome.status)) == "estimated");
    REQUIRE(outcome.estimate);
    CHECK(outcome.estimate->passages == 2);
    CHECK(outcome.estimate->chat_calls_to_make > 0);
    CHECK(server.total_count() == 0);
    CHECK(seen.rows.empty());
    // Each warning once, with its kind (the report lists the cache's among its own).
    CHECK(seen.warning_kinds == std::vector<std::string>{"no_cache", "cannot_decide"});
}

TEST_CASE("run: the synchronous route streams rows in input order and completes", "[run]") {
    fake::FakeServer server;
    server.start();
    cli_test::TempDir dir;
    pipeline::ValidationConfig config = test::fake_config(server, dir.file("c.sqlite"), 16);
    Recorded seen;
    const pipeline::RunOutcome outcome = pipeline::run(config, passages(6), seen.sink());
    CHECK(outcome.status == pipeline::RunStatus::complete);
    CHECK_FALSE(outcome.estimate);
    CHECK_FALSE(outcome.batch_report);
    CHECK(outcome.passages == 6);
    CHECK(outcome.failed == 0);
    CHECK(seen.rows == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});
    CHECK(outcome.result.passages.size() == 6);
    CHECK_FALSE(seen.warned("no_cache"));  // a cache keeps what is paid for
    CHECK(server.count("openai.chat") > 0);

    // Rows not kept: the same classification from the streamed rows alone.
    std::size_t next = 0;
    const std::vector<pipeline::PassageInput> rows = passages(3);
    const pipeline::PassageSource source = [&](pipeline::PassageInput& out) {
        if (next >= rows.size()) return false;
        out = rows[next++];
        return true;
    };
    Recorded streamed;
    const pipeline::RunOutcome again =
        pipeline::run(config, source, streamed.sink(), {/*keep_results=*/false, {}});
    CHECK(again.status == pipeline::RunStatus::complete);
    CHECK(again.result.passages.empty());
    CHECK(again.passages == 3);
    CHECK(streamed.rows == std::vector<std::size_t>{0, 1, 2});
}

TEST_CASE("run: the failure policy is the engine's (partial, failed, same cause)", "[run]") {
    fake::FakeServer server;
    server.start();
    cli_test::TempDir dir;
    const pipeline::ValidationConfig config = test::fake_config(server, dir.file("c.sqlite"));
    // Rows the reader could not read fail alone, with no call.
    const auto source_of = [](std::vector<pipeline::PassageInput> rows) {
        auto next = std::make_shared<std::size_t>(0);
        return pipeline::PassageSource([rows, next](pipeline::PassageInput& out) {
            if (*next >= rows.size()) return false;
            out = rows[(*next)++];
            return true;
        });
    };
    std::vector<pipeline::PassageInput> one_bad = passages(3);
    one_bad[1].input_error = "line 3: a field where the header has none";
    one_bad[1].input_error_code = code::invalid_argument;
    Recorded seen;
    const pipeline::RunOutcome partial = pipeline::run(config, source_of(one_bad), seen.sink());
    CHECK(partial.status == pipeline::RunStatus::partial);
    CHECK(partial.failed == 1);
    REQUIRE(partial.first_failure);
    CHECK(partial.first_failure->index == 1);
    CHECK(partial.first_failure->id == "p2");
    CHECK(partial.first_failure->code == code::invalid_argument);
    CHECK(partial.same_cause);

    std::vector<pipeline::PassageInput> all_bad = passages(3);
    for (auto& row : all_bad) {
        row.input_error = "unreadable";
        row.input_error_code = code::invalid_argument;
    }
    all_bad[2].input_error_code = code::invalid_encoding;
    const pipeline::RunOutcome failed = pipeline::run(config, source_of(all_bad), seen.sink());
    CHECK(failed.status == pipeline::RunStatus::failed);
    CHECK(failed.failed == 3);
    REQUIRE(failed.first_failure);
    CHECK(failed.first_failure->index == 0);
    CHECK_FALSE(failed.same_cause);  // two codes
}

TEST_CASE("run: waiting is only for the batch API, refused in each front end's terms", "[run]") {
    fake::FakeServer server;
    server.start();
    cli_test::TempDir dir;
    pipeline::ValidationConfig config = test::fake_config(server, dir.file("c.sqlite"));
    config.wait = false;
    Recorded seen;
    try {
        (void)pipeline::run(config, passages(1), seen.sink());
        FAIL("wait = false without the batch API was accepted");
    } catch (const Error& error) {
        CHECK(error.code() == code::invalid_argument);
        CHECK(error.subject().setting == "wait");
        CHECK(settings::message(error, settings::FrontEnd::r).find("`wait`") != std::string::npos);
        CHECK(settings::message(error, settings::FrontEnd::stata).find("nowait") !=
              std::string::npos);
    }
    CHECK(server.total_count() == 0);
}

TEST_CASE("run: the batch API route submits, says it waits, and a second run collects",
          "[run][batch]") {
    fake::FakeServer server;
    server.start();
    cli_test::TempDir dir;
    pipeline::ValidationConfig config = test::fake_config(server, dir.file("c.sqlite"));
    config.poll_interval_seconds = 0.05;
    config.batch_api = true;
    config.wait = false;
    Recorded seen;
    const pipeline::RunOutcome first = pipeline::run(config, passages(3), seen.sink());
    CHECK(first.status == pipeline::RunStatus::waiting);
    REQUIRE(first.batch_report);
    CHECK_FALSE(first.batch_report->submitted.empty());
    CHECK(seen.rows.empty());
    CHECK_FALSE(seen.status_lines.empty());

    config.wait = true;
    Recorded collected;
    const pipeline::RunOutcome second = pipeline::run(config, passages(3), collected.sink());
    CHECK(second.status == pipeline::RunStatus::complete);
    REQUIRE(second.batch_report);
    CHECK(collected.rows == std::vector<std::size_t>{0, 1, 2});
    CHECK(second.result.passages.size() == 3);
}

// Issue 42, item 9 (and issue 40): a waiting run's outcome carries the pending batch's handle;
// written to a file and read back (as another process would), collect() goes on from it to
// the rows a synchronous run gives, and no request is in two provider batches.
TEST_CASE("run: a waiting outcome's handle is saved, read back and collected, nothing paid twice",
          "[run][batch][pending]") {
    fake::FakeServer server;
    server.start();
    cli_test::TempDir dir;
    pipeline::ValidationConfig config = test::fake_config(server, dir.file("c.sqlite"));
    config.poll_interval_seconds = 0.05;
    config.batch_api = true;
    config.wait = false;
    const pipeline::RunOutcome first = pipeline::run(config, passages(3), Recorded().sink());
    REQUIRE(first.status == pipeline::RunStatus::waiting);
    REQUIRE(first.pending);
    const pipeline::PendingBatch& handle = *first.pending;
    CHECK(handle.passages.size() == 3);
    CHECK(handle.passages[1].id == "p2");
    CHECK(handle.config.cache_path == config.cache_path);
    CHECK(handle.config.api_key.empty());  // never a key in the handle
    CHECK(handle.batch_ids == first.batch_report->submitted);
    CHECK(handle.created.size() == 20);  // 2026-12-07T20:31:05Z
    CHECK(handle.key.size() == 64);
    const std::string text = pipeline::pending_to_json(handle);
    CHECK(text.find("test-key") == std::string::npos);

    // Written and read back: the same settings, passages and key.
    const std::string path = dir.file("pending.json");
    pipeline::save_pending(handle, path);
    pipeline::PendingBatch loaded = pipeline::load_pending(path);
    CHECK(loaded.key == handle.key);
    CHECK(pipeline::pending_to_json(loaded) == text);
    CHECK(loaded.config.m == config.m);
    CHECK(loaded.config.tests.seed == config.tests.seed);
    CHECK(loaded.config.poll_interval_seconds == config.poll_interval_seconds);
    CHECK(loaded.config.base_url == config.base_url);

    // A handle edited by hand, or another file, is refused.
    std::string edited = text;
    edited.replace(edited.find("Revenue grew"), 7, "Revenue fell");
    CHECK_THROWS_AS(pipeline::pending_from_json(edited), Error);
    CHECK_THROWS_AS(pipeline::pending_from_json("{\"format\": \"other\"}"), Error);
    CHECK_THROWS_AS(pipeline::load_pending(dir.file("none.json")), Error);

    // Collected once at a time (polls), as a front end does, until done; the key comes from
    // the caller (the handle has none).
    loaded.config.api_key = "test-key";
    pipeline::RunOutcome step;
    int polls = 0;
    do {
        step = pipeline::collect(loaded, false, Recorded().sink());
        if (step.status == pipeline::RunStatus::waiting) {
            REQUIRE(step.pending);
            CHECK(step.pending->key == handle.key);  // the same run
            loaded.batch_ids = step.pending->batch_ids;
        }
    } while (step.status == pipeline::RunStatus::waiting && ++polls < 30);
    REQUIRE(step.status == pipeline::RunStatus::complete);
    CHECK_FALSE(step.pending);
    REQUIRE(step.result.passages.size() == 3);
    for (const auto& [custom_id, times] : server.submitted_custom_ids()) {
        INFO(custom_id);
        CHECK(times == 1);
    }

    // Collected again, and the synchronous run of the same settings: every answer from the
    // cache, no request; the same verdicts and statistics.
    const std::size_t requests = server.total_count();
    const pipeline::RunOutcome again = pipeline::collect(loaded, true, Recorded().sink());
    config.batch_api = false;
    config.wait = true;
    const pipeline::RunOutcome synchronous = pipeline::run(config, passages(3), Recorded().sink());
    CHECK(server.total_count() == requests);
    REQUIRE(again.result.passages.size() == 3);
    REQUIRE(synchronous.result.passages.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(again.result.passages[i].verdict_name == step.result.passages[i].verdict_name);
        CHECK(synchronous.result.passages[i].label == step.result.passages[i].label);
        CHECK(synchronous.result.passages[i].tests.validation.statistic ==
              step.result.passages[i].tests.validation.statistic);
    }
}
