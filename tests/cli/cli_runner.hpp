// Runs the built `llmvalidate` binary (LLMV_CLI) as a subprocess: standard input from a string,
// standard output and error captured through temporary files (no pipe deadlocks), exit code.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace cli_test {

struct CliResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string read_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream buffer;
    buffer << file.rdbuf();
    return buffer.str();
}

inline void write_file(const std::string& path, const std::string& text) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << text;
    if (!file) throw std::runtime_error("cannot write " + path);
}

// A fresh folder under $TMPDIR (or /tmp), removed at destruction.
class TempDir {
  public:
    TempDir() {
        const char* base = std::getenv("TMPDIR");
        std::string pattern = std::string(base && *base ? base : "/tmp") + "/llmv-cli-XXXXXX";
        std::vector<char> buffer(pattern.begin(), pattern.end());
        buffer.push_back('\0');
        if (!::mkdtemp(buffer.data())) throw std::runtime_error("mkdtemp failed");
        path_ = buffer.data();
    }
    ~TempDir() {
        const std::string command = "rm -rf '" + path_ + "'";
        if (std::system(command.c_str()) != 0) {
        }
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

// `program` with `args` (argv[0] is the program). peak_rss_kb: when given, the child's peak
// resident set size (wait4's ru_maxrss, in KiB).
inline CliResult run_program(const std::string& program, const std::vector<std::string>& args,
                             const std::string& stdin_text = "", long* peak_rss_kb = nullptr) {
    TempDir dir;
    const std::string in = dir.file("stdin"), out = dir.file("stdout"), err = dir.file("stderr");
    write_file(in, stdin_text);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, in.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);

    std::vector<std::string> argv_strings;
    argv_strings.push_back(program);
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : argv_strings) argv.push_back(&arg[0]);
    argv.push_back(nullptr);

    pid_t pid = 0;
    const int spawned =
        ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw std::runtime_error("cannot start " + program);
    int status = 0;
    struct rusage usage {};
    if (::wait4(pid, &status, 0, &usage) != pid) throw std::runtime_error("wait4 failed");
    if (peak_rss_kb) *peak_rss_kb = usage.ru_maxrss;

    CliResult result;
    if (WIFEXITED(status))
        result.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        result.exit_code = 128 + WTERMSIG(status);
    result.out = read_file(out);
    result.err = read_file(err);
    return result;
}

// The built `llmvalidate` (LLMV_CLI) with `args`.
inline CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text = "",
                         long* peak_rss_kb = nullptr) {
    return run_program(LLMV_CLI, args, stdin_text, peak_rss_kb);
}

// `script` through /bin/bash -c, as a reader pastes a command into a terminal.
inline CliResult run_shell(const std::string& script) {
    return run_program("/bin/bash", {"-c", script});
}

}  // namespace cli_test
