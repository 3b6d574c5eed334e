// A small HTTP server on 127.0.0.1 (a free port picked by the kernel) for the transport tests
// and the throughput bench: the tests script its handlers, it counts what it received and
// how many requests it held at once.
#pragma once

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace llmv_test {

// Debian's libcpp-httplib is built with a listen backlog of 5: a burst of more simultaneous
// connects overflows the accept queue and the dropped SYNs are retried a second later. This
// subclass reaches the listening socket to raise the backlog (Linux accepts a second listen()).
class BacklogServer : public httplib::Server {
  public:
    void raise_backlog(int backlog) { ::listen(svr_sock_, backlog); }
};

class LoopbackServer {
  public:
    explicit LoopbackServer(std::size_t threads = 64) {
        server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
        server.set_keep_alive_max_count(100000);
        server.set_keep_alive_timeout(30);
        server.set_tcp_nodelay(true);  // else Nagle + delayed ACK add 40 ms to every response
        // Every request passes through here first: count it, remember its client port.
        server.set_pre_routing_handler([this](const httplib::Request& request, httplib::Response&) {
            requests.fetch_add(1);
            std::lock_guard<std::mutex> lock(mutex);
            client_ports.insert(request.remote_port);
            return httplib::Server::HandlerResponse::Unhandled;
        });
    }

    ~LoopbackServer() { stop(); }

    // Call after the handlers are set.
    void start() {
        port = server.bind_to_any_port("127.0.0.1");
        if (port <= 0) throw std::runtime_error("cannot bind a port on 127.0.0.1");
        server.raise_backlog(4096);
        thread = std::thread([this] { server.listen_after_bind(); });
        for (int i = 0; i < 500 && !server.is_running(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }

    void stop() {
        stopping.store(true);
        if (thread.joinable()) {
            server.stop();
            thread.join();
        }
    }

    std::string url(const std::string& path = "/") const {
        return "http://127.0.0.1:" + std::to_string(port) + path;
    }

    // Bookkeeping for handlers that want to measure simultaneous requests.
    struct InFlight {
        explicit InFlight(LoopbackServer& owner) : server(owner) {
            const int now = ++server.in_flight;
            int seen = server.max_in_flight.load();
            while (now > seen && !server.max_in_flight.compare_exchange_weak(seen, now)) {
            }
        }
        ~InFlight() { --server.in_flight; }
        LoopbackServer& server;
    };

    // Sleeps in small steps so that stopping the server never waits for a long handler.
    void pause(std::chrono::milliseconds duration) {
        const auto until = std::chrono::steady_clock::now() + duration;
        while (!stopping.load() && std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }

    std::size_t distinct_client_ports() {
        std::lock_guard<std::mutex> lock(mutex);
        return client_ports.size();
    }

    BacklogServer server;
    int port = 0;
    std::atomic<int> requests{0};
    std::atomic<int> in_flight{0};
    std::atomic<int> max_in_flight{0};
    std::atomic<bool> stopping{false};

  private:
    std::mutex mutex;
    std::set<int> client_ports;
    std::thread thread;
};

}  // namespace llmv_test
