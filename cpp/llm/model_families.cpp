// The model families' capabilities (model_rules.hpp), one row a family, found by the first
// pattern that matches the model's bare id (a Bedrock profile's geography, an ARN, the
// "anthropic." / "-v1:0" / date parts taken off). Each row says where its facts were read.
// Families are named explicitly: a release the table does not name gets its vendor's
// conservative row, never a neighbour's rules by version number; a new family is one row.
#include <cctype>

#include "llm/model_rules.hpp"

namespace llmv {

namespace {

const char* const anthropic_sdk = "npm @anthropic-ai/sdk 1.17.0 (Model, OutputConfig)";
const char* const effort_page =
    "Anthropic 'Effort' page (supportedModels; xhigh and max per model), read 2026-12-07";
const char* const openai_sdk = "npm openai 6.49.0 (ChatModel, ReasoningEffort)";

// '*' matches any run of characters; everything else itself.
bool glob(const char* pattern, const char* text) {
    if (*pattern == '\0') return *text == '\0';
    if (*pattern == '*') {
        for (const char* at = text;; ++at) {
            if (glob(pattern + 1, at)) return true;
            if (*at == '\0') return false;
        }
    }
    return *text != '\0' && *pattern == *text && glob(pattern + 1, text + 1);
}

bool all_digits(const std::string& text, std::size_t from, std::size_t count) {
    if (from + count > text.size()) return false;
    for (std::size_t i = from; i < from + count; ++i)
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    return true;
}

// "arn:aws:bedrock:...:inference-profile/us.anthropic.claude-sonnet-4-6-20250929-v1:0" ->
// "claude-sonnet-4-6"; "meta.llama3-1-8b-instruct-v1:0" -> "meta.llama3-1-8b-instruct";
// "gpt-4.1-mini-2025-04-14" -> "gpt-4.1-mini".
std::string bare_id(std::string id) {
    const auto slash = id.rfind('/');
    if (id.rfind("arn:", 0) == 0 && slash != std::string::npos) id = id.substr(slash + 1);
    // A cross-region profile's geography: "us.", "eu.", "apac.", "global.", ...
    const auto first_dot = id.find('.');
    if (first_dot != std::string::npos && id.find('.', first_dot + 1) != std::string::npos &&
        id.find('-') > first_dot)
        id = id.substr(first_dot + 1);
    if (id.rfind("anthropic.", 0) == 0) id = id.substr(std::string("anthropic.").size());
    // Bedrock's version suffix: "-v1:0", "-v2", ":0".
    const auto colon = id.rfind(':');
    if (colon != std::string::npos) id = id.substr(0, colon);
    const auto version = id.rfind("-v");
    if (version != std::string::npos && all_digits(id, version + 2, id.size() - version - 2) &&
        id.size() > version + 2)
        id = id.substr(0, version);
    // Dated snapshots: Anthropic's -YYYYMMDD, OpenAI's -YYYY-MM-DD.
    if (id.size() > 9 && id[id.size() - 9] == '-' && all_digits(id, id.size() - 8, 8))
        id = id.substr(0, id.size() - 9);
    if (id.size() > 11 && id[id.size() - 11] == '-' && all_digits(id, id.size() - 10, 4) &&
        id[id.size() - 6] == '-' && all_digits(id, id.size() - 5, 2) && id[id.size() - 3] == '-' &&
        all_digits(id, id.size() - 2, 2))
        id = id.substr(0, id.size() - 11);
    return id;
}

struct FamilyRow {
    const char* vendor;  // "claude" (Anthropic and Bedrock), "openai", "bedrock"
    std::vector<const char*> patterns;
    ModelRules rules;
};

// The sampling rules Anthropic removed with Claude Opus 4.7 (no temperature; top_p from 0.99).
ModelRules claude(const std::string& family, const std::string& source) {
    ModelRules rules;
    rules.family = family;
    rules.source = source;
    rules.known = true;
    rules.temperature_low = 0;
    rules.temperature_high = 1;
    rules.send_temperature = false;
    rules.temperature_low = rules.temperature_high = 1;
    rules.top_p_low = 0.99;
    rules.token_limit_required = true;
    // Anthropic's tool-use pricing page: a forced tool's tool-use system prompt is 313 tokens
    // on the Claude 4 and later models; Bedrock bills Claude's the same way.
    rules.tool_prompt_tokens = 313;
    return rules;
}

// Claude 4.5 / 4.6: temperature 0 to 1, or top_p, not both (Anthropic migration guide).
ModelRules claude_sampling(ModelRules rules) {
    rules.send_temperature = true;
    rules.temperature_low = 0;
    rules.temperature_high = 1;
    rules.top_p_low = 0;
    rules.top_p_with_temperature = false;
    return rules;
}

ModelRules with_effort(ModelRules rules, std::vector<std::string> levels, std::string automatic,
                       bool reasoning) {
    rules.reasoning_efforts = std::move(levels);
    rules.auto_effort = std::move(automatic);
    rules.reasoning = reasoning;
    return rules;
}

ModelRules no_forced_tool(ModelRules rules) {
    rules.forced_tool = false;
    return rules;
}

ModelRules capped(ModelRules rules, int tokens) {
    rules.max_output_tokens = tokens;
    return rules;
}

ModelRules openai_reasoning(const std::string& family, const std::string& source,
                            std::vector<std::string> levels, std::string automatic) {
    ModelRules rules;
    rules.family = family;
    rules.source = source;
    rules.known = true;
    rules.token_limit_field = "max_completion_tokens";
    rules.send_temperature = false;
    rules.temperature_low = rules.temperature_high = 1;
    rules.top_p_allowed = false;
    rules.forced_tool = false;  // OpenAI's structured output is response_format
    return with_effort(rules, std::move(levels), std::move(automatic), true);
}

ModelRules openai_chat(const std::string& family, const std::string& source, bool known) {
    ModelRules rules;
    rules.family = family;
    rules.source = source;
    rules.known = known;
    rules.forced_tool = false;
    return rules;
}

ModelRules bedrock(const std::string& family, const std::string& source, bool forced_tool) {
    ModelRules rules;
    rules.family = family;
    rules.source = source;
    rules.known = true;
    rules.temperature_high = 1;
    rules.forced_tool = forced_tool;
    rules.json_schema = false;
    return rules;
}

const std::vector<std::string> claude_levels_max = {"low", "medium", "high", "xhigh", "max"};
const std::vector<std::string> claude_levels_46 = {"low", "medium", "high", "max"};
const std::vector<std::string> claude_levels_basic = {"low", "medium", "high"};
const std::vector<std::string> gpt6_levels = {"none", "low", "medium", "high", "xhigh", "max"};

const std::vector<FamilyRow>& families() {
    static const std::vector<FamilyRow> table = {
        // ---- Claude (Anthropic Messages API and Bedrock Converse) ----------------------------
        // Forced tool use returns an error on Sonnet 5.5, Opus 5.5 and Fable 5.1 ("What's new in
        // Claude Sonnet 5.5"; "What's new in Claude Opus 5.5": the first three breaking changes
        // also apply on Fable 5.1); thinking is on by default (Sonnet 5.5) or always (Opus 5.5),
        // so effort matters: the setting's auto sends the lowest, low.
        {"claude",
         {"claude-sonnet-5-5*"},
         with_effort(no_forced_tool(capped(claude("Claude Sonnet 5.5",
                                                  std::string("'What's new in Claude Sonnet 5.5' "
                                                              "(forced tool use returns an error; "
                                                              "adaptive thinking on by default); ") +
                                                      effort_page + "; " + anthropic_sdk),
                                           128000)),
                     claude_levels_basic, "low", true)},
        {"claude",
         {"claude-opus-5-5*"},
         with_effort(no_forced_tool(capped(claude("Claude Opus 5.5",
                                                  std::string("'What's new in Claude Opus 5.5' "
                                                              "(forced tool use returns an error; "
                                                              "thinking always on); ") +
                                                      effort_page),
                                           128000)),
                     claude_levels_basic, "low", true)},
        {"claude",
         {"claude-fable-5-1*"},
         with_effort(no_forced_tool(capped(
                         claude("Claude Fable 5.1",
                                std::string("'What's new in Claude Opus 5.5' (its first three "
                                            "breaking changes, forced tool use among them, "
                                            "also apply on Fable 5.1); ") +
                                    effort_page),
                         128000)),
                     claude_levels_basic, "low", true)},
        // Not documented either way on the pages read (2026-12-07): treated as their line's
        // newest documented models (no forced tool), which costs nothing if they take one.
        {"claude",
         {"claude-mythos-5-1*", "claude-fable-5-2*", "claude-mythos-5-2*", "claude-haiku-5-5*"},
         with_effort(no_forced_tool(capped(
                         claude("Claude 5.1 and later models not documented on forced tools",
                                std::string(anthropic_sdk) +
                                    " lists them; forced tool support not stated on the pages "
                                    "read 2026-12-07, so none is sent; " +
                                    effort_page),
                         128000)),
                     claude_levels_basic, "low", true)},
        // Forced tools accepted: the 5.5 pages list the error as a change from Opus 5 / Sonnet 5;
        // a public probe of claude-fable-5 (github anomalyco/opencode#46735) answered 200 to
        // tool_choice any and tool. Thinking on by default on Opus 5 ('What's new in Claude Opus
        // 5.5').
        {"claude",
         {"claude-opus-5", "claude-sonnet-5", "claude-fable-5", "claude-mythos-5",
          "claude-mythos-preview"},
         with_effort(capped(claude("Claude 5 models (Opus 5, Sonnet 5, Fable 5, Mythos 5)",
                                   std::string("'What's new in Claude Opus 5.5' and 'Sonnet 5.5' "
                                               "(forced tools refused from 5.5 on); ") +
                                       effort_page),
                            128000),
                     claude_levels_max, "low", true)},
        {"claude",
         {"claude-opus-4-8", "claude-opus-4-7"},
         with_effort(claude("Claude Opus 4.7 and 4.8",
                            std::string("Anthropic migration guide (Claude Opus 4.7: sampling "
                                        "parameters removed), read 2026-12-04; ") +
                                effort_page),
                     claude_levels_max, "", false)},
        {"claude",
         {"claude-opus-4-6", "claude-sonnet-4-6"},
         with_effort(claude_sampling(claude("Claude Opus 4.6 and Sonnet 4.6",
                                            std::string("Anthropic migration guide (temperature "
                                                        "or top_p, not both), read 2026-12-04; ") +
                                                effort_page)),
                     claude_levels_46, "", false)},
        {"claude",
         {"claude-opus-4-5"},
         with_effort(claude_sampling(claude("Claude Opus 4.5",
                                            std::string("Anthropic migration guide (temperature "
                                                        "or top_p, not both); ") +
                                                effort_page)),
                     claude_levels_basic, "", false)},
        {"claude",
         {"claude-haiku-4-5"},
         capped(claude_sampling(claude("Claude Haiku 4.5",
                                       "Anthropic migration guide (temperature or top_p, not "
                                       "both); Bedrock model card: max output 64K; read "
                                       "2026-12-04")),
                64000)},
        // Older Claude models some regions of Bedrock still serve (the paper's Claude Sonnet
        // 4.5 among them); Anthropic's API has retired them (model_rules.cpp's table).
        {"claude",
         {"claude-sonnet-4-5"},
         claude_sampling(claude("Claude Sonnet 4.5",
                                "Anthropic migration guide (Claude Sonnet 4.5: temperature or "
                                "top_p, not both); read 2026-12-04"))},
        {"claude",
         {"claude-opus-4-1", "claude-opus-4", "claude-sonnet-4", "claude-3-*"},
         [] {
             ModelRules rules = claude_sampling(claude(
                 "Claude models before 4.5",
                 "Anthropic Messages API reference (temperature 0 to 1); read 2026-12-04"));
             rules.top_p_with_temperature = true;
             return rules;
         }()},
        // Any other Claude id: a model newer than this table (or older than its rows): no forced
        // tool, no temperature, no effort; the run's fallback handles what it refuses.
        {"claude",
         {"claude-*"},
         [] {
             ModelRules rules = no_forced_tool(
                 claude("Claude model not in the table (conservative rules)",
                        std::string(anthropic_sdk) + "; read 2026-12-07"));
             rules.known = false;
             return rules;
         }()},

        // ---- OpenAI (chat completions) -------------------------------------------------------
        // gpt-6-luna: OpenAI's model page (developers.openai.com/api/docs/models/gpt-6-luna,
        // read 2026-12-07): reasoning.effort none, low, medium (default), high, xhigh, max;
        // Chat Completions endpoint; 128,000 output tokens. Conflict: npm openai 6.49.0's
        // ChatModel does not list any gpt-6 id (it lists gpt-5.6-sol/-terra/-luna).
        {"openai",
         {"gpt-6*"},
         capped(openai_reasoning("OpenAI GPT-6 reasoning models",
                                 "OpenAI model page gpt-6-luna (effort none to max, default "
                                 "medium; max output 128,000), read 2026-12-07; not in " +
                                     std::string(openai_sdk),
                                 gpt6_levels, "none"),
                128000)},
        {"openai",
         {"gpt-5.6-*"},
         openai_reasoning("OpenAI GPT-5.6 reasoning models",
                          std::string(openai_sdk) +
                              "; gpt-5.6-luna: effort none to max (docs.oxen.ai model page, "
                              "read 2026-12-07)",
                          gpt6_levels, "none")},
        {"openai",
         {"*chat-latest*"},
         openai_chat("OpenAI chat-latest aliases",
                     "OpenAI chat completions reference (temperature 0 to 2); read 2026-12-04",
                     true)},
        {"openai",
         {"gpt-5.1*", "gpt-5.2*", "gpt-5.3*", "gpt-5.4*", "gpt-5.5*"},
         openai_reasoning("OpenAI GPT-5.1 to 5.5 reasoning models",
                          std::string(openai_sdk) +
                              " (ReasoningEffort none to max); OpenAI reasoning guide "
                              "(max_completion_tokens, no temperature or top_p); read 2026-12-07",
                          {"none", "low", "medium", "high"}, "none")},
        {"openai",
         {"gpt-5", "gpt-5-*"},
         openai_reasoning("OpenAI GPT-5 reasoning models",
                          "OpenAI reasoning guide (gpt-5: effort minimal, low, medium, high); "
                          "read 2026-12-04",
                          {"minimal", "low", "medium", "high"}, "minimal")},
        {"openai",
         {"o1*", "o3*", "o4*"},
         openai_reasoning("OpenAI o-series reasoning models",
                          "OpenAI reasoning guide (effort low, medium, high; "
                          "max_completion_tokens); read 2026-12-04",
                          {"low", "medium", "high"}, "low")},
        {"openai",
         {"gpt-4*", "gpt-3.5*", "chatgpt-*"},
         openai_chat("OpenAI GPT-4 and earlier chat models",
                     "OpenAI chat completions reference (temperature 0 to 2); read 2026-12-04",
                     true)},
        // Any other id: an OpenAI-compatible server's model (llama-server, vLLM, Ollama) or a
        // new OpenAI family: what the API itself allows; a refused parameter falls back at run
        // time (the run's fallback).
        {"openai",
         {"*"},
         openai_chat("OpenAI chat completions",
                     "OpenAI chat completions reference (temperature 0 to 2); read 2026-12-04",
                     false)},

        // ---- Bedrock Converse, other vendors ------------------------------------------------
        // Llama 3.1 and later: max_gen_len up to 4,096 (Bedrock 'Meta Llama models' parameters
        // page, read 2026-12-07); Llama 3 (8B, 70B) and Llama 2: 2,048. Converse toolChoice is
        // documented for Anthropic Claude and Amazon Nova only.
        {"bedrock",
         {"meta.llama3-1-*", "meta.llama3-2-*", "meta.llama3-3-*", "meta.llama4-*"},
         capped(bedrock("Meta Llama 3.1 and later on Bedrock",
                        "Bedrock 'Meta Llama models' request parameters (max_gen_len up to "
                        "4,096 from Llama 3.1); Converse toolChoice: Claude and Nova only; read "
                        "2026-12-07",
                        false),
                4096)},
        {"bedrock",
         {"meta.llama*"},
         capped(bedrock("Meta Llama 3 and earlier on Bedrock",
                        "Bedrock Converse with Meta Llama 3: maxTokens above 2048 is refused; "
                        "read 2026-12-04",
                        false),
                2048)},
        {"bedrock",
         {"amazon.nova*"},
         bedrock("Amazon Nova on Bedrock",
                 "Bedrock Converse toolChoice (Anthropic Claude and Amazon Nova); read 2026-12-04",
                 true)},
        {"bedrock",
         {"*"},
         [] {
             ModelRules rules = bedrock("Bedrock Converse",
                                        "Bedrock Converse API reference (temperature 0 to 1); "
                                        "read 2026-12-04",
                                        false);
             rules.known = false;
             return rules;
         }()},
    };
    return table;
}

}  // namespace

ModelRules model_rules(const std::string& provider, const std::string& model) {
    const std::string id = bare_id(model);
    const bool claude_id = id.rfind("claude-", 0) == 0;
    for (const FamilyRow& row : families()) {
        const std::string vendor = row.vendor;
        const bool applies = vendor == "claude"
                                 ? claude_id && (provider == "anthropic" || provider == "bedrock")
                                 : vendor == provider;
        if (!applies) continue;
        for (const char* pattern : row.patterns) {
            if (!glob(pattern, id.c_str())) continue;
            ModelRules rules = row.rules;
            if (vendor == "claude" && provider == "bedrock") {
                rules.token_limit_field = "maxTokens";
                rules.token_limit_required = false;
            }
            return rules;
        }
    }
    ModelRules rules;
    if (provider == "anthropic") {
        rules.family = "Anthropic Messages API";
        rules.source = "Anthropic Messages API reference (temperature 0 to 1); read 2026-12-04";
        rules.temperature_high = 1;
        rules.token_limit_required = true;
        return rules;
    }
    rules.family = provider;
    return rules;
}

}  // namespace llmv
