#include "llm/bedrock_common.hpp"

#include "llm/aws_profile.hpp"
#include "llm/provider_spec.hpp"
#include "llm/provider_util.hpp"
#include "llmvalidate/error.hpp"

namespace llmv::detail {

namespace {

std::string region_of(const ProviderConfig& config, const AwsProfile& profile) {
    std::string region = first_set(config, config.region, {"AWS_REGION", "AWS_DEFAULT_REGION"});
    if (region.empty()) region = profile.region;
    if (region.empty()) region = "us-east-1";
    return region;
}

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::string bedrock_region(const ProviderConfig& config) {
    return region_of(config, read_aws_profile(config));
}

std::string bedrock_profile_for_region(const std::string& model, const ProviderConfig& config) {
    // The cross-Region profile prefixes AWS defines; a model id after one of them is what the
    // profile serves.
    static const char* const prefixes[] = {"global.", "us-gov.", "us.", "eu.",
                                           "apac.",   "jp.",     "au.", "ca."};
    std::string base;
    for (const char* prefix : prefixes) {
        if (starts_with(model, prefix)) {
            base = model.substr(std::string(prefix).size());
            break;
        }
    }
    if (base.empty()) return model;
    // A profile named in AWS_PROFILE but missing from the files is reported when the provider
    // opens (with what is allowed); here it only means the region is unknown: the default's.
    std::string region = "us-east-1";
    try {
        region = bedrock_region(config);
    } catch (const Error&) {
    }
    if (starts_with(region, "us-gov-")) return "us-gov." + base;
    // China's Regions (cn-) are a partition of their own, without these profiles.
    if (starts_with(region, "cn-")) return model;
    return "global." + base;
}

BedrockEndpoint::BedrockEndpoint(const ProviderConfig& config, const std::string& provider)
    : connect_timeout_ms_(config.connect_timeout_ms), total_timeout_ms_(config.total_timeout_ms) {
    // The shared files (AWS_PROFILE, ~/.aws/credentials, ~/.aws/config) come after the
    // variables, as in the AWS SDKs: their region, and their keys when none are set.
    const AwsProfile profile = read_aws_profile(config);
    region_ = region_of(config, profile);
    // The AWS SDKs' order: the service's own endpoint variable, then the global one (VPC
    // endpoints, proxies).
    base_url_ = strip_trailing_slashes(first_set(
        config, config.base_url, {"AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_ENDPOINT_URL"}));
    if (base_url_.empty()) base_url_ = "https://bedrock-runtime." + region_ + ".amazonaws.com";
    control_base_url_ = strip_trailing_slashes(
        first_set(config, config.base_url, {"AWS_ENDPOINT_URL_BEDROCK", "AWS_ENDPOINT_URL"}));
    if (control_base_url_.empty())
        control_base_url_ = "https://bedrock." + region_ + ".amazonaws.com";
    // AWS credentials (the variables, the shared files) go to AWS's hosts only (bedrock_spec.cpp
    // declares them); a server at another base URL (a gateway, a test server) gets only what is
    // named for it: `api_key` or the `aws_*` fields, else LLMV_API_KEY as a bearer token.
    const bool aws_hosts = is_vendor_url(base_url_, bedrock_key_domains()) &&
                           is_vendor_url(control_base_url_, bedrock_key_domains());
    bearer_token_ = first_set(config, config.api_key,
                              {aws_hosts ? "AWS_BEARER_TOKEN_BEDROCK" : config.server_key_env});
    if (!bearer_token_.empty()) {
        auth_source_ =
            !config.api_key.empty()
                ? "bearer token from argument"
                : "bearer token from $" +
                      std::string(aws_hosts ? "AWS_BEARER_TOKEN_BEDROCK" : config.server_key_env);
        secrets_.push_back(bearer_token_);
        return;
    }
    AwsCredentials keys;
    keys.access_key_id = config.aws_access_key_id;
    keys.secret_access_key = config.aws_secret_access_key;
    keys.session_token = config.aws_session_token;
    std::string key_source = "AWS access keys";
    if (aws_hosts) {
        keys.access_key_id = first_set(config, keys.access_key_id, {"AWS_ACCESS_KEY_ID"});
        keys.secret_access_key =
            first_set(config, keys.secret_access_key, {"AWS_SECRET_ACCESS_KEY"});
        keys.session_token = first_set(config, keys.session_token, {"AWS_SESSION_TOKEN"});
        if (keys.access_key_id.empty() && keys.secret_access_key.empty() &&
            !profile.access_key_id.empty()) {
            keys.access_key_id = profile.access_key_id;
            keys.secret_access_key = profile.secret_access_key;
            keys.session_token = profile.session_token;
            key_source = "the AWS keys of " + profile.source;
        }
    }
    if (keys.access_key_id.empty() || keys.secret_access_key.empty()) {
        if (!aws_hosts) {
            auth_source_ = "none (AWS credentials go to AWS's hosts only)";
            return;
        }
        throw Error(code::provider_config,
                    "provider `" + provider +
                        "` needs credentials: a Bedrock API key "
                        "(`api_key` or AWS_BEARER_TOKEN_BEDROCK), or AWS keys (AWS_ACCESS_KEY_ID "
                        "and AWS_SECRET_ACCESS_KEY, optionally AWS_SESSION_TOKEN, or a profile of "
                        "~/.aws/credentials named by AWS_PROFILE)",
                    {"api_key"});
    }
    auth_source_ =
        "SigV4 with " + key_source + (keys.session_token.empty() ? "" : " and a session token");
    for (const auto* secret : {&keys.access_key_id, &keys.secret_access_key, &keys.session_token}) {
        if (!secret->empty()) secrets_.push_back(*secret);
    }
    // Signed by the transport at send time, on every attempt (the signature carries the
    // time); the engine's signer, not libcurl's, whose encoding of ':' in model ids
    // Bedrock rejects.
    signer_ = std::make_shared<AwsSigV4Signer>(region_, "bedrock", std::move(keys));
}

HttpRequest BedrockEndpoint::request(const std::string& model, const std::string& action,
                                     std::string body) const {
    HttpRequest request;
    request.method = "POST";
    request.url = base_url_ + "/model/" + percent_encode(model) + "/" + action;
    request.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    if (!bearer_token_.empty()) {
        request.headers.emplace_back("Authorization", "Bearer " + bearer_token_);
    } else {
        request.signer = signer_;  // none at a server that is not AWS's and was given no keys
    }
    request.body = std::move(body);
    request.secrets = secrets_;
    request.connect_timeout_ms = connect_timeout_ms_;
    request.total_timeout_ms = total_timeout_ms_;
    return request;
}

HttpRequest BedrockEndpoint::control_request(const std::string& path) const {
    HttpRequest request = this->request("x", "x", "");
    request.method = "GET";
    request.url = control_base_url_ + path;
    request.headers = {{"Accept", "application/json"}};
    if (!bearer_token_.empty())
        request.headers.emplace_back("Authorization", "Bearer " + bearer_token_);
    return request;
}

std::string BedrockEndpoint::describe(const std::string& provider) const {
    return detail::describe(provider,
                            {{"region", region_}, {"base", base_url_}, {"auth", auth_source_}});
}

std::string BedrockEndpoint::identity() const { return base_url_ + " " + region_; }

}  // namespace llmv::detail
