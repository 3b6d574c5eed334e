// The command-line tool as a subprocess for the fault tests (test_fault_suite.cpp,
// test_batch_faults.cpp): scratch folders removed when the binary exits, a spawn whose child
// gets the default signal dispositions (so that SIGINT and SIGTERM sent mid-run act as a
// user's would), its exit code, its output files, and the rows of its `--format jsonl` output.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace llmv::test {

// A new folder under the system's temporary folder, named after `prefix` and `name`; every
// folder made is removed when the test binary exits, so nothing is left in /tmp.
inline std::string scratch_dir(const std::string& prefix, const std::string& name) {
    struct MadeDirs {
        std::vector<std::filesystem::path> made;
        ~MadeDirs() {
            std::error_code ignored;
            for (const auto& dir : made) std::filesystem::remove_all(dir, ignored);
        }
    };
    static MadeDirs dirs;
    static int counter = 0;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() /
        (prefix + "-" + name + "-" + std::to_string(stamp) + "-" + std::to_string(++counter));
    std::filesystem::create_directories(dir);
    dirs.made.push_back(dir);
    return dir.string();
}

struct Spawned {
    pid_t pid = 0;
    std::string out, err;  // the files standard output and error go to
};

// Starts LLMV_CLI with `args`; its output goes to `dir`/stdout and `dir`/stderr.
inline Spawned spawn_cli(const std::vector<std::string>& args, const std::string& dir) {
    ::setenv("LLMV_PROMPTS_DIR", LLMV_SOURCE_DIR "/prompts", 0);  // whatever the working folder
    Spawned spawned;
    spawned.out = dir + "/stdout";
    spawned.err = dir + "/stderr";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, spawned.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, spawned.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    std::vector<std::string> strings = {LLMV_CLI};
    strings.insert(strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : strings) argv.push_back(&arg[0]);
    argv.push_back(nullptr);
    // The child gets the default dispositions (a test runner may ignore SIGINT).
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    const int started =
        ::posix_spawn(&spawned.pid, LLMV_CLI, &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    REQUIRE(started == 0);
    return spawned;
}

// Its exit code; 128 + the signal's number when a signal ended it.
inline int wait_cli(const Spawned& spawned) {
    int status = 0;
    REQUIRE(::waitpid(spawned.pid, &status, 0) == spawned.pid);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

inline std::string slurp(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

// id -> the row's status, label, verdict and (when `exact`) tests, from `--format jsonl` rows.
inline std::map<std::string, std::string> result_rows(const std::string& jsonl, bool exact = true) {
    std::map<std::string, std::string> rows;
    std::istringstream lines(jsonl);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.empty()) continue;
        const auto row = nlohmann::json::parse(line);
        nlohmann::json kept = {
            {"status", row["status"]}, {"label", row["label"]}, {"verdict", row["verdict"]}};
        if (exact && row.contains("tests")) kept["tests"] = row["tests"];
        rows[row["id"].get<std::string>()] = kept.dump();
    }
    return rows;
}

// An environment variable set for a scope (a child process spawned meanwhile inherits it).
struct ScopedEnv {
    std::string name;
    ScopedEnv(std::string variable, const std::string& value) : name(std::move(variable)) {
        ::setenv(name.c_str(), value.c_str(), 1);
    }
    ~ScopedEnv() { ::unsetenv(name.c_str()); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
};

}  // namespace llmv::test
