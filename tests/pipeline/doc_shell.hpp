// The shell blocks of the docs, run as a reader pastes them: each command line through
// /bin/bash, in a scratch folder where the docs' relative paths exist (prompts/, examples/,
// build/cpp/llmvalidate, the Financial PhraseBank) and `llmvalidate` is on PATH. Nothing of the
// machine's own provider settings leaks in: keys, base URLs and HOME are the test's.
#pragma once

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_runner.hpp"

namespace llmv::test {

inline std::string read_text(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

inline bool path_exists(const std::string& path) {
    struct stat status {};
    return stat(path.c_str(), &status) == 0;
}

// A command of a ```sh block: its text (continued lines joined), the comment line just above
// it (the doc's caption), and where it is.
struct DocCommand {
    std::string file;
    int line = 0;
    std::string text;
    std::string comment;
};

// The commands of every ```sh / ```bash block of the file at `path` (relative to the source
// tree), or only of the first block after `heading` when one is given.
inline std::vector<DocCommand> sh_commands(const std::string& path,
                                           const std::string& heading = "") {
    std::istringstream doc(read_text(LLMV_SOURCE_DIR "/" + path));
    std::vector<DocCommand> commands;
    bool in_block = false, seen_heading = heading.empty(), done = false;
    std::string comment, pending;
    int number = 0, start = 0;
    for (std::string line; std::getline(doc, line) && !done;) {
        ++number;
        if (!in_block) {
            if (!seen_heading && line.rfind(heading, 0) == 0) seen_heading = true;
            if (seen_heading && (line == "```sh" || line == "```bash")) in_block = true;
            continue;
        }
        if (line.rfind("```", 0) == 0) {
            in_block = false;
            done = !heading.empty();
            continue;
        }
        if (pending.empty()) start = number;
        if (!line.empty() && line.back() == '\\') {
            pending += line.substr(0, line.size() - 1) + " ";
            continue;
        }
        pending += line;
        const auto first = pending.find_first_not_of(' ');
        if (first == std::string::npos) {
            pending.clear();
        } else if (pending[first] == '#') {
            comment = pending.substr(first);
            pending.clear();
        } else {
            commands.push_back({path, start, pending.substr(first), comment});
            pending.clear();
        }
    }
    return commands;
}

class DocSandbox {
  public:
    DocSandbox() {
        const std::string root = dir_.path();
        const std::string phrasebank =
            LLMV_SOURCE_DIR "/../shared/data/financial-phrasebank/financial_phrasebank.csv";
        std::string script = "set -e; cd '" + root + "'; mkdir -p bin build/cpp home; " +
                             "ln -s '" LLMV_CLI "' bin/llmvalidate; " +
                             "ln -s '" LLMV_CLI "' build/cpp/llmvalidate; " +
                             "ln -s '" LLMV_SOURCE_DIR "/prompts' prompts; " +
                             "ln -s '" LLMV_SOURCE_DIR "/examples' examples; " +
                             "cp examples/test-input.json input.json";
        if (path_exists(phrasebank))
            script += "; ln -s '" + phrasebank + "' financial_phrasebank.csv";
        const cli_test::CliResult made = cli_test::run_shell(script);
        if (made.exit_code != 0) throw std::runtime_error("sandbox: " + made.err);
        // A user's own corpus, as the README's `data.csv`: a text and a human label per row.
        cli_test::write_file(file("data.csv"),
                             "text,label\n"
                             "\"Operating profit rose to EUR 13.1 mn from EUR 8.7 mn.\",positive\n"
                             "\"The company expects its net sales to decrease.\",negative\n"
                             "\"The shares are listed on the Helsinki exchange.\",neutral\n");
    }

    std::string file(const std::string& name) const { return dir_.file(name); }
    bool has_phrasebank() const { return path_exists(file("financial_phrasebank.csv")); }

    // `command` through bash in the sandbox, with `env` exported first.
    cli_test::CliResult run(
        const std::string& command,
        const std::vector<std::pair<std::string, std::string>>& env = {}) const {
        std::string script =
            "cd '" + dir_.path() + "' || exit 99\n" + "export PATH='" + dir_.path() +
            "/bin':\"$PATH\" HOME='" + dir_.path() + "/home' LLMV_CACHE='" + dir_.path() +
            "/cache.sqlite'\n"
            "unset OPENAI_API_KEY ANTHROPIC_API_KEY ANTHROPIC_BASE_URL "
            "OPENAI_BASE_URL LLMV_BASE_URL LLMV_API_KEY LLMV_EMBEDDING_API_KEY "
            "AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_PROFILE "
            "AWS_BEARER_TOKEN_BEDROCK AWS_REGION AWS_DEFAULT_REGION\n";
        for (const auto& [name, value] : env) script += "export " + name + "='" + value + "'\n";
        return cli_test::run_shell(script + command);
    }

  private:
    cli_test::TempDir dir_;
};

}  // namespace llmv::test
