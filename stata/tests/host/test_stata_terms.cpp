// Stata's data as Stata holds it, and messages in Stata's terms (issue 30, items 2, 4 and 7):
// a strL with a NUL byte, an empty vars() value, keyenv() naming an unset variable, a missing
// key or endpoint, invalid UTF-8, a human() label outside the label set, a simprompt() template
// the task cannot use, and an option value with a space. Each is refused before any call, with
// the option, the observation and the value, and the return code of its kind.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fake_server_process.hpp"
#include "fake_stata.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

const std::string kSentiment = std::string(LLMV_SOURCE_DIR) + "/prompts/simple_sentiment.toml";

void load_passages(Stata& stata) {
    stata.clear();
    stata.add_string("text",
                     {"Net interest income rose as loan demand from corporate clients recovered.",
                      "Several clients defaulted after commodity prices fell.",
                      "Deposits were broadly unchanged over the year."},
                     /*strl=*/true);
    stata.select_all();
}

std::vector<std::string> words(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> w = {
        "validate",  "text=1",     "human=0", "generate=1",      "m=6",           "n=3",
        "repeats=1", "alpha=0.05", "seed=5",  "permutations=99", "concurrency=2", "dryrun=0"};
    w.insert(w.end(), extra.begin(), extra.end());
    return w;
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

int calls_made(const FakeServerProcess& server) {
    return server.control("/_control/counters")["total"].get<int>();
}

}  // namespace

TEST_CASE("a strL with a NUL byte is refused, naming the observation and the byte",
          "[validate][stata-terms][server]") {
    FakeServerProcess server;
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    stata.var("text").strings[1] = std::string("Several clients\0 defaulted.", 27);
    set_server_locals(stata, server);
    stata.set_local("llmv_task", kSentiment);
    const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
    INFO(stata.errors);
    CHECK(r.rc == 459);
    CHECK(has(stata.errors,
              "observation 2: the strL value holds a NUL byte (binary data) at "
              "byte 16 of 27"));
    CHECK(stata.find("v_tau") == -1);
    CHECK(calls_made(server) == 0);
    // Without the NUL the same data goes through.
    stata.errors.clear();
    stata.var("text").strings[1] = "Several clients defaulted.";
    CHECK(run_like_ado(stata, {"text"}, words(), "v_").rc == 0);
}

TEST_CASE("an empty per-observation vars() value is refused like an empty passage",
          "[validate][stata-terms][server]") {
    FakeServerProcess server;
    for (const std::string blank : {"", "   "}) {
        Stata stata;
        load_plugin(stata);
        load_passages(stata);
        stata.add_string("topic_var", {"interest rates", blank, "deposit flows"}, false);
        set_server_locals(stata, server);
        stata.set_local("llmv_task", std::string(LLMV_SOURCE_DIR) + "/prompts/topic.toml");
        stata.set_local("llmv_taskvars", "topic=topic_var");
        stata.set_local("llmv_taskvars_found", "topic_var");
        const RunResult r = run_like_ado(stata, {"text", "topic_var"}, words({"varstart=2"}), "v_");
        INFO(stata.errors);
        CHECK(r.rc == 459);
        CHECK(has(stata.errors,
                  "observation 2: vars(topic=topic_var) is empty or only white "
                  "space; every passage needs a value of topic"));
        CHECK(has(stata.errors, "No call was made"));
        CHECK(stata.find("v_tau") == -1);
    }
    CHECK(calls_made(server) == 0);
}

TEST_CASE("keyenv() naming a variable that is not set is an error naming it",
          "[validate][stata-terms][server]") {
    FakeServerProcess server;
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    set_server_locals(stata, server);
    stata.set_local("llmv_task", kSentiment);
    // The ado read the unset variable: an empty key, and the variable's name.
    stata.set_local("llmv_keyenv", "LLMV_HOST_NO_SUCH_KEY");
    stata.set_local("llmv_apikey", "");
    setenv("OPENAI_API_KEY", "sk-host-secret", 1);  // the fallback it must not take
    const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
    unsetenv("OPENAI_API_KEY");
    INFO(stata.errors);
    CHECK(r.rc == 198);
    CHECK(has(stata.errors,
              "option keyenv(LLMV_HOST_NO_SUCH_KEY): the environment variable "
              "LLMV_HOST_NO_SUCH_KEY is not set or is empty"));
    CHECK(calls_made(server) == 0);
    // Set, it is the key used.
    stata.errors.clear();
    stata.set_local("llmv_apikey", "sk-host-secret");
    CHECK(run_like_ado(stata, {"text"}, words(), "v_").rc == 0);
}

TEST_CASE("a missing key or endpoint names keyenv() and baseurl(), not the engine's fields",
          "[validate][stata-terms]") {
    unsetenv("OPENAI_API_KEY");
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    stata.set_local("llmv_task", kSentiment);
    stata.set_local("llmv_provider", "openai");
    stata.set_local("llmv_model", "gpt-4o-mini");
    stata.set_local("llmv_cache", "");
    const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
    INFO(stata.errors);
    CHECK(r.rc == 198);
    CHECK(has(stata.errors, "keyenv("));
    CHECK(has(stata.errors, "OPENAI_API_KEY"));
    CHECK_FALSE(has(stata.errors, "`api_key`"));

    // The endpoint is named as Stata spells it too.
    CHECK(has(stata.errors, "baseurl()"));
    CHECK_FALSE(has(stata.errors, "`base_url`"));
}

TEST_CASE("invalid UTF-8 names encoding(), not input_encoding", "[validate][stata-terms]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    stata.var("text").strings[0] = "Caf\xe9 sales rose.";  // Latin-1, not UTF-8
    stata.set_local("llmv_task", kSentiment);
    stata.set_local("llmv_provider", "simulated");
    stata.set_local("llmv_cache", "");
    const RunResult r = run_like_ado(stata, {"text"}, words({"continue=1"}), "v_");
    const std::string said = stata.errors + stata.output;
    INFO(said);
    CHECK(has(said, "not valid UTF-8"));
    CHECK(has(said, "`encoding()` takes utf-8 or latin1"));
    CHECK_FALSE(has(said, "input_encoding"));
    // encoding(latin1) reads it.
    stata.errors.clear();
    stata.output.clear();
    CHECK(run_like_ado(stata, {"text"}, words({"encoding=latin1"}), "w_").rc == 0);
    (void)r;
}

TEST_CASE("a human() label outside the label set names human() and the observation, rc 459",
          "[validate][stata-terms]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    stata.add_string("human", {"Positive", "Negative", "Bullish"}, false);
    stata.set_local("llmv_task", kSentiment);
    stata.set_local("llmv_provider", "simulated");
    stata.set_local("llmv_cache", "");
    std::vector<std::string> w = words();
    w[2] = "human=2";
    const RunResult r = run_like_ado(stata, {"text", "human"}, w, "v_");
    INFO(stata.errors);
    CHECK(r.rc == 459);
    CHECK(has(stata.errors,
              "option human(): observation 3 holds 'Bullish'; allowed: a label of "
              "the task"));
    CHECK_FALSE(has(stata.errors, "passage 3"));
    stata.errors.clear();
    stata.var("human").strings[2] = "Neutral";
    CHECK(run_like_ado(stata, {"text", "human"}, w, "v_").rc == 0);
}

TEST_CASE("a simprompt() template the task cannot use is blamed on simprompt()",
          "[validate][stata-terms]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    stata.add_string("simprompt",
                     {"Write {n} sentences about loans, each {label}.",
                      "Write {n} sentences about defaults.",  // ignores the label
                      ""},
                     /*strl=*/true);
    stata.set_local("llmv_task", kSentiment);
    stata.set_local("llmv_provider", "simulated");
    stata.set_local("llmv_cache", "");
    const RunResult r = run_like_ado(stata, {"text", "simprompt"}, words({"simprompt=2"}), "v_");
    INFO(stata.errors);
    CHECK(r.rc == 459);
    CHECK(has(stata.errors,
              "option simprompt(): observation 2: the simulation prompt must "
              "depend on the label: use {label}."));
    CHECK_FALSE(has(stata.errors, "simple_sentiment.toml"));
    // No task-file table in a Stata user's message, and the braces escaped for SMCL (issue 42,
    // item 15): Stata would otherwise read {label} as a directive.
    CHECK_FALSE(has(stata.errors, "[label_variables]"));
    CHECK(has(stata.errors_raw, "use {c -(}label{c )-}."));
    CHECK_FALSE(has(stata.errors_raw, "{label}"));
}

TEST_CASE("an option value with a space names the option and the whole value",
          "[validate][stata-terms]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    stata.set_local("llmv_task", kSentiment);
    stata.set_local("llmv_provider", "simulated");
    stata.set_local("llmv_cache", "");
    // What `vmethod(exact test)' puts on the plugin's command line: two words.
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"vmethod=exact", "test"}, "vmethod()"},
        {{"smethod=permutation", "test"}, "smethod()"},
        {{"rule=binomial", "x"}, "rule()"},
        {{"structured=schema", "please"}, "structured()"},
        {{"encoding=utf-8", "latin1"}, "encoding()"},
    };
    for (const auto& [extra, option] : cases) {
        stata.errors.clear();
        const RunResult r = run_like_ado(stata, {"text"}, words(extra), "v_");
        INFO(extra[0] << " " << extra[1] << ": " << stata.errors);
        CHECK(r.rc == 198);
        CHECK(has(stata.errors, option));
        CHECK(has(stata.errors, extra[0].substr(extra[0].find('=') + 1) + " " + extra[1]));
        CHECK_FALSE(has(stata.errors, "is not of the form key=value"));
    }
}

TEST_CASE("r(model) and r(embedding_model) name the models the run used",
          "[validate][results][server]") {
    // Given: the models the server was asked for.
    FakeServerProcess server;
    {
        Stata stata;
        load_plugin(stata);
        load_passages(stata);
        set_server_locals(stata, server);
        stata.set_local("llmv_task", kSentiment);
        const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
        INFO(stata.errors);
        REQUIRE(r.rc == 0);
        std::set<std::string> chat_models, embedding_models;
        for (const auto& answer : server.control("/_control/served")) {
            const auto request = nlohmann::json::parse(answer["request"].get<std::string>());
            if (!request.contains("model")) continue;
            (answer["endpoint"] == "openai.chat" ? chat_models : embedding_models)
                .insert(request["model"].get<std::string>());
        }
        CHECK(chat_models == std::set<std::string>{r.macros.at("model")});
        CHECK(embedding_models == std::set<std::string>{r.macros.at("embedding_model")});
        CHECK(r.macros.at("embedding_provider") == "openai");
    }
    // Not given: the provider's own model, not an empty r(model).
    Stata simulated;
    load_plugin(simulated);
    load_passages(simulated);
    simulated.set_local("llmv_task", kSentiment);
    simulated.set_local("llmv_provider", "simulated");
    simulated.set_local("llmv_cache", "");
    const RunResult s = run_like_ado(simulated, {"text"}, words(), "v_");
    REQUIRE(s.rc == 0);
    CHECK(s.macros.at("model") == "simulated-dgp-1");
    CHECK(s.macros.at("embedding_model") == "hashed-bow-64");
}
