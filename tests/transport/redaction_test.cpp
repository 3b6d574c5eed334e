// A planted key must appear nowhere: not in errors, traces, results, nor the cache file.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "transport/transport.hpp"
#include "transport/loopback_server.hpp"

using llmv_test::LoopbackServer;

namespace {

const std::string planted_key = "sk-test-PLANTED-9f8e7d6c5b4a39281706";

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("A planted API key is redacted from errors, traces, results and the cache file") {
    LoopbackServer server;
    // A careless provider: it echoes the key in errors, in bodies and in a header.
    server.server.Post(
        "/v1/chat/completions", [&](const httplib::Request& request, httplib::Response& response) {
            const std::string key = request.get_header_value("Authorization").substr(7);
            if (request.body.find("bad") != std::string::npos) {
                response.status = 401;
                response.set_content(
                    "{\"error\":{\"message\":\"Incorrect API key provided: " + key + "\"}}",
                    "application/json");
                return;
            }
            if (request.body.find("flaky") != std::string::npos) {
                response.status = 503;
                response.set_content("overloaded for key " + key, "text/plain");
                return;
            }
            response.set_header("x-echo", key);
            response.set_content("{\"choices\":[{\"message\":{\"content\":\"" + key + "\"}}]}",
                                 "application/json");
        });
    server.start();

    std::ostringstream captured;  // every line a user could see
    llmv::TransportOptions options;
    options.retry.initial_backoff_seconds = 0.001;
    options.retry.max_retries = 1;
    options.trace = [&](const llmv::TraceEvent& event) {
        captured << llmv::format_trace(event) << "\n";
    };
    llmv::Transport transport(options);

    auto request_with = [&](const std::string& body) {
        llmv::HttpRequest request;
        request.url = server.url("/v1/chat/completions") + "?api-key=" + planted_key;
        request.headers = {{"Authorization", "Bearer " + planted_key},
                           {"content-type", "application/json"}};
        request.body = body;
        request.secrets = {planted_key};
        return request;
    };

    std::vector<llmv::Job> jobs(3);
    jobs[0].request = request_with("{\"prompt\":\"bad\"}");
    jobs[1].request = request_with("{\"prompt\":\"flaky\"}");
    jobs[2].request = request_with("{\"prompt\":\"fine\"}");
    for (std::uint64_t i = 0; i < 3; ++i) jobs[i].id = i;
    const auto results = transport.run_all(jobs);
    REQUIRE(results[0].error_code == llmv::code::provider_auth);
    REQUIRE(results[1].error_code == llmv::code::provider_server);
    REQUIRE(results[2].ok());
    for (const auto& result : results) {
        captured << result.error_message << "\n"
                 << result.response.body << "\n"
                 << result.response.transport_error << "\n";
        for (const auto& [name, value] : result.response.headers)
            captured << name << ": " << value << "\n";
    }
    // The requests did carry the key, and the server saw it (the echo was redacted on return).
    CHECK_THAT(results[0].response.body, Catch::Contains("Incorrect API key provided: <redacted>"));
    CHECK(results[2].response.headers.at("x-echo") == "<redacted>");
    CHECK_THAT(captured.str(), Catch::Contains("Authorization: <redacted>"));

    // The cache, given the response and the request's secrets.
    char directory_template[] = "/tmp/llmv-redaction-XXXXXX";
    REQUIRE(mkdtemp(directory_template) != nullptr);
    const std::string cache_path = std::string(directory_template) + "/cache.sqlite";
    {
        llmv::Cache cache(cache_path);
        llmv::CacheKey key;
        key.provider = "openai";
        key.endpoint = server.url("/v1/chat/completions");
        key.model = "gpt-test";
        key.prompt = "fine";
        llmv::CacheEntry entry;
        entry.body = results[2].response.body;
        entry.text = planted_key;  // as if a parser had pulled it out of an unredacted body
        cache.put(key, entry, jobs[2].request.secrets);
        captured << cache.get(key)->text << "\n";
    }
    const std::string database = file_bytes(cache_path) + file_bytes(cache_path + "-wal");
    CHECK(database.size() > 0);
    CHECK(database.find(planted_key) == std::string::npos);
    CHECK(database.find("PLANTED") == std::string::npos);
    std::remove((cache_path + "-wal").c_str());
    std::remove((cache_path + "-shm").c_str());
    std::remove(cache_path.c_str());
    rmdir(directory_template);

    const std::string everything = captured.str();
    CHECK(everything.find(planted_key) == std::string::npos);
    CHECK(everything.find("PLANTED") == std::string::npos);
    CHECK_THAT(everything, Catch::Contains("<redacted>"));
}
