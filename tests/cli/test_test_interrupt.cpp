// `llmvalidate test` and Ctrl-C (issue 42): the separation tests' permutations look at the
// CLI's SIGINT flag through the engine's interrupt check, so the command ends with
// llmv.cancelled (exit 130 and its message) instead of being killed by the signal after the
// default disposition, or running on.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_runner.hpp"

using namespace cli_test;

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

// Two labels of 40 texts in 8 dimensions, and 1,000,000 permutations: about a second of work.
std::string large_input() {
    std::ostringstream json;
    std::uint64_t state = 12345;
    auto next = [&state] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5;
    };
    auto vector = [&](int hot) {
        std::ostringstream row;
        row << "[";
        for (int k = 0; k < 8; ++k) row << (k ? "," : "") << next() + (k == hot ? 2.0 : 0.0);
        row << "]";
        return row.str();
    };
    json << "{\"label\":\"A\",\"labels\":[\"A\",\"B\"],\"passage\":" << vector(0)
         << ",\"permutations\":1000000,\"pools\":{";
    for (int label = 0; label < 2; ++label) {
        json << (label ? "," : "") << "\"" << (label ? "B" : "A") << "\":[";
        for (int i = 0; i < 40; ++i) json << (i ? "," : "") << vector(label);
        json << "]";
    }
    json << "}}";
    return json.str();
}

// Starts the CLI with `args`, standard output and error into files of `dir`, with SIGINT's
// default disposition (a test runner may ignore it).
pid_t spawn_cli(const std::vector<std::string>& args, const TempDir& dir) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, dir.file("stdout").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, dir.file("stderr").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> strings = {LLMV_CLI};
    strings.insert(strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : strings) argv.push_back(&arg[0]);
    argv.push_back(nullptr);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults, none;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = 0;
    const int started = ::posix_spawn(&pid, LLMV_CLI, &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    REQUIRE(started == 0);
    return pid;
}

}  // namespace

TEST_CASE("cli test: SIGINT during the permutations ends the run with llmv.cancelled, exit 130") {
    TempDir dir;
    write_file(dir.file("input.json"), large_input());
    const pid_t pid = spawn_cli({"test", dir.file("input.json")}, dir);
    // Wait until the handler is installed (the permutations start right after), then Ctrl-C.
    bool ready = false;
    for (int i = 0; i < 4000 && !ready; ++i) {
        ready = catches(pid, SIGINT);
        if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    CHECK(ready);
    ::kill(pid, SIGINT);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    const std::string err = read_file(dir.file("stderr"));
    INFO(err);
    // Ended by the engine with its exit code, not by the signal's default disposition.
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 130);
    CHECK_THAT(err, Catch::Matchers::Contains("[llmv.cancelled]"));
    CHECK(read_file(dir.file("stdout")).empty());
}
