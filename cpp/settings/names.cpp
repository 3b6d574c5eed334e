// Every engine name a front end's user can meet in a message, spelled as that front end's user
// writes it: every knob is a row of the settings table (its aliases too: cache_path is the
// cache). An error is spelled from what it carries (settings::message), never by reading its
// sentence.
#include "llmvalidate/error.hpp"
#include "llmvalidate/settings.hpp"

namespace llmv::settings {

namespace {

const Setting* find_with_aliases(const std::string& name) {
    if (const Setting* entry = find(name)) return entry;
    for (const Setting& entry : table())
        for (const std::string& alias : entry.aliases)
            if (alias == name) return &entry;
    return nullptr;
}

// The spelling of an engine name, or "" when the table does not know it.
std::string known_spelling(const std::string& name, FrontEnd front_end) {
    const Setting* entry = find_with_aliases(name);
    return entry ? spelling(*entry, front_end) : "";
}

}  // namespace

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
