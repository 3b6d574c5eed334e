// A run's fallback when its model refuses a feature of the requests (private to
// cpp/pipeline/): the provider reads the 400 (ChatProvider::refused_feature), and the run
// switches once: a forced tool to the API's JSON-schema output, that to the schema in the
// prompt, or a refused temperature, top_p or reasoning effort left out. Every later request is
// built with the switch (apply), the refused ones are sent again, a warning says so and the
// run's settings record it (BatchResult::setting_changes). A switch is made once: a second
// refusal of what was already switched fails its passages as any 400 does.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "llm/model_rules.hpp"
#include "llm/provider.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/settings.hpp"

namespace llmv::pipeline {

class ModelFallback {
  public:
    ModelFallback(const ValidationConfig& config, const std::string& provider,
                  const std::string& model);

    // The switches made so far, on a request built from the configuration.
    void apply(ChatRequest& request) const;
    // The switch for a refusal of `feature`, made now: the warning's text. Unset when there is
    // nothing (left) to switch for it.
    std::optional<std::string> switch_for(RefusedFeature feature);
    // Counts the switches: a request built before the last one is sent again without another.
    int generation() const { return generation_; }
    const std::vector<SettingChange>& changes() const { return changes_; }

    // What the run learned, remembered in the cache under key() (one row per endpoint and
    // model), so that the next run on the cache starts switched: it repeats no refused call
    // and finds its answers under the requests as sent. restore() reads it back (nothing for a
    // text it cannot read) and returns the warning's text, or "" when nothing was switched.
    std::string learned() const;
    std::string restore(const std::string& text);
    static CacheKey key(const std::string& provider, const std::string& endpoint,
                        const std::string& model);

  private:
    std::string provider_;
    std::string model_;
    ModelRules rules_;
    bool schema_output_ = false;  // structured_output "schema": the API carries the schema
    StructuredMode mode_ = StructuredMode::prompt;  // what requests use now
    std::string switched_mode_;                     // ChatRequest::structured_mode
    std::string temperature_;                       // as the user set it, for the record
    bool top_p_set_ = false;
    std::string effort_;  // what requests carry ("" none)
    bool drop_temperature_ = false;
    bool drop_top_p_ = false;
    bool drop_effort_ = false;
    int generation_ = 0;
    std::vector<SettingChange> changes_;
};

// The message of a run stopped at its first chat call by a 400 that refuses the model itself
// or is no feature refusal (every further call would fail the same way), or unset when the
// run goes on. `first_call`: the run's first chat request (it goes alone).
std::optional<std::string> first_call_stop(RefusedFeature feature, bool first_call,
                                           const std::string& provider, const std::string& model,
                                           long status, const std::string& vendor_message,
                                           settings::FrontEnd front_end);

}  // namespace llmv::pipeline
