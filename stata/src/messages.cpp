#include "messages.hpp"

#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/settings.hpp"
#include "return_codes.hpp"

namespace llmv::stata {

namespace {

std::string observation_list(const std::vector<int>& observations) {
    std::string text = observations.size() == 1 ? "observation " : "observations ";
    for (std::size_t i = 0; i < observations.size() && i < 5; ++i)
        text += (i == 0 ? "" : ", ") + std::to_string(observations[i]);
    if (observations.size() > 5) text += ", ...";
    return text;
}

// The engine's row field ("pools.Neutral") of a subject.
std::string field_of(const ErrorSubject& subject) {
    return subject.key.empty() ? subject.setting : subject.setting + "." + subject.key;
}

// The value received, with the embedding variable of its column ("NaN in v3").
std::string value_in_column(const ErrorSubject& subject,
                            const std::vector<std::string>& variables) {
    if (subject.column < 1) return subject.received_value;
    const auto k = static_cast<std::size_t>(subject.column);
    return subject.received_value + " in " +
           (k <= variables.size() ? variables[k - 1] : "column " + std::to_string(k));
}

}  // namespace

std::string test_error_message(const Error& error, const TestContext& context) {
    const std::string passage = "the passage in observation " +
                                std::to_string(context.passage_observation) + " (label " +
                                context.passage_label + ")";
    if (!error.has_subject())
        return passage + ": " + settings::message(error, settings::FrontEnd::stata);
    const ErrorSubject& m = error.subject();
    const auto source = context.fields.find(field_of(m));
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
                               value_in_column(m, context.embedding_variables) +
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
    const auto name = stata_names.find(m.setting);
    if (name == stata_names.end())
        return passage + ": " + settings::message(error, settings::FrontEnd::stata);
    return passage + ": " + name->second + (m.key.empty() ? "" : " of label " + m.key) +
           " must be " + m.allowed + "; received " + m.received + ".";
}

std::string validate_passage_message(const pipeline::PassageResult& passage) {
    // The error without "passage <id>: ": the id is the observation, which the caller names.
    if (!passage.error) return passage.error_message;
    const Error& error = *passage.error;
    const std::string& code = error.code();
    const ErrorSubject& m = error.subject();
    if (!error.has_subject() ||
        (code != code::invalid_embedding && code != code::dimension_mismatch &&
         code != code::pool_too_small && code != code::invalid_argument))
        return settings::message(error, settings::FrontEnd::stata);
    // The engine's fields for the texts the LLM generated, said in words.
    std::string subject;
    if (m.setting == "pools" && !m.key.empty())
        subject = "the embeddings of the texts generated for label " + m.key;
    else if (m.setting == "paper_reference" && !m.key.empty())
        subject = "the embeddings of the reference texts generated for label " + m.key;
    else if (m.setting == "passage")
        subject = "the passage's embedding";
    else if (m.setting == "backtranslation" && !m.key.empty())
        subject = "the backtranslation answers for label " + m.key;
    else
        return settings::message(error, settings::FrontEnd::stata);
    return subject + " must be " + m.allowed + "; received " +
           (m.row > 0 ? "for text " + std::to_string(m.row) + ", " : std::string()) +
           (m.column > 0 ? m.received_value + " in column " + std::to_string(m.column)
                         : m.received_value) +
           ".";
}

std::optional<StataMessage> human_label_message(const Error& error) {
    const ErrorSubject& m = error.subject();
    if (error.code() != code::unknown_label || m.setting != "human_label") return std::nullopt;
    // The passage's id is its observation (command_validate.cpp).
    return StataMessage{kRcData, "option human(): observation " + m.key + " holds " + m.received +
                                     "; allowed: " + m.allowed + ". No call was made."};
}

std::string in_stata_options(const Error& error) {
    const ErrorCategory category = error_category(error.code());
    if (category != ErrorCategory::usage && category != ErrorCategory::invalid_input &&
        error.code() != code::provider_config)
        return error.what();
    // Every setting the error names, as the option that sets it (the settings table's Stata
    // spellings: `embedding_provider` -> `embedding()`, `api_key` -> `keyenv()`).
    return settings::message(error, settings::FrontEnd::stata);
}

}  // namespace llmv::stata
