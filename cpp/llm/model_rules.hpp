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

// How an answer's JSON shape is asked of the API, in the order a run falls back through them
// when a model refuses one (structured_output "schema"): a forced tool (Anthropic tool_choice,
// Bedrock toolChoice.tool), the API's own JSON-schema output (OpenAI response_format, Anthropic
// output_config.format, Bedrock outputConfig.textFormat), or the schema in the prompt alone.
enum class StructuredMode { forced_tool, json_schema, prompt };
const char* structured_mode_name(StructuredMode mode);  // "forced tool", "JSON-schema output", ...

struct ModelRules {
    std::string family;  // printable: "Claude Sonnet 5.5", "OpenAI reasoning models"
    std::string source;  // where the rule was read (vendor page or SDK, with the date)
    bool known = false;  // false: no family row matched; the conservative rules of the vendor
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
    // Structured output the model accepts: a forced tool choice, and the API's JSON-schema
    // output. first_structured_mode() picks the first of them (else the prompt).
    bool forced_tool = true;
    bool json_schema = true;
    // Reasoning effort: the levels the model takes, lowest first (empty: the model takes no
    // effort parameter, none is sent), and the level the setting's "auto" sends (empty: none
    // is sent, the model's own default applies): the lowest level usable for text generation,
    // for models that reason by default.
    std::vector<std::string> reasoning_efforts;
    std::string auto_effort;
    // A reasoning model writes reasoning tokens before its answer (billed as output): the dry
    // run estimates them (reasoning_tokens_estimate()).
    bool reasoning = false;
    // Input tokens the vendor adds to a request with a forced tool, its tool-use system prompt
    // (0: none known). Billed on every call; the dry run counts it.
    std::int64_t tool_prompt_tokens = 0;
};

// The rules of `model` at `provider` ("openai", "anthropic", "bedrock"; other names get
// permissive rules). Bedrock ids may be inference profiles ("us.anthropic....") or ARNs. The
// families are rows of a pattern table (model_families.cpp), one row a family: a model no row
// names gets its vendor's conservative rules (no forced tool, no sampling parameter a newer
// family refuses), and the run's fallback covers what the table does not know.
ModelRules model_rules(const std::string& provider, const std::string& model);

// The structured-output mode a request starts with for a model with these rules.
StructuredMode first_structured_mode(const ModelRules& rules);

// The mode a request uses: the provider's option ("auto": the rules' first mode; "tool",
// "json", "prompt": that mode), then the run's switch after a refusal (ChatRequest::
// structured_mode "json_schema" or "prompt"), which only ever moves down the list; a forced
// tool or JSON-schema output the API cannot express for `schema_is_object` false is the prompt.
StructuredMode structured_mode_for(const ModelRules& rules, const std::string& option,
                                   const std::string& switched, bool schema_is_object);

// The effort a request carries for the setting `reasoning_effort` ("auto" or a level): the
// model's auto_effort for "auto", the level itself otherwise, "" when the model takes none.
std::string effort_to_send(const ModelRules& rules, const std::string& reasoning_effort);

// Reasoning tokens the dry run assumes per answer at an effort (docs/providers.md): none 0,
// minimal 0, low 200, medium 800, high 2000, xhigh 4000, max 8000; 0 for a model that does not
// reason.
std::int64_t reasoning_tokens_estimate(const ModelRules& rules, const std::string& effort);

// Checks the sampling, length and effort settings of a run against the rules of its chat model
// (a retired model is refused by the lifecycle check, pipeline/model_lifecycle_check.hpp).
// Throws llmv::Error(invalid_argument) whose message starts with the setting's engine name in
// backquotes (`temperature`, `top_p`, `max_tokens`, `reasoning_effort`),
// then the value received and what the model allows.
// `reasoning_effort` ("auto" or a level) must be one the model takes (`reasoning_effort`
// named in the message).
void check_model_settings(const std::string& provider, const std::string& model, double temperature,
                          std::optional<double> top_p, std::optional<int> max_tokens,
                          const std::string& reasoning_effort = "auto");

// The sentence a front end shows when a vendor answers 404 for a model: the model is not
// available at this vendor, and how to list the ones that are (`how_to_list`: the front end's
// command and setting, settings::model_list_hint()).
std::string model_not_available_message(const std::string& provider, const std::string& model,
                                        const std::string& how_to_list);

}  // namespace llmv
