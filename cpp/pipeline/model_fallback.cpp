// A run's fallback after a refused feature (model_fallback.hpp).
#include "pipeline/model_fallback.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace llmv::pipeline {

namespace {

std::string number_text(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

}  // namespace

ModelFallback::ModelFallback(const ValidationConfig& config, const std::string& provider,
                             const std::string& model)
    : provider_(provider),
      model_(model),
      rules_(model_rules(provider, model)),
      schema_output_(config.structured_output == "schema"),
      temperature_(number_text(config.temperature)),
      top_p_set_(config.top_p.has_value()),
      effort_(effort_to_send(rules_, config.reasoning_effort)) {
    const auto option = config.provider_options.find("structured");
    mode_ = structured_mode_for(
        rules_, option == config.provider_options.end() ? "auto" : option->second, "", true);
}

void ModelFallback::apply(ChatRequest& request) const {
    if (!switched_mode_.empty() && !request.json_schema.empty())
        request.structured_mode = switched_mode_;
    if (drop_temperature_) request.send_temperature = false;
    if (drop_top_p_) request.top_p.reset();
    if (drop_effort_) request.reasoning_effort.clear();
}

std::optional<std::string> ModelFallback::switch_for(RefusedFeature feature) {
    SettingChange change;
    const std::string of_model = "model " + model_ + " (" + provider_ + ")";
    switch (feature) {
        case RefusedFeature::forced_tool:
        case RefusedFeature::json_schema: {
            const bool refused_current =
                schema_output_ &&
                ((feature == RefusedFeature::forced_tool && mode_ == StructuredMode::forced_tool) ||
                 (feature == RefusedFeature::json_schema && mode_ != StructuredMode::prompt));
            if (!refused_current) return std::nullopt;
            const StructuredMode next = mode_ == StructuredMode::forced_tool && rules_.json_schema
                                            ? StructuredMode::json_schema
                                            : StructuredMode::prompt;
            change = {"structured_output",
                      std::string("schema (") + structured_mode_name(mode_) + ")",
                      next == StructuredMode::prompt
                          ? std::string("prompt (") + structured_mode_name(next) + ")"
                          : std::string("schema (") + structured_mode_name(next) + ")",
                      std::string("the ") + of_model + " refused " + structured_mode_name(mode_)};
            mode_ = next;
            switched_mode_ = next == StructuredMode::prompt ? "prompt" : "json_schema";
            break;
        }
        case RefusedFeature::temperature:
            if (drop_temperature_ || !rules_.send_temperature) return std::nullopt;
            drop_temperature_ = true;
            change = {"temperature", temperature_, "unset (not sent: the model's own sampling)",
                      "the " + of_model + " refused a temperature"};
            break;
        case RefusedFeature::top_p:
            if (drop_top_p_ || !top_p_set_) return std::nullopt;
            drop_top_p_ = true;
            change = {"top_p", "set", "unset (not sent)", "the " + of_model + " refused top_p"};
            break;
        case RefusedFeature::reasoning_effort:
            if (drop_effort_ || effort_.empty()) return std::nullopt;
            drop_effort_ = true;
            change = {"reasoning_effort", effort_, "unset (the model's own default)",
                      "the " + of_model + " refused a reasoning effort"};
            break;
        default:
            return std::nullopt;
    }
    ++generation_;
    changes_.push_back(change);
    return "The " + of_model + " refused " + refused_feature_name(feature) +
           " (HTTP 400); the run switched " + change.setting + " from " + change.from + " to " +
           change.to +
           " and sent the refused request again. The run's settings record the "
           "switch; answers are cached under the requests as sent.";
}

std::string ModelFallback::learned() const {
    nlohmann::json changes = nlohmann::json::array();
    for (const SettingChange& change : changes_)
        changes.push_back({{"setting", change.setting},
                           {"from", change.from},
                           {"to", change.to},
                           {"reason", change.reason}});
    return nlohmann::json({{"structured_mode", switched_mode_},
                           {"drop_temperature", drop_temperature_},
                           {"drop_top_p", drop_top_p_},
                           {"drop_effort", drop_effort_},
                           {"changes", changes}})
        .dump();
}

std::string ModelFallback::restore(const std::string& text) {
    const nlohmann::json learned = nlohmann::json::parse(text, nullptr, false);
    if (!learned.is_object() || !learned.contains("changes") || !learned["changes"].is_array())
        return "";
    const std::string mode = learned.value("structured_mode", std::string());
    if (schema_output_ && (mode == "json_schema" || mode == "prompt")) {
        switched_mode_ = mode;
        mode_ = mode == "prompt" ? StructuredMode::prompt : StructuredMode::json_schema;
    }
    drop_temperature_ = learned.value("drop_temperature", false);
    drop_top_p_ = learned.value("drop_top_p", false);
    drop_effort_ = learned.value("drop_effort", false);
    changes_.clear();
    std::string switched;
    for (const auto& change : learned["changes"]) {
        if (!change.is_object()) continue;
        changes_.push_back({change.value("setting", std::string()),
                            change.value("from", std::string()), change.value("to", std::string()),
                            change.value("reason", std::string())});
        switched += (switched.empty() ? "" : "; ") + changes_.back().setting + " " +
                    changes_.back().to + " (" + changes_.back().reason + ")";
    }
    if (switched.empty()) return "";
    return "The cache records that a run switched for model " + model_ + " (" + provider_ +
           "): " + switched + ". This run uses the same settings from its first request.";
}

CacheKey ModelFallback::key(const std::string& provider, const std::string& endpoint,
                            const std::string& model) {
    CacheKey key;
    key.provider = provider;
    key.endpoint = endpoint;
    key.model = model;
    key.parameters = nlohmann::json::object({{"kind", "capabilities learned"}});
    return key;
}

std::optional<std::string> first_call_stop(RefusedFeature feature, bool first_call,
                                           const std::string& provider, const std::string& model,
                                           long status, const std::string& vendor_message,
                                           settings::FrontEnd front_end) {
    const bool model_refused = feature == RefusedFeature::model || status == 404;
    if (!model_refused && !(first_call && status == 400 && feature == RefusedFeature::none))
        return std::nullopt;
    std::string message =
        model_refused ? model_not_available_message(provider, model,
                                                    settings::model_list_hint(provider, front_end))
                      : "Model " + model + " at " + provider +
                            " refused the run's first request, and not for a feature the run "
                            "can switch: every request would be refused the same way.";
    message += " (HTTP " + std::to_string(status);
    if (!vendor_message.empty()) message += ": " + vendor_message;
    message += "; the run stopped at this call, nothing else was sent.)";
    return message;
}

}  // namespace llmv::pipeline
