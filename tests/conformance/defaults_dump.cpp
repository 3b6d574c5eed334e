// Prints the engine's provider defaults as one JSON document: each row of provider_defaults()
// (kind, provider, model, checked, source) and, where the default follows the configuration,
// the model a run resolves from a few regions. tools/conformance/sdk_models.mjs compares them
// with the vendors' SDKs. No network.
#include <iostream>

#include <nlohmann/json.hpp>

#include "llmvalidate/resolution.hpp"

using nlohmann::json;
using namespace llmv;

int main() {
    json rows = json::array();
    for (const pipeline::ProviderDefaults& row : pipeline::provider_defaults()) {
        json out = {{"kind", row.kind},     {"provider", row.provider},
                    {"model", row.model},   {"checked", row.checked},
                    {"source", row.source}, {"batch_api", row.batch_api}};
        if (row.default_model_for) {
            json by_region = json::object();
            for (const char* region :
                 {"us-east-1", "eu-west-1", "ap-northeast-1", "us-gov-west-1"}) {
                ProviderConfig config;
                config.environment = std::map<std::string, std::string>{{"AWS_REGION", region}};
                by_region[region] = row.default_model_for(row.model, config);
            }
            out["model_by_region"] = by_region;
        }
        rows.push_back(out);
    }
    std::cout << json{{"defaults", rows}}.dump(2) << "\n";
    return 0;
}
