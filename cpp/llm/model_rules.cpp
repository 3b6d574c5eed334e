// The model families' rules (model_rules.hpp). Sources were read on 2026-12-04; each rule
// names its own.
#include "llm/model_rules.hpp"

#include <cctype>
#include <cmath>
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

// The Claude model id inside a Bedrock id ("us.anthropic.claude-sonnet-4-6",
// "arn:aws:bedrock:...:inference-profile/global.anthropic.claude-...", "anthropic.claude-3-...")
// or an Anthropic id; empty when it is not a Claude model.
std::string claude_id(const std::string& model) {
    const std::string marker = "anthropic.claude-";
    const auto at = model.find(marker);
    if (at != std::string::npos) return model.substr(at + std::string("anthropic.").size());
    return starts_with(model, "claude-") ? model : std::string();
}

struct ClaudeVersion {
    std::string tier;  // opus, sonnet, haiku, fable, mythos; "" for the Claude 3 names
    double version = 0;
};

// claude-{tier}-{major}[-{minor}][-{date}][-v1:0]; the Claude 3 names (claude-3-5-haiku-...)
// put the version first.
ClaudeVersion claude_version(const std::string& id) {
    ClaudeVersion out;
    std::vector<std::string> parts;
    std::string part;
    for (char c : id.substr(std::string("claude-").size())) {
        if (c == '-' || c == ':') {
            parts.push_back(part);
            part.clear();
        } else {
            part += c;
        }
    }
    parts.push_back(part);
    const auto small_number = [](const std::string& text) {
        return !text.empty() && text.size() <= 2 &&
               std::isdigit(static_cast<unsigned char>(text[0])) &&
               std::isdigit(static_cast<unsigned char>(text.back()));
    };
    if (parts.empty()) return out;
    if (small_number(parts[0])) {  // claude-3-5-haiku-...: before the 4 generation
        out.version = std::stod(parts[0]);
        return out;
    }
    out.tier = parts[0];
    if (parts.size() > 1 && small_number(parts[1])) {
        out.version = std::stod(parts[1]);
        if (parts.size() > 2 && small_number(parts[2]) && parts[2].size() == 1) {
            out.version += std::stod(parts[2]) / 10.0;
        }
    } else if (out.tier == "fable" || out.tier == "mythos") {
        out.version = 5;  // claude-mythos-preview
    }
    return out;
}

ModelRules claude_rules(const std::string& id, bool bedrock) {
    ModelRules rules;
    rules.token_limit_field = bedrock ? "maxTokens" : "max_tokens";
    rules.token_limit_required = !bedrock;  // the Messages API requires max_tokens
    rules.temperature_low = 0;
    rules.temperature_high = 1;
    // Anthropic's tool-use pricing page: the tool-use system prompt of a forced tool
    // (tool_choice any or tool) is 313 tokens on the Claude 4 models (the retired Claude 3
    // models took 235 to 340); Bedrock bills Claude's the same way.
    rules.tool_prompt_tokens = 313;
    const ClaudeVersion version = claude_version(id);
    const bool new_line = version.tier == "fable" || version.tier == "mythos";
    if (new_line || version.version >= 4.7 - 1e-9) {
        rules.family = "Claude Opus 4.7 and later models";
        rules.source =
            "Anthropic migration guide (Claude Opus 4.7: sampling parameters removed); npm "
            "@anthropic-ai/sdk 1.17.0 has no temperature or top_p; read 2026-12-04";
        rules.send_temperature = false;
        rules.temperature_low = rules.temperature_high = 1;
        rules.top_p_low = 0.99;
        rules.top_p_with_temperature = true;  // no temperature is sent
    } else if (version.version >= 4.5 - 1e-9) {
        rules.family = "Claude 4.5 and 4.6 models";
        rules.source =
            "Anthropic migration guide (Claude Sonnet 4.5: temperature or top_p, not both); read "
            "2026-12-04";
        rules.top_p_with_temperature = false;
    } else {
        rules.family = "Claude models before 4.5";
        rules.source = "Anthropic Messages API reference (temperature 0 to 1); read 2026-12-04";
    }
    if (version.tier == "haiku" && std::fabs(version.version - 4.5) < 1e-9) {
        rules.max_output_tokens = 64000;  // Bedrock model card: "Max output tokens: 64K"
    } else if (new_line || (version.version >= 5 - 1e-9 &&
                            (version.tier == "opus" || version.tier == "sonnet"))) {
        rules.max_output_tokens = 128000;  // models overview: 128K output for the 5 line-up
    }
    return rules;
}

bool openai_reasoning_model(const std::string& model) {
    if (model.find("chat-latest") != std::string::npos) return false;
    return starts_with(model, "o1") || starts_with(model, "o3") || starts_with(model, "o4") ||
           starts_with(model, "gpt-5");
}

}  // namespace

ModelRules model_rules(const std::string& provider, const std::string& model) {
    ModelRules rules;
    if (provider == "anthropic") {
        if (!claude_id(model).empty()) return claude_rules(claude_id(model), false);
        rules.family = "Anthropic Messages API";
        rules.source = "Anthropic Messages API reference (temperature 0 to 1); read 2026-12-04";
        rules.temperature_high = 1;
        rules.token_limit_required = true;
        return rules;
    }
    if (provider == "bedrock") {
        if (!claude_id(model).empty()) return claude_rules(claude_id(model), true);
        rules.token_limit_field = "maxTokens";
        rules.temperature_high = 1;
        if (model.find("meta.llama") != std::string::npos) {
            rules.family = "Meta Llama on Bedrock";
            rules.source =
                "Bedrock Converse with Meta Llama 3.x: maxTokens above 2048 is refused; Converse "
                "toolChoice is documented for Anthropic Claude and Amazon Nova only; read "
                "2026-12-04";
            rules.max_output_tokens = 2048;
            rules.forced_tool = false;
        } else if (model.find("amazon.nova") != std::string::npos) {
            rules.family = "Amazon Nova on Bedrock";
            rules.source =
                "Bedrock Converse toolChoice (Anthropic Claude and Amazon Nova); read 2026-12-04";
        } else {
            rules.family = "Bedrock Converse";
            rules.source = "Bedrock Converse API reference (temperature 0 to 1); read 2026-12-04";
            rules.forced_tool = false;
        }
        rules.json_schema = false;
        return rules;
    }
    if (provider == "openai") {
        if (openai_reasoning_model(model)) {
            rules.family = "OpenAI reasoning models (o1, o3, o4, gpt-5)";
            rules.source =
                "OpenAI reasoning guide: max_completion_tokens, no temperature or top_p other "
                "than the default; read 2026-12-04";
            rules.token_limit_field = "max_completion_tokens";
            rules.send_temperature = false;
            rules.temperature_low = rules.temperature_high = 1;
            rules.top_p_allowed = false;
        } else {
            rules.family = "OpenAI chat completions";
            rules.source =
                "OpenAI chat completions reference (temperature 0 to 2); read 2026-12-04";
        }
        return rules;
    }
    rules.family = provider;
    return rules;
}

namespace {

[[noreturn]] void refuse(const std::string& name, const std::string& value,
                         const std::string& allowed) {
    throw_invalid(code::invalid_argument, name, value, allowed);
}

}  // namespace

void check_model_settings(const std::string& provider, const std::string& model, double temperature,
                          std::optional<double> top_p, std::optional<int> max_tokens) {
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
