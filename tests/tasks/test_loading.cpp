// Loading and rendering rules of tasks, and every user-facing error they raise.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "llmvalidate/error.hpp"
#include "llmvalidate/task.hpp"

using Catch::Matchers::Contains;

namespace {

const std::string kPromptsDir = std::string(LLMV_SOURCE_DIR) + "/prompts";

// A small valid task; tests replace one part of it at a time.
std::string task_text(const std::string& labels = "labels = [\"Up\", \"Down\"]\n",
                      const std::string& annotation = "Classify: {text}",
                      const std::string& simulation = "Write {n} texts that are {label}.",
                      const std::string& extra = "") {
    return "name = \"toy\"\n" + labels + extra + "[annotation]\ntemplate = \"\"\"" + annotation +
           "\"\"\"\n[simulation]\ntemplate = \"\"\"" + simulation + "\"\"\"\n";
}

// The error a load raises: its code must be task_invalid.
std::string load_error(const std::string& text) {
    try {
        llmv::Task::from_string(text, "toy.toml");
    } catch (const llmv::Error& error) {
        CHECK(error.code() == llmv::code::task_invalid);
        return error.what();
    }
    FAIL("the task loaded, but an error was expected");
    return "";
}

}  // namespace

TEST_CASE("a minimal task loads with the engine's answer-format instructions") {
    const auto task = llmv::Task::from_string(task_text(), "toy.toml");
    CHECK(task.name() == "toy");
    CHECK(task.labels() == std::vector<std::string>{"Up", "Down"});
    CHECK(task.render_annotation("Rates fell.") ==
          "Classify: Rates fell.\n\nAnswer with a JSON object and nothing else, in the form "
          "{\"label\": \"...\"}, where the label is exactly one of: Up, Down.");
    CHECK(task.render_simulation("down", 3, "") ==
          "Write 3 texts that are Down.\n\nAnswer with a JSON object and nothing else, in the "
          "form {\"passages\": [\"...\", \"...\"]}, holding exactly 3 passages as strings.");
}

TEST_CASE("an unknown placeholder is an error naming it, the template and the allowed names") {
    const auto message = load_error(task_text("labels = [\"Up\", \"Down\"]\n", "Classify {txt}"));
    CHECK_THAT(message, Contains("{txt}"));
    CHECK_THAT(message, Contains("annotation.template"));
    CHECK_THAT(message, Contains("Allowed here: {text}, {labels}"));
    CHECK_THAT(message, Contains("toy.toml"));

    const auto in_simulation = load_error(task_text(
        "labels = [\"Up\", \"Down\"]\n", "Classify: {text}", "Write {n} {label} texts on {topc}."));
    CHECK_THAT(in_simulation, Contains("simulation.template uses the unknown placeholder {topc}"));
    CHECK_THAT(in_simulation, Contains("{label}, {n}, {length}, {example}, {labels}"));
}

TEST_CASE("a built-in of the other template is refused with a hint") {
    const auto message =
        load_error(task_text("labels = [\"Up\", \"Down\"]\n", "Classify {text} like {example}"));
    CHECK_THAT(message, Contains("{example} is a built-in of the simulation template only"));
    const auto text_in_simulation = load_error(task_text(
        "labels = [\"Up\", \"Down\"]\n", "Classify: {text}", "Write {n} {label} texts like {text}"));
    CHECK_THAT(text_in_simulation, Contains("{text} is a built-in of the annotation template only"));
}

TEST_CASE("a missing or degenerate label set is an error") {
    CHECK_THAT(load_error(task_text("")), Contains("labels is missing"));
    CHECK_THAT(load_error(task_text("labels = [\"Up\"]\n")),
               Contains("at least two labels"));
    CHECK_THAT(load_error(task_text("labels = [\"Up\", \" up \"]\n")),
               Contains("\"up\" twice"));
    CHECK_THAT(load_error(task_text("labels = [\"Up\", \"\"]\n")),
               Contains("empty label"));
    CHECK_THAT(load_error(task_text("labels = \"Up, Down\"\n")),
               Contains("labels must be an array of strings; received a string (line 2)"));
    CHECK_THAT(load_error(task_text("labels = [\"Up\", 2]\n")),
               Contains("one element is an integer"));
}

TEST_CASE("bad TOML is an error with its line number") {
    const auto message = load_error("name = \"toy\"\nlabels = [\"Up\", \"Down\"]\n[annotation\n");
    CHECK_THAT(message, Contains("toy.toml: not valid TOML at line 3"));
    const auto unterminated = load_error("name = \"toy\"\n\nlabels = [\"Up\", \"Down\"\n");
    CHECK_THAT(unterminated, Contains("not valid TOML at line"));
    // Issue 25: one line (toml11 draws the place over 5-9 lines), with the column and the text.
    for (const std::string& error : {message, unterminated}) {
        INFO(error);
        CHECK(error.find('\n') == std::string::npos);
        CHECK_THAT(error, Contains(", column "));
        CHECK_THAT(error, !Contains("[error]"));
        CHECK_THAT(error, !Contains(" --> "));
    }
    const auto missing_equals = load_error("name = \"toy\"\nlabels = [\"Up\", \"Down\"]\nfoo bar\n");
    CHECK_THAT(missing_equals, Contains("not valid TOML at line 3, column") && Contains("(foo bar)"));
}

TEST_CASE("unknown keys and bad values name the key and what is allowed") {
    CHECK_THAT(load_error(task_text("labels = [\"Up\", \"Down\"]\nlables = []\n")),
               Contains("unknown key \"lables\" (line 3); allowed keys: schema, name"));
    CHECK_THAT(load_error(task_text("labels = [\"Up\", \"Down\"]\nschema = 2\n")),
               Contains("schema must be 1; received 2"));
    CHECK_THAT(load_error("labels = [\"Up\", \"Down\"]\n[annotation]\ntemplate = \"{text}\"\n"
                          "[simulation]\ntemplate = \"{label}\"\n"),
               Contains("name is missing"));
    CHECK_THAT(load_error(task_text() + "label_case = \"upper\"\n"),
               Contains("label_case must be \"as_is\" or \"lower\"; received \"upper\""));
    CHECK_THAT(load_error(task_text("labels = [\"Up\", \"Down\"]\n[variables]\nlabel = \"x\"\n")),
               Contains("declares \"label\", a built-in placeholder"));
    CHECK_THAT(load_error(task_text() + "[label_variables.tone]\nSideways = \"flat\"\n"),
               Contains("label_variables.tone has the key \"Sideways\""));
}

TEST_CASE("templates must quote the passage and depend on the label") {
    CHECK_THAT(load_error(task_text("labels = [\"Up\", \"Down\"]\n", "Classify it.")),
               Contains("must quote the passage with {text}"));
    CHECK_THAT(load_error(task_text("labels = [\"Up\", \"Down\"]\n", "Classify: {text}",
                                    "Write {n} texts.")),
               Contains("simulation.template must depend on the label"));
    CHECK_THAT(load_error(task_text("labels = [\"Up\", \"Down\"]\n", "Classify: {text}",
                                    "")),
               Contains("simulation.template is empty"));
}

TEST_CASE("literal braces are written {{ and }}, and stray braces are errors") {
    const auto task = llmv::Task::from_string(
        task_text("labels = [\"Up\", \"Down\"]\n", "Return {{\"x\": 1}} for {text}"), "toy.toml");
    CHECK(task.render_annotation("it").rfind("Return {\"x\": 1} for it", 0) == 0);
    CHECK_THAT(load_error(task_text("labels = [\"Up\", \"Down\"]\n", "Return {\"x\": 1} {text}")),
               Contains("placeholder {\"x\": 1}, which is not a name"));
    CHECK_THAT(load_error(task_text("labels = [\"Up\", \"Down\"]\n", "Return x} {text}")),
               Contains("a '}' that closes no placeholder"));
    CHECK_THAT(load_error(task_text("labels = [\"Up\", \"Down\"]\n", "Return {x {text}")),
               Contains("a '{' that opens no placeholder"));
}

TEST_CASE("variables: defaults, required ones, per-label values and the empty-value rule") {
    const auto task = llmv::Task::from_string(
        task_text("labels = [\"Up\", \"Down\"]\nrequired_variables = [\"topic\"]\n"
                  "[variables]\nstyle = \"terse\"\n",
                  "On {topic}: {text}", "Write {n} {style} texts. {hint} They are {label}.",
                  "[label_variables.hint]\nup = \"Mention {topic} rising.\"\n"),
        "toy.toml");
    CHECK(task.accepts_variable("topic"));
    CHECK(task.accepts_variable("style"));
    CHECK_FALSE(task.accepts_variable("hint"));
    CHECK(task.render_simulation("Up", 2, "", {{"topic", "rates"}})
              .rfind("Write 2 terse texts. Mention rates rising. They are Up.", 0) == 0);
    // No value for Down: the placeholder and one of its spaces go.
    CHECK(task.render_simulation("Down", 2, "", {{"topic", "rates"}, {"style", "long"}})
              .rfind("Write 2 long texts. They are Down.", 0) == 0);

    auto error_of = [&](auto&& call) -> std::string {
        try {
            call();
        } catch (const llmv::Error& error) {
            return std::string(error.code()) + " " + error.what();
        }
        return "no error";
    };
    CHECK_THAT(error_of([&] { task.render_annotation("x"); }),
               Contains("must give a value for \"topic\""));
    CHECK_THAT(error_of([&] { task.render_annotation("x", {{"topic", "a"}, {"tpoic", "b"}}); }),
               Contains("\"tpoic\" (task toy)"));
    CHECK_THAT(error_of([&] { task.render_annotation("x", {{"topic", "a"}, {"tpoic", "b"}}); }),
               Contains("style, topic"));
    CHECK_THAT(error_of([&] { task.render_simulation("Sideways", 2, "", {{"topic", "a"}}); }),
               Contains(std::string(llmv::code::unknown_label) + " `label` must be a label of task toy"));
    CHECK_THAT(error_of([&] { task.render_simulation("Up", 0, "", {{"topic", "a"}}); }),
               Contains("`n` must be at least 1; received 0"));

    const auto fixed = task.with_variables({{"topic", "rates"}});
    CHECK(fixed.required_variables().empty());
    CHECK(fixed.render_annotation("x").rfind("On rates: x", 0) == 0);
}

TEST_CASE("{length} and {example} quote y, and label_case lower-cases {label}") {
    const auto task = llmv::Task::from_string(
        "name = \"toy\"\nlabels = [\"Mostly Up\", \"Down\"]\n[annotation]\ntemplate = "
        "\"{text}\"\n[simulation]\nlabel_case = \"lower\"\ntemplate = \"Write {n} {label} "
        "texts of {length} words like: {example}\"\n",
        "toy.toml");
    CHECK(task.simulation_depends_on_passage());
    CHECK(task.render_simulation("mostly  UP", 4, "  Sales rose\n by 9%.  ")
              .rfind("Write 4 mostly up texts of 4 words like:   Sales rose\n by 9%.  ", 0) == 0);
    CHECK_FALSE(llmv::Task::from_string(task_text(), "toy.toml").simulation_depends_on_passage());
}

TEST_CASE("labels match answers case- and space-insensitively") {
    const auto task = llmv::load_task("detailed_sentiment", kPromptsDir);
    CHECK(task.match_label("  mostly   NEGATIVE ") == std::optional<std::string>("Mostly Negative"));
    CHECK(task.match_label("Positive") == std::optional<std::string>("Positive"));
    CHECK_FALSE(task.match_label("mostlynegative").has_value());
}

TEST_CASE("the definition hash ignores layout and comments and follows every prompt part") {
    const auto base = llmv::Task::from_string(task_text(), "a.toml");
    const auto reformatted = llmv::Task::from_string(
        "# a comment\nname = 'toy'\nlabels = ['Up','Down']\n\n[simulation]\n"
        "template = 'Write {n} texts that are {label}.'\n[annotation]\ntemplate = 'Classify: {text}'\n",
        "b.toml");
    CHECK(base.definition_hash() == reformatted.definition_hash());
    CHECK(base.definition_hash().size() == 64);
    CHECK(base.definition_hash() !=
          llmv::Task::from_string(task_text("labels = [\"Up\", \"Down\"]\n", "Classify: {text}",
                                            "Write {n} texts that are {label}!"),
                                  "c.toml")
              .definition_hash());
    CHECK(base.definition_hash() !=
          llmv::Task::from_string(task_text("labels = [\"Down\", \"Up\"]\n"), "d.toml")
              .definition_hash());
    CHECK(llmv::prompt_hash("abc") ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("shipped tasks are found by name, by path, and through LLMV_PROMPTS_DIR") {
    CHECK(llmv::load_task(kPromptsDir + "/clarity.toml").name() == "clarity");
    try {
        llmv::load_task("sentimentt", kPromptsDir);
        FAIL("an unknown task name loaded");
    } catch (const llmv::Error& error) {
        CHECK(error.code() == llmv::code::task_invalid);
        CHECK_THAT(error.what(), Contains("`task` must be a path to a .toml file or the name of a shipped task: clarity, clarity_undefined, detailed_sentiment"));
        CHECK_THAT(error.what(), Contains("received \"sentimentt\""));
    }
    try {
        llmv::load_task(kPromptsDir + "/missing.toml");
        FAIL("a missing file loaded");
    } catch (const llmv::Error& error) {
        CHECK(error.code() == llmv::code::io);
    }

    const char* previous = std::getenv("LLMV_PROMPTS_DIR");
    const std::string saved = previous ? previous : "";
    setenv("LLMV_PROMPTS_DIR", kPromptsDir.c_str(), 1);
    CHECK(llmv::prompts_directory() == kPromptsDir);
    CHECK(llmv::load_task("topic").name() == "topic");
    setenv("LLMV_PROMPTS_DIR", "/nonexistent/prompts", 1);
    try {
        llmv::list_tasks();
        FAIL("a missing prompts folder was accepted");
    } catch (const llmv::Error& error) {
        CHECK_THAT(error.what(), Contains("/nonexistent/prompts"));
        CHECK_THAT(error.what(), Contains("LLMV_PROMPTS_DIR"));
    }
    unsetenv("LLMV_PROMPTS_DIR");
    CHECK(llmv::list_tasks().size() == 8);  // the compiled-in default: the source tree's prompts/
    if (previous) setenv("LLMV_PROMPTS_DIR", saved.c_str(), 1);
}

TEST_CASE("a passage's simulation template is checked like the task's own") {
    const auto task = llmv::load_task("simple_sentiment", kPromptsDir);
    llmv::TaskPassage passage;
    passage.id = "p1";
    passage.text = "Rates fell.";
    passage.simulation_templates["simple_sentiment"] = "Write {n} texts on {subject}.";
    try {
        llmv::task_for_passage(task, passage);
        FAIL("a passage template with an unknown placeholder was accepted");
    } catch (const llmv::Error& error) {
        CHECK(error.code() == llmv::code::task_invalid);
        CHECK_THAT(error.what(), Contains("passage \"p1\", simulation.simple_sentiment"));
        CHECK_THAT(error.what(), Contains("{subject}"));
    }
    passage.simulation_templates["simple_sentiment"] = "Write {n} {label} texts.";
    passage.variables["unused_here"] = "x";  // variables the task does not take are left out
    CHECK(llmv::task_for_passage(task, passage).render_simulation("Neutral", 5, "")
              .rfind("Write 5 neutral texts.", 0) == 0);
}
