// Errors carry a stable code ("llmv.<area>.<what>") that every binding maps to its
// own conventions: R condition classes, Stata return codes, CLI exit codes.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "llmvalidate/text.hpp"

namespace llmv {

// Stable error codes. Never rename one: R classes and Stata return codes derive from them.
namespace code {
inline constexpr const char* invalid_argument = "llmv.input.invalid_argument";
inline constexpr const char* invalid_embedding = "llmv.input.invalid_embedding";
inline constexpr const char* dimension_mismatch = "llmv.input.dimension_mismatch";
inline constexpr const char* pool_too_small = "llmv.input.pool_too_small";
inline constexpr const char* unknown_label = "llmv.input.unknown_label";
inline constexpr const char* malformed_json = "llmv.input.malformed_json";
// A passage (text, id, label or variable) that is not valid UTF-8.
inline constexpr const char* invalid_encoding = "llmv.input.invalid_encoding";
inline constexpr const char* task_invalid = "llmv.task.invalid";
inline constexpr const char* provider_rate_limited = "llmv.provider.rate_limited";
inline constexpr const char* provider_auth = "llmv.provider.auth";
inline constexpr const char* provider_bad_request = "llmv.provider.bad_request";
inline constexpr const char* provider_not_found = "llmv.provider.not_found";
inline constexpr const char* provider_server = "llmv.provider.server_error";
inline constexpr const char* provider_unparseable = "llmv.provider.unparseable_answer";
inline constexpr const char* provider_config = "llmv.provider.config";
// A 2xx answer whose body is not the provider's documented JSON (truncated, malformed).
inline constexpr const char* provider_malformed_response = "llmv.provider.malformed_response";
// A structured answer whose label is not in the label set S.
inline constexpr const char* provider_label_outside_set = "llmv.provider.label_outside_set";
inline constexpr const char* transport = "llmv.transport.failed";
inline constexpr const char* timeout = "llmv.transport.timeout";
inline constexpr const char* cancelled = "llmv.cancelled";
inline constexpr const char* cache = "llmv.cache.failed";
inline constexpr const char* io = "llmv.io.failed";
inline constexpr const char* internal = "llmv.internal";
// Command-line errors (the CLI's own; bindings never see them).
inline constexpr const char* usage = "llmv.cli.usage";
}  // namespace code

// The error taxonomy: every stable code belongs to one category, and each front end derives
// its own convention from the category (CLI exit code, R condition class
// llmvalidate_error_<category>, Stata return code). Adding a code: add it to `code` above and
// to all_error_codes() in error.cpp; the tests walk that list.
enum class ErrorCategory { usage, invalid_input, provider, transport, io, cancelled, internal };

ErrorCategory error_category(const std::string& error_code);
// "usage", "invalid_input", "provider", "transport", "io", "cancelled", "internal".
const char* category_name(ErrorCategory category);
// Every stable code, in declaration order.
const std::vector<std::string>& all_error_codes();

// What a bad-input error is about, so that each front end can say it in its own terms (the
// option's name, the observation) without reading the sentence: the setting or input by its
// engine name, the value received and what is allowed.
struct ErrorSubject {
    std::string setting;         // engine name: "temperature", "pools" ("" when none)
    std::string key;             // a part of it: the label of `pools.Neutral` ("" when none)
    int row = 0;                 // the 1-based row of the input it concerns (0: none)
    int column = 0;              // the 1-based column (embedding dimension) (0: none)
    std::string received;        // the value received, as the engine's message shows it
    std::string received_value;  // the same without its row and column ("NaN")
    std::string allowed;         // what is allowed
    std::string name;            // how the engine's message names it, when not `setting.key`
};

class Error : public std::runtime_error {
  public:
    // A sentence that names no setting.
    // Every message is stored without the credentials of a URL in it
    // (text::without_url_credentials): a password in a base URL is never printed.
    Error(std::string error_code, const std::string& message)
        : std::runtime_error(text::without_url_credentials(message)),
          code_(std::move(error_code)) {}
    // A sentence in which each of `settings` (engine names) appears in backquotes, `api_key`:
    // a front end writes its own name for it there (settings::message).
    Error(std::string error_code, const std::string& message, std::vector<std::string> settings)
        : std::runtime_error(text::without_url_credentials(message)),
          code_(std::move(error_code)),
          settings_named_(std::move(settings)) {}
    // The house style for bad input: "`setting.key` must be <allowed>; received <received>."
    Error(std::string error_code, ErrorSubject subject);
    // "<context>: <body>", where the context says where ("task topic"), for a front end that
    // names the place its own way and shows the body alone.
    static Error in_context(std::string error_code, const std::string& context,
                            const std::string& body);

    const std::string& code() const noexcept { return code_; }
    // Set (setting non-empty) for the house style's errors.
    const ErrorSubject& subject() const noexcept { return subject_; }
    bool has_subject() const noexcept { return !subject_.setting.empty(); }
    // The settings the sentence names in backquotes (engine names).
    const std::vector<std::string>& settings_named() const noexcept { return settings_named_; }
    // The message without its context ("" context: the whole message).
    const std::string& context() const noexcept { return context_; }
    std::string body() const { return context_.empty() ? what() : what() + context_.size() + 2; }

  private:
    std::string code_;
    std::string context_;
    ErrorSubject subject_;
    std::vector<std::string> settings_named_;
};

// The house style's sentence for `subject`, naming it `name` (the engine's name, or a front
// end's spelling of it): "`name` must be <allowed>; received <received>."
std::string house_style_message(const std::string& name, const ErrorSubject& subject);

// The house style for bad input: name the argument, the value received, what is allowed.
// `argument` may carry a key after a dot ("pools.Neutral").
[[noreturn]] void throw_invalid(const std::string& error_code, const std::string& argument,
                                const std::string& received, const std::string& allowed);
// The same for one row (and column, 0 for none) of an input of several rows: the message says
// "received row 3, <value>" or "received row 3 with <value> in column 2".
[[noreturn]] void throw_invalid_at(const std::string& error_code, const std::string& argument,
                                   int row, int column, const std::string& value,
                                   const std::string& allowed);

// Shortens long values (whole passages, long arrays) for messages.
std::string abbreviate(const std::string& value, std::size_t max_chars = 60);

}  // namespace llmv
