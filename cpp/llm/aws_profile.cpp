// The AWS shared configuration files (aws_profile.hpp).
#include "llm/aws_profile.hpp"

#include <fstream>
#include <map>

#include "llm/provider_util.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/text.hpp"

namespace llmv::detail {

namespace {

using Sections = std::map<std::string, std::map<std::string, std::string>>;

// INI as the AWS files use it: [section], key = value, comments after '#' or ';' at a line's
// start. A missing file is no sections.
Sections read_ini(const std::string& path) {
    Sections sections;
    std::ifstream file(path);
    std::string line, section;
    while (std::getline(file, line)) {
        const std::string content = text::trim(line);
        if (content.empty() || content[0] == '#' || content[0] == ';') continue;
        if (content.front() == '[' && content.back() == ']') {
            section = text::trim(content.substr(1, content.size() - 2));
            sections[section];
            continue;
        }
        const auto equals = content.find('=');
        if (equals == std::string::npos || section.empty()) continue;
        sections[section][text::trim(content.substr(0, equals))] =
            text::trim(content.substr(equals + 1));
    }
    return sections;
}

}  // namespace

AwsProfile read_aws_profile(const ProviderConfig& config) {
    AwsProfile profile;
    const std::string named = env_value(config, "AWS_PROFILE");
    profile.name = named.empty() ? "default" : named;
    const std::string home = env_value(config, "HOME");
    std::string credentials_path = env_value(config, "AWS_SHARED_CREDENTIALS_FILE");
    if (credentials_path.empty() && !home.empty()) credentials_path = home + "/.aws/credentials";
    std::string config_path = env_value(config, "AWS_CONFIG_FILE");
    if (config_path.empty() && !home.empty()) config_path = home + "/.aws/config";

    const Sections credentials = credentials_path.empty() ? Sections() : read_ini(credentials_path);
    const Sections settings = config_path.empty() ? Sections() : read_ini(config_path);
    const auto in_credentials = credentials.find(profile.name);
    auto in_config =
        settings.find(profile.name == "default" ? "default" : "profile " + profile.name);
    if (in_config == settings.end()) in_config = settings.find(profile.name);
    if (!named.empty() && in_credentials == credentials.end() && in_config == settings.end()) {
        throw Error(code::provider_config, "AWS_PROFILE names profile `" + named +
                                               "`, which neither " + credentials_path + " nor " +
                                               config_path + " has");
    }
    const auto take = [](const Sections::const_iterator& section, const Sections& all,
                         const char* key) {
        if (section == all.end()) return std::string();
        const auto found = section->second.find(key);
        return found == section->second.end() ? std::string() : found->second;
    };
    for (const auto* source : {&credentials, &settings}) {
        const auto section = source == &credentials ? in_credentials : in_config;
        if (profile.access_key_id.empty())
            profile.access_key_id = take(section, *source, "aws_access_key_id");
        if (profile.secret_access_key.empty())
            profile.secret_access_key = take(section, *source, "aws_secret_access_key");
        if (profile.session_token.empty())
            profile.session_token = take(section, *source, "aws_session_token");
    }
    profile.region = take(in_config, settings, "region");
    profile.source = "profile " + profile.name;
    return profile;
}

}  // namespace llmv::detail
