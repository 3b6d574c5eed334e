// fake_provider_server --port N [--latency-ms N] [--threads N] [--api-key K] [--labels A,B,C]
//                      [--error-rate X] [--seed N] [--dimensions D] [--credential-log FILE]
//                      [--follow-length 0|1] [--words-per-token X] [--chatty 0|1] [--batch-polls N]
//                      [--truncate-first-downloads 0|1]
//                      [--batch-max-requests N] [--batch-max-embedding-inputs N]
//                      [--lifecycle-models 0|1]
// Prints the port it listens on (one line) and serves on 127.0.0.1 until SIGINT or SIGTERM.
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>

#include "fake_server.hpp"

namespace {

[[noreturn]] void usage(const std::string& problem) {
    std::cerr
        << "fake_provider_server: " << problem << "\n"
        << "usage: fake_provider_server --port N [--latency-ms N] [--threads N] [--api-key K]\n"
        << "       [--labels A,B,C] [--error-rate X] [--seed N] [--dimensions D]\n"
        << "       [--follow-length 0|1] (passages of the length the prompt asks for)\n"
        << "       [--words-per-token X] (with --follow-length: words per token asked, default 1)\n"
        << "       [--chatty 0|1] (prose around JSON answers without a schema, default 1)\n"
        << "       [--credential-log FILE]\n"
        << "       [--batch-polls N] (polls a provider batch answers \"in progress\", default 1)\n"
        << "       [--truncate-first-downloads 0|1] (the first GET of each batch result is cut mid-line)\n"
        << "       [--batch-max-requests N] [--batch-max-embedding-inputs N] (0: the vendors' caps)\n"
        << "       [--lifecycle-models 0|1] (a model retiring in 30 days, a retired one)\n";
    std::exit(2);
}

long whole_number(const std::string& flag, const std::string& value, long low, long high) {
    char* end = nullptr;
    const long number = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || number < low || number > high) {
        usage(flag + " must be a whole number from " + std::to_string(low) + " to " +
              std::to_string(high) + "; received \"" + value + "\"");
    }
    return number;
}

}  // namespace

int main(int argc, char** argv) {
    llmv::fake::FakeServerOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") usage("help");
        if (i + 1 >= argc) usage(flag + " needs a value");
        const std::string value = argv[++i];
        if (flag == "--port") {
            options.port = static_cast<int>(whole_number(flag, value, 0, 65535));
        } else if (flag == "--latency-ms") {
            options.latency_ms = static_cast<int>(whole_number(flag, value, 0, 600000));
        } else if (flag == "--threads") {
            options.threads = static_cast<int>(whole_number(flag, value, 1, 4096));
        } else if (flag == "--follow-length") {
            options.follow_length = whole_number(flag, value, 0, 1) == 1;
        } else if (flag == "--words-per-token") {
            char* end = nullptr;
            options.words_per_token = std::strtod(value.c_str(), &end);
            if (*end != '\0' || !(options.words_per_token > 0) || options.words_per_token > 10)
                usage("--words-per-token must be a number above 0, at most 10; received \"" +
                      value + "\"");
        } else if (flag == "--chatty") {
            options.chatty = whole_number(flag, value, 0, 1) == 1;
        } else if (flag == "--batch-polls") {
            options.batch_polls_in_progress = static_cast<int>(whole_number(flag, value, 0, 1000000));
        } else if (flag == "--truncate-first-downloads") {
            options.truncate_first_downloads = whole_number(flag, value, 0, 1) == 1;
        } else if (flag == "--batch-max-requests") {
            options.batch_max_requests = static_cast<std::size_t>(whole_number(flag, value, 0, 100000000));
        } else if (flag == "--batch-max-embedding-inputs") {
            options.batch_max_embedding_inputs = static_cast<std::size_t>(whole_number(flag, value, 0, 100000000));
        } else if (flag == "--lifecycle-models") {
            options.lifecycle_models = whole_number(flag, value, 0, 1) == 1;
        } else if (flag == "--credential-log") {
            options.credential_log = value;
        } else if (flag == "--api-key") {
            options.api_key = value;
        } else if (flag == "--seed") {
            options.seed = static_cast<std::uint64_t>(whole_number(flag, value, 0, 2147483647));
        } else if (flag == "--dimensions") {
            options.embedding_dimensions =
                static_cast<std::size_t>(whole_number(flag, value, 1, 8192));
        } else if (flag == "--error-rate") {
            char* end = nullptr;
            options.annotation_error_rate = std::strtod(value.c_str(), &end);
            if (*end != '\0' || options.annotation_error_rate < 0 ||
                options.annotation_error_rate > 1) {
                usage("--error-rate must be a number from 0 to 1; received \"" + value + "\"");
            }
        } else if (flag == "--labels") {
            options.labels.clear();
            std::string label;
            for (char c : value + ",") {
                if (c == ',') {
                    if (!label.empty()) options.labels.push_back(label);
                    label.clear();
                } else {
                    label += c;
                }
            }
            if (options.labels.empty()) usage("--labels needs at least one label");
        } else {
            usage("unknown option " + flag);
        }
    }

    // Block the stop signals before any thread starts, then wait for one of them.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    llmv::fake::FakeServer server(options);
    try {
        server.start();
    } catch (const std::exception& error) {
        std::cerr << error.what() << "\n";
        return 1;
    }
    std::cout << server.port() << std::endl;
    int received = 0;
    sigwait(&signals, &received);
    server.stop();
    return 0;
}
