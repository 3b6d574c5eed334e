#include "fake_server.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <thread>

#include "llmvalidate/hashed_embedder.hpp"
#include "llmvalidate/structured_output.hpp"
#include "llmvalidate/synthetic_text.hpp"

namespace llmv::fake {

using nlohmann::json;

namespace {

const std::vector<std::pair<Fault::Kind, const char*>>& kind_names() {
    static const std::vector<std::pair<Fault::Kind, const char*>> names = {
        {Fault::Kind::none, "none"},
        {Fault::Kind::http_error, "http_error"},
        {Fault::Kind::slow, "slow"},
        {Fault::Kind::drop_connection, "drop_connection"},
        {Fault::Kind::truncated_body, "truncated_body"},
        {Fault::Kind::malformed_json, "malformed_json"},
        {Fault::Kind::refusal, "refusal"},
        {Fault::Kind::label_outside_set, "label_outside_set"},
        {Fault::Kind::prose, "prose"},
        {Fault::Kind::empty_passages, "empty_passages"},
        {Fault::Kind::wrong_dimension, "wrong_dimension"},
    };
    return names;
}

enum class Protocol { openai, anthropic, bedrock, ollama };

// The provider's own error type names for a status.
std::string error_type(Protocol protocol, int status) {
    switch (protocol) {
        case Protocol::anthropic:
            switch (status) {
                case 400:
                    return "invalid_request_error";
                case 401:
                    return "authentication_error";
                case 403:
                    return "permission_error";
                case 404:
                    return "not_found_error";
                case 413:
                    return "request_too_large";
                case 429:
                    return "rate_limit_error";
                case 529:
                    return "overloaded_error";
                default:
                    return "api_error";
            }
        case Protocol::bedrock:
            switch (status) {
                case 400:
                    return "ValidationException";
                case 403:
                    return "AccessDeniedException";
                case 404:
                    return "ResourceNotFoundException";
                case 408:
                    return "ModelTimeoutException";
                case 424:
                    return "ModelErrorException";
                case 429:
                    return "ThrottlingException";
                case 503:
                    return "ServiceUnavailableException";
                default:
                    return "InternalServerException";
            }
        default:
            switch (status) {
                case 400:
                    return "invalid_request_error";
                case 401:
                    return "invalid_request_error";
                case 404:
                    return "invalid_request_error";
                case 429:
                    return "requests";
                default:
                    return "server_error";
            }
    }
}

void send_error(httplib::Response& res, Protocol protocol, int status, const std::string& message,
                const std::string& type_override = "") {
    const std::string type = type_override.empty() ? error_type(protocol, status) : type_override;
    json body;
    switch (protocol) {
        case Protocol::openai:
            body = {{"error",
                     {{"message", message},
                      {"type", type},
                      {"param", nullptr},
                      {"code", status == 429 ? json("rate_limit_exceeded") : json(nullptr)}}}};
            break;
        case Protocol::anthropic:
            body = {{"type", "error"},
                    {"error", {{"type", type}, {"message", message}}},
                    {"request_id", "req_fake"}};
            break;
        case Protocol::bedrock:
            body = {{"message", message}};
            res.set_header("x-amzn-ErrorType",
                           type + ":http://internal.amazon.com/coral/com.amazon.coral.service/");
            break;
        case Protocol::ollama:
            body = {{"error", message}};
            break;
    }
    res.status = status;
    res.set_content(body.dump(), "application/json");
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::size_t count_words(const std::string& text) { return HashedEmbedder::words(text).size(); }

// What a chat request asks for, read the way a model would: from the schema if there is one,
// else from the prompt's words.
struct ChatTask {
    bool annotation = false;
    std::size_t n = 1;
    std::string label;                // simulation: the label to write for
    std::vector<std::string> labels;  // S
};

// Position of the first mention of `label` in the prompt as a whole word (case-insensitive).
std::size_t first_mention(const std::string& prompt_lower, const std::string& label) {
    const std::string needle = lower(label);
    if (needle.empty()) return std::string::npos;
    for (std::size_t at = prompt_lower.find(needle); at != std::string::npos;
         at = prompt_lower.find(needle, at + 1)) {
        const bool start_ok =
            at == 0 || !std::isalnum(static_cast<unsigned char>(prompt_lower[at - 1]));
        const std::size_t end = at + needle.size();
        const bool end_ok = end >= prompt_lower.size() ||
                            !std::isalnum(static_cast<unsigned char>(prompt_lower[end]));
        if (start_ok && end_ok) return at;
    }
    return std::string::npos;
}

ChatTask read_task(const std::string& prompt, const json& schema,
                   const std::vector<std::string>& default_labels) {
    ChatTask task;
    task.labels = default_labels;
    const json* properties =
        schema.is_object() && schema.contains("properties") && schema["properties"].is_object()
            ? &schema["properties"]
            : nullptr;
    if (properties && properties->contains("label") && (*properties)["label"].is_object() &&
        (*properties)["label"].contains("enum") && (*properties)["label"]["enum"].is_array()) {
        task.labels.clear();
        for (const auto& value : (*properties)["label"]["enum"]) {
            if (value.is_string()) task.labels.push_back(value.get<std::string>());
        }
    }
    static const std::regex count_pattern(
        R"((\d+)\s+(?:[A-Za-z-]+\s+){0,3}?(passages|texts|paragraphs|examples|sentences|documents|statements|reviews|headlines|tweets|posts))",
        std::regex::icase);
    std::smatch match;
    const bool counted = std::regex_search(prompt, match, count_pattern);
    const std::string prompt_lower = lower(prompt);
    if (properties && properties->contains("passages")) {
        const json& passages = (*properties)["passages"];
        if (passages.contains("minItems") && passages["minItems"].is_number_unsigned()) {
            task.n = passages["minItems"].get<std::size_t>();
        } else if (counted) {
            task.n = std::stoul(match[1].str());
        }
    } else if (properties && properties->contains("label")) {
        task.annotation = true;
    } else if (prompt_lower.find("classif") != std::string::npos ||
               prompt_lower.find("annotat") != std::string::npos ||
               prompt_lower.find("categori") != std::string::npos) {
        task.annotation =
            true;  // before the count: the passage to annotate may contain "3 reports"
    } else if (counted) {
        task.n = std::stoul(match[1].str());
    } else if (prompt_lower.find("label") != std::string::npos) {
        task.annotation = true;
    }
    task.n = std::clamp<std::size_t>(task.n, 1, 1000);
    if (!task.annotation) {
        std::size_t earliest = std::string::npos;
        for (const auto& label : task.labels) {
            const std::size_t at = first_mention(prompt_lower, label);
            if (at < earliest) {
                earliest = at;
                task.label = label;
            }
        }
    }
    return task;
}

}  // namespace

Fault::Kind fault_kind_from_string(const std::string& name) {
    std::string allowed;
    for (const auto& [kind, text] : kind_names()) {
        if (name == text) return kind;
        allowed += (allowed.empty() ? "" : ", ") + std::string(text);
    }
    throw std::invalid_argument("fault kind \"" + name + "\" is not one of " + allowed);
}

const char* to_string(Fault::Kind kind) {
    for (const auto& [known, text] : kind_names()) {
        if (known == kind) return text;
    }
    return "unknown";
}

// Debian's libcpp-httplib listens with a backlog of 5: a burst of more simultaneous connects
// (a client opening 32 connections at once) loses SYNs, which the client retries a second
// later. Linux accepts a second listen() on the bound socket with a larger backlog.
class BacklogServer : public httplib::Server {
  public:
    void raise_backlog(int backlog) { ::listen(svr_sock_, backlog); }
};

struct FakeServer::Impl {
    explicit Impl(FakeServerOptions opts)
        : options(std::move(opts)),
          text(options.seed),
          embedder(options.embedding_dimensions, options.seed) {}

    FakeServerOptions options;
    BacklogServer server;
    std::thread thread;
    int port = 0;
    bool running = false;
    SyntheticText text;
    HashedEmbedder embedder;
    std::atomic<std::uint64_t> request_counter{0};

    mutable std::mutex mutex;
    std::map<std::string, std::deque<Fault>> faults;
    std::map<std::string, std::size_t> counts;
    std::size_t total = 0;
    std::deque<RecordedRequest> recorded;
    std::vector<ServedAnswer> served;  // every answer given without a fault, in order

    void arrive(const std::string& endpoint, const httplib::Request& req) {
        RecordedRequest record;
        record.endpoint = endpoint;
        record.method = req.method;
        record.path = req.target;
        for (const auto& [name, value] : req.headers) record.headers[lower(name)] = value;
        record.body = req.body;
        std::lock_guard<std::mutex> lock(mutex);
        ++counts[endpoint];
        ++total;
        if (!options.credential_log.empty()) {
            std::ofstream log(options.credential_log, std::ios::app);
            log << endpoint;
            for (const char* name : {"authorization", "x-api-key", "api-key"}) {
                const auto found = record.headers.find(name);
                if (found != record.headers.end()) log << '\t' << name << '=' << found->second;
            }
            log << '\n';
        }
        recorded.push_back(std::move(record));
        if (recorded.size() > 1000) recorded.pop_front();
    }

    Fault next_fault(const std::string& endpoint) {
        std::lock_guard<std::mutex> lock(mutex);
        for (const std::string& key : {endpoint, std::string("*")}) {
            auto found = faults.find(key);
            if (found != faults.end() && !found->second.empty()) {
                Fault fault = found->second.front();
                found->second.pop_front();
                return fault;
            }
        }
        return Fault{};
    }

    std::uint64_t variant(const std::string& prompt, const json& seed, double temperature) {
        std::uint64_t base;
        if (seed.is_number_integer()) {
            base = seed.get<std::uint64_t>();
        } else if (temperature == 0.0) {
            base = 0;  // greedy decoding: the same answer every time
        } else {
            base = ++request_counter;
        }
        return stable_hash(std::to_string(base), stable_hash(prompt, options.seed));
    }

    // The answer to a chat request, as JSON (structured) or text.
    json chat_answer(const std::string& prompt, const json& schema, const json& seed,
                     double temperature, const Fault& fault) {
        const ChatTask task = read_task(prompt, schema, options.labels);
        const std::uint64_t v = variant(prompt, seed, temperature);
        if (task.annotation) {
            std::string label = text.annotate(prompt, task.labels);
            if (!task.labels.empty() && task.labels.size() > 1 &&
                options.annotation_error_rate > 0) {
                const std::uint64_t h = stable_hash("error", v);
                const double u = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
                if (u < options.annotation_error_rate) {
                    const std::size_t at = static_cast<std::size_t>(
                        std::find(task.labels.begin(), task.labels.end(), label) -
                        task.labels.begin());
                    label =
                        task.labels[(at + 1 + (h % (task.labels.size() - 1))) % task.labels.size()];
                }
            }
            if (fault.kind == Fault::Kind::label_outside_set) {
                label = "Sarcastic";
                for (const auto& known : task.labels) {
                    if (normalize_label(known) == "sarcastic") label = "Something Else";
                }
            }
            return {{"label", label}};
        }
        if (fault.kind == Fault::Kind::empty_passages) return {{"passages", json::array()}};
        return {{"passages", text.passages(task.label, task.n, v)}};
    }

    std::string as_text(const json& answer, bool structured) const {
        if (structured) return answer.dump();
        // Like a chatty model: prose and a code fence around the JSON.
        return std::string(answer.contains("label") ? "Here is my annotation:\n"
                                                    : "Here are the passages:\n") +
               "```json\n" + answer.dump(2) + "\n```\nLet me know if you need anything else.";
    }

    void respond(httplib::Response& res, const Fault& fault, const std::string& body) {
        switch (fault.kind) {
            case Fault::Kind::truncated_body:
                res.set_content(body.substr(0, body.size() / 2), "application/json");
                break;
            case Fault::Kind::malformed_json:
                res.set_content("{\"this is\": not JSON <html>502 Bad Gateway</html>",
                                "application/json");
                break;
            case Fault::Kind::drop_connection:
                // Headers promise a body that never comes: the client sees the connection drop.
                res.set_content_provider(
                    body.size(), "application/json",
                    [](std::size_t, std::size_t, httplib::DataSink&) { return false; });
                break;
            default:
                res.set_content(body, "application/json");
        }
        res.status = 200;
    }

    // Returns true when the request may go on; otherwise the response is an auth error.
    bool authorize(Protocol protocol, const httplib::Request& req, httplib::Response& res) {
        switch (protocol) {
            case Protocol::openai: {
                if (options.api_key.empty()) return true;
                std::string received;
                if (req.has_header("api-key")) {
                    received = req.get_header_value("api-key");
                } else if (req.has_header("Authorization")) {
                    received = req.get_header_value("Authorization");
                    if (received.rfind("Bearer ", 0) == 0) received = received.substr(7);
                }
                if (received == options.api_key) return true;
                // Like OpenAI, the message quotes the key received: the client must redact it.
                send_error(res, protocol, 401,
                           received.empty() ? "You didn't provide an API key."
                                            : "Incorrect API key provided: " + received + ".",
                           "invalid_request_error");
                return false;
            }
            case Protocol::anthropic: {
                if (!req.has_header("anthropic-version")) {
                    send_error(res, protocol, 400, "anthropic-version: header is required");
                    return false;
                }
                if (options.api_key.empty() || req.get_header_value("x-api-key") == options.api_key)
                    return true;
                send_error(res, protocol, 401, "invalid x-api-key");
                return false;
            }
            case Protocol::bedrock:
                return authorize_bedrock(req, res);
            case Protocol::ollama:
                return true;
        }
        return true;
    }

    bool authorize_bedrock(const httplib::Request& req, httplib::Response& res) {
        const std::string authorization = req.get_header_value("Authorization");
        if (authorization.rfind("Bearer ", 0) == 0) {
            if (authorization.substr(7) == options.bedrock_api_key) return true;
            send_error(res, Protocol::bedrock, 403,
                       "Invalid API Key format: Must start with pre-defined prefix",
                       "UnrecognizedClientException");
            return false;
        }
        if (authorization.rfind("AWS4-HMAC-SHA256 ", 0) != 0) {
            send_error(res, Protocol::bedrock, 403, "Missing Authentication Token",
                       "MissingAuthenticationTokenException");
            return false;
        }
        static const std::regex pattern(
            R"(AWS4-HMAC-SHA256 Credential=([^/,\s]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request,\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64}))");
        std::smatch match;
        if (!std::regex_match(authorization, match, pattern)) {
            send_error(res, Protocol::bedrock, 403,
                       "Authorization header requires Credential, SignedHeaders and Signature",
                       "IncompleteSignatureException");
            return false;
        }
        if (match[1].str() != options.aws_access_key_id) {
            send_error(res, Protocol::bedrock, 403,
                       "The security token included in the request is invalid.",
                       "UnrecognizedClientException");
            return false;
        }
        SigV4Input input;
        input.method = req.method;
        const auto question = req.target.find('?');
        input.path = req.target.substr(0, question);
        input.query = question == std::string::npos ? "" : req.target.substr(question + 1);
        input.body = req.body;
        input.access_key_id = match[1].str();
        input.secret_access_key = options.aws_secret_access_key;
        input.region = match[3].str();
        input.service = match[4].str();
        input.amz_date = req.get_header_value("x-amz-date");
        std::string signed_list = match[5].str();
        std::size_t start = 0;
        bool has_host = false, has_date = false;
        while (start <= signed_list.size()) {
            const auto end = std::min(signed_list.find(';', start), signed_list.size());
            const std::string name = signed_list.substr(start, end - start);
            if (!name.empty()) {
                input.headers[name] = req.get_header_value(name.c_str());
                has_host = has_host || name == "host";
                has_date = has_date || name == "x-amz-date";
            }
            start = end + 1;
        }
        const std::string expected = sigv4_authorization(input);
        const std::string signature = match[6].str();
        if (!has_host || !has_date || input.amz_date.substr(0, 8) != match[2].str() ||
            input.service != "bedrock" || expected.substr(expected.size() - 64) != signature) {
            send_error(
                res, Protocol::bedrock, 403,
                "The request signature we calculated does not match the signature you provided. "
                "The Canonical String for this request should have been\n'" +
                    sigv4_canonical_request(input) + "'",
                "InvalidSignatureException");
            return false;
        }
        return true;
    }

    // Common frame: count, authorize, latency, scripted faults; then `answer` builds the body.
    template <typename Answer>
    void handle(const std::string& endpoint, Protocol protocol, const httplib::Request& req,
                httplib::Response& res, Answer answer) {
        arrive(endpoint, req);
        if (options.latency_ms > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(options.latency_ms));
        if (!authorize(protocol, req, res)) return;
        const Fault fault = next_fault(endpoint);
        if (fault.kind == Fault::Kind::http_error) {
            if (!fault.retry_after.empty()) res.set_header("Retry-After", fault.retry_after);
            send_error(res, protocol, fault.status,
                       fault.message.empty()
                           ? "fake server: scripted HTTP " + std::to_string(fault.status)
                           : fault.message);
            return;
        }
        if (fault.kind == Fault::Kind::slow) {
            std::this_thread::sleep_for(std::chrono::milliseconds(fault.delay_ms));
        }
        const json request = json::parse(req.body, nullptr, false);
        if (request.is_discarded() || !request.is_object()) {
            send_error(res, protocol, 400, "request body is not a JSON object");
            return;
        }
        std::string error;
        const std::string body = answer(request, fault, error);
        if (!error.empty()) {
            send_error(res, protocol, 400, error);
            return;
        }
        if (fault.kind == Fault::Kind::none || fault.kind == Fault::Kind::slow) {
            std::lock_guard<std::mutex> lock(mutex);
            served.push_back({endpoint, req.body, body});
        }
        respond(res, fault, body);
    }

    std::string refusal_text(const Fault& fault) const {
        return fault.message.empty() ? "I'm sorry, but I can't help with that request."
                                     : fault.message;
    }

    std::string openai_chat(const json& request, const Fault& fault, std::string& error) {
        if (!request.contains("model") || !request["model"].is_string() ||
            !request.contains("messages") || !request["messages"].is_array() ||
            request["messages"].empty()) {
            error = "'model' and a non-empty 'messages' array are required";
            return "";
        }
        std::string prompt;
        for (const auto& message : request["messages"]) {
            if (message.contains("content") && message["content"].is_string()) {
                prompt += message["content"].get<std::string>() + "\n";
            }
        }
        json schema;
        if (request.contains("response_format") && request["response_format"].is_object() &&
            request["response_format"].value("type", "") == "json_schema") {
            schema = request["response_format"]["json_schema"].value("schema", json::object());
        }
        const double temperature = request.value("temperature", 1.0);
        const json answer =
            chat_answer(prompt, schema, request.value("seed", json()), temperature, fault);
        json message = {{"role", "assistant"},
                        {"content", as_text(answer, !schema.is_null())},
                        {"refusal", nullptr}};
        std::string finish = "stop";
        if (fault.kind == Fault::Kind::refusal) {
            message["content"] = nullptr;
            message["refusal"] = refusal_text(fault);
        }
        if (fault.kind == Fault::Kind::prose) {
            message["content"] = "Honestly, it reads a bit of both ways to me; hard to say.";
        }
        const std::string content = message["content"].is_string()
                                        ? message["content"].get<std::string>()
                                        : message["refusal"].get<std::string>();
        const std::uint64_t number = request_counter.load();
        json body = {
            {"id", "chatcmpl-fake" + std::to_string(number)},
            {"object", "chat.completion"},
            {"created", 1767225600},
            {"model", request["model"]},
            {"choices",
             json::array({{{"index", 0}, {"message", message}, {"finish_reason", finish}}})},
            {"usage",
             {{"prompt_tokens", count_words(prompt)},
              {"completion_tokens", count_words(content)},
              {"total_tokens", count_words(prompt) + count_words(content)}}}};
        return body.dump();
    }

    std::string anthropic_messages(const json& request, const Fault& fault, std::string& error) {
        if (!request.contains("model") || !request.contains("max_tokens") ||
            !request["max_tokens"].is_number_integer() || !request.contains("messages") ||
            !request["messages"].is_array() || request["messages"].empty()) {
            error = "model, max_tokens and messages are required";
            return "";
        }
        if (request.contains("temperature") && request["temperature"].is_number() &&
            (request["temperature"].get<double>() < 0 ||
             request["temperature"].get<double>() > 1)) {
            error = "temperature: range: 0..1";
            return "";
        }
        std::string prompt;
        if (request.contains("system") && request["system"].is_string())
            prompt += request["system"].get<std::string>() + "\n";
        for (const auto& message : request["messages"]) {
            if (message.contains("content") && message["content"].is_string()) {
                prompt += message["content"].get<std::string>() + "\n";
            }
        }
        json schema;
        std::string tool_name;
        if (request.contains("tools") && request["tools"].is_array() && !request["tools"].empty()) {
            schema = request["tools"][0].value("input_schema", json::object());
            tool_name = request["tools"][0].value("name", "answer");
        }
        const json answer =
            chat_answer(prompt, schema, json(), request.value("temperature", 1.0), fault);
        json content = json::array();
        std::string stop = "end_turn";
        std::string produced;
        if (fault.kind == Fault::Kind::refusal) {
            produced = refusal_text(fault);
            content.push_back({{"type", "text"}, {"text", produced}});
            stop = "refusal";
        } else if (!tool_name.empty()) {
            produced = answer.dump();
            content.push_back({{"type", "tool_use"},
                               {"id", "toolu_fake"},
                               {"name", tool_name},
                               {"input", answer}});
            stop = "tool_use";
        } else {
            produced = as_text(answer, false);
            content.push_back({{"type", "text"}, {"text", produced}});
        }
        json body = {
            {"id", "msg_fake"},
            {"type", "message"},
            {"role", "assistant"},
            {"model", request["model"]},
            {"content", content},
            {"stop_reason", stop},
            {"stop_sequence", nullptr},
            {"usage",
             {{"input_tokens", count_words(prompt)}, {"output_tokens", count_words(produced)}}}};
        return body.dump();
    }

    std::string bedrock_converse(const json& request, const Fault& fault, std::string& error) {
        if (!request.contains("messages") || !request["messages"].is_array() ||
            request["messages"].empty()) {
            error =
                "1 validation error detected: Value at 'messages' failed to satisfy constraint: "
                "Member must not be null";
            return "";
        }
        std::string prompt;
        if (request.contains("system") && request["system"].is_array()) {
            for (const auto& block : request["system"]) prompt += block.value("text", "") + "\n";
        }
        for (const auto& message : request["messages"]) {
            if (!message.contains("content") || !message["content"].is_array()) {
                error = "messages[].content must be a list of content blocks";
                return "";
            }
            for (const auto& block : message["content"]) prompt += block.value("text", "") + "\n";
        }
        json schema;
        std::string tool_name;
        if (request.contains("toolConfig") && request["toolConfig"].contains("tools") &&
            request["toolConfig"]["tools"].is_array() && !request["toolConfig"]["tools"].empty()) {
            const json& spec = request["toolConfig"]["tools"][0].value("toolSpec", json::object());
            tool_name = spec.value("name", "answer");
            if (spec.contains("inputSchema") && spec["inputSchema"].contains("json"))
                schema = spec["inputSchema"]["json"];
        }
        double temperature = 1.0;
        if (request.contains("inferenceConfig") && request["inferenceConfig"].is_object()) {
            temperature = request["inferenceConfig"].value("temperature", 1.0);
        }
        const json answer = chat_answer(prompt, schema, json(), temperature, fault);
        json content = json::array();
        std::string stop = "end_turn";
        std::string produced;
        if (fault.kind == Fault::Kind::refusal) {
            produced = refusal_text(fault);
            content.push_back({{"text", produced}});
        } else if (!tool_name.empty()) {
            produced = answer.dump();
            content.push_back(
                {{"toolUse",
                  {{"toolUseId", "tooluse_fake"}, {"name", tool_name}, {"input", answer}}}});
            stop = "tool_use";
        } else {
            produced = as_text(answer, false);
            content.push_back({{"text", produced}});
        }
        const auto in = count_words(prompt), out = count_words(produced);
        json body = {
            {"output", {{"message", {{"role", "assistant"}, {"content", content}}}}},
            {"stopReason", stop},
            {"usage", {{"inputTokens", in}, {"outputTokens", out}, {"totalTokens", in + out}}},
            {"metrics", {{"latencyMs", options.latency_ms}}}};
        return body.dump();
    }

    std::vector<double> embed(const std::string& input, std::size_t dimensions) const {
        if (dimensions == embedder.dimensions()) return embedder.embed(input);
        return HashedEmbedder(dimensions, options.seed).embed(input);
    }

    static std::optional<std::vector<std::string>> inputs_of(const json& value) {
        if (value.is_string()) return std::vector<std::string>{value.get<std::string>()};
        if (!value.is_array() || value.empty()) return std::nullopt;
        std::vector<std::string> out;
        for (const auto& item : value) {
            if (!item.is_string()) return std::nullopt;
            out.push_back(item.get<std::string>());
        }
        return out;
    }

    std::string openai_embeddings(const json& request, const Fault& fault, std::string& error) {
        auto inputs = request.contains("input") ? inputs_of(request["input"]) : std::nullopt;
        if (!inputs || !request.contains("model")) {
            error = "'model' and 'input' (a string or a non-empty array of strings) are required";
            return "";
        }
        if (inputs->size() > 2048) {
            error = "'input' must have at most 2048 elements";
            return "";
        }
        const std::size_t dimensions = request.value("dimensions", options.embedding_dimensions);
        json data = json::array();
        std::size_t tokens = 0;
        for (std::size_t i = 0; i < inputs->size(); ++i) {
            data.push_back({{"object", "embedding"},
                            {"index", i},
                            {"embedding", embed((*inputs)[i], dimensions + (i == 0 && fault.kind == Fault::Kind::wrong_dimension ? 1 : 0))}});
            tokens += count_words((*inputs)[i]);
        }
        return json({{"object", "list"},
                     {"data", data},
                     {"model", request["model"]},
                     {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}}})
            .dump();
    }

    std::string titan_embeddings(const std::string& model, const json& request, const Fault&,
                                 std::string& error) {
        if (model.rfind("amazon.titan-embed-text", 0) != 0) {
            error = "The provided model identifier is invalid.";
            return "";
        }
        if (!request.contains("inputText") || !request["inputText"].is_string()) {
            error = "Malformed input request: #: required key [inputText] not found";
            return "";
        }
        const std::size_t dimensions = request.value("dimensions", options.embedding_dimensions);
        auto vector = embed(request["inputText"].get<std::string>(), dimensions);
        if (!request.value("normalize", true)) {
            for (double& value : vector) value *= 3.0;  // visibly unnormalised
        }
        return json({{"embedding", vector},
                     {"inputTextTokenCount", count_words(request["inputText"].get<std::string>())},
                     {"embeddingsByType", {{"float", vector}}}})
            .dump();
    }

    std::string ollama_embed(const json& request, const Fault&, std::string& error) {
        auto inputs = request.contains("input") ? inputs_of(request["input"]) : std::nullopt;
        if (!inputs || !request.contains("model")) {
            error = "model and input are required";
            return "";
        }
        const std::size_t dimensions = request.value("dimensions", options.embedding_dimensions);
        json vectors = json::array();
        std::size_t tokens = 0;
        for (const auto& input : *inputs) {
            vectors.push_back(embed(input, dimensions));
            tokens += count_words(input);
        }
        return json({{"model", request["model"]},
                     {"embeddings", vectors},
                     {"total_duration", 1000},
                     {"load_duration", 10},
                     {"prompt_eval_count", tokens}})
            .dump();
    }

    void install_routes() {
        using httplib::Request;
        using httplib::Response;
        auto openai_chat_route = [this](const Request& req, Response& res) {
            handle("openai.chat", Protocol::openai, req, res,
                   [this](const json& r, const Fault& f, std::string& e) {
                       return openai_chat(r, f, e);
                   });
        };
        server.Post("/v1/chat/completions", openai_chat_route);
        server.Post(R"(/openai/deployments/([^/]+)/chat/completions)", openai_chat_route);
        auto openai_embeddings_route = [this](const Request& req, Response& res) {
            handle("openai.embeddings", Protocol::openai, req, res,
                   [this](const json& r, const Fault& f, std::string& e) {
                       return openai_embeddings(r, f, e);
                   });
        };
        server.Post("/v1/embeddings", openai_embeddings_route);
        server.Post(R"(/openai/deployments/([^/]+)/embeddings)", openai_embeddings_route);
        server.Post("/v1/messages", [this](const Request& req, Response& res) {
            handle("anthropic.messages", Protocol::anthropic, req, res,
                   [this](const json& r, const Fault& f, std::string& e) {
                       return anthropic_messages(r, f, e);
                   });
        });
        server.Post(R"(/model/(.+)/converse)", [this](const Request& req, Response& res) {
            handle("bedrock.converse", Protocol::bedrock, req, res,
                   [this](const json& r, const Fault& f, std::string& e) {
                       return bedrock_converse(r, f, e);
                   });
        });
        server.Post(R"(/model/(.+)/invoke)", [this](const Request& req, Response& res) {
            const std::string model = req.matches[1].str();
            handle("bedrock.invoke", Protocol::bedrock, req, res,
                   [this, model](const json& r, const Fault& f, std::string& e) {
                       return titan_embeddings(model, r, f, e);
                   });
        });
        server.Post("/api/embed", [this](const Request& req, Response& res) {
            handle("ollama.embed", Protocol::ollama, req, res,
                   [this](const json& r, const Fault& f, std::string& e) {
                       return ollama_embed(r, f, e);
                   });
        });

        server.Post("/_control/faults", [this](const Request& req, Response& res) {
            const json request = json::parse(req.body, nullptr, false);
            try {
                if (!request.is_object() || !request.contains("faults") ||
                    !request["faults"].is_array()) {
                    throw std::invalid_argument(
                        "body must be {\"endpoint\": ..., \"faults\": [...]}");
                }
                std::vector<Fault> list;
                for (const auto& item : request["faults"]) {
                    Fault fault;
                    fault.kind = fault_kind_from_string(item.value("kind", "none"));
                    fault.status = item.value("status", 500);
                    fault.retry_after = item.value("retry_after", "");
                    fault.delay_ms = item.value("delay_ms", 0);
                    fault.message = item.value("message", "");
                    list.push_back(fault);
                }
                push(request.value("endpoint", "*"), list);
                res.set_content(json({{"queued", list.size()}}).dump(), "application/json");
            } catch (const std::exception& problem) {
                res.status = 400;
                res.set_content(json({{"error", problem.what()}}).dump(), "application/json");
            }
        });
        server.Get("/_control/counters", [this](const Request&, Response& res) {
            std::lock_guard<std::mutex> lock(mutex);
            json body = {{"total", total}};
            for (const auto& [endpoint, count] : counts) body[endpoint] = count;
            res.set_content(body.dump(), "application/json");
        });
        server.Get("/_control/served", [this](const Request&, Response& res) {
            std::lock_guard<std::mutex> lock(mutex);
            json body = json::array();
            for (const ServedAnswer& answer : served) {
                body.push_back({{"endpoint", answer.endpoint},
                                {"request", answer.request_body},
                                {"response", answer.response_body}});
            }
            res.set_content(body.dump(), "application/json");
        });
        server.Post("/_control/reset", [this](const Request&, Response& res) {
            std::lock_guard<std::mutex> lock(mutex);
            counts.clear();
            total = 0;
            faults.clear();
            recorded.clear();
            served.clear();
            res.set_content("{}", "application/json");
        });
    }

    void push(const std::string& endpoint, const std::vector<Fault>& list) {
        std::lock_guard<std::mutex> lock(mutex);
        auto& queue = faults[endpoint];
        queue.insert(queue.end(), list.begin(), list.end());
    }
};

FakeServer::FakeServer(FakeServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
    impl_->install_routes();
}

FakeServer::~FakeServer() { stop(); }

void FakeServer::start() {
    if (impl_->running) return;
    const int threads = std::max(1, impl_->options.threads);
    impl_->server.new_task_queue = [threads] {
        return new httplib::ThreadPool(static_cast<std::size_t>(threads));
    };
    impl_->server.set_keep_alive_max_count(1000000);  // let clients reuse connections
    impl_->server.set_keep_alive_timeout(2);
    // cpp-httplib writes the head and the body of an answer separately: without TCP_NODELAY,
    // Nagle holds the body until the client's delayed ACK (40 ms on Linux), so every answer on
    // a reused connection took 40-45 ms more than its scripted latency (the transport bench's
    // loopback server sets it too).
    impl_->server.set_tcp_nodelay(true);
    if (impl_->options.port == 0) {
        impl_->port = impl_->server.bind_to_any_port("127.0.0.1");
    } else {
        impl_->port =
            impl_->server.bind_to_port("127.0.0.1", impl_->options.port) ? impl_->options.port : -1;
    }
    if (impl_->port <= 0) {
        throw std::runtime_error("fake server: cannot bind 127.0.0.1:" +
                                 std::to_string(impl_->options.port));
    }
    impl_->server.raise_backlog(4096);
    impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
    for (int i = 0; i < 5000 && !impl_->server.is_running(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    impl_->running = true;
}

void FakeServer::stop() {
    if (!impl_ || !impl_->running) return;
    impl_->server.stop();
    if (impl_->thread.joinable()) impl_->thread.join();
    impl_->running = false;
}

int FakeServer::port() const { return impl_->port; }

std::string FakeServer::base_url() const {
    return "http://127.0.0.1:" + std::to_string(impl_->port);
}

void FakeServer::push_faults(const std::string& endpoint, const std::vector<Fault>& faults) {
    impl_->push(endpoint, faults);
}

void FakeServer::clear_faults() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->faults.clear();
}

std::size_t FakeServer::count(const std::string& endpoint) const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto found = impl_->counts.find(endpoint);
    return found == impl_->counts.end() ? 0 : found->second;
}

std::size_t FakeServer::total_count() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->total;
}

std::map<std::string, std::size_t> FakeServer::counts() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->counts;
}

void FakeServer::reset_counters() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->counts.clear();
    impl_->total = 0;
    impl_->recorded.clear();
    impl_->served.clear();
}

std::vector<ServedAnswer> FakeServer::served() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->served;
}

std::vector<RecordedRequest> FakeServer::recorded(std::size_t max) const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const std::size_t first = impl_->recorded.size() > max ? impl_->recorded.size() - max : 0;
    return std::vector<RecordedRequest>(
        impl_->recorded.begin() + static_cast<std::ptrdiff_t>(first), impl_->recorded.end());
}

const FakeServerOptions& FakeServer::options() const { return impl_->options; }

}  // namespace llmv::fake
