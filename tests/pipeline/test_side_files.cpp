// Answers a locked cache could not take: the side file that keeps them (issue 12), and the next
// run that adds it to the cache before its first call and says so (issue 41).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cache/temp_cache_dir.hpp"
#include "fake_config.hpp"
#include "fake_server/fake_server.hpp"
#include "llm/synthetic_text.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/run.hpp"

namespace fs = std::filesystem;
using namespace llmv;
using namespace llmv::pipeline;

namespace {

std::vector<PassageInput> five_passages() {
    std::vector<PassageInput> passages;
    for (int i = 0; i < 5; ++i) {
        // Written the way the fake server writes passages for the label.
        const std::string text = SyntheticText(0)
                                     .passages(i % 2 ? "positive" : "negative", 1,
                                               static_cast<std::uint64_t>(90 + i))
                                     .front();
        passages.push_back({"w" + std::to_string(i), text, "", {}, ""});
    }
    return passages;
}

// Another process takes the cache file's write lock after the first passage is reported and
// keeps it past the end of the run: every later write times out. The answers stay in memory
// (retried with backoff) and, the lock still held at the end, go to a side file beside the
// cache; every passage gets its verdict.
BatchResult run_with_lock_held(ValidationConfig& config, const std::vector<PassageInput>& passages) {
    // One request at a time: the queue serves the first passages first, so that some finish
    // (and are written) before the lock and the others after it.
    config.concurrency = 1;
    config.cache_busy_timeout_ms = 100;
    std::unique_ptr<llmv::test::HeldWriteLock> other_process;
    BatchCallbacks callbacks;
    callbacks.progress_interval_seconds = 0;
    callbacks.on_progress = [&](const Progress& progress) {
        if (other_process || progress.passages_done < 1) return;
        other_process = std::make_unique<llmv::test::HeldWriteLock>(config.cache_path);
    };
    const BatchResult locked = validate_batch(config, passages, callbacks);
    REQUIRE(other_process != nullptr);
    other_process->release();
    REQUIRE(locked.passages.size() == passages.size());
    for (const auto& result : locked.passages) {
        INFO(result.id << ": " << result.error_message);
        CHECK(result.ok);
    }
    REQUIRE_FALSE(locked.unwritten_file.empty());
    CHECK(locked.unwritten_file.rfind(config.cache_path + ".unwritten-", 0) == 0);
    CHECK(locked.unwritten_answers > 0);
    return locked;
}

// A re-run makes no call at all and reproduces every number.
void check_rerun_pays_nothing(const BatchResult& rerun, const BatchResult& locked) {
    REQUIRE(rerun.passages.size() == locked.passages.size());
    for (std::size_t i = 0; i < locked.passages.size(); ++i) {
        INFO(rerun.passages[i].id << ": " << rerun.passages[i].error_message);
        REQUIRE(rerun.passages[i].ok);
        CHECK(rerun.passages[i].calls.chat_calls == 0);
        CHECK(rerun.passages[i].tests.validation.p_value ==
              locked.passages[i].tests.validation.p_value);
    }
    CHECK(rerun.unwritten_file.empty());
}

}  // namespace

// Issue 12: nothing paid is lost. Once the side file is imported by hand, a re-run pays nothing.
TEST_CASE("a cache locked by another process loses no answer: a side file keeps them for import") {
    const bool inline_writes = GENERATE(false, true);
    INFO((inline_writes ? "writes inline" : "writes on the writer thread"));
    if (inline_writes) {
        ::setenv("LLMV_CACHE_INLINE_WRITES", "1", 1);
    } else {
        ::unsetenv("LLMV_CACHE_INLINE_WRITES");
    }
    fake::FakeServer server;
    server.start();
    const llmv::test::TempCacheDir directory(inline_writes ? "llmv-locked-inline" : "llmv-locked");
    ValidationConfig config = llmv::test::fake_config(server, directory.cache());
    const std::vector<PassageInput> passages = five_passages();
    const BatchResult locked = run_with_lock_held(config, passages);
    ::unsetenv("LLMV_CACHE_INLINE_WRITES");
    const std::size_t served = server.total_count();
    {
        Cache cache(config.cache_path);
        // Only answers new to the cache count (issue 25); a key the file holds twice (a newer
        // answer under it in a later batch) counts once.
        const std::uint64_t added = cache.import_side_file(locked.unwritten_file);
        CHECK(added > 0);
        CHECK(added <= locked.unwritten_answers);
    }
    fs::remove(locked.unwritten_file);
    check_rerun_pays_nothing(validate_batch(config, passages), locked);
    CHECK(server.total_count() == served);  // nothing paid twice
}

// Issue 41: a plain re-run (pipeline::run, every front end's entry) adds the side file itself,
// says so with a "side_file" warning, removes it and pays for nothing twice; a file it cannot
// read is left in place and named.
TEST_CASE("the next run adds a side file beside the cache before its first call and says so") {
    ::unsetenv("LLMV_CACHE_INLINE_WRITES");
    fake::FakeServer server;
    server.start();
    const llmv::test::TempCacheDir directory("llmv-leftovers");
    ValidationConfig config = llmv::test::fake_config(server, directory.cache());
    const std::vector<PassageInput> passages = five_passages();
    const BatchResult locked = run_with_lock_held(config, passages);
    const std::size_t served = server.total_count();
    // A half-written side file (its temporary name) is not one; a damaged one is named.
    const std::string part = config.cache_path + ".unwritten-1-3.jsonl.part";
    const std::string damaged = config.cache_path + ".unwritten-2-1.jsonl";
    std::ofstream(part) << "{\"key\": 1}\n";
    std::ofstream(damaged) << "{\"key\": 1}\n";

    std::vector<RunWarning> warnings;
    RunSink sink;
    sink.on_warning = [&](const RunWarning& warning) { warnings.push_back(warning); };
    const RunOutcome rerun = run(config, passages, sink);
    CHECK(rerun.status == RunStatus::complete);
    std::vector<std::string> side_file_texts;
    for (const RunWarning& warning : warnings)
        if (warning.kind == "side_file") side_file_texts.push_back(warning.text);
    REQUIRE(side_file_texts.size() == 2);
    const auto mentions = [&](const std::string& path, const std::string& words) {
        for (const std::string& text : side_file_texts)
            if (text.find(path) != std::string::npos && text.find(words) != std::string::npos)
                return true;
        return false;
    };
    CHECK(mentions(locked.unwritten_file,
                   std::to_string(locked.unwritten_answers) + " answers ("));
    CHECK(mentions(damaged, "could not be added now"));
    CHECK_FALSE(fs::exists(locked.unwritten_file));
    CHECK(fs::exists(damaged));
    CHECK(fs::exists(part));
    check_rerun_pays_nothing(rerun.result, locked);
    CHECK(server.total_count() == served);  // nothing paid twice

    // Imported once: the next run has nothing more to add from it.
    warnings.clear();
    run(config, passages, sink);
    std::size_t again = 0;
    for (const RunWarning& warning : warnings)
        if (warning.kind == "side_file" && warning.text.find(locked.unwritten_file) != std::string::npos)
            ++again;
    CHECK(again == 0);
    fs::remove(damaged);
    fs::remove(part);
}
