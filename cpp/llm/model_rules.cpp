// What the rules mean for a request and a run's settings (model_rules.hpp); the families
// themselves are rows of model_families.cpp, each naming its source.
#include "llm/model_rules.hpp"

#include <algorithm>
#include <cstdio>

#include "llmvalidate/error.hpp"

namespace llmv {

namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

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

const std::vector<RetiredModel>& retired_models() {
    static const std::vector<RetiredModel> table = {
        {"anthropic", "claude-sonnet-4-20250514", "2026-06-15", "claude-sonnet-4-6",
         "Anthropic model deprecations; npm @anthropic-ai/sdk 0.104.2 (2026-06-15)"},
        {"anthropic", "claude-sonnet-4-0", "2026-06-15", "claude-sonnet-4-6",
         "Anthropic model deprecations (the alias of claude-sonnet-4-20250514)"},
        {"anthropic", "claude-opus-4-20250514", "2026-06-15", "claude-opus-4-8",
         "Anthropic model deprecations; npm @anthropic-ai/sdk 0.104.2 (2026-06-15)"},
        {"anthropic", "claude-opus-4-0", "2026-06-15", "claude-opus-4-8",
         "Anthropic model deprecations (the alias of claude-opus-4-20250514)"},
        {"anthropic", "claude-opus-4-1", "2026-08-05", "claude-opus-4-8",
         "npm @anthropic-ai/sdk 0.116.0 (2026-08-07): retired Claude Opus 4.1 models removed"},
        {"anthropic", "claude-sonnet-4-5", "2026-11-30", "claude-sonnet-4-6",
         "npm @anthropic-ai/sdk 1.15.0 (2026-11-30): retired Claude Sonnet 4.5 models removed"},
        {"anthropic", "claude-3-7-sonnet", "2026-06-09", "claude-sonnet-4-6",
         "npm @anthropic-ai/sdk 0.104.1 (2026-06-09): older deprecated models removed"},
        {"anthropic", "claude-3-5-sonnet", "2026-06-09", "claude-sonnet-4-6",
         "npm @anthropic-ai/sdk 0.104.1 (2026-06-09): older deprecated models removed"},
        {"anthropic", "claude-3-5-haiku", "2026-06-09", "claude-haiku-4-5",
         "npm @anthropic-ai/sdk 0.104.1 (2026-06-09): older deprecated models removed"},
        {"anthropic", "claude-3-haiku", "2026-06-09", "claude-haiku-4-5",
         "npm @anthropic-ai/sdk 0.104.1 (2026-06-09): older deprecated models removed"},
        {"anthropic", "claude-3-opus", "2026-06-09", "claude-opus-4-8",
         "npm @anthropic-ai/sdk 0.104.1 (2026-06-09): older deprecated models removed"},
        {"openai", "gpt-3.5-turbo", "2026-10-23", "gpt-4.1-mini",
         "OpenAI deprecations page, 2026-04-22 entry (legacy GPT model snapshots)"},
        {"openai", "gpt-4-0613", "2026-10-23", "gpt-4.1",
         "OpenAI deprecations page, 2026-04-22 entry (legacy GPT model snapshots)"},
    };
    return table;
}

const RetiredModel* find_retired_model(const std::string& provider, const std::string& model) {
    for (const RetiredModel& row : retired_models()) {
        if (row.provider != provider) continue;
        // The id itself, or a dated / suffixed snapshot of it (claude-3-5-haiku-latest).
        if (model == row.model || starts_with(model, row.model + "-")) return &row;
    }
    return nullptr;
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
    if (const RetiredModel* retired = find_retired_model(provider, model)) {
        refuse("model", "\"" + model + "\"",
               "a model " + provider + " still serves: this one was retired on " +
                   retired->retired + " (" + retired->source + "); the vendor's replacement is " +
                   retired->replacement + ". " + model_not_available_message(provider, model));
    }
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

std::string model_not_available_message(const std::string& provider, const std::string& model) {
    std::string vendor = provider;
    if (provider == "anthropic") vendor = "Anthropic";
    if (provider == "openai") vendor = "OpenAI (or the server at the base URL)";
    if (provider == "bedrock") vendor = "Amazon Bedrock in this region";
    return "Model " + model + " is not available at " + vendor +
           ". List the models it serves with `llmvalidate models --provider " + provider +
           "` (R: llm_models(\"" + provider + "\")) and name one with the model setting.";
}

}  // namespace llmv
