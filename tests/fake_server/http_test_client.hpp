// The tests' HTTP client for the fake server (test_fake_server.cpp, test_fake_batches.cpp).
#pragma once

#include <httplib.h>

#include <catch2/catch.hpp>

#include <cctype>
#include <ctime>
#include <string>

#include "core/http.hpp"
#include "fake_server.hpp"

namespace llmv::fake {

// Now, as SigV4 writes it (20260102T030405Z).
inline std::string now_amz_date() {
    char text[32];
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
    return text;
}

// A tiny stand-in for the transport: sends an HttpRequest (GET or POST) with cpp-httplib,
// signed with the engine's SigV4 signer when asked (as the transport signs). No answer at all
// is the response's transport_error.
inline HttpResponse send_http(const HttpRequest& unsigned_request, int read_timeout_s = 10) {
    HttpRequest request = unsigned_request;
    sign_request(request, std::time(nullptr));  // a signer's signature, as the transport adds it
    const std::string prefix = "http://";
    REQUIRE(request.url.rfind(prefix, 0) == 0);
    const auto slash = request.url.find('/', prefix.size());
    const std::string host = request.url.substr(prefix.size(), slash - prefix.size());
    const std::string target = slash == std::string::npos ? "/" : request.url.substr(slash);
    const auto colon = host.find(':');
    httplib::Client client(host.substr(0, colon), std::stoi(host.substr(colon + 1)));
    client.set_read_timeout(read_timeout_s, 0);
    httplib::Headers headers;
    std::string content_type = "application/json";
    for (const auto& [name, value] : request.headers) {
        if (name == "Content-Type" || name == "content-type") {
            content_type = value;
        } else {
            headers.emplace(name, value);
        }
    }
    HttpResponse response;
    auto result = request.method == "GET"
                      ? client.Get(target.c_str(), headers)
                      : client.Post(target.c_str(), headers, request.body, content_type.c_str());
    if (!result) {
        response.transport_error =
            "httplib error " + std::to_string(static_cast<int>(result.error()));
        return response;
    }
    response.status = result->status;
    response.body = result->body;
    for (const auto& [name, value] : result->headers) {
        std::string lower = name;
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        response.headers[lower] = value;
    }
    return response;
}

}  // namespace llmv::fake
