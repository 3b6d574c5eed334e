// The AWS shared configuration files, read as the AWS SDKs and CLI read them: a profile
// (AWS_PROFILE, else "default") from the credentials file (AWS_SHARED_CREDENTIALS_FILE, else
// ~/.aws/credentials: aws_access_key_id, aws_secret_access_key, aws_session_token) and the
// config file (AWS_CONFIG_FILE, else ~/.aws/config: region; section "[profile NAME]", or
// "[default]"). Only static keys: SSO, assume-role and credential processes are not run.
#pragma once

#include <string>

#include "llm/provider.hpp"

namespace llmv::detail {

struct AwsProfile {
    std::string name;
    std::string access_key_id;
    std::string secret_access_key;
    std::string session_token;
    std::string region;
    std::string source;  // "profile NAME (path)" for descriptions; no secret
};

// Reads the profile; fields the files do not give stay empty. A profile named explicitly
// (AWS_PROFILE) that neither file has is an error (provider_config) naming it and the files.
AwsProfile read_aws_profile(const ProviderConfig& config);

}  // namespace llmv::detail
