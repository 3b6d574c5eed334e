#include "arguments.hpp"

#include "llmvalidate/key_value.hpp"
#include "return_codes.hpp"
#include "stata_api.hpp"

namespace llmv::stata {

Arguments::Arguments(int argc, char* argv[]) {
    if (argc < 1 || argv == nullptr || argv[0] == nullptr || argv[0][0] == '\0')
        throw StataFailure(kRcSyntax,
                           "llmvalidate plugin: no subcommand given; allowed: version, test, "
                           "validate, power, cache, task, cachepath, sample, wherecolumns, "
                           "varsvariables, models");
    subcommand_ = argv[0];
    std::string last_key;
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i] == nullptr ? "" : argv[i];
        const auto pair = key_value::split(word);
        // A word without = after key=value is the rest of an option's value that held a space
        // (vmethod(exact test) reaches the plugin as vmethod=exact test): kept with it, so that
        // the option's own check names the option and the whole value it received.
        if (!pair && !last_key.empty()) {
            values_[last_key] += " " + word;
            continue;
        }
        if (!pair)
            throw StataFailure(kRcSyntax, "llmvalidate plugin: argument `" + word +
                                              "' is not of the form key=value");
        values_[pair->first] = pair->second;
        last_key = pair->first;
    }
}

bool Arguments::has(const std::string& key) const { return values_.count(key) != 0; }

std::string Arguments::text(const std::string& key, const std::string& fallback) const {
    const auto found = values_.find(key);
    return found == values_.end() ? fallback : found->second;
}

std::string Arguments::required_text(const std::string& key) const {
    const auto found = values_.find(key);
    if (found == values_.end())
        throw StataFailure(kRcSyntax, "llmvalidate plugin: argument " + key + "= is required");
    return found->second;
}

double Arguments::real(const std::string& key, double fallback) const {
    const auto found = values_.find(key);
    if (found == values_.end()) return fallback;
    const auto value = key_value::real(found->second);
    if (!value)
        throw StataFailure(
            kRcSyntax, "option " + key + "() must be a number; received `" + found->second + "'");
    return *value;
}

int Arguments::integer(const std::string& key, int fallback) const {
    const auto found = values_.find(key);
    if (found == values_.end()) return fallback;
    const auto value = key_value::integer(found->second);
    if (!value)
        throw StataFailure(
            kRcSyntax, "option " + key + "() must be an integer; received `" + found->second + "'");
    return *value;
}

std::uint64_t Arguments::seed(const std::string& key, std::uint64_t fallback) const {
    const auto found = values_.find(key);
    return found == values_.end() ? fallback : parse_seed(found->second, key);
}

void Arguments::allow_only(const std::set<std::string>& allowed) const {
    for (const auto& entry : values_)
        if (allowed.count(entry.first) == 0)
            throw StataFailure(kRcSyntax, "llmvalidate plugin: unknown argument " + entry.first +
                                              "= for subcommand " + subcommand_ +
                                              " (the ado-file and the plugin do not match; "
                                              "reinstall llmvalidate)");
}

std::uint64_t parse_seed(const std::string& text, const std::string& option) {
    const auto value = key_value::whole_number(text);
    if (!value)
        throw StataFailure(kRcSyntax, "option " + option +
                                          "() must be an integer from 0 to "
                                          "18446744073709551615; received `" +
                                          text + "'");
    return *value;
}

std::vector<std::string> split_stata_list(const std::string& list, const std::string& what) {
    std::vector<std::string> words;
    std::size_t i = 0;
    const std::size_t n = list.size();
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (i < n) {
        if (space(list[i])) {
            ++i;
            continue;
        }
        if (list.compare(i, 2, "`\"") == 0) {
            // Compound quotes nest: `" opens, "' closes.
            int depth = 0;
            std::size_t j = i;
            std::string word;
            while (j < n) {
                if (list.compare(j, 2, "`\"") == 0) {
                    if (depth > 0) word += "`\"";
                    ++depth;
                    j += 2;
                } else if (list.compare(j, 2, "\"'") == 0) {
                    --depth;
                    j += 2;
                    if (depth == 0) break;
                    word += "\"'";
                } else {
                    word += list[j++];
                }
            }
            if (depth != 0)
                throw StataFailure(kRcSyntax,
                                   what + ": unbalanced compound quotes in `" + list + "'");
            words.push_back(word);
            i = j;
        } else if (list[i] == '"') {
            const std::size_t close = list.find('"', i + 1);
            if (close == std::string::npos)
                throw StataFailure(kRcSyntax, what + ": unbalanced quotes in `" + list + "'");
            words.push_back(list.substr(i + 1, close - i - 1));
            i = close + 1;
        } else {
            std::size_t j = i;
            while (j < n && !space(list[j])) ++j;
            words.push_back(list.substr(i, j - i));
            i = j;
        }
    }
    return words;
}

std::string join_stata_list(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& word : words) {
        if (!out.empty()) out += ' ';
        out += "`\"" + word + "\"'";
    }
    return out;
}

std::string chat_key(const Api& api) {
    const std::string key = api.local("llmv_apikey").value_or("");
    const std::string key_variable = api.local("llmv_keyenv").value_or("");
    if (!key_variable.empty() && key.empty())
        throw StataFailure(kRcSyntax, "option keyenv(" + key_variable +
                                          "): the environment variable " + key_variable +
                                          " is not set or is empty; set it before starting Stata "
                                          "(e.g. export " +
                                          key_variable +
                                          "=... in the shell), or leave out keyenv() to use the "
                                          "provider's own variable. No call was made.");
    return key;
}

}  // namespace llmv::stata
