#include "validation_settings.hpp"

#include "llmvalidate/settings.hpp"

namespace llmv::stata {

void read_validation_settings(const Arguments& args, pipeline::ValidationConfig& config,
                              bool statistics_only) {
    // The ado passes each setting as a word named like its Stata option (alpha=0.05); the
    // settings table parses and checks it, and its messages name the option: alpha().
    for (const settings::Setting& setting : settings::table())
        if (!setting.stata.empty() && !setting.by_hand && args.has(setting.stata) &&
            (setting.statistics || !statistics_only))
            settings::set(
                config, setting,
                settings::parse(setting, args.text(setting.stata, ""), settings::FrontEnd::stata));
}

std::set<std::string> accepted_words(std::set<std::string> structural, Offered offered) {
    for (const settings::Setting& setting : settings::table()) {
        if (setting.stata.empty() || setting.by_hand) continue;
        const bool wanted =
            offered == Offered::all || (offered == Offered::statistics && setting.statistics) ||
            (offered == Offered::validation && setting.group == settings::Group::validation);
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

ProgressDots::ProgressDots(Api& api) : api_(api) {
    callbacks_.cancel = &cancel_;
    // The engine's warnings (a model retiring soon and a size that cannot decide, before the
    // first call; a feature the model refused), shown as the cache warning is.
    callbacks_.on_warning = [this](const pipeline::RunWarning& w) {
        run_warnings_.push_back(w);
        warn(w.text);
    };
    callbacks_.on_progress = [this](const pipeline::Progress& progress) {
        while (dots_ < progress.passages_done) {
            ++dots_;
            api_.display(dots_ % 50 == 0 ? ". " + std::to_string(dots_) + "\n" : ".");
        }
        if (api_.poll()) cancel_ = true;
    };
    callbacks_.on_status = [this](const std::string& line) {
        api_.text("Batch API: " + line + "\n");
    };
}

void ProgressDots::warn(const std::string& text) {
    api_.text("Warning: " + text + "\n");
    warnings_ += (warnings_.empty() ? "" : " ") + text;
}

void ProgressDots::finish(bool cancelled_by_pipeline) {
    if (dots_ % 50 != 0) api_.display("\n");
    if (cancelled_by_pipeline || cancel_) throw BreakRequested();
}

}  // namespace llmv::stata
