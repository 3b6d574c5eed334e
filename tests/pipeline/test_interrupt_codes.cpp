// Issue 41, item 4: an interrupt is honoured while the CLI waits for another process's lock on
// the cache (the busy handler looks at the interrupt check every 50 ms), and each signal has
// one exit code on every path: 130 for SIGINT, 143 for SIGTERM (a run, `batch`, a batch-API
// run). The lock is held by this test's own connection while the CLI runs as another process;
// SQLite's busy timeout is 30 s, so a CLI that ignored the signal would still be waiting when
// the generous 20 s bound below runs out.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cache/temp_cache_dir.hpp"
#include "cli_process.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/cache.hpp"

using namespace llmv;
using namespace llmv::test;

namespace {

// Whether process `pid` catches `signal_number` (the SigCgt mask of /proc/PID/status): the
// CLI has installed its handler.
bool catches(pid_t pid, int signal_number) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("SigCgt:", 0) != 0) continue;
        const std::uint64_t mask = std::stoull(line.substr(7), nullptr, 16);
        return (mask >> (signal_number - 1)) & 1u;
    }
    return false;
}

// The exit code, or -1 when the process had not ended within `seconds` (it is then killed).
int wait_at_most(const Spawned& spawned, int seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < end) {
        int status = 0;
        const pid_t done = ::waitpid(spawned.pid, &status, WNOHANG);
        if (done == spawned.pid) {
            if (WIFEXITED(status)) return WEXITSTATUS(status);
            if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(spawned.pid, SIGKILL);
    int status = 0;
    ::waitpid(spawned.pid, &status, 0);
    return -1;
}

std::vector<std::string> command(const std::string& path, const fake::FakeServer& server,
                                 const std::string& dir, const std::string& cache) {
    std::vector<std::string> args;
    if (path == "run") {
        args = {"run", "--text", "Revenue grew strongly this quarter."};
    } else {
        std::ofstream input(dir + "/in.csv");
        input << "id,text\n1,Revenue grew strongly this quarter.\n2,Costs rose sharply.\n";
        args = {
            "batch",    "--input", dir + "/in.csv", "--text-column",    "text", "--id-column", "id",
            "--format", "jsonl",   "--output",      dir + "/rows.jsonl"};
        if (path == "batch-api") args.push_back("--batch-api");
    }
    const std::vector<std::string> common = {"--task",
                                             "simple_sentiment",
                                             "--provider",
                                             "openai",
                                             "--base-url",
                                             server.base_url() + "/v1",
                                             "--model",
                                             "fake-chat",
                                             "--embedding-provider",
                                             "openai",
                                             "--embedding-model",
                                             "fake-embedding",
                                             "--cache",
                                             cache,
                                             "-M",
                                             "20",
                                             "-n",
                                             "5",
                                             "--permutations",
                                             "99",
                                             "--quiet"};
    args.insert(args.end(), common.begin(), common.end());
    return args;
}

}  // namespace

TEST_CASE(
    "interrupt codes: SIGINT and SIGTERM end a wait for the cache's lock at once, with 130 "
    "and 143, on every path",
    "[interrupt][cli]") {
    const std::string path = GENERATE(as<std::string>{}, "run", "batch", "batch-api");
    const int signal_number = GENERATE(SIGINT, SIGTERM);
    const int expected = signal_number == SIGINT ? 130 : 143;
    INFO(path << ", signal " << signal_number);
    fake::FakeServerOptions options;
    options.api_key = "";
    fake::FakeServer server(options);
    server.start();
    const std::string dir = scratch_dir("llmv-interrupt", path);
    const std::string cache = dir + "/cache.sqlite";
    { const llmv::Cache made(cache); }  // an llmvalidate cache, which another process locks
    HeldWriteLock other_process(cache);

    const Spawned run = spawn_cli(command(path, server, dir, cache), dir);
    // The handler is installed, then the CLI reaches the cache and waits for the lock.
    for (int i = 0; i < 1000 && !catches(run.pid, signal_number); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    CHECK(server.total_count() == 0);  // nothing sent: the cache is opened first
    ::kill(run.pid, signal_number);
    const int code = wait_at_most(run, 20);  // the busy timeout is 30 s
    const std::string err = slurp(run.err);
    INFO(err);
    CHECK(code == expected);
    CHECK_THAT(err, Catch::Matchers::Contains("llmv.cancelled"));
    CHECK((err.find("database is locked") == std::string::npos ||
           err.find("interrupted") != std::string::npos));
    other_process.release();
}

TEST_CASE("interrupt codes: the help documents 130 for SIGINT and 143 for SIGTERM", "[cli]") {
    const std::string dir = scratch_dir("llmv-interrupt", "help");
    const Spawned help = spawn_cli({"--help"}, dir);
    REQUIRE(wait_at_most(help, 20) == 0);
    const std::string out = slurp(help.out);
    CHECK_THAT(out, Catch::Matchers::Contains("130  interrupted by SIGINT"));
    CHECK_THAT(out, Catch::Matchers::Contains("143  interrupted by SIGTERM"));
}
