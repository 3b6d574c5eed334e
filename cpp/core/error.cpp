#include "llmvalidate/error.hpp"

namespace llmv {

std::string house_style_message(const std::string& name, const ErrorSubject& subject) {
    return "`" + name + "` must be " + subject.allowed + "; received " + subject.received + ".";
}

namespace {
// The engine's own name for the subject of its message.
std::string engine_name(const ErrorSubject& subject) {
    if (!subject.name.empty()) return subject.name;
    return subject.key.empty() ? subject.setting : subject.setting + "." + subject.key;
}

ErrorSubject subject_of(const std::string& argument, std::string received, std::string allowed) {
    ErrorSubject subject;
    const auto dot = argument.find('.');
    subject.setting = argument.substr(0, dot);
    if (dot != std::string::npos) subject.key = argument.substr(dot + 1);
    subject.received_value = received;
    subject.received = std::move(received);
    subject.allowed = std::move(allowed);
    return subject;
}
}  // namespace

namespace {
ErrorSubject without_credentials(ErrorSubject subject) {
    subject.received = text::without_url_credentials(std::move(subject.received));
    subject.received_value = text::without_url_credentials(std::move(subject.received_value));
    subject.allowed = text::without_url_credentials(std::move(subject.allowed));
    return subject;
}
}  // namespace

Error::Error(std::string error_code, ErrorSubject subject)
    : std::runtime_error(house_style_message(engine_name(subject), without_credentials(subject))),
      code_(std::move(error_code)),
      subject_(without_credentials(std::move(subject))) {}

Error Error::in_context(std::string error_code, const std::string& context,
                        const std::string& body) {
    Error error(std::move(error_code), context + ": " + body);
    error.context_ = context;
    return error;
}

void throw_invalid(const std::string& error_code, const std::string& argument,
                   const std::string& received, const std::string& allowed) {
    throw Error(error_code, subject_of(argument, received, allowed));
}

void throw_invalid_at(const std::string& error_code, const std::string& argument, int row,
                      int column, const std::string& value, const std::string& allowed) {
    ErrorSubject subject = subject_of(argument, value, allowed);
    subject.row = row;
    subject.column = column;
    if (row > 0 && column > 0)
        subject.received = "row " + std::to_string(row) + " with " + value + " in column " +
                           std::to_string(column);
    else if (row > 0)
        subject.received = "row " + std::to_string(row) + ", " + value;
    else if (column > 0)
        subject.received = value + " in column " + std::to_string(column);
    throw Error(error_code, std::move(subject));
}

std::string abbreviate(const std::string& value, std::size_t max_chars) {
    if (value.size() <= max_chars) return value;
    return value.substr(0, max_chars) + "...";
}

namespace {
bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }
}  // namespace

ErrorCategory error_category(const std::string& error_code) {
    if (error_code == code::usage) return ErrorCategory::usage;
    if (error_code == code::cancelled) return ErrorCategory::cancelled;
    if (starts_with(error_code, "llmv.input.") || starts_with(error_code, "llmv.task."))
        return ErrorCategory::invalid_input;
    if (starts_with(error_code, "llmv.provider.")) return ErrorCategory::provider;
    if (starts_with(error_code, "llmv.transport.")) return ErrorCategory::transport;
    if (starts_with(error_code, "llmv.io.") || starts_with(error_code, "llmv.cache."))
        return ErrorCategory::io;
    return ErrorCategory::internal;
}

const char* category_name(ErrorCategory category) {
    switch (category) {
        case ErrorCategory::usage:
            return "usage";
        case ErrorCategory::invalid_input:
            return "invalid_input";
        case ErrorCategory::provider:
            return "provider";
        case ErrorCategory::transport:
            return "transport";
        case ErrorCategory::io:
            return "io";
        case ErrorCategory::cancelled:
            return "cancelled";
        case ErrorCategory::internal:
            return "internal";
    }
    return "internal";
}

const std::vector<std::string>& all_error_codes() {
    static const std::vector<std::string> codes = {
        code::invalid_argument,
        code::invalid_embedding,
        code::dimension_mismatch,
        code::pool_too_small,
        code::unknown_label,
        code::malformed_json,
        code::task_invalid,
        code::provider_rate_limited,
        code::provider_auth,
        code::provider_bad_request,
        code::provider_not_found,
        code::provider_server,
        code::provider_unparseable,
        code::provider_config,
        code::provider_malformed_response,
        code::provider_label_outside_set,
        code::transport,
        code::timeout,
        code::cancelled,
        code::cache,
        code::io,
        code::internal,
        code::usage,
    };
    return codes;
}

}  // namespace llmv
