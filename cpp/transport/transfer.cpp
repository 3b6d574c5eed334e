// The set-up of one transfer's curl easy handle, and its header and body callbacks
// (transfer.hpp).
#include "transport/transfer.hpp"

#include <cctype>
#include <cstdio>
#include <string>

#include "llmvalidate/text.hpp"

namespace llmv::transport_detail {
namespace {

std::string lower(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

size_t write_body(char* data, size_t size, size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    if (transfer->body_out) {
        long status = 0;
        curl_easy_getinfo(transfer->easy, CURLINFO_RESPONSE_CODE, &status);
        if (status / 100 == 2) {
            // A short write ends the transfer with an error: a disk that is full is a failed
            // download, read again, never a results file taken as whole.
            return std::fwrite(data, 1, size * count, transfer->body_out);
        }
    }
    transfer->response.body.append(data, size * count);
    return size * count;
}

size_t write_header(char* data, size_t size, size_t count, void* user) {
    auto* transfer = static_cast<Transfer*>(user);
    const std::string line(data, size * count);
    if (line.rfind("HTTP/", 0) == 0) {
        transfer->response.headers.clear();  // a new response (after 100 Continue, say)
    } else {
        const auto colon = line.find(':');
        if (colon != std::string::npos) {
            transfer->response.headers[lower(text::trim(line.substr(0, colon)))] =
                text::trim(line.substr(colon + 1));
        }
    }
    return size * count;
}

}  // namespace

void configure_handle(CURL* easy, Transfer& transfer, const HttpRequest& request,
                      const TransportOptions& options) {
    curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, &transfer);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, write_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &transfer);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer.error_buffer);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, request.connect_timeout_ms);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, request.total_timeout_ms);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // whatever curl can decode
    curl_easy_setopt(easy, CURLOPT_USERAGENT, options.user_agent.c_str());
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION,
                     options.http2 ? static_cast<long>(CURL_HTTP_VERSION_2TLS)
                                   : static_cast<long>(CURL_HTTP_VERSION_1_1));
    // Over TLS, wait for a connection that may multiplex rather than open one per request.
    if (options.http2 && request.url.rfind("https://", 0) == 0) {
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    }
    if (request.method == "GET") {
        curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    } else {
        if (request.method != "POST") {
            curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
        }
        if (request.method == "POST" || !request.body.empty()) {
            curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
            curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                             static_cast<curl_off_t>(request.body.size()));
        }
    }
    curl_slist* list = nullptr;
    for (const auto& [name, value] : request.headers) {
        list = curl_slist_append(list, (name + ": " + value).c_str());
    }
    list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
    transfer.header_list = list;
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, list);
}

}  // namespace llmv::transport_detail
