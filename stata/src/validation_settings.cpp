#include "validation_settings.hpp"

#include "llmvalidate/settings.hpp"

namespace llmv::stata {

void read_validation_settings(const Arguments& args, pipeline::ValidationConfig& config,
                              bool statistics_only) {
    // The ado passes each setting as a word named like its Stata option (alpha=0.05); the
    // settings table parses and checks it, and its messages name the option: alpha().
    for (const settings::Setting& setting : settings::table())
        if (!setting.stata.empty() && args.has(setting.stata) &&
            (setting.statistics || !statistics_only))
            setting.set(config, settings::parse(setting, args.text(setting.stata, ""),
                                                settings::FrontEnd::stata));
}

std::set<std::string> accepted_words(std::set<std::string> structural, Offered offered) {
    for (const settings::Setting& setting : settings::table()) {
        if (setting.stata.empty()) continue;
        const bool wanted = offered == Offered::all ||
                            (offered == Offered::statistics && setting.statistics) ||
                            (offered == Offered::validation &&
                             setting.group == settings::Group::validation);
        if (wanted) structural.insert(setting.stata);
    }
    return structural;
}

stats::TestOptions read_test_settings(const Arguments& args) {
    pipeline::ValidationConfig config;  // the table reads and writes settings through it
    read_validation_settings(args, config, true);
    settings::check(config.tests, settings::FrontEnd::stata);
    return config.tests;
}

}  // namespace llmv::stata
