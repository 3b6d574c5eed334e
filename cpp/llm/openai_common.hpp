// The URL, credential and headers shared by the OpenAI-compatible chat and embedding
// providers (plain OpenAI-style servers and Azure OpenAI).
#pragma once

#include <string>
#include <vector>

#include "llm/provider.hpp"

namespace llmv::detail {

// True for https URLs of OpenAI's own hosts (openai.com and its subdomains): the only ones
// OPENAI_API_KEY (or the api_key_env default) is sent to.
bool is_openai_host(const std::string& base_url);

class OpenAIEndpoint {
  public:
    // Reads options "flavor" ("openai" | "azure"), "api_version", "api_key_env" and the
    // environment; throws provider_config when a required credential is missing.
    OpenAIEndpoint(const ProviderConfig& config, const std::string& provider);
    // `path` below the base: "chat/completions", "embeddings".
    HttpRequest request(const std::string& path, const std::string& model, std::string body) const;
    // GET {base}/{path} with the same credentials (not Azure: its deployments have no list).
    HttpRequest get(const std::string& path) const;
    std::string describe(const std::string& provider) const;
    std::string identity() const;
    const std::vector<std::string>& secrets() const { return secrets_; }
    bool azure() const { return azure_; }

  private:
    bool azure_ = false;
    std::string base_url_;
    std::string api_version_;
    std::string api_key_;
    std::string key_source_;
    // OPENAI_ORG_ID / OPENAI_PROJECT_ID, sent as OpenAI-Organization / OpenAI-Project (as the
    // OpenAI SDKs do); not for Azure.
    std::string organization_;
    std::string project_;
    std::vector<std::string> secrets_;
    long connect_timeout_ms_;
    long total_timeout_ms_;
};

}  // namespace llmv::detail
