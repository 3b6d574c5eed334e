// The default of each setting of the table (llmvalidate/settings.hpp): the initial value of the
// field that holds it, so that no default is written twice.
#include "llmvalidate/power.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/validation_config.hpp"

namespace llmv::pipeline {

std::string setting_default(const settings::Setting& setting) {
    if (!setting.default_doc.empty()) return setting.default_doc;
    const ValidationConfig config;
    if (settings::binds(config, setting.name))
        return settings::format_value(setting, settings::get(config, setting));
    const PowerConfig power;
    if (settings::binds(power, setting.name))
        return settings::format_value(setting, settings::get(power, setting));
    return "";
}

}  // namespace llmv::pipeline
