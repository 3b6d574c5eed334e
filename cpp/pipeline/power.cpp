// Power analysis by simulation (`llmvalidate power`): the simulated provider's DGP writes the
// passage y itself, so the truth is known in every replication.
#include <algorithm>
#include <cmath>
#include <string>

#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/simulated.hpp"

namespace llmv::pipeline {

PowerResult estimate_power(const PowerConfig& power, const BatchCallbacks& callbacks) {
    ValidationConfig config = power.validation;
    if (config.provider != simulated_provider_name) {
        throw_invalid(code::invalid_argument, "provider", "\"" + config.provider + "\"",
                      "\"simulated\": power is estimated with the synthetic data-generating process");
    }
    settings::check_value(settings::setting("replications"),
                          settings::get(power, settings::setting("replications")));
    check_config(config);
    const Task task = load_config_task(config);
    const std::vector<std::string>& labels = task.labels();
    const std::string true_label = power.true_label.empty() ? labels.front() : power.true_label;
    if (std::find(labels.begin(), labels.end(), true_label) == labels.end()) {
        std::string names;
        for (const auto& label : labels) names += (names.empty() ? "" : ", ") + label;
        throw_invalid(code::unknown_label, "true_label", "\"" + true_label + "\"",
                      "a label of the task: " + names);
    }
    // y and its pools share one fixed topic, so that under H0 y and the pool texts are draws
    // from one distribution (with y's own words as topic, the pools would lean towards y).
    if (config.simulated.topic.empty()) {
        config.simulated.topic =
            "The company reported results for the quarter as market conditions and customer "
            "demand in the region shaped revenue, costs and operations across the business.";
    }
    const SimulatedModel model(config.simulated, labels);
    std::vector<PassageInput> passages;
    passages.reserve(static_cast<std::size_t>(power.replications));
    for (int r = 0; r < power.replications; ++r) {
        PassageInput input;
        input.id = std::to_string(r + 1);
        const std::uint64_t seed = stable_hash("power-y/" + std::to_string(r), config.simulated.seed);
        input.text = model.one_text(true_label, config.simulated.topic, seed);
        passages.push_back(std::move(input));
    }
    // Each front end shows size_warnings() before it calls estimate_power(): the run's own
    // "cannot_decide" warning would say it twice.
    BatchCallbacks run_callbacks = callbacks;
    run_callbacks.on_warning = [&callbacks](const RunWarning& warning) {
        if (warning.kind != "cannot_decide" && callbacks.on_warning) callbacks.on_warning(warning);
    };
    const BatchResult batch = validate_batch(config, passages, run_callbacks, true);

    PowerResult result;
    int not_rejected = 0, bt_pass = 0, separation_pass = 0, valid = 0, invalid = 0, inconclusive = 0;
    int valid_given_correct = 0, invalid_given_wrong = 0;
    for (const PassageResult& passage : batch.passages) {
        if (!passage.ok) continue;
        ++result.replications;
        const bool correct = passage.label == true_label;
        correct ? ++result.n_correct : ++result.n_wrong;
        if (!passage.tests.validation.reject) ++not_rejected;
        if (passage.tests.backtranslation.pass) ++bt_pass;
        const bool all_separate = std::all_of(passage.tests.separation.begin(), passage.tests.separation.end(),
                                              [](const stats::SeparationResult& s) { return s.pass; });
        if (all_separate) ++separation_pass;
        switch (passage.verdict) {
            case stats::Verdict::valid:
                ++valid;
                if (correct) ++valid_given_correct;
                break;
            case stats::Verdict::invalid:
                ++invalid;
                if (!correct) ++invalid_given_wrong;
                break;
            case stats::Verdict::inconclusive: ++inconclusive; break;
        }
    }
    const double n = std::max(1, result.replications);
    result.share_annotation_correct = result.n_correct / n;
    result.share_validation_not_rejected = not_rejected / n;
    result.share_backtranslation_pass = bt_pass / n;
    result.share_separation_all_pass = separation_pass / n;
    result.share_valid = valid / n;
    result.share_invalid = invalid / n;
    result.share_inconclusive = inconclusive / n;
    result.share_valid_given_correct =
        result.n_correct ? static_cast<double>(valid_given_correct) / result.n_correct : std::nan("");
    result.share_invalid_given_wrong =
        result.n_wrong ? static_cast<double>(invalid_given_wrong) / result.n_wrong : std::nan("");
    result.monte_carlo_se = std::sqrt(result.share_valid * (1 - result.share_valid) / n);
    return result;
}

}  // namespace llmv::pipeline
