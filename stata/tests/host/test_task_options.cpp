// Issue 15 from Stata: a task from labels(), annotation() and simulation() (the same numbers as
// the same task written as a TOML file), vars(NAME=varname) with a value per passage (Tables 5
// and 6: a topic per passage, checked in the prompts the fake server received), vars(NAME="text")
// for one value, and a general task without genre refused before any call.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fake_server_process.hpp"
#include "fake_stata.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

const std::vector<std::string> kTexts = {
    "Net interest income rose as loan demand from corporate clients recovered.",
    "Several clients defaulted after commodity prices fell.",
    "Deposits were broadly unchanged over the year.",
};
const std::vector<std::string> kTopics = {"interest rates", "commodity prices", "deposit flows"};

void load_passages(Stata& stata) {
    stata.clear();
    stata.add_string("text", kTexts, /*strl=*/true);
    stata.add_string("topic_var", kTopics, false);
    stata.select_all();
}

std::vector<std::string> words(const std::string& extra = "") {
    std::vector<std::string> w = {
        "validate",      "text=1",    "human=0",    "generate=1", "m=20",
        "n=5",           "repeats=1", "alpha=0.05", "seed=5",     "permutations=99",
        "concurrency=4", "dryrun=0",  "varstart=2"};
    if (!extra.empty()) w.push_back(extra);
    return w;
}

const std::string kAnnotation =
    "Decide whether this news sentence is Good, Bad or Mixed for the bank.\nSENTENCE: {text}";
const std::string kSimulation =
    "Write {n} one-sentence news items about a bank's clients that are {label} for the bank.";

void task_from_options(Stata& stata) {
    stata.set_local("llmv_task", "");
    stata.set_local("llmv_labels", "Good Bad `\"Mixed\"'");
    stata.set_local("llmv_annotation", kAnnotation);
    stata.set_local("llmv_simulation", kSimulation);
}

// The user prompt of each chat request the fake server answered.
std::vector<std::string> chat_prompts(const FakeServerProcess& server) {
    std::vector<std::string> prompts;
    for (const auto& answer : server.control("/_control/served")) {
        if (answer["endpoint"] != "openai.chat") continue;
        const auto request = nlohmann::json::parse(answer["request"].get<std::string>());
        for (const auto& message : request.at("messages"))
            if (message.at("role") == "user")
                prompts.push_back(message.at("content").get<std::string>());
    }
    return prompts;
}

}  // namespace

TEST_CASE("a task from labels(), annotation(), simulation() equals the same task as a TOML file",
          "[validate][task-options]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    stata.set_local("llmv_provider", "simulated");
    stata.set_local("llmv_cache", "");
    task_from_options(stata);
    const RunResult from_options = run_like_ado(stata, {"text"}, words(), "o_");
    INFO(stata.errors << stata.output);
    REQUIRE(from_options.rc == 0);
    REQUIRE(from_options.store_rc == 0);
    CHECK(from_options.macros.at("labels") == "`\"Good\"' `\"Bad\"' `\"Mixed\"'");

    // The same task, written by hand as a task file.
    const std::string path = temporary_path(".toml");
    {
        std::ofstream file(path);
        file << "schema = 1\nname = \"custom\"\nlabels = [\"Good\", \"Bad\", \"Mixed\"]\n\n"
                "[annotation]\ntemplate = \"\"\"\n"
             << kAnnotation << "\"\"\"\n\n[simulation]\ntemplate = \"\"\"\n"
             << kSimulation << "\"\"\"\n";
    }
    stata.set_local("llmv_labels", "");
    stata.set_local("llmv_annotation", "");
    stata.set_local("llmv_simulation", "");
    stata.set_local("llmv_task", path);
    const RunResult from_file = run_like_ado(stata, {"text"}, words(), "f_");
    REQUIRE(from_file.rc == 0);
    for (const std::string suffix : {"tau", "crit", "p", "bt_acc", "sep_p", "p_bh"})
        for (std::size_t obs = 0; obs < kTexts.size(); ++obs) {
            INFO(suffix << " of observation " << obs + 1);
            CHECK(same_bits(stata.var("o_" + suffix).numbers[obs],
                            stata.var("f_" + suffix).numbers[obs]));
        }
    CHECK(stata.var("o_label").strings == stata.var("f_label").strings);
    for (std::size_t obs = 0; obs < kTexts.size(); ++obs)
        CHECK(stata.var("o_tau").numbers[obs] < missing());
    std::remove(path.c_str());
}

TEST_CASE("a task from options: errors name the option, the value and what is allowed",
          "[validate][task-options][errors]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    stata.set_local("llmv_provider", "simulated");
    stata.set_local("llmv_cache", "");
    SECTION("task() and a task from options together") {
        task_from_options(stata);
        stata.set_local("llmv_task", "/some/task.toml");
        REQUIRE(run_like_ado(stata, {"text"}, words(), "v_").rc == 198);
        CHECK(stata.errors.find("give either task() or labels(), annotation() and simulation(), "
                                "not both; received task(/some/task.toml)") != std::string::npos);
    }
    SECTION("a part missing") {
        task_from_options(stata);
        stata.set_local("llmv_simulation", "");
        REQUIRE(run_like_ado(stata, {"text"}, words(), "v_").rc == 198);
        CHECK(stata.errors.find("needs labels(), annotation() and simulation() together; missing "
                                "simulation()") != std::string::npos);
    }
    SECTION("no task at all") {
        stata.set_local("llmv_task", "");
        REQUIRE(run_like_ado(stata, {"text"}, words(), "v_").rc == 198);
        CHECK(stata.errors.find("option task() is required") != std::string::npos);
    }
    SECTION("an unknown placeholder names annotation()") {
        task_from_options(stata);
        stata.set_local("llmv_annotation", "Label this: {txet}");
        REQUIRE(run_like_ado(stata, {"text"}, words(), "v_").rc == 198);
        INFO(stata.errors);
        CHECK(stata.errors.find("`annotation()`") != std::string::npos);
        CHECK(stata.errors.find("txet") != std::string::npos);
    }
    SECTION("a malformed vars()") {
        task_from_options(stata);
        stata.set_local("llmv_taskvars", "topic topic_var");
        REQUIRE(run_like_ado(stata, {"text"}, words(), "v_").rc == 198);
        CHECK(stata.errors.find("option vars() must be NAME=VARIABLE (a value per passage) or "
                                "NAME=\"text\" (one value for every passage) pairs") !=
              std::string::npos);
        CHECK(stata.errors.find("received `topic topic_var' (topic has no =)") !=
              std::string::npos);
    }
    SECTION("vars() naming something that is not a variable") {
        stata.set_local("llmv_task", std::string(LLMV_SOURCE_DIR) + "/prompts/topic.toml");
        stata.set_local("llmv_taskvars", "topic=no_such_var");
        stata.set_local("llmv_taskvars_found", "");
        REQUIRE(run_like_ado(stata, {"text"}, words(), "v_").rc == 198);
        CHECK(stata.errors.find("received topic=no_such_var, and no_such_var is not a variable") !=
              std::string::npos);
    }
    SECTION("vars() naming a variable the task does not have") {
        stata.set_local("llmv_task", std::string(LLMV_SOURCE_DIR) + "/prompts/topic.toml");
        stata.set_local("llmv_taskvars", "topic=\"rates\" tone=\"dry\"");
        REQUIRE(run_like_ado(stata, {"text"}, words(), "v_").rc == 198);
        CHECK(stata.errors.find("option vars() must name variables of task topic; received tone; "
                                "allowed: topic") != std::string::npos);
    }
    CHECK(stata.find("v_tau") == -1);
}

// Tables 5 and 6 per passage: the topic task with each passage's own topic from a variable.
TEST_CASE("vars(topic=varname): each passage's prompts carry its own topic",
          "[validate][task-options][server]") {
    FakeServerProcess server;
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    set_server_locals(stata, server);
    stata.set_local("llmv_task", std::string(LLMV_SOURCE_DIR) + "/prompts/topic.toml");
    stata.set_local("llmv_taskvars", "topic=topic_var");
    stata.set_local("llmv_taskvars_found", "topic_var");
    const RunResult r = run_like_ado(stata, {"text", "topic_var"}, words(), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.scalars.at("N_succeeded") == 3);

    const auto prompts = chat_prompts(server);
    std::set<std::string> simulated_topics;
    std::size_t annotations = 0;
    for (const std::string& prompt : prompts) {
        INFO(prompt);
        // An annotation of passage i names topic i and no other.
        for (std::size_t i = 0; i < kTexts.size(); ++i) {
            if (prompt.find("PASSAGE: " + kTexts[i]) == std::string::npos) continue;
            ++annotations;
            for (std::size_t j = 0; j < kTopics.size(); ++j)
                CHECK((prompt.find("'" + kTopics[j] + "'") != std::string::npos) == (i == j));
        }
        // A simulation prompt asks to discuss (or not) exactly one of the passages' topics.
        if (prompt.find("Write ") != std::string::npos &&
            prompt.find("10-K") != std::string::npos) {
            int named = 0;
            for (const std::string& topic : kTopics)
                if (prompt.find("topic '" + topic + "'") != std::string::npos) {
                    ++named;
                    simulated_topics.insert(topic);
                }
            CHECK(named == 1);
        }
    }
    CHECK(annotations == kTexts.size());
    CHECK(simulated_topics == std::set<std::string>(kTopics.begin(), kTopics.end()));
}

// simprompt(): a simulation prompt per passage, as the paper's Section 4 passages have.
TEST_CASE("simprompt(varname): each passage's simulation prompts are its own",
          "[validate][task-options][server]") {
    FakeServerProcess server;
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    const std::vector<std::string> prompts = {
        "Write {n} sentences like a bank's report on loan demand, each {label}.",
        "Write {n} sentences like a note on defaults after a price fall, each {label}.",
        ""};  // the third passage keeps the task's
    stata.add_string("simprompt", prompts, /*strl=*/true);
    set_server_locals(stata, server);
    stata.set_local("llmv_task", std::string(LLMV_SOURCE_DIR) + "/prompts/simple_sentiment.toml");
    std::vector<std::string> w = words("simprompt=2");
    for (auto& word : w)
        if (word == "varstart=2") word = "varstart=3";
    const RunResult r = run_like_ado(stata, {"text", "simprompt"}, w, "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.scalars.at("N_succeeded") == 3);
    std::size_t loan = 0, defaults = 0, task_own = 0;
    for (const std::string& prompt : chat_prompts(server)) {
        if (prompt.find("like a bank's report on loan demand") != std::string::npos) ++loan;
        if (prompt.find("like a note on defaults after a price fall") != std::string::npos)
            ++defaults;
        if (prompt.find("10-K") != std::string::npos && prompt.find("Write ") != std::string::npos)
            ++task_own;
    }
    // Each label's pool of each passage: ceil(M/n) = 4 calls per label, 3 labels.
    CHECK(loan == 12);
    CHECK(defaults == 12);
    CHECK(task_own == 12);
}

TEST_CASE(
    "a general task without genre fails before any call, naming genre, and with it every "
    "simulation prompt describes the texts",
    "[validate][task-options][server][errors]") {
    FakeServerProcess server;
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    set_server_locals(stata, server);
    stata.set_local("llmv_task", std::string(LLMV_SOURCE_DIR) + "/prompts/general_sentiment.toml");
    const RunResult refused = run_like_ado(stata, {"text"}, words(), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(refused.rc == 198);
    CHECK(stata.errors.find("task general_sentiment requires the variable genre, which vars() does "
                            "not give; give it with vars(genre=\"...\")") != std::string::npos);
    CHECK(stata.errors.find("No call was made.") != std::string::npos);
    CHECK(server.control("/_control/counters")["total"] == 0);
    CHECK(stata.find("v_tau") == -1);
    // The dry run refuses it too.
    std::vector<std::string> dry = words();
    dry[3] = "generate=0";
    dry[11] = "dryrun=1";
    CHECK(run_like_ado(stata, {"text"}, dry, "v_").rc == 198);

    const std::string genre = "news sentences about a bank's clients, one sentence each";
    stata.set_local("llmv_taskvars", "genre=\"" + genre + "\"");
    stata.errors.clear();
    const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
    REQUIRE(r.rc == 0);
    std::size_t simulations = 0;
    for (const std::string& prompt : chat_prompts(server)) {
        if (prompt.find("Write ") == std::string::npos) continue;
        ++simulations;
        CHECK(prompt.find(genre) != std::string::npos);
    }
    CHECK(simulations > 0);
}

