// How to reach a provider: base URL, credentials, options and timeouts. Public, because the
// bindings pass it through provider resolution (resolution.hpp); the providers themselves are
// private to the engine (cpp/llm/provider.hpp).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace llmv {

struct ProviderConfig {
    // Empty: the provider's default (documented in docs/providers.md), or its environment
    // variable (e.g. OPENAI_BASE_URL). Without the trailing API path: "http://127.0.0.1:8080".
    std::string base_url;
    // Explicit credential; empty: read from the provider's environment variable.
    // Bedrock: the Bedrock API key (bearer token); AWS keys go in `aws_*` below.
    std::string api_key;
    // `openai` at a server that is not OpenAI's (a base URL of your own): the variable its key
    // is read from when neither `api_key` nor option api_key_env names one. OPENAI_API_KEY
    // never goes there. Provider resolution sets LLMV_EMBEDDING_API_KEY for an embedding
    // server other than the chat server.
    std::string server_key_env = "LLMV_API_KEY";
    // Bedrock only; empty: AWS_REGION, then AWS_DEFAULT_REGION, then "us-east-1".
    std::string region;
    std::string aws_access_key_id;
    std::string aws_secret_access_key;
    std::string aws_session_token;
    // Provider-specific switches, documented in docs/providers.md, e.g. for `openai`:
    // {"flavor", "azure"}, {"api_version", "2024-10-21"}, {"max_tokens_field",
    // "max_completion_tokens"}; for `anthropic` and `bedrock`: {"structured", "tool" | "prompt"}.
    // An unknown key is an error (names the key and the allowed ones).
    std::map<std::string, std::string> options;
    // Tests set this to make the provider read these variables instead of the process
    // environment. Unset: std::getenv.
    std::optional<std::map<std::string, std::string>> environment;
    long connect_timeout_ms = 10000;
    long total_timeout_ms = 300000;
};

}  // namespace llmv
