// task(): the ado-file asks the plugin what a task name means (the `task` subcommand), so
// Stata accepts the names and aliases of the engine's task catalog, as the CLI and R do, and
// every shipped task is installed by `net install`.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fake_stata.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

// The shipped tasks as the engine lists them: the *.toml files of the prompts folder.
std::vector<std::string> prompts_task_files() {
    std::vector<std::string> files;
    const std::string dir = std::string(LLMV_SOURCE_DIR) + "/prompts";
    DIR* handle = opendir(dir.c_str());
    REQUIRE(handle != nullptr);
    while (const dirent* entry = readdir(handle)) {
        const std::string name = entry->d_name;
        if (name.size() > 5 && name.compare(name.size() - 5, 5, ".toml") == 0)
            files.push_back(name);
    }
    closedir(handle);
    std::sort(files.begin(), files.end());
    return files;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> words_of(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> words;
    for (std::string word; in >> word;) words.push_back(word);
    return words;
}

// The plugin's answer for one task() name, as the ado-file's FindTask asks it.
struct TaskAnswer {
    int rc;
    std::string name, tasks, files;
};

TaskAnswer ask(Stata& stata, const std::string& task) {
    stata.set_local("llmv_task", task);
    const int rc = stata.call({"task"});
    return {rc, stata.local("llmv_task_name"), stata.local("llmv_tasks"),
            stata.local("llmv_task_files")};
}

}  // namespace

TEST_CASE("task(): names and aliases resolve from the engine's catalog, as in the CLI and R",
          "[task]") {
    Stata stata;
    load_plugin(stata);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"sentiment", "simple_sentiment"},
        {"simple_sentiment", "simple_sentiment"},
        {"sentiment5", "detailed_sentiment"},
        {"temporal", "temporal_focus"},
        {" phrasebank ", "financial_phrasebank"},
        {"clarity", "clarity"},
        {"topic", "topic"},
    };
    for (const auto& [typed, canonical] : cases) {
        INFO("task(" << typed << ")");
        const TaskAnswer answer = ask(stata, typed);
        REQUIRE(answer.rc == 0);
        CHECK(answer.name == canonical);
    }
    CHECK(stata.output.empty());
    CHECK(stata.errors.empty());
}

TEST_CASE("task(): an unknown name is no shipped task, and the answer lists every shipped task",
          "[task]") {
    Stata stata;
    load_plugin(stata);
    for (const char* unknown : {"sentimnt", "Sentiment", "", "prompts/simple_sentiment.toml"}) {
        INFO("task(" << unknown << ")");
        const TaskAnswer answer = ask(stata, unknown);
        REQUIRE(answer.rc == 0);
        CHECK(answer.name.empty());
        for (const std::string& file : prompts_task_files())
            CHECK(answer.tasks.find(file.substr(0, file.size() - 5)) != std::string::npos);
        CHECK(answer.tasks.find("simple_sentiment (or sentiment)") != std::string::npos);
    }

    // The list is the engine's: the CLI lists the same tasks for an unknown name.
    const std::string command =
        std::string(LLMV_CLI_PATH) + " power --task sentimnt --replications 1 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string cli;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe)) cli += buffer;
    pclose(pipe);
    INFO(cli);
    CHECK(cli.find(ask(stata, "sentimnt").tasks) != std::string::npos);
}

TEST_CASE("every task of the engine's catalog is in llmvalidate.pkg and in the net-install folders",
          "[task][install]") {
    Stata stata;
    load_plugin(stata);
    const std::vector<std::string> shipped = words_of(ask(stata, "").files);
    REQUIRE(shipped == prompts_task_files());

    std::set<std::string> packaged;
    std::istringstream pkg(read_text(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.pkg"));
    for (std::string line; std::getline(pkg, line);) {
        const auto words = words_of(line);
        // F: installed on the ado-path (with f, a .toml file would be ancillary).
        if (words.size() == 2 && words[0] == "F") packaged.insert(words[1]);
    }
    for (const std::string& file : shipped) {
        INFO(file);
        // An `F` line: net install puts the file on the ado-path, where findfile finds it.
        CHECK(packaged.count(file) == 1);
        const std::string source = read_text(std::string(LLMV_SOURCE_DIR) + "/prompts/" + file);
        REQUIRE_FALSE(source.empty());
        for (const std::string& folder :
             {std::string(LLMV_NET_FOLDER), std::string(LLMV_NET_BUILD_FOLDER)}) {
            INFO("net-install folder " << folder);
            CHECK(read_text(folder + "/" + file) == source);
        }
    }
}
