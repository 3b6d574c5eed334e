// The fake provider server (tests/fake_server) as a child process on 127.0.0.1: the OpenAI chat
// and embedding wire formats, for host tests that need real requests (and a cache that fills).
#pragma once

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fake_stata.hpp"

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
            // Dies with the test: a test that crashes must not leave a server holding ctest's pipe
            // (ctest then waits for ever).
            prctl(PR_SET_PDEATHSIG, SIGKILL);
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

    // GET of a control endpoint (e.g. "/_control/served"), its JSON body parsed; with a body,
    // a POST (e.g. "/_control/faults").
    nlohmann::json control(const std::string& path, const std::string& post_body = "") const {
        const int fd = socket(AF_INET, SOCK_STREAM, 0);
        REQUIRE(fd >= 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(std::atoi(port_.c_str())));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        const std::string request =
            post_body.empty()
                ? "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                : "POST " + path +
                      " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                      "Content-Type: application/json\r\nContent-Length: " +
                      std::to_string(post_body.size()) + "\r\n\r\n" + post_body;
        REQUIRE(write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size()));
        std::string response;
        char buffer[65536];
        for (ssize_t got; (got = read(fd, buffer, sizeof buffer)) > 0;) response.append(buffer, static_cast<std::size_t>(got));
        close(fd);
        const std::size_t body = response.find("\r\n\r\n");
        REQUIRE(body != std::string::npos);
        return nlohmann::json::parse(response.substr(body + 4));
    }

  private:
    pid_t pid_ = -1;
    std::string port_;
};

// The provider locals the ado-file sets for an OpenAI-compatible run against `server`: its
// fake models and the key it requires, and the cache (""; no cache). The task is the caller's.
inline void set_server_locals(Stata& stata, const FakeServerProcess& server,
                              const std::string& cache = "") {
    stata.set_local("llmv_provider", "openai");
    stata.set_local("llmv_model", "fake-chat");
    stata.set_local("llmv_embedding_model", "fake-embed");
    stata.set_local("llmv_base_url", server.base_url());
    stata.set_local("llmv_apikey", "sk-host-secret");
    stata.set_local("llmv_cache", cache);
}

}  // namespace host
