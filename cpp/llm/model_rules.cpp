// What the rules mean for a request and a run's settings (model_rules.hpp); the families
// themselves are rows of model_families.cpp, each naming its source.
#include "llm/model_rules.hpp"

#include <algorithm>
#include <cstdio>

#include "llmvalidate/error.hpp"

namespace llmv {

namespace {

// "0.7", "1", "0.99": a number as a user typed it.
std::string number_text(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

}  // namespace

const char* structured_mode_name(StructuredMode mode) {
    switch (mode) {
        case StructuredMode::forced_tool:
            return "a forced tool";
        case StructuredMode::json_schema:
            return "the API's JSON-schema output";
        case StructuredMode::prompt:
            return "the JSON Schema in the prompt";
    }
    return "?";
}

StructuredMode first_structured_mode(const ModelRules& rules) {
    if (rules.forced_tool) return StructuredMode::forced_tool;
    if (rules.json_schema) return StructuredMode::json_schema;
    return StructuredMode::prompt;
}

StructuredMode structured_mode_for(const ModelRules& rules, const std::string& option,
                                   const std::string& switched, bool schema_is_object) {
    StructuredMode mode = first_structured_mode(rules);
    if (option == "tool") mode = StructuredMode::forced_tool;
    if (option == "json") mode = StructuredMode::json_schema;
    if (option == "prompt") mode = StructuredMode::prompt;
    if (switched == "json_schema" && mode == StructuredMode::forced_tool)
        mode = StructuredMode::json_schema;
    if (switched == "prompt") mode = StructuredMode::prompt;
    if (!schema_is_object) mode = StructuredMode::prompt;
    return mode;
}

std::string effort_to_send(const ModelRules& rules, const std::string& reasoning_effort) {
    if (rules.reasoning_efforts.empty()) return "";
    if (reasoning_effort.empty() || reasoning_effort == "auto") return rules.auto_effort;
    return reasoning_effort;
}

std::int64_t reasoning_tokens_estimate(const ModelRules& rules, const std::string& effort) {
    if (!rules.reasoning) return 0;
    // Assumed per answer (docs/providers.md): a short labelling or writing task thinks little;
    // the models' own default (none sent) is read as medium.
    if (effort == "none" || effort == "minimal") return 0;
    if (effort == "low") return 200;
    if (effort == "high") return 2000;
    if (effort == "xhigh") return 4000;
    if (effort == "max") return 8000;
    return 800;  // medium, or the model's own default
}

namespace {

[[noreturn]] void refuse(const std::string& name, const std::string& value,
                         const std::string& allowed) {
    throw_invalid(code::invalid_argument, name, value, allowed);
}

}  // namespace

void check_model_settings(const std::string& provider, const std::string& model, double temperature,
                          std::optional<double> top_p, std::optional<int> max_tokens,
                          const std::string& reasoning_effort) {
    const ModelRules rules = model_rules(provider, model);
    const std::string of_model =
        " for model " + model + " (" + rules.family + "; " + rules.source + ")";
    if (!rules.send_temperature) {
        if (temperature != 1) {
            refuse("temperature", number_text(temperature),
                   "1 only" + of_model +
                       ": the model samples with its own settings, so no "
                       "temperature is sent");
        }
    } else if (temperature < rules.temperature_low || temperature > rules.temperature_high) {
        refuse("temperature", number_text(temperature),
               "a number from " + number_text(rules.temperature_low) + " to " +
                   number_text(rules.temperature_high) + of_model);
    }
    if (top_p) {
        if (!rules.top_p_allowed) {
            refuse("top_p", number_text(*top_p), "unset" + of_model + ": the model takes no top_p");
        }
        if (!rules.top_p_with_temperature) {
            refuse("top_p", number_text(*top_p),
                   "unset" + of_model +
                       ": it refuses temperature and top_p together, and every "
                       "request carries the temperature (the paper's sampling setting)");
        }
        if (*top_p < rules.top_p_low) {
            refuse("top_p", number_text(*top_p),
                   "unset, or a number from " + number_text(rules.top_p_low) + " to 1" + of_model);
        }
    }
    if (max_tokens && rules.max_output_tokens && *max_tokens > *rules.max_output_tokens) {
        refuse("max_tokens", std::to_string(*max_tokens),
               "unset, or at most " + std::to_string(*rules.max_output_tokens) + of_model);
    }
    if (!reasoning_effort.empty() && reasoning_effort != "auto") {
        const auto& levels = rules.reasoning_efforts;
        if (std::find(levels.begin(), levels.end(), reasoning_effort) == levels.end()) {
            std::string allowed;
            for (const std::string& level : levels)
                allowed += (allowed.empty() ? "" : ", ") + level;
            refuse("reasoning_effort", reasoning_effort,
                   levels.empty() ? "auto" + of_model + ": the model takes no reasoning effort"
                                  : "auto, or one of " + allowed + of_model);
        }
    }
}

std::string model_not_available_message(const std::string& provider, const std::string& model,
                                        const std::string& how_to_list) {
    std::string vendor = provider;
    if (provider == "anthropic") vendor = "Anthropic";
    if (provider == "openai") vendor = "OpenAI (or the server at the base URL)";
    if (provider == "bedrock") vendor = "Amazon Bedrock in this region";
    return "Model " + model + " is not available at " + vendor + ". " + how_to_list;
}

}  // namespace llmv
