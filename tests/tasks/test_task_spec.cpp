// Tasks built from parts (R's llm_task(), the CLI's --labels/--annotation-prompt/
// --simulation-prompt): written as TOML and read by the one task parser, with errors that name
// the front end's argument; required variables and their descriptions (general tasks).
#include <catch2/catch.hpp>

#include <string>

#include "llmvalidate/error.hpp"
#include "llmvalidate/task.hpp"

using Catch::Matchers::Contains;
using namespace llmv;

namespace {

TaskSpec toy_spec() {
    TaskSpec spec;
    spec.name = "toy";
    spec.labels = {"Up", "Down"};
    spec.annotation = "Classify: {text}";
    spec.simulation = "Write {n} texts that are {label}.";
    return spec;
}

const std::map<std::string, std::string> kRArguments = {
    {"labels", "`labels`"},
    {"annotation.template", "`annotation`"},
    {"simulation.template", "`simulation`"},
    {"label_variables", "`label_instructions`"},
};

std::string spec_error(const TaskSpec& spec) {
    try {
        task_from_spec(spec, "built by llm_task()", kRArguments);
    } catch (const Error& error) {
        CHECK(error.code() == code::task_invalid);
        return error.what();
    }
    FAIL("the task was built, but an error was expected");
    return "";
}

}  // namespace

TEST_CASE("a task from parts is the task its TOML text holds, with the same hash", "[task_spec]") {
    TaskSpec spec = toy_spec();
    spec.annotation = "Quote \"{text}\" and a backslash \\ and a tab\t here.\nSecond line.";
    spec.simulation_format = "";
    spec.label_case = "lower";
    spec.variables = {{"firm", "a bank's \"unit\""}};
    spec.label_variables = {{"extra", {{"Down", "Stress the {firm}."}}}};
    const Task built = task_from_spec(spec, "parts", {});
    const Task read = Task::from_string(task_toml(spec), "file.toml");
    CHECK(built.definition_hash() == read.definition_hash());
    CHECK(built.annotation_template() == spec.annotation);
    CHECK(built.simulation_answer_format().empty());
    CHECK(built.render_simulation("Down", 3, "y") == "Write 3 texts that are down.");
    CHECK(built.label_variables().at("extra").at("Down") == "Stress the {firm}.");
    // Unset answer formats are the engine's, as in a file without them.
    const Task plain = task_from_spec(toy_spec(), "parts", {});
    CHECK_THAT(plain.annotation_answer_format(), Contains("JSON"));
}

TEST_CASE("an error of a task from parts names the front end's argument", "[task_spec]") {
    TaskSpec no_text = toy_spec();
    no_text.annotation = "Classify this.";
    const std::string message = spec_error(no_text);
    CHECK_THAT(message, Contains("task built by llm_task(): `annotation` must quote the passage with {text}"));

    TaskSpec unknown = toy_spec();
    unknown.simulation = "Write {n} {label} texts about {firm}.";
    CHECK_THAT(spec_error(unknown), Contains("`simulation` uses the unknown placeholder {firm}"));
    CHECK_THAT(spec_error(unknown), Contains("Allowed here: {label}"));

    TaskSpec one_label = toy_spec();
    one_label.labels = {"Up"};
    CHECK_THAT(spec_error(one_label), Contains("`labels` must hold at least two labels"));

    TaskSpec bad_key = toy_spec();
    bad_key.label_variables = {{"extra", {{"Sideways", "x"}}}};
    CHECK_THAT(spec_error(bad_key), Contains("`label_instructions`.extra has the key \"Sideways\""));

    // A field without an argument name keeps its TOML name.
    TaskSpec bad_case = toy_spec();
    bad_case.label_case = "upper";
    CHECK_THAT(spec_error(bad_case), Contains("simulation.label_case must be"));
}

TEST_CASE("a required variable left unset is an error that quotes its description", "[task_spec]") {
    TaskSpec spec = toy_spec();
    spec.simulation = "Write {n} {genre} that are {label}.";
    spec.required_variables = {"genre"};
    spec.variable_descriptions = {{"genre", "describe your texts: kind, style, length."}};
    const Task task = task_from_spec(spec, "parts", {});
    try {
        task.render_simulation("Up", 2, "y");
        FAIL("no error");
    } catch (const Error& error) {
        CHECK(error.code() == code::task_invalid);
        CHECK_THAT(error.what(), Contains("`variables` must give a value for \"genre\""));
        CHECK_THAT(error.what(), Contains("genre: describe your texts: kind, style, length."));
    }
    CHECK(task.render_simulation("Up", 2, "y", {{"genre", "tweets"}}).rfind("Write 2 tweets that are Up.\n\n", 0) == 0);
}

TEST_CASE("variable_descriptions may describe only declared variables", "[task_spec]") {
    TaskSpec spec = toy_spec();
    spec.variable_descriptions = {{"genre", "x"}};
    CHECK_THAT(spec_error(spec), Contains("variable_descriptions describes \"genre\", which the task "
                                          "does not declare; declared: none"));
}

TEST_CASE("the general task requires genre and says why, naming the paper's Section 4.1",
          "[task_spec][catalog]") {
    const Task task = load_task("general_sentiment");
    REQUIRE(task.required_variables() == std::vector<std::string>{"genre"});
    try {
        task.render_annotation("A passage.");
        FAIL("no error");
    } catch (const Error& error) {
        const std::string message = error.what();
        CHECK_THAT(message, Contains("\"genre\""));
        CHECK_THAT(message, Contains("the simulation prompt must describe your texts"));
    }
    const std::string prompt =
        task.render_simulation("Positive", 5, "y", {{"genre", "comments on a Reddit investing forum"}});
    CHECK_THAT(prompt, Contains("Write 5 arbitrary passages of the following kind: comments on a "
                                "Reddit investing forum."));
    CHECK_THAT(prompt, Contains("characterized as positive"));
    // The annotation prompt is the paper's simple-sentiment one.
    CHECK(task.annotation_template() == load_task("simple_sentiment").annotation_template());
}

TEST_CASE("shipped_task_file finds a task by alias and refuses unknown names", "[task_spec][catalog]") {
    CHECK_THAT(shipped_task_file("sentiment"), Contains("simple_sentiment.toml"));
    CHECK_THROWS_WITH(shipped_task_file("nosuch"), Contains("general_sentiment"));
    CHECK_THROWS_WITH(shipped_task_file("../prompts/clarity"), Contains("\"../prompts/clarity\""));
}
