// One transfer on the wire and the job behind it (private to cpp/transport/): the curl easy
// handle set up for a request, and the callbacks that take its headers and body.
#pragma once

#include <curl/curl.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "transport/transport.hpp"

namespace llmv::transport_detail {

// A job the transport holds between attempts.
struct Pending {
    Job job;
    std::vector<std::string> secrets;
    int attempts = 0;
    HttpResponse last_response;
};

// One transfer on the wire.
struct Transfer {
    CURL* easy = nullptr;
    curl_slist* header_list = nullptr;
    std::unique_ptr<Pending> pending;
    HttpResponse response;
    HttpRequest signed_request;  // the request as sent, when it is signed here
    char error_buffer[CURL_ERROR_SIZE] = {0};
    double started = 0;
    std::FILE* body_out = nullptr;  // HttpRequest::body_file, open for this attempt

    ~Transfer() { close_body_file(); }

    void close_body_file() {
        if (body_out) std::fclose(body_out);
        body_out = nullptr;
    }
};

// Sets `easy` up to send `request` for `transfer` (its URL, method, body, headers, timeouts and
// callbacks: write_body, write_header); the header list is kept in transfer.header_list.
void configure_handle(CURL* easy, Transfer& transfer, const HttpRequest& request,
                      const TransportOptions& options);

}  // namespace llmv::transport_detail
