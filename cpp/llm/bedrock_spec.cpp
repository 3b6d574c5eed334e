// Amazon Bedrock's spec (provider_spec.hpp): the Converse chat provider and the Titan
// embeddings, their defaults (the inference profile follows the region: bedrock_common.hpp) and
// credentials. Requests are signed with SigV4 (aws_sigv4.hpp) or carry a Bedrock API key. No
// batch API: Bedrock's batch inference needs S3.
#include "llm/bedrock_common.hpp"
#include "llm/provider_spec.hpp"

namespace llmv {

std::unique_ptr<ChatProvider> make_bedrock_chat_provider(const ProviderConfig&);
std::unique_ptr<EmbeddingProvider> make_bedrock_titan_embedding_provider(const ProviderConfig&);

// AWS credentials (AWS_BEARER_TOKEN_BEDROCK, AWS_ACCESS_KEY_ID and the rest, the shared
// files) go to https URLs of these domains and their subdomains only (bedrock_common.cpp).
const std::vector<std::string>& bedrock_key_domains() {
    static const std::vector<std::string> domains = {"amazonaws.com", "amazonaws.com.cn",
                                                     "api.aws"};
    return domains;
}

std::vector<ProviderSpec> bedrock_provider_specs() {
    ProviderSpec chat;
    chat.defaults = {
        "chat",
        "bedrock",
        "global.anthropic.claude-sonnet-4-6",
        "bedrock-titan",
        "AWS_BEARER_TOKEN_BEDROCK, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE",
        "2026-12-07",
        "Anthropic's Claude on Amazon Bedrock (Opus 4.6 and earlier: Converse) page; AWS "
        "inference profiles (global. from commercial Regions, us-gov. from GovCloud: the "
        "profile follows the region); Bedrock model lifecycle: active, launched 2026-02, at "
        "least 12 months before end of life and 6 months as legacy",
        {"AWS_BEARER_TOKEN_BEDROCK", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "LLMV_API_KEY"},
        3,
        {"AWS_BEARER_TOKEN_BEDROCK", "AWS_PROFILE", "AWS_ACCESS_KEY_ID+AWS_SECRET_ACCESS_KEY"},
        "AWS credentials",
        false,  // Bedrock's batch inference needs S3
        &detail::bedrock_profile_for_region};
    chat.defaults.no_batch_api = "Bedrock's batch inference needs S3 and is not supported";
    chat.defaults.list_vendor = "bedrock";
    chat.defaults.list_host = "amazonaws.com";
    chat.defaults.key_domains = bedrock_key_domains();
    chat.make_chat = make_bedrock_chat_provider;
    // ListFoundationModels and ListInferenceProfiles (its control plane).
    chat.model_list = vendor_model_list("bedrock");

    ProviderSpec embedding;
    embedding.defaults = {
        "embedding",
        "bedrock-titan",
        "amazon.titan-embed-text-v2:0",
        "",
        "as bedrock",
        "2026-12-04",
        "Bedrock model lifecycle (active); the paper's embedding model",
        {"AWS_BEARER_TOKEN_BEDROCK", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}};
    // Titan's models are in Bedrock's list (ListFoundationModels).
    embedding.defaults.list_vendor = "bedrock";
    embedding.defaults.list_host = "amazonaws.com";
    embedding.defaults.key_domains = bedrock_key_domains();
    embedding.make_embedding = make_bedrock_titan_embedding_provider;
    return {chat, embedding};
}

}  // namespace llmv
