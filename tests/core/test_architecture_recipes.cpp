// docs/architecture.md's recipes (issue 40, item 7) followed: every file a step of "Adding a
// setting", "Adding a provider" and "Adding a statistic" names exists, every function a step
// names (`name()`) is in one of that step's files, and the registries the recipes name drive
// what the front ends read: a throwaway test method registered here is in the methods' list R
// reads, with what it draws, and run_tests() refuses it until the settings table offers it; a
// throwaway provider row is in provider_defaults() and its field list.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/record_json.hpp"
#include "llmvalidate/record_lists.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/stats.hpp"

using namespace llmv;

namespace {

const std::string source_dir = LLMV_SOURCE_DIR;

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool exists(const std::string& path) { return std::ifstream(source_dir + "/" + path).good(); }

// The numbered steps of the section `## <title>`: each step with its continuation lines.
std::vector<std::string> recipe_steps(const std::string& title) {
    const std::string doc = read_text(source_dir + "/docs/architecture.md");
    const std::string heading = "\n## " + title + "\n";
    const std::size_t start = doc.find(heading);
    REQUIRE(start != std::string::npos);
    const std::size_t end = doc.find("\n## ", start + heading.size());
    std::istringstream section(doc.substr(start + heading.size(), end - start - heading.size()));
    std::vector<std::string> steps;
    std::string line;
    const std::regex numbered(R"(^\d+\. )");
    while (std::getline(section, line)) {
        if (std::regex_search(line, numbered))
            steps.push_back(line);
        else if (!steps.empty() && line.rfind("   ", 0) == 0)
            steps.back() += " " + line;
        else if (!steps.empty() && line.empty())
            steps.push_back("");  // a paragraph after the steps ends them
    }
    std::vector<std::string> kept;
    for (const std::string& step : steps)
        if (!step.empty()) kept.push_back(step);
    return kept;
}

// A step's backquoted words: paths (with a '/', no space or placeholder) and functions (`f()`).
struct Named {
    std::vector<std::string> paths;
    std::vector<std::string> functions;
};

Named named_in(const std::string& step) {
    Named named;
    const std::regex quoted("`([^`]+)`");
    for (auto it = std::sregex_iterator(step.begin(), step.end(), quoted);
         it != std::sregex_iterator(); ++it) {
        const std::string word = (*it)[1];
        if (word.find_first_of(" <>*") != std::string::npos) continue;
        if (word.size() > 2 && word.compare(word.size() - 2, 2, "()") == 0) {
            std::string name = word.substr(0, word.size() - 2);
            const std::size_t colon = name.rfind("::");
            if (colon != std::string::npos) name = name.substr(colon + 2);
            named.functions.push_back(name);
        } else if (word.find('/') != std::string::npos && word.find('.') != std::string::npos) {
            named.paths.push_back(word);
        }
    }
    return named;
}

// Checks one recipe; returns how many files it names.
std::size_t check_recipe(const std::string& title) {
    const std::vector<std::string> steps = recipe_steps(title);
    REQUIRE(steps.size() >= 3);
    std::size_t files = 0;
    for (const std::string& step : steps) {
        INFO(title << ": " << step);
        const Named named = named_in(step);
        std::string texts;
        for (const std::string& path : named.paths) {
            INFO("file " << path);
            CHECK(exists(path));
            texts += read_text(source_dir + "/" + path);
            ++files;
        }
        for (const std::string& function : named.functions) {
            INFO("function " << function << "() in the step's files");
            CHECK(std::regex_search(texts, std::regex("\\b" + function + "\\s*\\(")));
        }
    }
    return files;
}

}  // namespace

TEST_CASE("architecture.md: the recipes name files and functions that exist", "[docs]") {
    CHECK(check_recipe("Adding a setting") >= 2);
    CHECK(check_recipe("Adding a provider") >= 8);
    CHECK(check_recipe("Adding a statistic") >= 6);
}

TEST_CASE("architecture.md: the recipe check fails on a file that does not exist", "[docs]") {
    // The check itself: a step naming a missing file or function is caught.
    const Named named = named_in("1. `cpp/stats/no_such_method.cpp`: `no_such_function()`.");
    REQUIRE(named.paths == std::vector<std::string>{"cpp/stats/no_such_method.cpp"});
    REQUIRE(named.functions == std::vector<std::string>{"no_such_function"});
    CHECK_FALSE(exists(named.paths.front()));
    CHECK(exists("cpp/stats/registry.cpp"));
}

TEST_CASE("Adding a statistic: a registered method is in the list the front ends read",
          "[docs][stats]") {
    stats::MethodInfo info;
    info.name = "demo";
    info.title = "a throwaway method";
    info.doc = "Registered by the recipe's test, then removed.";
    info.draws = stats::NullDraws::reference;
    stats::register_validation_method(info, [](stats::SimilarityBlocks&, const stats::TestInput&) {
        stats::ValidationResult result;
        result.method = "demo";
        return result;
    });
    const stats::MethodInfo* found = stats::find_method("validation", "demo");
    REQUIRE(found != nullptr);
    CHECK(stats::validation_methods().count("demo") == 1);
    // R's table of methods (llmv_test_methods()) is this list through its field list.
    bool listed = false;
    for (const stats::MethodInfo& method : stats::test_methods()) {
        const auto row = records::to_json(method);
        if (row["name"] == "demo") {
            listed = true;
            CHECK(row["test"] == "validation");
            CHECK(row["draws"] == "B");
            CHECK(row["title"] == "a throwaway method");
        }
    }
    CHECK(listed);
    // What it draws decides what the outputs and the pipeline use: B, not R.
    stats::TestOptions options;
    options.validation_method = "demo";
    CHECK(stats::draws_reference(options));
    // Step 3 not done: the settings table does not offer it, so run_tests() refuses it.
    stats::TestInput input;
    input.label = "a";
    input.labels = {"a", "b"};
    input.passage = Eigen::VectorXd::Ones(3);
    input.pools["a"] = Eigen::MatrixXd::Ones(4, 3);
    input.options = options;
    try {
        stats::run_tests(input);
        FAIL("run_tests() ran a method the settings table does not offer");
    } catch (const Error& error) {
        CHECK(error.subject().setting == "validation_method");
    }
    stats::remove_method("validation", "demo");
    CHECK(stats::find_method("validation", "demo") == nullptr);
    CHECK(stats::validation_methods().count("demo") == 0);
}

TEST_CASE("Adding a provider: a registered row is in the defaults the front ends read", "[docs]") {
    pipeline::ProviderDefaults row;
    row.kind = "chat";
    row.provider = "recipe-demo";
    row.model = "demo-model-1";
    row.checked = "2026-12-07";
    row.source = "the recipe's test";
    row.key_variables = {"RECIPE_DEMO_API_KEY"};
    pipeline::register_provider_defaults(row);
    bool listed = false;
    for (const pipeline::ProviderDefaults& entry : pipeline::provider_defaults()) {
        if (entry.provider != "recipe-demo") continue;
        listed = true;
        const auto written = records::to_json(entry);  // R's columns are these fields
        CHECK(written["model"] == "demo-model-1");
        CHECK(written["key_variables"][0] == "RECIPE_DEMO_API_KEY");
    }
    CHECK(listed);
    pipeline::remove_provider_defaults("chat", "recipe-demo");
    for (const pipeline::ProviderDefaults& entry : pipeline::provider_defaults())
        CHECK(entry.provider != "recipe-demo");
}
