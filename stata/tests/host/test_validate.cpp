// `llmvalidate varname, task()`: the plugin's validate subcommand through the pipeline, with the
// `simulated` provider (a synthetic DGP, no network) and against the fake provider server on
// 127.0.0.1 (the real OpenAI wire protocol).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fake_server_process.hpp"
#include "fake_stata.hpp"
#include "host_test_helpers.hpp"
#include "section4_csv.hpp"

using namespace host;

namespace {

const std::string kTask = std::string(LLMV_SOURCE_DIR) + "/prompts/simple_sentiment.toml";

// Passages: a strL variable; observation 5 is outside the sample.
void load_passages(Stata& stata) {
    stata.clear();
    stata.add_string("text",
                     {"Demand for the bank's loans rose sharply and clients reported record "
                      "profits in every segment.",
                      "Clients were hit by falling prices and several defaulted on their loans.",
                      "The outlook for the bank's clients remains uncertain.",
                      "The bank's market conditions were broadly unchanged over the quarter.",
                      "This passage is outside the sample and must be left alone."},
                     /*strl=*/true);
    stata.select_all();
    stata.if_mask = {true, true, true, true, false};
}

std::vector<std::string> words(const std::string& extra = "") {
    std::vector<std::string> w = {"validate",      "text=1",  "human=0",         "generate=1",
                                  "m=6",           "n=3",     "repeats=1",       "alpha=0.05",
                                  "threshold=0.9", "seed=11", "permutations=99", "concurrency=4",
                                  "dryrun=0"};
    if (!extra.empty()) w.push_back(extra);
    return w;
}

void simulated_locals(Stata& stata, const std::string& cache) {
    stata.set_local("llmv_task", kTask);
    stata.set_local("llmv_provider", "simulated");
    stata.set_local("llmv_cache", cache);
}

void server_locals(Stata& stata, const FakeServerProcess& server, const std::string& cache) {
    stata.set_local("llmv_task", kTask);
    set_server_locals(stata, server, cache);
}

}  // namespace

TEST_CASE("validate with the simulated provider: results in the marked sample only", "[validate]") {
    const std::string cache = temporary_path(".sqlite");
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    simulated_locals(stata, cache);
    const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.store_rc == 0);
    REQUIRE(stata.unexpected.empty());
    REQUIRE(r.scalars.at("N") == 4);
    REQUIRE(r.macros.at("synthetic") == "yes");
    REQUIRE(r.scalars.at("calls") > 0);
    for (int obs : {1, 2, 3, 4}) {
        INFO("observation " << obs);
        REQUIRE(stata.var("v_tau").numbers[static_cast<std::size_t>(obs - 1)] < missing());
        REQUIRE_FALSE(stata.var("v_label").strings[static_cast<std::size_t>(obs - 1)].empty());
    }
    for (int obs : {5}) {
        INFO("observation " << obs);
        REQUIRE(stata.var("v_tau").numbers[static_cast<std::size_t>(obs - 1)] == missing());
        REQUIRE(stata.var("v_verdict").numbers[static_cast<std::size_t>(obs - 1)] == missing());
        REQUIRE(stata.var("v_label").strings[static_cast<std::size_t>(obs - 1)].empty());
    }

    // The same run again gives the same numbers (the simulated DGP is seeded by draw).
    const std::vector<double> first_tau = stata.var("v_tau").numbers;
    const RunResult again = run_like_ado(stata, {"text"}, words(), "w_");
    REQUIRE(again.rc == 0);
    for (std::size_t i = 0; i < first_tau.size(); ++i)
        REQUIRE(same_bits(first_tau[i], stata.var("w_tau").numbers[i]));
    std::remove(cache.c_str());
}

TEST_CASE("validate: Break mid-run stores nothing and a re-run resumes from the cache",
          "[validate][break][server]") {
    FakeServerProcess server;
    std::vector<double> reference;
    double full_calls = 0;
    {
        const std::string fresh = temporary_path(".sqlite");
        Stata stata;
        load_plugin(stata);
        load_passages(stata);
        server_locals(stata, server, fresh);
        const RunResult full = run_like_ado(stata, {"text"}, words(), "v_");
        INFO(stata.errors);
        REQUIRE(full.store_rc == 0);
        reference = stata.var("v_tau").numbers;
        full_calls = full.scalars.at("calls");
        std::remove(fresh.c_str());
    }
    const std::string cache = temporary_path(".sqlite");
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    server_locals(stata, server, cache);
    const auto before = stata.data;
    stata.break_after_polls = 2;
    const RunResult broken = run_like_ado(stata, {"text"}, words(), "v_");
    REQUIRE(broken.rc == 1);
    REQUIRE(stata.errors.find("Break") != std::string::npos);
    REQUIRE(stata.data == before);

    // The re-run pays only for what the interrupted run did not finish, and gives the numbers
    // of a run that was never interrupted.
    stata.break_after_polls = -1;
    stata.stop_flag = 0;
    const RunResult resumed = run_like_ado(stata, {"text"}, words(), "v_");
    INFO(stata.errors);
    REQUIRE(resumed.rc == 0);
    REQUIRE(resumed.store_rc == 0);
    REQUIRE(resumed.scalars.at("calls") < full_calls);
    REQUIRE(resumed.scalars.at("cache_hits") > 0);
    for (std::size_t i = 0; i < reference.size(); ++i)
        REQUIRE(same_bits(reference[i], stata.var("v_tau").numbers[i]));
    // And a third run is served entirely by the cache.
    const RunResult third = run_like_ado(stata, {"text"}, words(), "w_");
    REQUIRE(third.rc == 0);
    REQUIRE(third.scalars.at("calls") == 0);
    std::remove(cache.c_str());
}

TEST_CASE("validate: dry run counts calls and creates nothing", "[validate]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    simulated_locals(stata, "");
    std::vector<std::string> w = words();
    w[3] = "generate=0";
    w.back() = "dryrun=1";
    const auto before = stata.data;
    const RunResult r = run_like_ado(stata, {"text"}, w, "v_");
    INFO(stata.errors);
    REQUIRE(r.rc == 0);
    REQUIRE(r.macros.at("dryrun") == "yes");
    REQUIRE(r.scalars.at("calls") > 0);
    REQUIRE(r.scalars.at("embedding_tokens") > 0);
    // The simulated provider costs nothing, whatever the price table says.
    if (r.scalars.count("dollars")) REQUIRE(r.scalars.at("dollars") == 0);
    REQUIRE(stata.data == before);
}

TEST_CASE("validate: the price table the ado finds on the ado-path prices the dry run",
          "[validate][prices]") {
    if (const char* chosen = std::getenv("LLMV_PRICE_TABLE"); chosen && *chosen) {
        WARN("LLMV_PRICE_TABLE is set, and it wins over the ado-path's table: not checked");
        return;
    }
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    simulated_locals(stata, "");
    std::vector<std::string> w = words();
    w[3] = "generate=0";
    w.back() = "dryrun=1";
    // A copy of the shipped table at a path of its own: the dry run must name that one.
    const std::string table = temporary_path(".csv");
    {
        std::ifstream shipped(std::string(LLMV_NET_BUILD_FOLDER) + "/llmvalidate_prices.csv",
                              std::ios::binary);
        REQUIRE(shipped);
        std::ofstream copy(table, std::ios::binary);
        copy << shipped.rdbuf();
    }
    stata.set_local("llmv_price_table", table);
    const RunResult priced = run_like_ado(stata, {"text"}, w, "v_");
    INFO(stata.errors);
    REQUIRE(priced.rc == 0);
    REQUIRE(priced.macros.at("price_table") == table);

    // A table that does not parse is refused, naming it: the plugin read the ado's path.
    {
        std::ofstream broken(table, std::ios::binary | std::ios::trunc);
        broken << "provider,model\nopenai\n";
    }
    const RunResult refused = run_like_ado(stata, {"text"}, w, "v_");
    REQUIRE(refused.rc != 0);
    REQUIRE(stata.errors.find(table) != std::string::npos);
    std::remove(table.c_str());
}

TEST_CASE("validate: bad configuration is refused before any call", "[validate][errors]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    SECTION("a task file that does not exist") {
        simulated_locals(stata, "");
        stata.set_local("llmv_task", "/nonexistent/task.toml");
        const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
        REQUIRE(r.rc != 0);
        REQUIRE(stata.errors.find("/nonexistent/task.toml") != std::string::npos);
    }
    SECTION("batchapi with a provider that has no batch API") {
        // With a cache, so that the provider is what is checked.
        simulated_locals(stata, temporary_path(".sqlite"));
        std::vector<std::string> w = words();
        w.push_back("batchapi=1");
        const RunResult r = run_like_ado(stata, {"text"}, w, "v_");
        REQUIRE(r.rc != 0);
        INFO(stata.errors);
        // The Stata option, not the engine's field `batch_api`.
        REQUIRE(stata.errors.find(
                    "`batchapi` must be used only with a chat provider that has a batch API") !=
                std::string::npos);
        REQUIRE(stata.errors.find("received the chat provider simulated") != std::string::npos);
    }
    SECTION("batchapi without a cache") {
        simulated_locals(stata, "");
        std::vector<std::string> w = words();
        w.push_back("batchapi=1");
        const RunResult r = run_like_ado(stata, {"text"}, w, "v_");
        REQUIRE(r.rc != 0);
        REQUIRE(stata.errors.find("`cache()` must be a cache file") != std::string::npos);
    }
    SECTION("an unknown provider") {
        simulated_locals(stata, "");
        stata.set_local("llmv_provider", "no-such-provider");
        const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
        REQUIRE(r.rc == 198);
        REQUIRE(stata.errors.find("no-such-provider") != std::string::npos);
        REQUIRE(stata.errors.find("`provider()`") != std::string::npos);  // the Stata option
    }
    SECTION("an unknown embedding provider names embedding(), not the engine's field") {
        simulated_locals(stata, "");
        stata.set_local("llmv_embedding", "no-such-embedder");
        const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
        REQUIRE(r.rc == 198);
        INFO(stata.errors);
        REQUIRE(stata.errors.find("`embedding()`") != std::string::npos);
        REQUIRE(stata.errors.find("embedding_provider") == std::string::npos);
        REQUIRE(stata.errors.find("no-such-embedder") != std::string::npos);
    }
    SECTION("numeric passages") {
        stata.add_numeric("number", {1, 2, 3, 4, 5});
        simulated_locals(stata, "");
        const RunResult r = run_like_ado(stata, {"number"}, words(), "v_");
        REQUIRE(r.rc == 109);
    }
    SECTION("every passage empty") {
        stata.var("text").strings = {"", " ", "", "\t", ""};
        simulated_locals(stata, "");
        const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
        REQUIRE(r.rc == 459);
        REQUIRE(stata.errors.find("empty") != std::string::npos);
    }
}

// The fake provider server, as a child process on 127.0.0.1: the OpenAI chat and embedding
// wire formats, with the key passed as the ado passes it (a local, never printed).
TEST_CASE("validate end to end against the fake provider server", "[validate][server]") {
    FakeServerProcess server;
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    server_locals(stata, server, "");
    const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.scalars.at("N") == 4);
    REQUIRE(r.macros.at("synthetic") == "no");
    REQUIRE(r.scalars.at("calls") > 0);
    REQUIRE(stata.output.find("sk-host-secret") == std::string::npos);
    REQUIRE(stata.errors.find("sk-host-secret") == std::string::npos);

    REQUIRE(r.scalars.at("N_succeeded") == 4);
    REQUIRE(r.scalars.at("N_failed") == 0);

    // A wrong key: every passage fails with a message that names the problem, never the key.
    // No passage validated is an error with the rc of the failure's category (673: the key was
    // refused), as `llmvalidate batch` exits nonzero (issue 10); nothing is stored.
    stata.set_local("llmv_apikey", "sk-wrong");
    stata.output.clear();
    stata.errors.clear();
    const auto before = stata.data;
    const RunResult refused = run_like_ado(stata, {"text"}, words(), "w_");
    INFO(stata.errors << stata.output);
    REQUIRE(refused.rc == 673);
    REQUIRE(stata.data == before);
    REQUIRE(stata.errors.find("no passage could be validated: all 4 failed") != std::string::npos);
    REQUIRE(stata.errors.find("Option continue") != std::string::npos);
    REQUIRE(stata.output.find("sk-wrong") == std::string::npos);
    REQUIRE(stata.errors.find("sk-wrong") == std::string::npos);
    REQUIRE(stata.output.find("observation 1:") != std::string::npos);

    // continue: the results are stored, every one missing, and r() counts the failures.
    stata.output.clear();
    const RunResult carried_on = run_like_ado(stata, {"text"}, words("continue=1"), "x_");
    REQUIRE(carried_on.rc == 0);
    REQUIRE(carried_on.store_rc == 0);
    REQUIRE(carried_on.scalars.at("N_failed") == 4);
    REQUIRE(carried_on.scalars.at("N_succeeded") == 0);
    REQUIRE(stata.var("x_tau").numbers[0] == missing());
    REQUIRE(stata.output.find("observation 1:") != std::string::npos);
}

// A port on 127.0.0.1 that nothing listens on: bound, read and closed again.
static int closed_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    socklen_t size = sizeof address;
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0);
    ::close(fd);
    return ntohs(address.sin_port);
}

// Issue 10: with the provider unreachable every passage failed and validate returned rc 0.
// Now it is the transport's rc (677); maxretries(0) makes the failure immediate.
TEST_CASE("validate: a closed port fails the command with rc 677", "[validate][errors]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    stata.set_local("llmv_task", kTask);
    stata.set_local("llmv_provider", "openai");
    stata.set_local("llmv_model", "fake-chat");
    stata.set_local("llmv_embedding_model", "fake-embed");
    stata.set_local("llmv_base_url", "http://127.0.0.1:" + std::to_string(closed_port()) + "/v1");
    stata.set_local("llmv_apikey", "sk-host-secret");
    stata.set_local("llmv_cache", "");
    const RunResult r = run_like_ado(stata, {"text"}, words("maxretries=0"), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 677);
    REQUIRE(stata.errors.find("no passage could be validated: all 4 failed") != std::string::npos);
    REQUIRE(stata.output.find("observation 4:") != std::string::npos);
    REQUIRE(stata.find("v_tau") == -1);
    // An out-of-range maxretries() is refused by the settings table, naming the option.
    stata.errors.clear();
    REQUIRE(run_like_ado(stata, {"text"}, words("maxretries=101"), "v_").rc == 198);
    REQUIRE(stata.errors.find("`maxretries()` must be a whole number in 0..100") !=
            std::string::npos);
}

// Every embedding answer unreadable: rc 674 (the provider category's unreadable answer), each
// failed observation named once, not also as the engine's "passage <id>".
TEST_CASE("validate: unreadable embedding answers for every passage fail with rc 674",
          "[validate][errors][server]") {
    FakeServerProcess server;
    // More faults than the run makes embedding requests: every one of them is unreadable.
    std::string faults;
    for (int k = 0; k < 100; ++k)
        faults += std::string(k ? "," : "") + R"({"kind": "malformed_json"})";
    server.control("/_control/faults",
                   R"({"endpoint": "openai.embeddings", "faults": [)" + faults + "]}");
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    server_locals(stata, server, "");
    const RunResult r = run_like_ado(stata, {"text"}, words("maxretries=0"), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 674);
    REQUIRE(stata.output.find("observation 2: embedding request: ") != std::string::npos);
    REQUIRE(stata.output.find("passage 2,") == std::string::npos);
    REQUIRE(stata.find("v_tau") == -1);
}

// A task that needs a variable vars() does not give is refused before any passage is tried:
// rc 198, naming the variable and how to give it, with nothing created.
TEST_CASE("validate: a task variable vars() does not give is refused before any call",
          "[validate][errors]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    simulated_locals(stata, "");
    stata.set_local("llmv_task", std::string(LLMV_SOURCE_DIR) + "/prompts/topic.toml");
    const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 198);
    CHECK(stata.errors.find("task topic requires the variable topic, which vars() does not give; "
                            "give it with vars(topic=\"...\")") != std::string::npos);
    CHECK(stata.errors.find("`variables`") == std::string::npos);
    CHECK(stata.find("v_tau") == -1);
    // continue does not turn a configuration error into missing results.
    CHECK(run_like_ado(stata, {"text"}, words("continue=1"), "w_").rc == 198);
    CHECK(stata.find("w_tau") == -1);
}

TEST_CASE("validate: an empty or blank passage stops the command before any call",
          "[validate][errors][server]") {
    FakeServerProcess server;
    for (const std::string blank : {"  \t ", ""}) {
        Stata stata;
        load_plugin(stata);
        load_passages(stata);
        stata.var("text").strings[2] = blank;
        server_locals(stata, server, temporary_path(".sqlite"));
        const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
        INFO(stata.errors << stata.output);
        REQUIRE(r.rc == 459);
        REQUIRE(stata.errors.find("observation 3: the passage is empty or only white space") !=
                std::string::npos);
        REQUIRE(stata.errors.find("No call was made") != std::string::npos);
        // In Stata's words only: not the engine's sentence about rows and `text`.
        CHECK(stata.errors.find("allowed:") == std::string::npos);
        CHECK(stata.errors.find("(row") == std::string::npos);
        REQUIRE(stata.find("v_tau") == -1);
        // The dry run refuses it too.
        std::vector<std::string> dry_words = words();
        dry_words[3] = "generate=0";
        dry_words.back() = "dryrun=1";
        const RunResult dry = run_like_ado(stata, {"text"}, dry_words, "v_");
        REQUIRE(dry.rc == 459);
    }
    CHECK(server.control("/_control/counters")["total"] == 0);
}

TEST_CASE(
    "validate: r(results) is left out past the matrix limit or with nomatrix, and generate() still "
    "fills",
    "[validate][matrix]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    simulated_locals(stata, "");
    const RunResult limited = run_like_ado(stata, {"text"}, words("matrixmax=3"), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(limited.rc == 0);
    REQUIRE(limited.scalars.at("N") == 4);
    CHECK(limited.matrices.count("results") == 0);
    CHECK(stata.output.find("r(results) left out: 4 passages exceed the matrix limit of 3") !=
          std::string::npos);
    for (int obs : {1, 2, 3, 4})
        CHECK(stata.var("v_tau").numbers[static_cast<std::size_t>(obs - 1)] < missing());

    const RunResult within = run_like_ado(stata, {"text"}, words("matrixmax=4"), "w_");
    REQUIRE(within.rc == 0);
    CHECK(within.matrices.count("results") == 1);
    const RunResult without = run_like_ado(stata, {"text"}, words("matrix=0"), "x_");
    REQUIRE(without.rc == 0);
    CHECK(without.matrices.count("results") == 0);
}

// A CSV file (RFC 4180) as rows of fields.
static std::vector<std::vector<std::string>> read_csv(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    std::vector<std::vector<std::string>> rows(1);
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rows.back().push_back(field);
            field.clear();
        } else if (c == '\n') {
            rows.back().push_back(field);
            field.clear();
            rows.emplace_back();
        } else {
            field += c;
        }
    }
    if (rows.back().empty()) rows.pop_back();
    return rows;
}

TEST_CASE("validate saving(): the generations of every passage, those the server served",
          "[validate][server][saving]") {
    FakeServerProcess server;
    const std::string cache = temporary_path(".sqlite");
    const std::string csv = temporary_path(".csv");
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    server_locals(stata, server, cache);
    stata.set_local("llmv_generations", csv);
    const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.scalars.at("N") == 4);

    const auto rows = read_csv(csv);
    REQUIRE(rows.at(0) == std::vector<std::string>{"index", "id", "kind", "label", "draw", "text",
                                                   "answer", "model", "prompt_hash"});
    std::map<std::string, int> simulated, annotated, backtranslated;
    std::multiset<std::string> texts;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto& row = rows[i];
        REQUIRE(row.size() == 9);
        REQUIRE(row[7] == "fake-chat");
        if (row[2] == "annotation") {
            ++annotated[row[1]];
            continue;
        }
        ++simulated[row[1]];
        texts.insert(row[5]);
        if (!row[6].empty()) ++backtranslated[row[1]];
    }
    for (const std::string obs : {"1", "2", "3", "4"}) {
        INFO("observation " << obs);
        CHECK(annotated[obs] == 1);
        CHECK(simulated[obs] == 3 * 6);  // K * M
        CHECK(backtranslated[obs] == 6);
    }
    CHECK(simulated.count("5") == 0);  // outside the sample

    // The texts are those the server served (pools shared by passages were served once).
    std::set<std::string> served;
    for (const auto& answer : server.control("/_control/served")) {
        if (answer["endpoint"] != "openai.chat") continue;
        const auto body = nlohmann::json::parse(answer["response"].get<std::string>());
        const auto content = body["choices"][0]["message"]["content"].get<std::string>();
        // Structured output, or JSON inside prose and a code fence.
        const auto first = content.find('{'), last = content.rfind('}');
        if (first == std::string::npos || last == std::string::npos) continue;
        const auto parsed =
            nlohmann::json::parse(content.substr(first, last - first + 1), nullptr, false);
        if (parsed.is_object() && parsed.contains("passages"))
            for (const auto& text : parsed["passages"]) served.insert(text.get<std::string>());
    }
    CHECK(std::set<std::string>(texts.begin(), texts.end()) == served);

    // The same command again reads every answer from the cache and saves the same rows.
    const std::size_t served_before = server.control("/_control/served").size();
    const std::string again_csv = temporary_path(".csv");
    stata.set_local("llmv_generations", again_csv);
    const RunResult again = run_like_ado(stata, {"text"}, words(), "w_");
    REQUIRE(again.rc == 0);
    CHECK(server.control("/_control/served").size() == served_before);
    CHECK(read_csv(again_csv) == rows);
    std::remove(cache.c_str());
    std::remove(csv.c_str());
    std::remove(again_csv.c_str());
}

// A store that fails after the calls were paid for: the dataset is as it was, and the answers
// are in the cache, so the re-run makes no call. Also: `in` and `if` together select the sample.
TEST_CASE("validate: a store failing at the n-th call leaves the data alone and loses no answer",
          "[validate][store][server]") {
    FakeServerProcess server;
    const std::string cache = temporary_path(".sqlite");
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    server_locals(stata, server, cache);
    stata.in_first = 2;  // `in 2/4`, and observation 5 is outside the if condition anyway
    stata.in_last = 4;

    // The first run, on an empty cache, fails at its first store: nothing changes, but every
    // answer it paid for is kept.
    const auto untouched = stata.data;
    stata.fail_store_at = 1;
    const RunResult first = run_like_ado(stata, {"text"}, words(), "v_");
    INFO(stata.errors);
    REQUIRE(first.rc == 0);
    REQUIRE(first.store_rc == 909);
    REQUIRE(stata.data == untouched);

    stata.fail_store_at = 0;
    stata.store_calls = 0;
    const RunResult complete = run_like_ado(stata, {"text"}, words(), "c_");
    REQUIRE(complete.rc == 0);
    REQUIRE(complete.store_rc == 0);
    REQUIRE(complete.scalars.at("calls") == 0);           // all from the cache
    REQUIRE(complete.scalars.at("N") == 3);               // observations 2, 3 and 4
    REQUIRE(stata.var("c_tau").numbers[0] == missing());  // outside `in`
    REQUIRE(stata.var("c_tau").numbers[1] < missing());
    REQUIRE(stata.var("c_tau").numbers[2] < missing());
    REQUIRE(stata.var("c_tau").numbers[3] < missing());
    REQUIRE(stata.var("c_label").strings[4].empty());
    const int stores = stata.store_calls;
    REQUIRE(stores >= 21);  // 7 variables x 3 passages

    // Each later store failing in turn: the dataset is as it was every time.
    for (int n = 2; n <= stores; ++n) {
        INFO("failing store " << n);
        stata.store_calls = 0;
        stata.fail_store_at = n;
        const auto before = stata.data;
        const RunResult failed = run_like_ado(stata, {"text"}, words(), "v_");
        REQUIRE(failed.rc == 0);
        REQUIRE(failed.store_rc == 909);
        REQUIRE(stata.data == before);
        REQUIRE(stata.find("v_tau") == -1);
    }
    stata.fail_store_at = 0;
    const RunResult again = run_like_ado(stata, {"text"}, words(), "v_");
    REQUIRE(again.store_rc == 0);
    for (int obs = 0; obs < 5; ++obs)
        REQUIRE(same_bits(stata.var("v_tau").numbers[static_cast<std::size_t>(obs)],
                          stata.var("c_tau").numbers[static_cast<std::size_t>(obs)]));
    std::remove(cache.c_str());
}
// Each credential goes only to its own vendor (issue 10): `provider(anthropic)
// embedding(openai)` hands the plugin the Anthropic key (keyenv's default); the OpenAI-compatible
// embeddings endpoint on 127.0.0.1 must get the key named for it (LLMV_EMBEDDING_API_KEY, read
// by the engine itself), never that key, and never OPENAI_API_KEY, which goes to OpenAI's hosts
// only (issue 25).
TEST_CASE("validate: chat and embeddings from two vendors each get only their own key",
          "[validate][server][credentials]") {
    const std::string log = temporary_path(".credentials.log");
    FakeServerProcess server(
        {"--credential-log", log, "--api-key", ""});  // keys checked from the log
    ::setenv("OPENAI_API_KEY", "sk-openai-vendor-key-never-sent", 1);
    ::setenv("LLMV_EMBEDDING_API_KEY", "sk-openai-for-embeddings", 1);
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    stata.set_local("llmv_task", kTask);
    stata.set_local("llmv_provider", "anthropic");
    stata.set_local("llmv_model", "fake-claude");
    stata.set_local("llmv_embedding", "openai");
    stata.set_local("llmv_embedding_model", "fake-embed");
    stata.set_local("llmv_base_url", server.root_url());
    stata.set_local("llmv_embedding_base_url", server.base_url());
    stata.set_local("llmv_apikey", "sk-ant-for-chat-only");
    stata.set_local("llmv_cache", "");
    const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
    ::unsetenv("OPENAI_API_KEY");
    ::unsetenv("LLMV_EMBEDDING_API_KEY");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.scalars.at("N_failed") == 0);

    std::FILE* file = std::fopen(log.c_str(), "r");
    REQUIRE(file != nullptr);
    std::size_t chat = 0, embeddings = 0;
    char line[4096];
    while (std::fgets(line, sizeof line, file)) {
        const std::string entry(line);
        INFO(entry);
        if (entry.rfind("anthropic.messages\t", 0) == 0) {
            ++chat;
            CHECK(entry == "anthropic.messages\tx-api-key=sk-ant-for-chat-only\n");
        } else if (entry.rfind("openai.embeddings\t", 0) == 0) {
            ++embeddings;
            CHECK(entry == "openai.embeddings\tauthorization=Bearer sk-openai-for-embeddings\n");
        } else {
            FAIL("unexpected request: " << entry);
        }
    }
    std::fclose(file);
    std::remove(log.c_str());
    CHECK(chat > 0);
    CHECK(embeddings > 0);
}

// Issue 25: with OPENAI_API_KEY set and baseurl() naming a server of your own, no request
// carries that key; the key keyenv() names (or LLMV_API_KEY) does.
TEST_CASE("validate: OPENAI_API_KEY never reaches baseurl(), and the key named for it does",
          "[validate][server][credentials]") {
    const std::string log = temporary_path(".credentials.log");
    FakeServerProcess server({"--credential-log", log, "--api-key", ""});
    ::setenv("OPENAI_API_KEY", "sk-openai-vendor-key-never-sent", 1);
    const auto run = [&](const std::string& named_key) {
        Stata stata;
        load_plugin(stata);
        load_passages(stata);
        stata.set_local("llmv_task", kTask);
        stata.set_local("llmv_provider", "openai");
        stata.set_local("llmv_model", "fake-chat");
        stata.set_local("llmv_embedding_model", "fake-embed");
        stata.set_local("llmv_base_url", server.base_url());
        stata.set_local("llmv_apikey", named_key);  // what keyenv() hands the plugin
        stata.set_local("llmv_cache", "");
        const RunResult r = run_like_ado(stata, {"text"}, words(), "v_");
        INFO(stata.errors << stata.output);
        REQUIRE(r.rc == 0);
    };
    const auto entries = [&] {
        std::vector<std::string> lines;
        std::FILE* file = std::fopen(log.c_str(), "r");
        REQUIRE(file != nullptr);
        char line[4096];
        while (std::fgets(line, sizeof line, file)) lines.emplace_back(line);
        std::fclose(file);
        std::remove(log.c_str());
        return lines;
    };
    run("");
    std::vector<std::string> seen = entries();
    REQUIRE(!seen.empty());
    for (const std::string& entry : seen) {
        INFO(entry);
        CHECK(entry.find('=') == std::string::npos);  // no credential header at all
    }
    run("sk-named-by-keyenv");
    seen = entries();
    REQUIRE(!seen.empty());
    for (const std::string& entry : seen) {
        INFO(entry);
        CHECK(entry.find("\tauthorization=Bearer sk-named-by-keyenv\n") != std::string::npos);
    }
    ::unsetenv("OPENAI_API_KEY");
}

// Issue 10: one per-user cache for every front end. The ado-file's default cache is the one the
// plugin names (the engine's default_cache_path()), the file the CLI prints with
// `llmvalidate cache --path`; before, Stata used ./llmvalidate-cache.sqlite.
TEST_CASE("the default cache is the engine's per-user cache, the CLI's", "[validate][cache]") {
    Stata stata;
    load_plugin(stata);
    const char* saved = std::getenv("LLMV_CACHE");
    const std::string saved_value = saved ? saved : "";
    ::unsetenv("LLMV_CACHE");
    REQUIRE(stata.call({"cachepath"}) == 0);
    const std::string stata_default = stata.local("llmv_cache_path");
    FILE* pipe = popen((std::string(LLMV_CLI_PATH) + " cache --path").c_str(), "r");
    REQUIRE(pipe != nullptr);
    char line[4096] = {0};
    REQUIRE(std::fgets(line, sizeof line, pipe) != nullptr);
    pclose(pipe);
    std::string cli_default = line;
    while (!cli_default.empty() && (cli_default.back() == '\n' || cli_default.back() == '\r'))
        cli_default.pop_back();
    CHECK(stata_default == cli_default);
    CHECK(stata_default.find("llmvalidate-cache.sqlite") == std::string::npos);

    ::setenv("LLMV_CACHE", "/tmp/llmv-host-cache-from-env.sqlite", 1);
    REQUIRE(stata.call({"cachepath"}) == 0);
    CHECK(stata.local("llmv_cache_path") == "/tmp/llmv-host-cache-from-env.sqlite");
    if (saved)
        ::setenv("LLMV_CACHE", saved_value.c_str(), 1);
    else
        ::unsetenv("LLMV_CACHE");
}

TEST_CASE("validate says which cache it uses, and warns before paying without one",
          "[validate][cache][server]") {
    FakeServerProcess server;
    const std::string cache = temporary_path(".sqlite");
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    server_locals(stata, server, cache);
    const RunResult cached = run_like_ado(stata, {"text"}, words(), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(cached.rc == 0);
    CHECK(stata.output.find("Cache: " + cache + "\n") != std::string::npos);
    CHECK(cached.macros.at("cache") == cache);
    CHECK(stata.output.find("No cache") == std::string::npos);

    stata.output.clear();
    server_locals(stata, server, "");  // nocache
    const RunResult uncached = run_like_ado(stata, {"text"}, words(), "w_");
    REQUIRE(uncached.rc == 0);
    CHECK(stata.output.find("Cache: none (nocache)") != std::string::npos);
    CHECK(stata.output.find("Warning: No cache: every answer of this run is paid for") !=
          std::string::npos);
    std::remove(cache.c_str());
}

// Issue 42: a run that cannot reach a decision (m() <= 18 at alpha 0.05) says so before it
// pays, as a Warning: line, and r(warnings) keeps every warning of the run.
TEST_CASE("validate warns before paying for a run that cannot decide, and stores r(warnings)",
          "[validate][warnings][server]") {
    FakeServerProcess server;
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    server_locals(stata, server, "");                                      // nocache
    const RunResult small = run_like_ado(stata, {"text"}, words(), "v_");  // m=6
    INFO(stata.errors << stata.output);
    REQUIRE(small.rc == 0);
    const std::string warning =
        "The exact validation test cannot reject at \u03b1 = 0.05 with M = 6 pool texts";
    const auto at = stata.output.find("Warning: " + warning);
    REQUIRE(at != std::string::npos);
    CHECK(stata.output.find("Warning: " + warning, at + 1) == std::string::npos);  // once
    const std::string& kept = small.macros.at("warnings");
    CHECK(kept.find("No cache: every answer of this run is paid for") != std::string::npos);
    CHECK(kept.find(warning) != std::string::npos);
    CHECK(small.scalars.at("N_inconclusive") == 4);

    // A size that decides, with a cache: nothing to warn of, and r(warnings) is empty.
    const std::string cache = temporary_path(".sqlite");
    stata.output.clear();
    server_locals(stata, server, cache);
    std::vector<std::string> decides = words();
    for (std::string& word : decides)
        if (word == "m=6") word = "m=19";
    const RunResult large = run_like_ado(stata, {"text"}, decides, "w_");
    REQUIRE(large.rc == 0);
    CHECK(stata.output.find("Warning:") == std::string::npos);
    CHECK(large.macros.at("warnings").empty());
    std::remove(cache.c_str());
}

// Issue 12: timeout(), drain() and encoding() come from the settings table; a value out of its
// range is refused before any call, naming the Stata option and what is allowed.
TEST_CASE("validate: timeout(), drain() and encoding() outside their range name the option",
          "[validate][errors]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    simulated_locals(stata, "");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"timeout=0", "`timeout()` must be a number in (0, 86400]; received 0."},
        {"drain=-1", "`drain()` must be a number in [0, 3600]; received -1."},
        {"encoding=cp1252",
         "`encoding()` must be one of \"utf-8\", \"latin1\"; received \"cp1252\"."},
        // The ado passes the text as typed (string options): the table's parser names the option.
        {"alpha=abc", "`alpha()` must be a number in [1e-06, 0.5]; received \"abc\"."},
        {"m=2.5", "`m()` must be a whole number in 2..100000; received 2.5."},
    };
    for (const auto& [word, message] : cases) {
        stata.errors.clear();
        INFO(word);
        const RunResult r = run_like_ado(stata, {"text"}, words(word), "v_");
        INFO(stata.errors);
        CHECK(r.rc == 198);
        CHECK(stata.errors.find(message) != std::string::npos);
        CHECK(stata.find("v_tau") == -1);
    }
    // In range, the simulated run goes through.
    stata.errors.clear();
    CHECK(run_like_ado(stata, {"text"}, words("timeout=60"), "v_").rc == 0);
}

// Every number setting of the engine's table that validation offers, read from
// docs/settings.md (written from the table and checked against it by test_core): the plugin
// parses each option through the table, with no list of its own, so a value outside the range
// is refused with the option's name and the table's range. A setting added to the table is
// covered here with no edit.
TEST_CASE("validate: every number setting of the table is read and checked through the table",
          "[validate][errors][settings]") {
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    simulated_locals(stata, "");
    const std::string doc = read_whole_file(std::string(LLMV_SOURCE_DIR) + "/docs/settings.md");
    // | name | cli | r | `stata()` | default | a whole number in LOW..HIGH / a number in [LOW,
    // HIGH] | doc |
    const std::regex row(
        R"(\n\| \w+ \| [^|]+ \| [^|]+ \| `(\w+)\(\)` \| [^|]* \| )"
        R"((a whole number in ([-0-9.e]+)\.\.([-0-9.e]+)|a number in [\[(]([-0-9.e]+), ([-0-9.e]+)[\])]) \| ([^|]*) \|)");
    int checked = 0;
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator();
         ++it) {
        const auto& match = *it;
        // Options of power only (the simulated provider's and the replications).
        if (match[7].str().rfind("Simulated provider", 0) == 0 ||
            match[7].str().rfind("Power:", 0) == 0)
            continue;
        const std::string name = match[1].str(), allowed = match[2].str();
        const bool whole = match[3].matched;
        const double low = std::stod(whole ? match[3].str() : match[5].str());
        const double high = std::stod(whole ? match[4].str() : match[6].str());
        char text[32];
        std::snprintf(text, sizeof text, "%.15g", high < 1e9 ? high + 1 : low - 1);
        const std::string outside = text;
        stata.errors.clear();
        INFO(name << "=" << outside);
        const RunResult r = run_like_ado(stata, {"text"}, words(name + "=" + outside), "v_");
        CHECK(r.rc == 198);
        CHECK(stata.errors.find("`" + name + "()` must be " + allowed) != std::string::npos);
        ++checked;
    }
    CHECK(checked >= 10);
}

// Issue 24/30: Break while batchapi waits for a provider batch. The batch stays in progress and
// the poll interval is an hour, so only Break can end the wait: the command returns rc 1, and
// the same command then collects the batch without submitting anything again.
TEST_CASE(
    "validate batchapi: Break during the poll wait returns rc 1, and the re-run collects without "
    "resubmitting",
    "[validate][break][server][batch]") {
    FakeServerProcess server({"--api-key", "sk-host-secret", "--batch-polls", "1000000"});
    const std::string cache = temporary_path(".sqlite");
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    server_locals(stata, server, cache);
    std::vector<std::string> w = words("batchapi=1");
    w.push_back("pollinterval=3600");
    // The engine's wait calls SF_poll about ten times a second: Break comes into the wait.
    stata.break_after_polls = 30;
    const auto before = stata.data;
    const RunResult broken = run_like_ado(stata, {"text"}, w, "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(broken.rc == 1);
    REQUIRE(stata.data == before);
    // Seen at once: the wait looks at SF_poll about ten times a second, so the command returns
    // within a few polls of the Break (counted, not timed: 20 polls are about 2 s).
    CHECK(stata.polls - stata.break_after_polls <= 20);
    const nlohmann::json at_break = server.control("/_control/batches");
    REQUIRE(at_break["batches"].size() >= 1);

    server.control("/_control/batch_polls", "{\"polls\": 0}");
    stata.break_after_polls = -1;
    stata.stop_flag = 0;
    w.back() = "pollinterval=0";
    const RunResult resumed = run_like_ado(stata, {"text"}, w, "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(resumed.rc == 0);
    REQUIRE(resumed.store_rc == 0);
    const nlohmann::json after = server.control("/_control/batches");
    for (const auto& [id, times] : after["custom_ids"].items()) {
        INFO(id);
        REQUIRE(times.get<int>() == 1);  // nothing submitted twice
    }
    REQUIRE(after["batches"].size() > at_break["batches"].size());
    std::remove(cache.c_str());
}

TEST_CASE(
    "validate batchapi nowait: returns r(waiting) at once, and the same command collects later",
    "[validate][server][batch]") {
    FakeServerProcess server({"--api-key", "sk-host-secret"});
    const std::string cache = temporary_path(".sqlite");
    Stata stata;
    load_plugin(stata);
    load_passages(stata);
    server_locals(stata, server, cache);
    std::vector<std::string> w = words("batchapi=1");
    w.push_back("nowait=1");
    int calls = 0;
    RunResult step;
    do {
        step = run_like_ado(stata, {"text"}, w, "v_");
        INFO(stata.errors << stata.output);
        REQUIRE(step.rc == 0);
        if (step.scalars.count("waiting")) {  // the results the help lists for this case
            CHECK(step.scalars.at("waiting") == 1);
            // The batches this call submitted: the first call's; a later one only polls.
            if (calls == 0) CHECK(!step.macros.at("batches").empty());
            CHECK(step.macros.at("cache") == cache);
        }
    } while (step.scalars.count("waiting") && ++calls < 30);
    REQUIRE(calls >= 2);
    REQUIRE(step.scalars.at("N_succeeded") == 4);
    // Held by name: a range-for over a member of the temporary would read freed memory.
    const nlohmann::json batches = server.control("/_control/batches");
    for (const auto& [id, times] : batches["custom_ids"].items()) {
        INFO(id);
        REQUIRE(times.get<int>() == 1);
    }
    std::remove(cache.c_str());
}
