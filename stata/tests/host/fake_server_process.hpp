// The fake provider server (tests/fake_server) as a child process on 127.0.0.1: the OpenAI chat
// and embedding wire formats, for host tests that need real requests (and a cache that fills).
#pragma once

#include <catch2/catch.hpp>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <string>
#include <vector>

namespace host {

// Starts the server on a free port (it prints the port) and stops it on destruction.
class FakeServerProcess {
  public:
    // `arguments`: the server's options after --port 0 (by default the key it requires).
    explicit FakeServerProcess(std::vector<std::string> arguments = {"--api-key", "sk-host-secret"}) {
        std::vector<std::string> argv_strings = {LLMV_FAKE_SERVER_PATH, "--port", "0"};
        argv_strings.insert(argv_strings.end(), arguments.begin(), arguments.end());
        std::vector<char*> argv;
        for (std::string& argument : argv_strings) argv.push_back(&argument[0]);
        argv.push_back(nullptr);
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        pid_ = fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            dup2(fds[1], STDOUT_FILENO);
            close(fds[0]);
            execv(LLMV_FAKE_SERVER_PATH, argv.data());
            _exit(127);
        }
        close(fds[1]);
        char c;
        while (read(fds[0], &c, 1) == 1 && c != '\n') port_ += c;
        close(fds[0]);
        REQUIRE_FALSE(port_.empty());
    }
    ~FakeServerProcess() {
        kill(pid_, SIGTERM);
        waitpid(pid_, nullptr, 0);
    }
    std::string base_url() const { return "http://127.0.0.1:" + port_ + "/v1"; }
    std::string root_url() const { return "http://127.0.0.1:" + port_; }

  private:
    pid_t pid_ = -1;
    std::string port_;
};

}  // namespace host
