// Provider batch APIs as requests and parsers (provider_batch.hpp). The synchronous request a
// provider built gives the endpoint and the credentials; nothing here opens a socket.
#include "llm/provider_batch.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <sstream>

#include "llmvalidate/error.hpp"

namespace llmv {

using nlohmann::json;

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The path of a URL ("/v1/chat/completions" of "http://host:1/v1/chat/completions").
std::string url_path(const std::string& url) {
    const auto scheme = url.find("://");
    const auto slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
    return slash == std::string::npos ? "/" : url.substr(slash);
}

// OpenAI: the API base ("http://host/v1") of a chat or embeddings URL.
std::string openai_base(const HttpRequest& synchronous) {
    for (const char* suffix : {"/chat/completions", "/embeddings"}) {
        if (ends_with(synchronous.url, suffix))
            return synchronous.url.substr(0, synchronous.url.size() - std::string(suffix).size());
    }
    throw_invalid(code::invalid_argument, "batch_api", synchronous.url,
                  "an OpenAI-compatible .../chat/completions or .../embeddings endpoint, or "
                  "Anthropic's .../v1/messages (Bedrock's batch inference needs S3 and is not "
                  "supported)");
}

// A request to the same API with the same credentials.
HttpRequest derived(const HttpRequest& synchronous, std::string method, std::string url) {
    HttpRequest request;
    request.method = std::move(method);
    request.url = std::move(url);
    for (const auto& header : synchronous.headers) {
        if (header.first != "Content-Type") request.headers.push_back(header);
    }
    request.secrets = synchronous.secrets;
    request.connect_timeout_ms = synchronous.connect_timeout_ms;
    request.total_timeout_ms = synchronous.total_timeout_ms;
    return request;
}

json parse_object(const HttpResponse& response, const std::string& what) {
    json body = json::parse(response.body, nullptr, false);
    if (body.is_discarded() || !body.is_object()) {
        throw Error(code::provider_server, "the " + what + " answer is not a JSON object (HTTP " +
                                               std::to_string(response.status) +
                                               "): " + abbreviate(response.body, 200));
    }
    return body;
}

std::size_t count_of(const json& counts, const char* name) {
    const auto found = counts.find(name);
    return found != counts.end() && found->is_number_unsigned() ? found->get<std::size_t>() : 0;
}

std::string string_of(const json& object, const char* name) {
    const auto found = object.find(name);
    return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

}  // namespace

BatchApiKind batch_api_for(const HttpRequest& synchronous) {
    if (ends_with(synchronous.url, "/v1/messages")) return BatchApiKind::anthropic;
    openai_base(synchronous);  // throws for anything else
    return BatchApiKind::openai;
}

namespace {

json line_body(const BatchLine& line) {
    json body = json::parse(line.request.body, nullptr, false);
    if (body.is_discarded()) throw Error(code::internal, "a batch line's body is not JSON");
    return body;
}

// One line of an OpenAI input file, newline included.
std::string openai_line(const BatchLine& line) {
    return json({{"custom_id", line.custom_id},
                 {"method", "POST"},
                 {"url", url_path(line.request.url)},
                 {"body", line_body(line)}})
               .dump() +
           "\n";
}

json anthropic_item(const BatchLine& line) {
    return {{"custom_id", line.custom_id}, {"params", line_body(line)}};
}

}  // namespace

BatchCaps vendor_batch_caps(BatchApiKind kind) {
    if (kind == BatchApiKind::anthropic) return {100000, 0, 256000000};
    return {50000, 50000, 200000000};
}

std::size_t batch_line_bytes(BatchApiKind kind, const BatchLine& line) {
    if (kind == BatchApiKind::anthropic)
        return anthropic_item(line).dump().size() + 1;  // the comma
    return openai_line(line).size();
}

HttpRequest openai_batch_upload(const std::vector<BatchLine>& lines) {
    if (lines.empty()) throw Error(code::internal, "a provider batch needs at least one line");
    const HttpRequest& first = lines.front().request;
    std::string content;
    for (const BatchLine& line : lines) content += openai_line(line);
    // The boundary cannot occur in JSON lines (a JSON string escapes no '-', but no line starts
    // with it either: every line starts with '{').
    const std::string boundary = "llmvalidate-batch-upload-4f1c9e";
    HttpRequest request = derived(first, "POST", openai_base(first) + "/files");
    request.headers.emplace_back("Content-Type", "multipart/form-data; boundary=" + boundary);
    request.body =
        "--" + boundary +
        "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n--" + boundary +
        "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"llmvalidate-batch.jsonl\""
        "\r\nContent-Type: application/jsonl\r\n\r\n" +
        content + "\r\n--" + boundary + "--\r\n";
    return request;
}

std::string openai_uploaded_file_id(const HttpResponse& response) {
    const json body = parse_object(response, "file upload");
    const std::string id = string_of(body, "id");
    if (response.status / 100 != 2 || id.empty()) {
        throw Error(code::provider_server, "the batch file upload was refused (HTTP " +
                                               std::to_string(response.status) +
                                               "): " + abbreviate(response.body, 200));
    }
    return id;
}

HttpRequest openai_batch_create(const HttpRequest& synchronous, const std::string& file_id,
                                const std::string& metadata) {
    HttpRequest request = derived(synchronous, "POST", openai_base(synchronous) + "/batches");
    request.headers.emplace_back("Content-Type", "application/json");
    json body = {{"input_file_id", file_id},
                 {"endpoint", url_path(synchronous.url)},
                 {"completion_window", "24h"}};
    if (!metadata.empty()) body["metadata"] = json::parse(metadata);
    request.body = body.dump();
    return request;
}

HttpRequest openai_file_content(const HttpRequest& synchronous, const std::string& file_id) {
    return derived(synchronous, "GET", openai_base(synchronous) + "/files/" + file_id + "/content");
}

namespace {

// A line's record as JSON: nullopt for a blank line; a discarded value for a line that is not a
// result (a file cut short).
std::optional<json> line_record(const std::string& line) {
    if (line.empty() || line == "\r") return std::nullopt;
    json record = json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.is_object() || !record.contains("custom_id"))
        return json(json::value_t::discarded);
    return record;
}

// Each line of a JSON-lines text; a line that is not a result (a file cut short) is counted.
template <typename Read>
void each_line(const std::string& text, std::size_t& unreadable, Read read) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const std::optional<json> record = line_record(line);
        if (!record) continue;
        if (record->is_discarded()) {
            ++unreadable;
            continue;
        }
        read(*record);
    }
}

BatchLineResult openai_result_of(const json& record) {
    BatchLineResult line;
    line.custom_id = string_of(record, "custom_id");
    const json& response = record.contains("response") ? record["response"] : json();
    if (response.is_object() && response.value("status_code", 0) == 200 &&
        response.contains("body") && response["body"].is_object()) {
        line.ok = true;
        line.response.status = 200;
        line.response.body = response["body"].dump();
    } else if (record.contains("error") && record["error"].is_object()) {
        line.error =
            string_of(record["error"], "code") + ": " + string_of(record["error"], "message");
    } else if (response.is_object()) {
        const json& body = response.contains("body") ? response["body"] : json();
        line.error = "HTTP " + std::to_string(response.value("status_code", 0)) +
                     (body.is_object() && body.contains("error") && body["error"].is_object()
                          ? ": " + string_of(body["error"], "message")
                          : std::string());
    } else {
        line.error = "no answer";
    }
    return line;
}

BatchLineResult anthropic_result_of(const json& record) {
    BatchLineResult line;
    line.custom_id = string_of(record, "custom_id");
    const json& result = record.contains("result") ? record["result"] : json();
    const std::string type = result.is_object() ? string_of(result, "type") : "";
    if (type == "succeeded" && result.contains("message") && result["message"].is_object()) {
        line.ok = true;
        line.response.status = 200;
        line.response.body = result["message"].dump();
    } else if (type == "errored" && result.contains("error") && result["error"].is_object()) {
        const json& outer = result["error"];
        const json& inner =
            outer.contains("error") && outer["error"].is_object() ? outer["error"] : outer;
        line.error = "errored: " + string_of(inner, "type") + ": " + string_of(inner, "message");
    } else {
        line.error = type.empty() ? "no result" : type;
    }
    return line;
}

}  // namespace

BatchLineRead read_batch_line(BatchApiKind kind, const std::string& line) {
    BatchLineRead read;
    const std::optional<json> record = line_record(line);
    if (!record) return read;
    if (record->is_discarded()) {
        read.unreadable = true;
        return read;
    }
    read.result =
        kind == BatchApiKind::anthropic ? anthropic_result_of(*record) : openai_result_of(*record);
    return read;
}

BatchResults openai_batch_results(const std::string& output_file, const std::string& error_file) {
    BatchResults results;
    const auto read = [&](const json& record) {
        results.lines.push_back(openai_result_of(record));
    };
    each_line(output_file, results.unreadable, read);
    each_line(error_file, results.unreadable, read);
    return results;
}

HttpRequest anthropic_batch_create(const std::vector<BatchLine>& lines) {
    if (lines.empty()) throw Error(code::internal, "a provider batch needs at least one line");
    const HttpRequest& first = lines.front().request;
    HttpRequest request = derived(first, "POST", first.url + "/batches");
    request.headers.emplace_back("Content-Type", "application/json");
    json requests = json::array();
    for (const BatchLine& line : lines) requests.push_back(anthropic_item(line));
    request.body = json({{"requests", requests}}).dump();
    return request;
}

BatchResults anthropic_batch_results(const std::string& text) {
    BatchResults results;
    each_line(text, results.unreadable,
              [&](const json& record) { results.lines.push_back(anthropic_result_of(record)); });
    return results;
}

HttpRequest batch_poll(const HttpRequest& synchronous, const std::string& batch_id) {
    if (batch_api_for(synchronous) == BatchApiKind::anthropic)
        return derived(synchronous, "GET", synchronous.url + "/batches/" + batch_id);
    return derived(synchronous, "GET", openai_base(synchronous) + "/batches/" + batch_id);
}

HttpRequest batch_cancel(const HttpRequest& synchronous, const std::string& batch_id) {
    HttpRequest request = batch_poll(synchronous, batch_id);
    request.method = "POST";
    request.url += "/cancel";
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = "{}";
    return request;
}

HttpRequest batch_results_request(const HttpRequest& synchronous, const BatchStatus& status) {
    if (batch_api_for(synchronous) == BatchApiKind::anthropic) {
        return derived(synchronous, "GET",
                       status.results_url.empty()
                           ? synchronous.url + "/batches/" + status.id + "/results"
                           : status.results_url);
    }
    return openai_file_content(synchronous, status.output_file);
}

HttpRequest batch_list(const HttpRequest& synchronous, const std::string& after) {
    if (batch_api_for(synchronous) == BatchApiKind::anthropic) {
        return derived(
            synchronous, "GET",
            synchronous.url + "/batches?limit=100" + (after.empty() ? "" : "&after_id=" + after));
    }
    return derived(
        synchronous, "GET",
        openai_base(synchronous) + "/batches?limit=100" + (after.empty() ? "" : "&after=" + after));
}

BatchList parse_batch_list(BatchApiKind kind, const HttpResponse& response) {
    const json body = parse_object(response, "batch list");
    if (response.status / 100 != 2 || !body.contains("data") || !body["data"].is_array()) {
        throw Error(response.status == 429 ? code::provider_rate_limited : code::provider_server,
                    "listing the provider's batches was refused (HTTP " +
                        std::to_string(response.status) + "): " + abbreviate(response.body, 200));
    }
    BatchList list;
    for (const json& item : body["data"]) {
        HttpResponse one;
        one.status = 200;
        one.body = item.dump();
        list.batches.push_back(parse_batch_status(kind, one));
    }
    list.has_more =
        body.contains("has_more") && body["has_more"].is_boolean() && body["has_more"].get<bool>();
    list.last_id = string_of(body, "last_id");
    if (list.last_id.empty() && !list.batches.empty()) list.last_id = list.batches.back().id;
    return list;
}

BatchStatus parse_batch_status(BatchApiKind kind, const HttpResponse& response) {
    const json body = parse_object(response, "batch");
    if (response.status / 100 != 2) {
        const json& error =
            body.contains("error") && body["error"].is_object() ? body["error"] : body;
        throw Error(response.status == 429 ? code::provider_rate_limited : code::provider_server,
                    "the batch request was refused (HTTP " + std::to_string(response.status) +
                        "): " + string_of(error, "message"));
    }
    BatchStatus status;
    status.id = string_of(body, "id");
    const json counts = body.contains("request_counts") && body["request_counts"].is_object()
                            ? body["request_counts"]
                            : json::object();
    if (kind == BatchApiKind::anthropic) {
        status.status = string_of(body, "processing_status");
        status.ended = status.status == "ended";
        status.succeeded = count_of(counts, "succeeded");
        status.failed_lines = count_of(counts, "errored") + count_of(counts, "canceled") +
                              count_of(counts, "expired");
        status.total = status.succeeded + status.failed_lines + count_of(counts, "processing");
        status.results_url = string_of(body, "results_url");
        status.created_at = string_of(body, "created_at");
    } else {
        status.status = string_of(body, "status");
        status.ended = status.status == "completed" || status.status == "expired" ||
                       status.status == "cancelled" || status.status == "failed";
        status.failed = status.status == "failed";
        status.total = count_of(counts, "total");
        status.succeeded = count_of(counts, "completed");
        status.failed_lines = count_of(counts, "failed");
        status.output_file = string_of(body, "output_file_id");
        status.error_file = string_of(body, "error_file_id");
        status.input_file = string_of(body, "input_file_id");
        if (body.contains("metadata") && body["metadata"].is_object())
            status.intent = string_of(body["metadata"], batch_intent_metadata_key);
        if (body.contains("created_at") && body["created_at"].is_number())
            status.created_at = std::to_string(body["created_at"].get<std::int64_t>());
        if (body.contains("errors") && body["errors"].is_object() &&
            body["errors"].contains("data")) {
            for (const auto& error : body["errors"]["data"]) {
                if (error.is_object())
                    status.message +=
                        (status.message.empty() ? "" : "; ") + string_of(error, "message");
            }
        }
    }
    if (status.id.empty()) {
        throw Error(code::provider_server,
                    "the batch answer has no id: " + abbreviate(response.body, 200));
    }
    return status;
}

}  // namespace llmv
