// Power analysis with the simulated provider (`llmvalidate power`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "llmvalidate/validate.hpp"
#include "llmvalidate/validation_config.hpp"

namespace llmv::pipeline {

// Power analysis with the simulated provider (`llmvalidate power`): in each replication, y is
// one generated text of `true_label` (so β̂ is valid exactly when the annotator returns
// true_label), the pipeline runs as usual, and every outcome is tallied.
struct PowerConfig {
    PowerConfig() { validation.provider = "simulated"; }
    ValidationConfig validation;  // provider must be "simulated"
    std::string true_label;       // empty: the first label of S
    int replications = 200;
};

// The settings table's names of PowerConfig's own fields (llmvalidate/settings.hpp).
template <typename Power, typename Visit>
void visit_power(Power& power, Visit&& visit) {
    visit("true_label", power.true_label);
    visit("replications", power.replications);
}
template <typename Visit>
void visit_settings(PowerConfig& power, Visit&& visit) {
    visit_power(power, visit);
}
template <typename Visit>
void visit_settings(const PowerConfig& power, Visit&& visit) {
    visit_power(power, visit);
}

struct PowerResult {
    int replications = 0;
    double share_annotation_correct = 0;  // β̂ == true_label
    double share_validation_not_rejected = 0;
    double share_backtranslation_pass = 0;
    double share_separation_all_pass = 0;
    double share_valid = 0, share_invalid = 0, share_inconclusive = 0;
    // Among replications whose β̂ is correct / wrong.
    double share_valid_given_correct = 0;
    double share_invalid_given_wrong = 0;
    int n_correct = 0, n_wrong = 0;
    double monte_carlo_se = 0;  // of share_valid
};

PowerResult estimate_power(const PowerConfig& config, const BatchCallbacks& callbacks = {});

}  // namespace llmv::pipeline
