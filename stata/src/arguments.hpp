// The words after the comma of `plugin call`: argv[0] is the subcommand, every other word is
// key=value. The ado-file writes them; a user never does, but a bad one still gets a clear
// message (rc 198) rather than a crash. Text that may hold spaces or quotes (labels, paths,
// keys) travels in local macros instead, read with Api::local().
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace llmv::stata {

class Api;

class Arguments {
  public:
    Arguments(int argc, char* argv[]);

    const std::string& subcommand() const { return subcommand_; }
    bool has(const std::string& key) const;
    std::string text(const std::string& key, const std::string& fallback) const;
    std::string required_text(const std::string& key) const;
    double real(const std::string& key, double fallback) const;
    int integer(const std::string& key, int fallback) const;
    std::uint64_t seed(const std::string& key, std::uint64_t fallback) const;
    // Every key given must be one of `allowed` (catches an ado/plugin mismatch).
    void allow_only(const std::set<std::string>& allowed) const;

  private:
    std::string subcommand_;
    std::map<std::string, std::string> values_;
};

// The chat provider's key the ado-file passed (local llmv_apikey, read from the variable keyenv()
// names; empty: the engine reads the provider's own variable). keyenv(NAME) with NAME unset is
// an error, never a silent fall back to the provider's own variable (another account).
std::string chat_key(const Api& api);

// Splits a Stata list into its words: white space separates, "..." and `"..."' quote (the
// way `foreach x of local list` reads it). Unbalanced quotes throw StataFailure(198).
std::vector<std::string> split_stata_list(const std::string& list, const std::string& what);

// Quotes each word with compound quotes, so the ado can loop over the list.
std::string join_stata_list(const std::vector<std::string>& words);

// Parses a decimal integer in [0, 2^64 - 1]; throws StataFailure(198) naming `option`.
std::uint64_t parse_seed(const std::string& text, const std::string& option);

}  // namespace llmv::stata
