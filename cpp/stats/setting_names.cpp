// Every engine name a front end's user can meet in a message, spelled as that front end's user
// writes it: the settings table's own spellings, and the fields the table does not hold (the
// provider, the model, keys, URLs, the cache, the power analysis' own). An error is spelled
// from what it carries (settings::message), never by reading its sentence.
#include <array>

#include "llmvalidate/error.hpp"
#include "llmvalidate/settings.hpp"

namespace llmv::settings {

namespace {

struct FieldSpelling {
    const char* name;
    std::array<const char*, 4> spellings;  // engine, CLI, R, Stata
};

// The fields that front ends set outside the table. R's `embedding` is one object for both the
// embedding provider and its model; Stata's keyenv() names the variable that holds the key, and
// the CLI reads a key from the environment only.
constexpr FieldSpelling other_fields[] = {
    {"provider", {"provider", "--provider", "provider", "provider()"}},
    {"model", {"model", "--model", "model", "model()"}},
    {"embedding_provider",
     {"embedding_provider", "--embedding-provider", "embedding", "embedding()"}},
    {"embedding_model", {"embedding_model", "--embedding-model", "embedding", "embmodel()"}},
    {"api_key", {"api_key", "LLMV_API_KEY", "api_key", "keyenv()"}},
    {"base_url", {"base_url", "--base-url", "base_url", "baseurl()"}},
    {"embedding_base_url",
     {"embedding_base_url", "--embedding-base-url", "base_url", "embbaseurl()"}},
    {"batch_api", {"batch_api", "--batch-api", "batch", "batchapi"}},
    {"wait", {"wait", "--submit-only", "wait", "nowait"}},
    {"cache", {"cache", "--cache", "cache", "cache()"}},
    {"cache_path", {"cache_path", "--cache", "cache", "cache()"}},
    {"task", {"task", "--task", "task", "task()"}},
    {"variables", {"variables", "--vars", "variables", "vars()"}},
    {"preset", {"preset", "--preset", "preset", "preset()"}},
    {"true_label", {"true_label", "--true-label", "true_label", "truelabel()"}},
    {"replications", {"replications", "--replications", "replications", "replications()"}},
    {"simulation.template",
     {"simulation.template", "simulation.template", "simulation_prompt", "simprompt()"}},
};

const char* other_spelling(const std::string& name, FrontEnd front_end) {
    for (const FieldSpelling& field : other_fields)
        if (name == field.name) return field.spellings[static_cast<std::size_t>(front_end)];
    return nullptr;
}

// The spelling of an engine name, or "" when neither the table nor the other fields know it.
std::string known_spelling(const std::string& name, FrontEnd front_end) {
    if (const Setting* entry = find(name)) return spelling(*entry, front_end);
    if (const char* other = other_spelling(name, front_end)) return other;
    return "";
}

}  // namespace

std::string model_list_hint(const std::string& provider, FrontEnd front_end) {
    std::string command;
    switch (front_end) {
        case FrontEnd::cli:
            command = "`llmvalidate models --provider " + provider + "`";
            break;
        case FrontEnd::r:
            command = "`llm_models(\"" + provider + "\")`";
            break;
        case FrontEnd::stata:
            command = "`llmvalidate models, provider(" + provider + ")`";
            break;
        default:
            command = "the front end's model list (CLI `llmvalidate models --provider " + provider +
                      "`, R `llm_models(\"" + provider +
                      "\")`, Stata `llmvalidate models, provider(" + provider + ")`)";
    }
    return "List the models it serves with " + command + " and name one with `" +
           spelling_of("model", front_end) + "`.";
}

std::string spelling_of(const std::string& name, FrontEnd front_end) {
    const std::string known = known_spelling(name, front_end);
    return known.empty() ? name : known;
}

std::string spelling_of(const ErrorSubject& subject, FrontEnd front_end) {
    if (!subject.name.empty() && known_spelling(subject.setting, front_end).empty())
        return subject.name;
    if (subject.key.empty()) return spelling_of(subject.setting, front_end);
    // "simulated.follow_probability" is the table's follow_probability; "pools.Neutral" is
    // the pools of label Neutral, which no front end names otherwise.
    const std::string whole = subject.setting + "." + subject.key;
    if (const std::string known = known_spelling(whole, front_end); !known.empty()) return known;
    if (const std::string known = known_spelling(subject.key, front_end); !known.empty())
        return known;
    return spelling_of(subject.setting, front_end) + "." + subject.key;
}

std::string message(const Error& error, FrontEnd front_end) {
    if (front_end == FrontEnd::engine) return error.what();
    if (error.has_subject())
        return house_style_message(spelling_of(error.subject(), front_end), error.subject());
    std::string text = error.what();
    for (const std::string& name : error.settings_named()) {
        const std::string quoted = "`" + name + "`";
        const std::string spelled = "`" + spelling_of(name, front_end) + "`";
        for (auto at = text.find(quoted); at != std::string::npos;
             at = text.find(quoted, at + spelled.size()))
            text.replace(at, quoted.size(), spelled);
    }
    return text;
}

}  // namespace llmv::settings
