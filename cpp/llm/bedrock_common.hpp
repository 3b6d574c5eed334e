// Region, endpoint and credentials shared by the Bedrock chat (Converse) and embedding
// (InvokeModel) providers. Two ways in: a Bedrock API key (bearer token,
// AWS_BEARER_TOKEN_BEDROCK), or AWS access keys signed with SigV4 by the transport.
#pragma once

#include <string>
#include <vector>

#include "llm/provider.hpp"

namespace llmv::detail {

class BedrockEndpoint {
  public:
    BedrockEndpoint(const ProviderConfig& config, const std::string& provider);
    // POST {base}/model/{modelId}/{action}, the model id percent-encoded (ids contain ':').
    HttpRequest request(const std::string& model, const std::string& action,
                        std::string body) const;
    // GET {control base}{path}: Bedrock's control plane (ListFoundationModels at
    // /foundation-models, ListInferenceProfiles at /inference-profiles). Its base: the
    // configured base URL (a test server speaks both), AWS_ENDPOINT_URL_BEDROCK,
    // AWS_ENDPOINT_URL, else https://bedrock.{region}.amazonaws.com.
    HttpRequest control_request(const std::string& path) const;
    std::string describe(const std::string& provider) const;
    std::string identity() const;
    const std::vector<std::string>& secrets() const { return secrets_; }

  private:
    std::string region_;
    std::string base_url_;
    std::string control_base_url_;
    std::string bearer_token_;
    std::string access_key_id_;
    std::string secret_access_key_;
    std::string session_token_;
    std::string auth_source_;
    std::vector<std::string> secrets_;
    long connect_timeout_ms_;
    long total_timeout_ms_;
};

}  // namespace llmv::detail
