// Every shell command the docs show runs through bash as a reader would paste it (issue 42:
// a route test that splits words itself cannot see an unquoted `|`). docs/paper-fidelity.md's
// routes have their own test (test_paper_routes.cpp). A developer command that tools/test.sh
// itself runs as a step, or that needs another platform, is not run twice: it is named below
// with why, and what it names must exist. A new command in a doc fails here until it runs or
// is named.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "doc_shell.hpp"
#include "fake_server/fake_server.hpp"

using cli_test::CliResult;
using llmv::test::DocCommand;
using llmv::test::DocSandbox;

namespace {

struct NotRun {
    std::string prefix;      // the command starts with this
    std::string must_exist;  // a file of the source tree, or "preset:NAME" of CMakePresets.json
    std::string why;
};

const std::vector<NotRun>& not_run() {
    static const std::vector<NotRun> list = {
        {"tools/test.sh", "tools/test.sh", "the test command itself"},
        {"BUILD_DIR=build tools/build.sh", "tools/build.sh", "tools/test.sh's first step"},
        {"cd build && ctest", "tests/CMakeLists.txt", "tools/test.sh's last step"},
        {"BUILD_DIR=build bash tools/test.d/stata-lint.sh", "tools/test.d/stata-lint.sh",
         "a step of tools/test.sh"},
        {"BUILD_DIR=build bash tools/test.d/stata-asan.sh", "tools/test.d/stata-asan.sh",
         "a step of tools/test.sh"},
        {"BUILD_DIR=build bash tools/test.d/stata-r-parity.sh", "tools/test.d/stata-r-parity.sh",
         "a step of tools/test.sh"},
        {"BUILD_DIR=build bash tools/test.d/stata-windows.sh", "tools/test.d/stata-windows.sh",
         "a step of tools/test.sh"},
        {"BUILD_DIR=build bash tools/test.d/stata-old-glibc.sh", "tools/test.d/stata-old-glibc.sh",
         "a step of tools/test.sh"},
        {"tools/stata-package.sh", "tools/stata-package.sh",
         "run by the stata-package step of tools/test.sh"},
        {"tools/build-windows-plugin.sh", "tools/build-windows-plugin.sh",
         "run by the stata-windows step of tools/test.sh"},
        {"cmake --preset linux-portable", "preset:linux-portable",
         "the default Linux build's plugin (LLMV_PORTABLE_PLUGIN), which tools/test.sh builds"},
        {"sbatch --array=1-3 examples/shards.sbatch", "examples/shards.sbatch",
         "needs a Slurm cluster; the page's next command runs the same script without one"},
        {"cmake --preset macos-arm64", "preset:macos-arm64", "macOS only"},
        {"cmake --preset macos-x86_64", "preset:macos-x86_64", "macOS only"},
    };
    return list;
}

const NotRun* named_not_run(const std::string& command) {
    for (const NotRun& entry : not_run())
        if (command.rfind(entry.prefix, 0) == 0) return &entry;
    return nullptr;
}

bool exists_in_tree(const std::string& what) {
    if (what.rfind("preset:", 0) == 0)
        return llmv::test::read_text(LLMV_SOURCE_DIR "/CMakePresets.json")
                   .find("\"name\": \"" + what.substr(7) + "\"") != std::string::npos;
    return llmv::test::path_exists(LLMV_SOURCE_DIR "/" + what);
}

}  // namespace

TEST_CASE("every shell command of the README and docs runs through bash", "[cli][docs]") {
    std::vector<DocCommand> commands;
    for (const char* doc :
         {"README.md", "docs/test-format.md", "docs/simulated.md", "docs/providers.md",
          "docs/settings.md", "docs/statistics.md", "docs/method.md", "docs/transport-and-cache.md",
          "docs/architecture.md", "docs/report.md", "docs/shards.md", "prompts/README.md",
          "stata/README.md"}) {
        const std::vector<DocCommand> found = llmv::test::sh_commands(doc);
        commands.insert(commands.end(), found.begin(), found.end());
    }
    REQUIRE(commands.size() >= 20);
    // A configured OpenAI-compatible server, as a user's LLMV_BASE_URL (the README's `batch`
    // lines use the provider of the environment): the fake provider server on loopback.
    llmv::fake::FakeServer server;
    server.start();
    const std::vector<std::pair<std::string, std::string>> environment = {
        {"LLMV_BASE_URL", server.base_url() + "/v1"},
        {"LLMV_API_KEY", "test-key"},
        {"LLMV_EMBEDDING_MODEL", "fake-embedding"}};
    DocSandbox sandbox;
    int ran = 0;
    for (const DocCommand& command : commands) {
        INFO(command.file << ":" << command.line << ": " << command.text);
        if (const NotRun* entry = named_not_run(command.text)) {
            INFO("not run (" << entry->why << "); it names " << entry->must_exist);
            CHECK(exists_in_tree(entry->must_exist));
            continue;
        }
        CHECK(command.text.find("...") == std::string::npos);  // a placeholder cannot run
        if (command.text.find("financial_phrasebank.csv") != std::string::npos &&
            !sandbox.has_phrasebank()) {
            WARN("skipped (no Financial PhraseBank beside the repository)");
            continue;
        }
        // tools/main.sh with this build's CLI: its set-up and build are tools/test.sh's own.
        std::vector<std::pair<std::string, std::string>> env = environment;
        std::string line = command.text;
        if (line.rfind("tools/main.sh", 0) == 0) {
            env = {{"LLMV_CLI", LLMV_CLI}};
            line = "bash '" LLMV_SOURCE_DIR "/" + line.substr(0, line.find(' ')) + "'";
        }
        const CliResult result = sandbox.run("set -o pipefail\n" + line, env);
        INFO(result.err.substr(0, 3000));
        CHECK(result.exit_code == 0);
        ++ran;
    }
    CHECK(ran >= 10);
}

// docs/shards.md shows the Slurm script its commands run: the page's ```text block is the file.
TEST_CASE("docs/shards.md shows examples/shards.sbatch as it is", "[cli][docs]") {
    const std::string page = llmv::test::read_text(LLMV_SOURCE_DIR "/docs/shards.md");
    const std::string script = llmv::test::read_text(LLMV_SOURCE_DIR "/examples/shards.sbatch");
    const std::string open = "```text\n";
    const auto start = page.find(open);
    REQUIRE(start != std::string::npos);
    const auto end = page.find("```", start + open.size());
    REQUIRE(end != std::string::npos);
    CHECK(page.substr(start + open.size(), end - start - open.size()) == script);
}
