#include "messages.hpp"

#include <regex>

#include "llmvalidate/resolution.hpp"
#include "llmvalidate/settings.hpp"
#include "return_codes.hpp"

namespace llmv::stata {

namespace {

// "`field` must be <allowed>; received <received>." (llmv::throw_invalid), taken apart.
struct EngineMessage {
    bool read = false;
    std::string field, key, allowed, received;  // field "pools.Neutral": key "Neutral"
    int row = 0;                                // "row 5 ..." in `received`: 5, the rest kept
};

EngineMessage read_message(const std::string& message) {
    EngineMessage parsed;
    const std::string must = "` must be ", received = "; received ";
    const auto close = message.find("` must be ");
    const auto tail = message.rfind(received);
    if (message.empty() || message[0] != '`' || close == std::string::npos ||
        tail == std::string::npos || tail < close)
        return parsed;
    parsed.field = message.substr(1, close - 1);
    parsed.allowed = message.substr(close + must.size(), tail - close - must.size());
    parsed.received = message.substr(tail + received.size());
    if (!parsed.received.empty() && parsed.received.back() == '.') parsed.received.pop_back();
    const auto dot = parsed.field.find('.');
    if (dot != std::string::npos) parsed.key = parsed.field.substr(dot + 1);
    std::smatch row;
    if (std::regex_match(parsed.received, row, std::regex(R"(row (\d+),? ?(.*))"))) {
        parsed.row = std::stoi(row[1].str());
        parsed.received = row[2].str();
    }
    parsed.read = true;
    return parsed;
}

std::string root_of(const std::string& field) { return field.substr(0, field.find('.')); }

std::string observation_list(const std::vector<int>& observations) {
    std::string text = observations.size() == 1 ? "observation " : "observations ";
    for (std::size_t i = 0; i < observations.size() && i < 5; ++i)
        text += (i == 0 ? "" : ", ") + std::to_string(observations[i]);
    if (observations.size() > 5) text += ", ...";
    return text;
}

// "column 3" -> the third embedding variable.
std::string name_columns(std::string text, const std::vector<std::string>& variables) {
    std::smatch column;
    if (std::regex_search(text, column, std::regex(R"(in column (\d+))"))) {
        const auto k = static_cast<std::size_t>(std::stoi(column[1].str()));
        if (k >= 1 && k <= variables.size())
            text = column.prefix().str() + "in " + variables[k - 1] + column.suffix().str();
    }
    return text;
}

}  // namespace

std::string test_error_message(const Error& error, const TestContext& context) {
    const std::string passage = "the passage in observation " +
                                std::to_string(context.passage_observation) + " (label " +
                                context.passage_label + ")";
    const EngineMessage m = read_message(error.what());
    if (!m.read) return passage + ": " + error.what();
    const auto source = context.fields.find(m.field);
    const std::string& code = error.code();

    if (code == code::invalid_embedding && source != context.fields.end()) {
        const auto& rows = source->second.observations;
        int observation = 0;
        if (m.row >= 1 && m.row <= static_cast<int>(rows.size()))
            observation = rows[static_cast<std::size_t>(m.row - 1)];
        else if (m.row == 0 && rows.size() == 1)
            observation = rows.front();
        if (observation != 0) {
            std::string variables;
            if (!context.embedding_variables.empty())
                variables = " " + context.embedding_variables.front() +
                            (context.embedding_variables.size() > 1
                                 ? "-" + context.embedding_variables.back()
                                 : std::string());
            std::string text = "observation " + std::to_string(observation) + " (" +
                               source->second.what + "): embedding" + variables + " received " +
                               name_columns(m.received, context.embedding_variables) +
                               "; allowed: " + m.allowed + ".";
            if (observation != context.passage_observation)
                text += " Found while testing " + passage + ".";
            return text;
        }
    }
    if (code == code::pool_too_small && source != context.fields.end()) {
        return source->second.group + " must have " + m.allowed + "; the sample has " + m.received +
               (source->second.observations.empty()
                    ? std::string()
                    : " (" + observation_list(source->second.observations) + ")") +
               ". Needed by " + passage + ".";
    }
    // Other fields: the engine's name replaced by the option or data the user gave.
    static const std::map<std::string, std::string> stata_names = {
        {"pools", "the pool texts (passage() 0)"},
        {"passage", "the passage's embedding"},
        {"paper_reference", "the reference draws (reference() 1)"},
        {"backtranslation", "backtranslation()"},
        {"label", "label()"},
    };
    const auto name = stata_names.find(root_of(m.field));
    if (name == stata_names.end()) return passage + ": " + error.what();
    return passage + ": " + name->second + (m.key.empty() ? "" : " of label " + m.key) +
           " must be " + m.allowed + "; received " + m.received + ".";
}

std::string validate_passage_message(const std::string& error_code, const std::string& id,
                                     const std::string& engine_message) {
    // The engine puts "passage <id>: " (or "passage <id>, embedding request: ...") in front;
    // the id is the observation, which the caller names already.
    std::string message = engine_message;
    for (const std::string separator : {": ", ", "}) {
        const std::string prefix = "passage " + id + separator;
        if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
    }
    // The encoding of the data is Stata's encoding() option.
    if (error_code == code::invalid_encoding)
        return std::regex_replace(message, std::regex("input_encoding takes"),
                                  "option encoding() takes");
    std::smatch variable;
    const bool required_variable_missing =
        error_code == code::task_invalid &&
        std::regex_search(message, variable,
                          std::regex(R"(`variables` must give a value for ("[^"]+"), which task)"));
    const EngineMessage m = read_message(message);
    if (!m.read && !required_variable_missing) return message;
    const std::string root = root_of(m.field);
    if (required_variable_missing ||
        (error_code == code::task_invalid && root == "variables" &&
         std::regex_match(m.received, variable, std::regex(R"(no value for (.+))"))))
        return "the task needs a value for the variable " + variable[1].str() +
               " (required_variables); give it with vars(NAME=varname) (a value per passage) "
               "or vars(NAME=\"text\")";
    if (error_code != code::invalid_embedding && error_code != code::dimension_mismatch &&
        error_code != code::pool_too_small && error_code != code::invalid_argument)
        return message;
    std::string subject;
    if (root == "pools" && !m.key.empty())
        subject = "the embeddings of the texts generated for label " + m.key;
    else if (root == "paper_reference" && !m.key.empty())
        subject = "the embeddings of the reference texts generated for label " + m.key;
    else if (root == "passage")
        subject = "the passage's embedding";
    else if (root == "backtranslation" && !m.key.empty())
        subject = "the backtranslation answers for label " + m.key;
    else
        return message;
    return subject + " must be " + m.allowed + "; received " +
           (m.row > 0 ? "for text " + std::to_string(m.row) + ", " : std::string()) + m.received +
           ".";
}

std::optional<StataMessage> human_label_message(const Error& error) {
    const EngineMessage m = read_message(error.what());
    const std::string field = "human label of passage ";
    if (error.code() != code::unknown_label || !m.read || m.field.rfind(field, 0) != 0)
        return std::nullopt;
    // The passage's id is its observation (command_validate.cpp).
    return StataMessage{kRcData, "option human(): observation " + m.field.substr(field.size()) +
                                     " holds " + m.received + "; allowed: " + m.allowed +
                                     ". No call was made."};
}

std::string in_stata_options(const std::string& error_code, const std::string& message) {
    const ErrorCategory category = error_category(error_code);
    if (category != ErrorCategory::usage && category != ErrorCategory::invalid_input &&
        error_code != code::provider_config)
        return message;
    // A missing key or endpoint: the engine names its fields api_key and base_url, which Stata
    // sets through keyenv() (the name of an environment variable) and baseurl().
    if (error_code == code::provider_config) {
        std::string text = std::regex_replace(message, std::regex("set `api_key` or "),
                                              "set keyenv(NAME) (an environment variable that "
                                              "holds the key) or ");
        text = std::regex_replace(text, std::regex("`api_key`"), "keyenv()");
        text = std::regex_replace(text, std::regex("`embedding_base_url`"), "embbaseurl()");
        text = std::regex_replace(text, std::regex("`base_url`"), "baseurl()");
        if (text != message) return text;
    }
    // The provider, model, batch_api and cache fields: the engine's own translation
    // (resolution.hpp).
    const std::string resolved =
        pipeline::in_front_end_terms(Error(error_code, message), settings::FrontEnd::stata).what();
    if (resolved != message) return resolved;
    // The other configuration fields (pipeline::ValidationConfig, PowerConfig) that a Stata
    // option sets; the settings table's own messages already use its Stata spellings.
    static const std::map<std::string, std::string> options = {
        {"base_url", "baseurl()"},
        {"embedding_base_url", "embbaseurl()"},
        {"cache_path", "cache()"},
        {"task", "task()"},
        {"true_label", "truelabel()"},
        {"replications", "replications()"},
        {"simulated.follow_probability", "follow()"},
        {"simulated.label_signal", "signal()"},
        {"simulated.annotator_accuracy", "accuracy()"},
        {"simulated.unparseable_probability", "unparseable()"},
        {"simulated.words", "words()"},
    };
    if (message.empty() || message[0] != '`') return message;
    const auto close = message.find('`', 1);
    if (close == std::string::npos) return message;
    const auto option = options.find(message.substr(1, close - 1));
    if (option == options.end()) return message;
    return "`" + option->second + message.substr(close);
}

}  // namespace llmv::stata
