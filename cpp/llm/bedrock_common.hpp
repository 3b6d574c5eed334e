// Region, endpoint and credentials shared by the Bedrock chat (Converse) and embedding
// (InvokeModel) providers. Two ways in: a Bedrock API key (bearer token,
// AWS_BEARER_TOKEN_BEDROCK), or AWS access keys signed with SigV4 by the transport.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "llm/aws_sigv4.hpp"
#include "llm/provider.hpp"

namespace llmv::detail {

// The region a Bedrock request goes to: the configuration's, then AWS_REGION,
// AWS_DEFAULT_REGION, the AWS config file's profile, else us-east-1 (the AWS SDKs' order).
std::string bedrock_region(const ProviderConfig& config);

// The inference profile of `model` usable from the configured region: a Claude model on
// Bedrock is called through a cross-Region profile whose prefix names the Regions it routes to.
// `global.` routes to every commercial Region and is callable from each of them (AWS prices it
// about 10% below the geographic ones for Claude 4.5 and later); the GovCloud Regions have only
// their own `us-gov.` profiles. A model without a profile prefix, an ARN or a region outside
// both is returned unchanged. Sources: AWS "Supported Regions and models for inference profiles"
// and "Cross-Region inference" (read 2026-12-07).
std::string bedrock_profile_for_region(const std::string& model, const ProviderConfig& config);

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
    const std::string& region() const { return region_; }
    const std::vector<std::string>& secrets() const { return secrets_; }

  private:
    std::string region_;
    std::string base_url_;
    std::string control_base_url_;
    std::string bearer_token_;
    std::shared_ptr<const AwsSigV4Signer> signer_;  // null with a bearer token
    std::string auth_source_;
    std::vector<std::string> secrets_;
    long connect_timeout_ms_;
    long total_timeout_ms_;
};

}  // namespace llmv::detail
