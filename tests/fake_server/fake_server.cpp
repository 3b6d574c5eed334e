#include "fake_server.hpp"

#include <fcntl.h>
#include <httplib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstdlib>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <chrono>
#include <ctime>
#include <deque>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/float32.hpp"
#include "fake_lifecycle.hpp"
#include "llm/hashed_embedder.hpp"
#include "llm/structured_output.hpp"
#include "llm/synthetic_text.hpp"

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

// Token counts in usage: characters / 4, rounded up (the providers' rule of thumb for English
// text, which the dry run's estimate also uses), per prompt or answer.
std::size_t count_tokens(const std::string& text) { return (text.size() + 3) / 4; }

// Input the vendors bill beside the messages: the JSON Schema of a structured answer (OpenAI's
// response_format) or the tool definitions (name, description, schema), and for a Claude tool
// the tool-use system prompt Anthropic adds (its tool-use pricing page, Claude 4 models: 313
// tokens with tool_choice any or tool, 346 with auto or none).
std::size_t tool_tokens(const json& tools, bool forced) {
    if (!tools.is_array() || tools.empty()) return 0;
    return count_tokens(tools.dump()) + (forced ? 313 : 346);
}

// What a chat request asks for, read the way a model would: from the schema if there is one,
// else from the prompt's words.
struct ChatTask {
    bool annotation = false;
    std::size_t n = 1;
    std::size_t words = 0;            // simulation: the length the prompt asks for (0: none)
    std::string label;                // simulation: the label to write for
    std::vector<std::string> labels;  // S
    // The answer layout a prompt without a schema shows (the author's reference code's): the
    // texts as keys "text_1".."text_n" beside "failed", and a label with an "explanation".
    bool numbered_keys = false;
    bool explanation = false;
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
                   const std::vector<std::string>& default_labels, double words_per_token) {
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
    static const std::regex length_pattern(R"((\d+)\s+(words|tokens))", std::regex::icase);
    std::smatch length;
    if (!task.annotation && std::regex_search(prompt, length, length_pattern)) {
        double words = std::stod(length[1].str());
        if (lower(length[2].str()) == "tokens") words = std::ceil(words * words_per_token);
        task.words = std::clamp<std::size_t>(static_cast<std::size_t>(words), 1, 2000);
    }
    if (!properties) {
        task.numbered_keys = prompt.find("\"text_1\"") != std::string::npos;
        task.explanation = prompt.find("\"explanation\"") != std::string::npos;
    }
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

// The official AWS signer as the SigV4 oracle (issue 23): tools/conformance/sigv4_verifier.mjs
// under node, started on the first signed request when LLMV_SIGV4_VERIFIER names that script
// (tools/test.sh sets it once the npm SDKs are installed), and kept for the server's life. The
// server holds no canonicalisation of its own, so our signer is judged by AWS's. Without the
// oracle a signature is checked for its form, key id, date and scope only.
class Sigv4Oracle {
  public:
    ~Sigv4Oracle() {
        if (to_child_ >= 0) ::close(to_child_);  // the script ends with its input
        if (from_child_ >= 0) ::close(from_child_);
        if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
    }

    static std::string script() {
        const char* path = std::getenv("LLMV_SIGV4_VERIFIER");
        return path ? path : "";
    }

    // The official Authorization header for `request` (the oracle's JSON request), or an
    // error message starting with "oracle: ".
    std::string authorization(const json& request) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (pid_ <= 0 && !start()) return "oracle: cannot start node " + script();
        const std::string line = request.dump() + "\n";
        // A script that died must not take the test with it through SIGPIPE.
        sigset_t pipe_signal, previous;
        sigemptyset(&pipe_signal);
        sigaddset(&pipe_signal, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
        const bool written =
            ::write(to_child_, line.data(), line.size()) == static_cast<ssize_t>(line.size());
        if (!written) {
            timespec none{0, 0};
            sigtimedwait(&pipe_signal, nullptr, &none);  // the pending SIGPIPE, if any
        }
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        if (!written) return "oracle: the script " + script() + " is not running";
        std::string answer;
        char c = 0;
        while (::read(from_child_, &c, 1) == 1 && c != '\n') answer += c;
        const json parsed = json::parse(answer, nullptr, false);
        if (parsed.is_discarded() || !parsed.contains("authorization"))
            return "oracle: " + (parsed.is_discarded() ? answer : parsed.value("error", answer));
        return parsed["authorization"].get<std::string>();
    }

  private:
    // The pipes close on exec, so that no other child of the test keeps the script's input
    // open: the script ends when this server (or its process) goes.
    bool start() {
        int to[2], from[2];
        if (::pipe2(to, O_CLOEXEC) != 0) return false;
        if (::pipe2(from, O_CLOEXEC) != 0) {
            ::close(to[0]);
            ::close(to[1]);
            return false;
        }
        const std::string path = script();
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(to[0], 0);  // dup2 clears close-on-exec on 0 and 1
            ::dup2(from[1], 1);
            ::execlp("node", "node", path.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::close(to[0]);
        ::close(from[1]);
        to_child_ = to[1];
        from_child_ = from[0];
        return pid_ > 0;
    }

    std::mutex mutex_;
    pid_t pid_ = -1;
    int to_child_ = -1, from_child_ = -1;
};

struct FakeServer::Impl {
    explicit Impl(FakeServerOptions opts)
        : options(std::move(opts)),
          text(options.seed),
          embedder(options.embedding_dimensions, options.seed) {
        if (options.lifecycle_models)
            for (const std::string& id : lifecycle_model_ids()) options.catalogue.push_back(id);
    }

    FakeServerOptions options;
    const std::time_t started = std::time(nullptr);  // the lifecycle models' dates count from it
    BacklogServer server;
    std::thread thread;
    int port = 0;
    bool running = false;
    SyntheticText text;
    HashedEmbedder embedder;
    std::atomic<std::uint64_t> request_counter{0};
    Sigv4Oracle sigv4_oracle;

    mutable std::mutex mutex;
    std::map<std::string, std::deque<Fault>> faults;
    std::map<std::string, std::size_t> counts;
    std::size_t total = 0;
    std::deque<RecordedRequest> recorded;
    std::vector<ServedAnswer> served;    // every answer given without a fault, in order
    std::set<std::string> prompt_cache;  // Anthropic prefixes marked cache_control so far
    std::mutex prompt_cache_mutex;

    // ---- provider batches ----
    struct Line {
        std::string custom_id;
        json body;  // the request
    };
    struct Batch {
        std::string id;
        bool anthropic = false;
        std::string endpoint;  // OpenAI: "/v1/chat/completions" or "/v1/embeddings"
        std::string input_file_id;
        std::vector<Line> lines;
        BatchScript script;
        int polls = 0;
        bool cancel_requested = false;
        std::string status;  // OpenAI's words; Anthropic's are derived
        std::size_t succeeded = 0, errored = 0, expired = 0, canceled = 0;
        std::string output;  // OpenAI: the output file's text; Anthropic: the results stream
        std::string errors;  // OpenAI: the error file's text
        std::string output_file_id, error_file_id;
        json validation_errors = json::array();
        json metadata;  // OpenAI: as given at creation
        std::int64_t created_unix = 0;
        std::size_t embedding_inputs = 0;
    };
    std::map<std::string, std::string> files;  // id -> content
    std::map<std::string, Batch> batches;
    std::vector<std::string> batch_order;
    std::deque<BatchScript> batch_scripts;
    std::size_t next_object = 0;
    std::set<std::string> downloaded;  // files / results read once (truncate_first_downloads)
    std::map<std::string, std::size_t> custom_id_uses;  // custom id -> batches created with it

    // A download's text as served: cut mid-line at its first GET when so configured.
    std::string download(const std::string& key, const std::string& content) {
        if (!options.truncate_first_downloads || !downloaded.insert(key).second ||
            content.size() < 2)
            return content;
        // Half of the text, and never at a line's end: the cut line cannot parse.
        std::size_t cut = content.size() / 2;
        while (cut > 0 && (content[cut - 1] == '\n' || content[cut] == '\n')) --cut;
        return content.substr(0, std::max<std::size_t>(cut, 1));
    }

    // The caps of one batch (FakeServerOptions; 0: the vendor's documented ones).
    std::size_t cap(std::size_t configured, std::size_t vendor) const {
        return configured > 0 ? configured : vendor;
    }

    // The batch's line count, ids and embedding inputs counted when it is created.
    void count_created(Batch& batch) {
        for (const Line& line : batch.lines) {
            ++custom_id_uses[line.custom_id];
            if (!batch.anthropic && batch.endpoint == "/v1/embeddings" &&
                line.body.contains("input")) {
                const json& input = line.body["input"];
                batch.embedding_inputs += input.is_array() ? input.size() : 1;
            }
        }
    }

    static std::string rfc3339(std::int64_t unix_seconds) {
        const std::time_t time = static_cast<std::time_t>(unix_seconds);
        std::tm utc{};
        gmtime_r(&time, &utc);
        char buffer[32];
        std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
        return buffer;
    }

    // GET list of this vendor's batches, newest first, paged as the vendor documents it.
    json list_batches(bool anthropic, const httplib::Request& req, const std::string& base) {
        std::size_t limit = 20;
        if (req.has_param("limit"))
            limit = std::max<std::size_t>(1, std::stoul(req.get_param_value("limit")));
        const std::string after = req.get_param_value(anthropic ? "after_id" : "after");
        const std::string before = anthropic ? req.get_param_value("before_id") : "";
        std::vector<std::string> ids;
        for (auto it = batch_order.rbegin(); it != batch_order.rend(); ++it)
            if (batches.at(*it).anthropic == anthropic) ids.push_back(*it);
        std::size_t from = 0, to = ids.size();
        if (!after.empty()) {
            const auto at = std::find(ids.begin(), ids.end(), after);
            from = at == ids.end() ? ids.size() : static_cast<std::size_t>(at - ids.begin()) + 1;
        }
        if (!before.empty()) {
            const auto at = std::find(ids.begin(), ids.end(), before);
            to = at == ids.end() ? 0 : static_cast<std::size_t>(at - ids.begin());
            from = to > limit ? to - limit : 0;
        }
        json data = json::array();
        std::size_t end = std::min(to, from + limit);
        for (std::size_t i = from; i < end; ++i)
            data.push_back(anthropic ? anthropic_batch_json(batches.at(ids[i]), base)
                                     : openai_batch_json(batches.at(ids[i])));
        json body = {{"data", data},
                     {"has_more", end < to},
                     {"first_id", data.empty() ? json(nullptr) : json(ids[from])},
                     {"last_id", data.empty() ? json(nullptr) : json(ids[end - 1])}};
        if (!anthropic) body["object"] = "list";
        return body;
    }

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
        const ChatTask task = read_task(prompt, schema, options.labels, options.words_per_token);
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
            if (!task.explanation) return {{"label", label}};
            // "1-2 sentence explanation": one of kExplanationWords words, as long as two
            // short sentences.
            return {{"classification_failed", false},
                    {"label", label},
                    {"explanation", SyntheticText(options.seed, kExplanationWords)
                                        .passages(label, 1, v)
                                        .front()}};
        }
        if (fault.kind == Fault::Kind::empty_passages) return {{"passages", json::array()}};
        const std::vector<std::string> passages =
            options.follow_length && task.words > 0
                ? SyntheticText(options.seed, task.words).passages(task.label, task.n, v)
                : text.passages(task.label, task.n, v);
        if (!task.numbered_keys) return {{"passages", passages}};
        json numbered = {{"failed", false}};
        for (std::size_t i = 0; i < passages.size(); ++i)
            numbered["text_" + std::to_string(i + 1)] = passages[i];
        return numbered;
    }

    static constexpr std::size_t kExplanationWords = 30;

    std::string as_text(const json& answer, bool structured) const {
        if (structured || !options.chatty) return answer.dump();
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
        // The signed headers: host and x-amz-date must be among them.
        json request = {{"method", req.method},
                        {"host", req.get_header_value("host")},
                        {"region", match[3].str()},
                        {"service", match[4].str()},
                        {"access_key_id", match[1].str()},
                        {"secret_access_key", options.aws_secret_access_key},
                        {"amz_date", req.get_header_value("x-amz-date")},
                        {"body_base64", llmv::base64_encode(req.body)}};
        const auto question = req.target.find('?');
        request["path"] = req.target.substr(0, question);
        request["query"] = question == std::string::npos ? "" : req.target.substr(question + 1);
        json headers = json::object();
        const std::string signed_list = match[5].str();
        for (std::size_t start = 0; start <= signed_list.size();) {
            const auto end = std::min(signed_list.find(';', start), signed_list.size());
            const std::string name = signed_list.substr(start, end - start);
            if (!name.empty()) headers[name] = req.get_header_value(name.c_str());
            start = end + 1;
        }
        request["headers"] = headers;
        const std::string amz_date = request["amz_date"].get<std::string>();
        bool valid = headers.contains("host") && headers.contains("x-amz-date") &&
                     amz_date.substr(0, 8) == match[2].str() && match[4].str() == "bedrock";
        std::string official;
        if (valid && !Sigv4Oracle::script().empty()) {
            official = sigv4_oracle.authorization(request);
            valid = official == authorization;
        }
        if (!valid) {
            send_error(res, Protocol::bedrock, 403,
                       "The request signature we calculated does not match the signature you "
                       "provided. The official signer gave '" +
                           official + "'",
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
        if (answer_model_unavailable(protocol, req, request, res)) return;
        if (answer_forced_tool_refused(protocol, req, request, res)) return;
        std::string error;
        const std::string body = answer(request, fault, error);
        if (!error.empty()) {
            send_error(res, protocol, 400, error);
            return;
        }
        if (fault.kind == Fault::Kind::none || fault.kind == Fault::Kind::slow) {
            std::lock_guard<std::mutex> lock(mutex);
            served.push_back({endpoint, "", req.body, body});
        }
        respond(res, fault, body);
    }

    // A forced tool sent to a model that refuses one: 400, in the vendor's words.
    bool answer_forced_tool_refused(Protocol protocol, const httplib::Request& req,
                                    const json& request, httplib::Response& res) {
        std::string model = request.value("model", std::string());
        if (protocol == Protocol::bedrock && req.matches.size() > 1) model = req.matches[1].str();
        const auto& refusing = options.forced_tool_refused_models;
        if (std::find(refusing.begin(), refusing.end(), model) == refusing.end()) return false;
        if (protocol == Protocol::anthropic && request.contains("tool_choice") &&
            request["tool_choice"].is_object()) {
            const std::string type = request["tool_choice"].value("type", "auto");
            if (type != "tool" && type != "any") return false;
            send_error(res, protocol, 400,
                       "tool_choice: type \"tool\" and \"any\" are not supported for this "
                       "model.");
            return true;
        }
        if (protocol == Protocol::bedrock && request.contains("toolConfig") &&
            request["toolConfig"].is_object() && request["toolConfig"].contains("toolChoice")) {
            const json& choice = request["toolConfig"]["toolChoice"];
            if (!choice.contains("tool") && !choice.contains("any")) return false;
            send_error(res, protocol, 400,
                       "This model doesn't support the toolChoice field. Remove toolChoice and "
                       "try again.");
            return true;
        }
        return false;
    }

    // A model the vendor does not serve: 404, in each vendor's words.
    bool answer_model_unavailable(Protocol protocol, const httplib::Request& req,
                                  const json& request, httplib::Response& res) {
        std::string model =
            request.is_object() ? request.value("model", std::string()) : std::string();
        if (protocol == Protocol::bedrock && req.matches.size() > 1) {
            model = req.matches[1].str();  // httplib matches the decoded path
        }
        const bool listed =
            std::find(options.unavailable_models.begin(), options.unavailable_models.end(),
                      model) != options.unavailable_models.end();
        if (model.empty() || (!listed && model.find("retired") == std::string::npos)) return false;
        switch (protocol) {
            case Protocol::openai:
                send_error(
                    res, protocol, 404,
                    "The model `" + model + "` does not exist or you do not have access to it.",
                    "invalid_request_error");
                break;
            case Protocol::anthropic:
                send_error(res, protocol, 404, "model: " + model, "not_found_error");
                break;
            case Protocol::bedrock:
                send_error(
                    res, protocol, 404,
                    "This model version has reached the end of its life. Please refer to the "
                    "AWS documentation for more details.",
                    "ResourceNotFoundException");
                break;
            case Protocol::ollama:
                send_error(res, protocol, 404,
                           "model \"" + model + "\" not found, try pulling it first");
                break;
        }
        return true;
    }

    // A Bedrock id names its vendor before a '.' ("anthropic.claude-...", "us.anthropic...");
    // an OpenAI id may hold a '.' after its first '-' ("gpt-4.1-mini").
    static bool bedrock_id(const std::string& id) {
        const std::size_t dot = id.find('.');
        return dot != std::string::npos && dot < id.find('-');
    }

    // A scripted HTTP error for a model list (a server without the list, one failing): true
    // when it answered.
    bool list_fault(const std::string& endpoint, Protocol protocol, httplib::Response& res) {
        const Fault fault = next_fault(endpoint);
        if (fault.kind != Fault::Kind::http_error) return false;
        send_error(res, protocol, fault.status,
                   "fake server: scripted HTTP " + std::to_string(fault.status));
        return true;
    }

    // GET /v1/models (OpenAI, Anthropic) and Bedrock's two lists, from options.catalogue.
    void install_model_routes() {
        using httplib::Request;
        using httplib::Response;
        server.Get("/v1/models", [this](const Request& req, Response& res) {
            const bool anthropic = req.has_header("anthropic-version");
            const Protocol protocol = anthropic ? Protocol::anthropic : Protocol::openai;
            arrive(anthropic ? "anthropic.models" : "openai.models", req);
            if (!authorize(protocol, req, res)) return;
            if (list_fault(anthropic ? "anthropic.models" : "openai.models", protocol, res)) return;
            json data = json::array();
            for (const std::string& id : options.catalogue) {
                const bool claude = id.rfind("claude-", 0) == 0;
                if (bedrock_id(id) || claude != anthropic) continue;
                if (anthropic) {
                    json entry = {{"type", "model"},
                                  {"id", id},
                                  {"display_name", "Fake " + id},
                                  {"created_at", "2026-01-01T00:00:00Z"}};
                    if (add_anthropic_lifecycle(entry, id, started, req.target))
                        data.push_back(entry);
                } else {
                    json entry = {{"id", id},
                                  {"object", "model"},
                                  {"created", 1767225600},
                                  {"owned_by", "fake"}};
                    if (add_openai_lifecycle(entry, id, started)) data.push_back(entry);
                }
            }
            json body = anthropic
                            ? json{{"data", data},
                                   {"has_more", false},
                                   {"first_id", data.empty() ? json(nullptr) : data.front()["id"]},
                                   {"last_id", data.empty() ? json(nullptr) : data.back()["id"]}}
                            : json{{"object", "list"}, {"data", data}};
            res.set_content(body.dump(), "application/json");
        });
        const auto bedrock_list = [this](bool profiles) {
            return [this, profiles](const Request& req, Response& res) {
                arrive("bedrock.models", req);
                if (!authorize(Protocol::bedrock, req, res)) return;
                if (list_fault("bedrock.models", Protocol::bedrock, res)) return;
                json list = json::array();
                for (const std::string& id : options.catalogue) {
                    if (!bedrock_id(id)) continue;
                    const bool profile = id.rfind("us.", 0) == 0 || id.rfind("global.", 0) == 0;
                    if (profile != profiles) continue;
                    if (profiles) {
                        list.push_back({{"inferenceProfileId", id},
                                        {"inferenceProfileName", "Fake " + id},
                                        {"status", "ACTIVE"},
                                        {"type", "SYSTEM_DEFINED"}});
                    } else {
                        json entry = {{"modelId", id},
                                      {"modelName", "Fake " + id},
                                      {"providerName", id.substr(0, id.find('.'))}};
                        if (add_bedrock_lifecycle(entry, id, started)) list.push_back(entry);
                    }
                }
                const json body = profiles ? json{{"inferenceProfileSummaries", list}}
                                           : json{{"modelSummaries", list}};
                res.set_content(body.dump(), "application/json");
            };
        };
        server.Get("/foundation-models", bedrock_list(false));
        server.Get("/inference-profiles", bedrock_list(true));
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
        std::string schema_text;  // billed as input
        if (request.contains("response_format") && request["response_format"].is_object() &&
            request["response_format"].value("type", "") == "json_schema") {
            schema = request["response_format"]["json_schema"].value("schema", json::object());
            schema_text = request["response_format"].dump();
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
             {{"prompt_tokens", count_tokens(prompt) + count_tokens(schema_text)},
              {"completion_tokens", count_tokens(content)},
              {"total_tokens",
               count_tokens(prompt) + count_tokens(schema_text) + count_tokens(content)}}}};
        const std::string effort = request.value("reasoning_effort", std::string("none"));
        if (effort != "none") {  // a reasoning model's thinking, billed as output
            const std::size_t reasoning = 50;
            body["usage"]["completion_tokens"] = count_tokens(content) + reasoning;
            body["usage"]["total_tokens"] =
                body["usage"]["total_tokens"].get<std::size_t>() + reasoning;
            body["usage"]["completion_tokens_details"] = {{"reasoning_tokens", reasoning}};
        }
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
        // Prompt caching: the text up to the last block marked cache_control is the prefix; a
        // prefix seen before is read from the cache, else written to it (usage says which).
        std::string cached_prefix;
        for (const auto& message : request["messages"]) {
            if (message.contains("content") && message["content"].is_string()) {
                prompt += message["content"].get<std::string>() + "\n";
            } else if (message.contains("content") && message["content"].is_array()) {
                for (const auto& block : message["content"]) {
                    if (block.value("type", "") != "text" || !block.contains("text")) continue;
                    prompt += block["text"].get<std::string>();
                    if (block.contains("cache_control")) cached_prefix = prompt;
                }
                prompt += "\n";
            }
        }
        bool prefix_read = false;
        if (!cached_prefix.empty()) {
            std::lock_guard<std::mutex> lock(prompt_cache_mutex);  // batch lines hold `mutex`
            prefix_read = !prompt_cache.insert(cached_prefix).second;
        }
        json schema;
        std::string tool_name;
        std::size_t tools_billed = 0;
        if (request.contains("tools") && request["tools"].is_array() && !request["tools"].empty()) {
            schema = request["tools"][0].value("input_schema", json::object());
            tool_name = request["tools"][0].value("name", "answer");
            const std::string choice = request.contains("tool_choice")
                                           ? request["tool_choice"].value("type", "auto")
                                           : "auto";
            tools_billed = tool_tokens(request["tools"], choice == "any" || choice == "tool");
        }
        const bool json_output = request.contains("output_config") &&
                                 request["output_config"].is_object() &&
                                 request["output_config"].contains("format");
        if (json_output) schema = request["output_config"]["format"].value("schema", json::object());
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
            produced = as_text(answer, json_output);
            content.push_back({{"type", "text"}, {"text", produced}});
        }
        json body = {{"id", "msg_fake"},
                     {"type", "message"},
                     {"role", "assistant"},
                     {"model", request["model"]},
                     {"content", content},
                     {"stop_reason", stop},
                     {"stop_sequence", nullptr},
                     {"usage",
                      {{"input_tokens", count_tokens(prompt) + tools_billed},
                       {"output_tokens", count_tokens(produced)}}}};
        if (!cached_prefix.empty()) {
            const std::size_t prefix_tokens = count_tokens(cached_prefix);
            auto& usage = body["usage"];
            usage["input_tokens"] =
                count_tokens(prompt) - std::min(count_tokens(prompt), prefix_tokens) + tools_billed;
            usage[prefix_read ? "cache_read_input_tokens" : "cache_creation_input_tokens"] =
                prefix_tokens;
            usage[prefix_read ? "cache_creation_input_tokens" : "cache_read_input_tokens"] = 0;
        }
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
        bool json_output = false;
        if (request.contains("outputConfig") && request["outputConfig"].is_object() &&
            request["outputConfig"].contains("textFormat")) {
            const json format = request["outputConfig"]["textFormat"];
            const json definition =
                format.value("structure", json::object()).value("jsonSchema", json::object());
            schema = json::parse(definition.value("schema", std::string("{}")), nullptr, false);
            json_output = true;
        }
        // The engine sends a tool to Claude and Nova models only: billed as Anthropic bills
        // Claude's (Nova's own tool overhead is not published).
        std::size_t tools_billed = 0;
        if (!tool_name.empty()) {
            const json choice = request["toolConfig"].value("toolChoice", json::object());
            tools_billed = tool_tokens(request["toolConfig"]["tools"],
                                       choice.contains("any") || choice.contains("tool"));
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
            produced = as_text(answer, json_output);
            content.push_back({{"text", produced}});
        }
        const auto in = count_tokens(prompt) + tools_billed, out = count_tokens(produced);
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

    // OpenAI's token caps on an embeddings request, counted as this server counts tokens
    // (4 characters a token): 8,192 a text and 300,000 summed over the texts, refused with
    // OpenAI's messages (a 400; OpenAI's type for the second is max_tokens_per_request).
    static std::string openai_embedding_token_refusal(const std::vector<std::string>& inputs) {
        std::size_t total = 0;
        for (const std::string& input : inputs) {
            const std::size_t tokens = count_tokens(input);
            if (tokens > 8192) {
                return "This model's maximum context length is 8192 tokens, however you "
                       "requested " + std::to_string(tokens) + " tokens (" +
                       std::to_string(tokens) + " in your prompt; 0 for the completion). Please "
                       "reduce your prompt; or completion length.";
            }
            total += tokens;
        }
        if (total > 300000)
            return "Requested " + std::to_string(total) + " tokens, max 300000 tokens per request";
        return "";
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
        error = openai_embedding_token_refusal(*inputs);
        if (!error.empty()) return "";
        const std::size_t dimensions = request.value("dimensions", options.embedding_dimensions);
        // OpenAI's two encodings: numbers (the default), or base64 of little-endian float32.
        const std::string encoding = request.value("encoding_format", std::string("float"));
        if (encoding != "float" && (encoding != "base64" || options.refuse_base64)) {
            error = "'encoding_format' must be \"float\" or \"base64\"";
            return "";
        }
        json data = json::array();
        std::size_t tokens = 0;
        for (std::size_t i = 0; i < inputs->size(); ++i) {
            const std::vector<double> vector =
                embed((*inputs)[i],
                      dimensions + (i == 0 && fault.kind == Fault::Kind::wrong_dimension ? 1 : 0));
            json embedding = vector;
            if (encoding == "base64") {
                embedding = llmv::base64_encode(llmv::float32_bytes(llmv::to_float32(vector)));
            }
            data.push_back(
                {{"object", "embedding"}, {"index", i}, {"embedding", std::move(embedding)}});
            tokens += count_tokens((*inputs)[i]);
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
                     {"inputTextTokenCount", count_tokens(request["inputText"].get<std::string>())},
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
            tokens += count_tokens(input);
        }
        return json({{"model", request["model"]},
                     {"embeddings", vectors},
                     {"total_duration", 1000},
                     {"load_duration", 10},
                     {"prompt_eval_count", tokens}})
            .dump();
    }

    // The route of `endpoint`: handle()'s frame, then the body from one of the answers above.
    using AnswerMember = std::string (Impl::*)(const json&, const Fault&, std::string&);
    httplib::Server::Handler answer_route(const std::string& endpoint, Protocol protocol,
                                          AnswerMember answer) {
        return [this, endpoint, protocol, answer](const httplib::Request& req,
                                                  httplib::Response& res) {
            handle(endpoint, protocol, req, res,
                   [this, answer](const json& r, const Fault& f, std::string& e) {
                       return (this->*answer)(r, f, e);
                   });
        };
    }

    void install_routes() {
        using httplib::Request;
        using httplib::Response;
        const auto openai_chat_route =
            answer_route("openai.chat", Protocol::openai, &Impl::openai_chat);
        server.Post("/v1/chat/completions", openai_chat_route);
        server.Post(R"(/openai/deployments/([^/]+)/chat/completions)", openai_chat_route);
        const auto openai_embeddings_route =
            answer_route("openai.embeddings", Protocol::openai, &Impl::openai_embeddings);
        server.Post("/v1/embeddings", openai_embeddings_route);
        server.Post(R"(/openai/deployments/([^/]+)/embeddings)", openai_embeddings_route);
        server.Post("/v1/messages", answer_route("anthropic.messages", Protocol::anthropic,
                                                 &Impl::anthropic_messages));
        server.Post(R"(/model/(.+)/converse)",
                    answer_route("bedrock.converse", Protocol::bedrock, &Impl::bedrock_converse));
        server.Post(R"(/model/(.+)/invoke)", [this](const Request& req, Response& res) {
            const std::string model = req.matches[1].str();
            handle("bedrock.invoke", Protocol::bedrock, req, res,
                   [this, model](const json& r, const Fault& f, std::string& e) {
                       return titan_embeddings(model, r, f, e);
                   });
        });
        server.Post("/api/embed",
                    answer_route("ollama.embed", Protocol::ollama, &Impl::ollama_embed));

        install_batch_routes();
        install_model_routes();

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
                                {"batch_id", answer.batch_id},
                                {"request", answer.request_body},
                                {"response", answer.response_body}});
            }
            res.set_content(body.dump(), "application/json");
        });
        server.Get("/_control/batches", [this](const Request&, Response& res) {
            std::lock_guard<std::mutex> lock(mutex);
            json list = json::array();
            for (const std::string& id : batch_order)
                list.push_back({{"id", id}, {"lines", batches.at(id).lines.size()}});
            json uses = json::object();
            for (const auto& [id, times] : custom_id_uses) uses[id] = times;
            res.set_content(json({{"batches", list}, {"custom_ids", uses}}).dump(),
                            "application/json");
        });
        server.Post("/_control/batch_polls", [this](const Request& req, Response& res) {
            const json request = json::parse(req.body, nullptr, false);
            if (!request.is_object() || !request.contains("polls") ||
                !request["polls"].is_number_integer()) {
                res.status = 400;
                res.set_content(json({{"error", "body must be {\"polls\": N}"}}).dump(),
                                "application/json");
                return;
            }
            std::lock_guard<std::mutex> lock(mutex);
            options.batch_polls_in_progress = request["polls"].get<int>();
            for (auto& entry : batches)
                entry.second.script.polls_in_progress = options.batch_polls_in_progress;
            res.set_content("{}", "application/json");
        });
        server.Post("/_control/reset", [this](const Request&, Response& res) {
            std::lock_guard<std::mutex> lock(mutex);
            counts.clear();
            total = 0;
            faults.clear();
            recorded.clear();
            served.clear();
            custom_id_uses.clear();
            res.set_content("{}", "application/json");
        });
    }

    // ---- provider batches -----------------------------------------------------------------
    // Count, authorize and consume a scripted fault (a 429 while polling); false: answered.
    bool batch_frame(const std::string& endpoint, Protocol protocol, const httplib::Request& req,
                     httplib::Response& res) {
        arrive(endpoint, req);
        if (!authorize(protocol, req, res)) return false;
        const Fault fault = next_fault(endpoint);
        if (fault.kind == Fault::Kind::http_error) {
            if (!fault.retry_after.empty()) res.set_header("Retry-After", fault.retry_after);
            send_error(res, protocol, fault.status,
                       fault.message.empty()
                           ? "fake server: scripted HTTP " + std::to_string(fault.status)
                           : fault.message);
            return false;
        }
        return true;
    }

    std::string new_id(const std::string& prefix) { return prefix + std::to_string(++next_object); }

    // One line's answer as the synchronous endpoint gives it; "" and `error` when refused.
    std::string answer_line(const Batch& batch, const json& body, std::string& error) {
        const Fault none;
        if (batch.anthropic) return anthropic_messages(body, none, error);
        if (batch.endpoint == "/v1/embeddings") return openai_embeddings(body, none, error);
        return openai_chat(body, none, error);
    }

    std::string line_endpoint(const Batch& batch) const {
        if (batch.anthropic) return "anthropic.messages";
        return batch.endpoint == "/v1/embeddings" ? "openai.embeddings" : "openai.chat";
    }

    // Ends the batch (mutex held): answers its lines as its script says.
    void finish_batch(Batch& batch, bool cancelled) {
        const std::size_t line_count = batch.lines.size();
        std::size_t done = line_count;
        const BatchScript& script = batch.script;
        if (cancelled || script.kind == BatchScript::Kind::expire_part ||
            script.kind == BatchScript::Kind::cancelled) {
            done = static_cast<std::size_t>(static_cast<double>(line_count) * script.done_share);
        }
        for (std::size_t i = 0; i < line_count; ++i) {
            const Line& line = batch.lines[i];
            json outcome;      // Anthropic's result / OpenAI's response-or-error
            std::string kind;  // succeeded, errored, expired, canceled
            std::string answer, error;
            if (i >= done) {
                kind = cancelled || script.kind == BatchScript::Kind::cancelled ? "canceled"
                                                                                : "expired";
            } else if (script.kind == BatchScript::Kind::errored_lines && script.every > 0 &&
                       i % script.every == 0) {
                kind = "errored";
                error = "fake server: scripted error of a batch line";
            } else {
                answer = answer_line(batch, line.body, error);
                kind = error.empty() ? "succeeded" : "errored";
            }
            if (kind == "succeeded") {
                ++batch.succeeded;
                served.push_back({line_endpoint(batch), batch.id, line.body.dump(), answer});
            } else if (kind == "errored") {
                ++batch.errored;
            } else if (kind == "expired") {
                ++batch.expired;
            } else {
                ++batch.canceled;
            }
            if (batch.anthropic) {
                json result = {{"type", kind}};
                if (kind == "succeeded") result["message"] = json::parse(answer);
                if (kind == "errored") {
                    result["error"] = {{"type", "error"},
                                       {"error", {{"type", "api_error"}, {"message", error}}}};
                }
                batch.output +=
                    json({{"custom_id", line.custom_id}, {"result", result}}).dump() + "\n";
                continue;
            }
            json record = {{"id", "batch_req_" + std::to_string(i)}, {"custom_id", line.custom_id}};
            if (kind == "succeeded") {
                record["response"] = {{"status_code", 200},
                                      {"request_id", "req_" + std::to_string(i)},
                                      {"body", json::parse(answer)}};
                record["error"] = nullptr;
                batch.output += record.dump() + "\n";
            } else if (kind == "errored") {
                record["response"] = {
                    {"status_code", 500},
                    {"request_id", "req_" + std::to_string(i)},
                    {"body", {{"error", {{"message", error}, {"type", "server_error"}}}}}};
                record["error"] = nullptr;
                batch.errors += record.dump() + "\n";
            } else {
                record["response"] = nullptr;
                record["error"] = {
                    {"code", kind == "expired" ? "batch_expired" : "batch_cancelled"},
                    {"message",
                     kind == "expired"
                         ? "This request could not be executed before the completion window "
                           "expired."
                         : "This request was not executed because the batch was cancelled."}};
                batch.errors += record.dump() + "\n";
            }
        }
        if (script.kind == BatchScript::Kind::truncated_results && !batch.output.empty()) {
            // Cut in the middle of the last line.
            const std::size_t last = batch.output.rfind('\n', batch.output.size() - 2);
            const std::size_t from = last == std::string::npos ? 0 : last + 1;
            batch.output.resize(from + (batch.output.size() - from) / 2);
        }
        if (cancelled || script.kind == BatchScript::Kind::cancelled) {
            batch.status = "cancelled";
        } else if (script.kind == BatchScript::Kind::expire_part) {
            batch.status = "expired";
        } else {
            batch.status = "completed";
        }
        if (!batch.anthropic) {
            if (!batch.output.empty()) {
                batch.output_file_id = new_id("file-out-");
                files[batch.output_file_id] = batch.output;
            }
            if (!batch.errors.empty()) {
                batch.error_file_id = new_id("file-err-");
                files[batch.error_file_id] = batch.errors;
            }
        }
    }

    // A poll (mutex held): in progress for `polls_in_progress` polls, then the end.
    void advance(Batch& batch) {
        if (batch.status == "failed" || batch.status == "completed" || batch.status == "expired" ||
            batch.status == "cancelled") {
            return;
        }
        ++batch.polls;
        if (batch.cancel_requested) {
            finish_batch(batch, true);
        } else if (batch.script.kind == BatchScript::Kind::cancelled) {
            batch.status = "cancelling";  // someone cancelled it in the console
            if (batch.polls > batch.script.polls_in_progress) finish_batch(batch, true);
        } else if (batch.polls > batch.script.polls_in_progress) {
            finish_batch(batch, false);
        } else {
            batch.status = "in_progress";
        }
    }

    json openai_batch_json(const Batch& batch) const {
        return {{"id", batch.id},
                {"object", "batch"},
                {"endpoint", batch.endpoint},
                {"input_file_id", batch.input_file_id},
                {"completion_window", "24h"},
                {"status", batch.status},
                {"created_at", batch.created_unix},
                {"metadata", batch.metadata.is_object() ? batch.metadata : json(nullptr)},
                {"output_file_id",
                 batch.output_file_id.empty() ? json(nullptr) : json(batch.output_file_id)},
                {"error_file_id",
                 batch.error_file_id.empty() ? json(nullptr) : json(batch.error_file_id)},
                {"errors", batch.validation_errors.empty()
                               ? json(nullptr)
                               : json({{"object", "list"}, {"data", batch.validation_errors}})},
                {"request_counts",
                 {{"total", batch.lines.size()},
                  {"completed", batch.succeeded},
                  {"failed", batch.errored + batch.expired + batch.canceled}}}};
    }

    json anthropic_batch_json(const Batch& batch, const std::string& base) const {
        const bool ended =
            batch.status == "completed" || batch.status == "expired" || batch.status == "cancelled";
        const std::size_t processing = ended ? 0 : batch.lines.size();
        return {{"id", batch.id},
                {"type", "message_batch"},
                {"processing_status",
                 ended ? "ended" : (batch.status == "cancelling" ? "canceling" : "in_progress")},
                {"request_counts",
                 {{"processing", processing},
                  {"succeeded", batch.succeeded},
                  {"errored", batch.errored},
                  {"canceled", batch.canceled},
                  {"expired", batch.expired}}},
                {"created_at", rfc3339(batch.created_unix)},
                {"expires_at", rfc3339(batch.created_unix + 86400)},
                {"ended_at", ended ? json("2026-01-01T01:00:00Z") : json(nullptr)},
                {"cancel_initiated_at",
                 batch.cancel_requested ? json("2026-01-01T00:30:00Z") : json(nullptr)},
                {"results_url", ended ? json(base + "/v1/messages/batches/" + batch.id + "/results")
                                      : json(nullptr)}};
    }

    BatchScript next_script() {
        if (batch_scripts.empty()) {
            BatchScript script;
            script.polls_in_progress = options.batch_polls_in_progress;
            return script;
        }
        BatchScript script = batch_scripts.front();
        batch_scripts.pop_front();
        return script;
    }

    // The batch of the route's id ((...) in the path) among this vendor's batches, or nullptr
    // after a 404 in the vendor's words: an OpenAI id is not found on the Anthropic routes and
    // the other way round. Called under the lock.
    Batch* find_batch(const httplib::Request& req, httplib::Response& res, bool anthropic) {
        const auto found = batches.find(req.matches[1].str());
        if (found != batches.end() && found->second.anthropic == anthropic) return &found->second;
        send_error(res, anthropic ? Protocol::anthropic : Protocol::openai, 404,
                   anthropic ? "message batch not found" : "No such Batch object");
        return nullptr;
    }

    void install_batch_routes() {
        using httplib::Request;
        using httplib::Response;
        server.Post("/v1/files", [this](const Request& req, Response& res) {
            if (!batch_frame("openai.files", Protocol::openai, req, res)) return;
            if (!req.has_file("file") || !req.has_file("purpose") ||
                req.get_file_value("purpose").content != "batch") {
                send_error(res, Protocol::openai, 400,
                           "a multipart upload with the fields purpose=batch and file is required");
                return;
            }
            const auto file = req.get_file_value("file");
            std::lock_guard<std::mutex> lock(mutex);
            const std::string id = new_id("file-");
            files[id] = file.content;
            res.set_content(json({{"id", id},
                                  {"object", "file"},
                                  {"bytes", file.content.size()},
                                  {"filename", file.filename},
                                  {"purpose", "batch"}})
                                .dump(),
                            "application/json");
        });
        server.Get(R"(/v1/files/([^/]+)/content)", [this](const Request& req, Response& res) {
            if (!batch_frame("openai.files", Protocol::openai, req, res)) return;
            std::lock_guard<std::mutex> lock(mutex);
            const auto found = files.find(req.matches[1].str());
            if (found == files.end()) {
                send_error(res, Protocol::openai, 404,
                           "No such File object: " + req.matches[1].str());
                return;
            }
            res.set_content(download(found->first, found->second), "application/octet-stream");
        });
        server.Post("/v1/batches", [this](const Request& req, Response& res) {
            if (!batch_frame("openai.batches", Protocol::openai, req, res)) return;
            const json request = json::parse(req.body, nullptr, false);
            if (!request.is_object() || !request.contains("input_file_id") ||
                !request.contains("endpoint") || request.value("completion_window", "") != "24h") {
                send_error(res, Protocol::openai, 400,
                           "input_file_id, endpoint and completion_window \"24h\" are required");
                return;
            }
            std::lock_guard<std::mutex> lock(mutex);
            const auto file = files.find(request["input_file_id"].get<std::string>());
            if (file == files.end()) {
                send_error(res, Protocol::openai, 404, "No such File object");
                return;
            }
            Batch batch;
            batch.id = new_id("batch_");
            batch.endpoint = request["endpoint"].get<std::string>();
            batch.input_file_id = file->first;
            batch.script = next_script();
            batch.status = "validating";
            batch.created_unix = static_cast<std::int64_t>(std::time(nullptr));
            if (request.contains("metadata") && request["metadata"].is_object())
                batch.metadata = request["metadata"];
            std::istringstream in(file->second);
            std::string raw;
            std::set<std::string> ids;
            int number = 0;
            while (std::getline(in, raw)) {
                ++number;
                if (raw.empty()) continue;
                const json line = json::parse(raw, nullptr, false);
                std::string problem;
                if (!line.is_object() || !line.contains("custom_id") ||
                    !line["custom_id"].is_string() || !line.contains("body") ||
                    !line["body"].is_object()) {
                    problem = "each line needs custom_id, method, url and body";
                } else if (line.value("url", "") != batch.endpoint ||
                           line.value("method", "") != "POST") {
                    problem = "the line's url and method must be POST " + batch.endpoint;
                } else if (!ids.insert(line["custom_id"].get<std::string>()).second) {
                    problem =
                        "custom_id " + line["custom_id"].get<std::string>() + " is not unique";
                }
                if (!problem.empty()) {
                    batch.validation_errors.push_back(
                        {{"code", "invalid_request"}, {"message", problem}, {"line", number}});
                    continue;
                }
                batch.lines.push_back({line["custom_id"].get<std::string>(), line["body"]});
            }
            count_created(batch);
            // The vendor's caps: a batch over one fails as a whole (no line runs).
            const auto over = [&](const std::string& what) {
                batch.validation_errors.push_back(
                    {{"code", "batch_too_large"}, {"message", what}, {"line", nullptr}});
            };
            if (batch.lines.size() > cap(options.batch_max_requests, 50000))
                over("a batch holds at most " +
                     std::to_string(cap(options.batch_max_requests, 50000)) + " requests");
            if (batch.embedding_inputs > cap(options.batch_max_embedding_inputs, 50000))
                over("an embeddings batch holds at most " +
                     std::to_string(cap(options.batch_max_embedding_inputs, 50000)) +
                     " embedding inputs; this one has " + std::to_string(batch.embedding_inputs));
            if (file->second.size() > cap(options.batch_max_bytes, 200000000))
                over("the input file is larger than " +
                     std::to_string(cap(options.batch_max_bytes, 200000000)) + " bytes");
            if (!batch.validation_errors.empty()) {
                batch.status = "failed";
                // Refused: nothing of it runs or is paid.
                for (const Line& line : batch.lines) --custom_id_uses[line.custom_id];
            }
            batches[batch.id] = batch;
            batch_order.push_back(batch.id);
            res.set_content(openai_batch_json(batch).dump(), "application/json");
        });
        server.Get("/v1/batches", [this](const Request& req, Response& res) {
            if (!batch_frame("openai.batches", Protocol::openai, req, res)) return;
            std::lock_guard<std::mutex> lock(mutex);
            res.set_content(list_batches(false, req, "").dump(), "application/json");
        });
        server.Get("/v1/messages/batches", [this](const Request& req, Response& res) {
            if (!batch_frame("anthropic.batches", Protocol::anthropic, req, res)) return;
            std::lock_guard<std::mutex> lock(mutex);
            res.set_content(
                list_batches(true, req, "http://" + req.get_header_value("Host")).dump(),
                "application/json");
        });
        server.Get(R"(/v1/batches/([^/]+))", [this](const Request& req, Response& res) {
            if (!batch_frame("openai.batches", Protocol::openai, req, res)) return;
            std::lock_guard<std::mutex> lock(mutex);
            Batch* const batch = find_batch(req, res, /*anthropic=*/false);
            if (!batch) return;
            advance(*batch);
            res.set_content(openai_batch_json(*batch).dump(), "application/json");
        });
        server.Post(R"(/v1/batches/([^/]+)/cancel)", [this](const Request& req, Response& res) {
            if (!batch_frame("openai.batches", Protocol::openai, req, res)) return;
            std::lock_guard<std::mutex> lock(mutex);
            Batch* const batch = find_batch(req, res, /*anthropic=*/false);
            if (!batch) return;
            batch->cancel_requested = true;
            if (batch->status == "in_progress" || batch->status == "validating")
                batch->status = "cancelling";
            res.set_content(openai_batch_json(*batch).dump(), "application/json");
        });
        server.Post("/v1/messages/batches", [this](const Request& req, Response& res) {
            if (!batch_frame("anthropic.batches", Protocol::anthropic, req, res)) return;
            const json request = json::parse(req.body, nullptr, false);
            if (!request.is_object() || !request.contains("requests") ||
                !request["requests"].is_array() || request["requests"].empty()) {
                send_error(res, Protocol::anthropic, 400,
                           "requests: a non-empty array is required");
                return;
            }
            static const std::regex custom_id_pattern("^[a-zA-Z0-9_-]{1,64}$");
            if (request["requests"].size() > cap(options.batch_max_requests, 100000)) {
                send_error(res, Protocol::anthropic, 400,
                           "requests: at most " +
                               std::to_string(cap(options.batch_max_requests, 100000)) + " items");
                return;
            }
            if (req.body.size() > cap(options.batch_max_bytes, 256000000)) {
                send_error(res, Protocol::anthropic, 413,
                           "request_too_large: the batch is larger than " +
                               std::to_string(cap(options.batch_max_bytes, 256000000)) + " bytes");
                return;
            }
            Batch batch;
            batch.anthropic = true;
            std::set<std::string> ids;
            for (const auto& item : request["requests"]) {
                const std::string id = item.value("custom_id", "");
                if (!std::regex_match(id, custom_id_pattern) || !item.contains("params") ||
                    !item["params"].is_object()) {
                    send_error(res, Protocol::anthropic, 400,
                               "requests: each needs a custom_id matching ^[a-zA-Z0-9_-]{1,64}$ "
                               "and params");
                    return;
                }
                if (!ids.insert(id).second) {
                    send_error(res, Protocol::anthropic, 400, "custom_id " + id + " is not unique");
                    return;
                }
                batch.lines.push_back({id, item["params"]});
            }
            std::lock_guard<std::mutex> lock(mutex);
            batch.id = new_id("msgbatch_");
            batch.script = next_script();
            batch.status = "in_progress";
            batch.created_unix = static_cast<std::int64_t>(std::time(nullptr));
            count_created(batch);
            batches[batch.id] = batch;
            batch_order.push_back(batch.id);
            res.set_content(
                anthropic_batch_json(batch, "http://" + req.get_header_value("Host")).dump(),
                "application/json");
        });
        server.Get(R"(/v1/messages/batches/([^/]+))", [this](const Request& req, Response& res) {
            if (!batch_frame("anthropic.batches", Protocol::anthropic, req, res)) return;
            std::lock_guard<std::mutex> lock(mutex);
            Batch* const batch = find_batch(req, res, /*anthropic=*/true);
            if (!batch) return;
            advance(*batch);
            res.set_content(
                anthropic_batch_json(*batch, "http://" + req.get_header_value("Host")).dump(),
                "application/json");
        });
        server.Get(R"(/v1/messages/batches/([^/]+)/results)",
                   [this](const Request& req, Response& res) {
                       if (!batch_frame("anthropic.batches", Protocol::anthropic, req, res)) return;
                       std::lock_guard<std::mutex> lock(mutex);
                       Batch* const batch = find_batch(req, res, /*anthropic=*/true);
                       if (!batch) return;
                       if (batch->status != "completed" && batch->status != "expired" &&
                           batch->status != "cancelled") {
                           send_error(res, Protocol::anthropic, 400,
                                      "the batch has not ended; its results are not ready");
                           return;
                       }
                       res.set_content(download(batch->id, batch->output), "application/binary");
                   });
        server.Post(
            R"(/v1/messages/batches/([^/]+)/cancel)", [this](const Request& req, Response& res) {
                if (!batch_frame("anthropic.batches", Protocol::anthropic, req, res)) return;
                std::lock_guard<std::mutex> lock(mutex);
                Batch* const batch = find_batch(req, res, /*anthropic=*/true);
                if (!batch) return;
                batch->cancel_requested = true;
                if (batch->status == "in_progress") batch->status = "cancelling";
                res.set_content(
                    anthropic_batch_json(*batch, "http://" + req.get_header_value("Host")).dump(),
                    "application/json");
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
    impl_->custom_id_uses.clear();
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

void FakeServer::push_batch_scripts(const std::vector<BatchScript>& scripts) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->batch_scripts.insert(impl_->batch_scripts.end(), scripts.begin(), scripts.end());
}

void FakeServer::set_batch_polls_in_progress(int polls) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->options.batch_polls_in_progress = polls;
    for (auto& entry : impl_->batches) entry.second.script.polls_in_progress = polls;
}

std::map<std::string, std::size_t> FakeServer::submitted_custom_ids() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->custom_id_uses;
}

std::vector<std::size_t> FakeServer::embedding_batch_inputs() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    std::vector<std::size_t> list;
    for (const std::string& id : impl_->batch_order) {
        const auto& batch = impl_->batches.at(id);
        if (!batch.anthropic && batch.endpoint == "/v1/embeddings")
            list.push_back(batch.embedding_inputs);
    }
    return list;
}

std::vector<std::pair<std::string, std::size_t>> FakeServer::batches() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    std::vector<std::pair<std::string, std::size_t>> list;
    for (const std::string& id : impl_->batch_order)
        list.emplace_back(id, impl_->batches.at(id).lines.size());
    return list;
}

}  // namespace llmv::fake
