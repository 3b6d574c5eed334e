// What each model family accepts, in one place: the sampling parameters it may be sent (and
// their range), the field that caps an answer's length and the cap, and whether it takes a
// forced tool. The providers build their requests from these rules, and the pipeline checks a
// configuration against them before the first call (check_model_settings), so that a value
// a model refuses is an error naming the setting, not a 400 on every call.
//
// The rules are facts about vendors' models, each with where it was read; a model the table
// does not know gets the provider's general rules (what the API itself allows).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llmv {

struct ModelRules {
    std::string family;  // printable: "Claude Opus 4.7 and later", "OpenAI reasoning models"
    std::string source;  // where the rule was read (vendor page or SDK, with the date)
    // temperature: the closed range a request may carry. `send_temperature` false: the model
    // takes none (its own sampling, which is temperature 1), so only 1 is allowed and nothing
    // is sent.
    double temperature_low = 0;
    double temperature_high = 2;
    bool send_temperature = true;
    // top_p: whether it may be sent, from what value, and whether together with temperature.
    bool top_p_allowed = true;
    double top_p_low = 0;
    bool top_p_with_temperature = true;
    // The request field that caps an answer ("max_tokens", "max_completion_tokens",
    // "maxTokens"), whether the API needs one, and the model's own largest value (unset: not
    // known here; the vendor checks).
    std::string token_limit_field = "max_tokens";
    bool token_limit_required = false;
    std::optional<int> max_output_tokens;
    // Structured output: a forced tool choice (Anthropic, Bedrock Converse toolChoice.tool) and
    // a JSON schema response format (OpenAI).
    bool forced_tool = true;
    bool json_schema = true;
    // Input tokens the vendor adds to a request with a forced tool, its tool-use system prompt
    // (0: none known). Billed on every call; the dry run counts it.
    std::int64_t tool_prompt_tokens = 0;
};

// The rules of `model` at `provider` ("openai", "anthropic", "bedrock"; other names get
// permissive rules). Bedrock ids may be inference profiles ("us.anthropic....") or ARNs.
ModelRules model_rules(const std::string& provider, const std::string& model);

// Checks the sampling and length settings of a run against the rules of its chat model (a
// retired model is refused by the lifecycle check, pipeline/model_lifecycle_check.hpp). Throws
// llmv::Error(invalid_argument) whose message starts with the setting's engine name in
// backquotes (`temperature`, `top_p`, `max_tokens`),
// then the value received and what the model allows.
void check_model_settings(const std::string& provider, const std::string& model, double temperature,
                          std::optional<double> top_p, std::optional<int> max_tokens);

// The sentence a front end shows when a vendor answers 404 for a model: the model is not
// available at this vendor, and how to list the ones that are.
std::string model_not_available_message(const std::string& provider, const std::string& model);

}  // namespace llmv
