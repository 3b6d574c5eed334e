// The tests' HTTP client for the fake server (test_fake_server.cpp, test_fake_batches.cpp).
#pragma once

#include <httplib.h>

#include <catch2/catch.hpp>

#include <cctype>
#include <ctime>
#include <string>

#include "fake_server.hpp"
#include "core/http.hpp"

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
// signing it with SigV4 itself when asked (the real transport lets libcurl sign). No answer at
// all is the response's transport_error.
inline HttpResponse send_http(const HttpRequest& request, int read_timeout_s = 10) {
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
        if (name == "Content-Type") {
            content_type = value;
        } else {
            headers.emplace(name, value);
        }
    }
    if (!request.aws_sigv4.empty()) {
        // "aws:amz:<region>:<service>"
        const std::string spec = request.aws_sigv4;
        const auto third = spec.find(':', 8);
        fake::SigV4Input input;
        input.method = request.method;
        const auto question = target.find('?');
        input.path = target.substr(0, question);
        input.query = question == std::string::npos ? "" : target.substr(question + 1);
        input.region = spec.substr(8, third - 8);
        input.service = spec.substr(third + 1);
        input.amz_date = now_amz_date();
        input.headers = {
            {"content-type", content_type}, {"host", host}, {"x-amz-date", input.amz_date}};
        input.body = request.body;
        input.access_key_id = request.aws_access_key_id;
        input.secret_access_key = request.aws_secret_access_key;
        headers.emplace("Host", host);
        headers.emplace("x-amz-date", input.amz_date);
        headers.emplace("Authorization", fake::sigv4_authorization(input));
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
