// The task catalog (issue 10): one canonical name per shipped task plus aliases, accepted by
// every front end; an unknown name lists the shipped tasks with their aliases.
#include <catch2/catch.hpp>

#include <algorithm>

#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/task.hpp"

using namespace llmv;

TEST_CASE("every alias names a shipped task, and loads the same task as its canonical name",
          "[catalog]") {
    const std::vector<std::string> shipped = list_tasks();
    for (const TaskAlias& entry : task_aliases()) {
        INFO(entry.name);
        CHECK(std::find(shipped.begin(), shipped.end(), entry.name) != shipped.end());
        const Task canonical = load_task(entry.name);
        for (const std::string& alias : entry.aliases) {
            CHECK(canonical_task_name(alias) == entry.name);
            CHECK(std::find(shipped.begin(), shipped.end(), alias) == shipped.end());
            CHECK(load_task(alias).labels() == canonical.labels());
        }
    }
    CHECK(canonical_task_name("sentiment") == "simple_sentiment");
    CHECK(canonical_task_name("simple_sentiment") == "simple_sentiment");
}

TEST_CASE("an unknown task name lists the shipped tasks and their aliases", "[catalog]") {
    try {
        load_task("sentimentt");
        FAIL("no error");
    } catch (const Error& error) {
        const std::string message = error.what();
        CHECK(error.code() == code::task_invalid);
        CHECK(message.find("\"sentimentt\"") != std::string::npos);
        CHECK(message.find("simple_sentiment (or sentiment)") != std::string::npos);
        CHECK(message.find("temporal_focus (or temporal)") != std::string::npos);
        CHECK(message.find("clarity") != std::string::npos);
    }
}

TEST_CASE("describe_task_names() describes a list of names as describe_tasks() the folder",
          "[catalog]") {
    CHECK(describe_task_names(list_tasks()) == describe_tasks());
    CHECK(describe_task_names({"clarity", "simple_sentiment"}) ==
          "clarity, simple_sentiment (or sentiment)");
    CHECK(describe_task_names({}).empty());
}

TEST_CASE("task_file() is the file load_task() reads, and task_of() a run's task", "[catalog]") {
    CHECK(task_file("sentiment") == shipped_task_file("simple_sentiment"));
    CHECK(task_file("my/task") == "my/task");
    CHECK(task_file("mine.toml") == "mine.toml");
    CHECK_THROWS_AS(task_file("sentimentt"), Error);

    pipeline::ValidationConfig config;
    config.task_path = "sentiment";
    const Task shipped = task_of(config, "unused");
    CHECK(shipped.name() == "simple_sentiment");
    CHECK(shipped.origin() == shipped_task_file("simple_sentiment"));
    // TOML text wins over the path, under the name the caller gives it.
    TaskSpec spec;
    spec.name = "mine";
    spec.labels = {"Yes", "No"};
    spec.annotation = "Is it so? {text}";
    spec.simulation = "Write {n} texts that are {label}.";
    config.task_source = task_toml(spec);
    const Task built = task_of(config, "built by llm_task()");
    CHECK(built.name() == "mine");
    CHECK(built.origin() == "built by llm_task()");
}
