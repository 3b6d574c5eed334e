// r() as documented: the names the subcommands return (the plugin's, from runs of validate,
// its dry run, test, power, cache and models; the ado-file's own `return local/scalar` lines)
// against the names llmvalidate.sthlp documents. Every returned name is in the help, every name the
// help's "Stored results" lists is returned by some subcommand, and no name is both a macro and
// a matrix.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fake_server_process.hpp"
#include "fake_stata.hpp"
#include "fixtures.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

struct Names {
    std::set<std::string> scalars, macros, matrices;
    void add(const RunResult& r) {
        for (const auto& entry : r.scalars) scalars.insert(entry.first);
        for (const auto& entry : r.macros) macros.insert(entry.first);
        for (const auto& entry : r.matrices) matrices.insert(entry.first);
    }
};

std::string joined(const std::set<std::string>& names) {
    std::string text;
    for (const auto& name : names) text += (text.empty() ? "" : " ") + name;
    return text;
}

std::vector<std::string> validate_words(const std::string& extra = "") {
    std::vector<std::string> w = {"validate",      "text=1",  "human=0",         "generate=1",
                                  "m=6",           "n=3",     "repeats=1",       "alpha=0.05",
                                  "threshold=0.9", "seed=11", "permutations=99", "concurrency=2",
                                  "dryrun=0"};
    if (!extra.empty()) w.push_back(extra);
    return w;
}

void passages(Stata& stata) {
    stata.clear();
    stata.add_string("text",
                     {"Demand for the bank's loans rose sharply and clients reported record "
                      "profits.",
                      "Clients were hit by falling prices and several defaulted on their loans.",
                      "The outlook for the bank's clients remains uncertain."},
                     /*strl=*/true);
    stata.add_string("human", {"Positive", "Negative", "Neutral"}, false);
    stata.select_all();
}

}  // namespace

TEST_CASE("the r() names every subcommand returns are the names the help documents",
          "[results][help]") {
    const std::string task = std::string(LLMV_SOURCE_DIR) + "/prompts/simple_sentiment.toml";
    const std::string cache = temporary_path(".sqlite");
    Names returned;
    std::vector<Names> runs;
    const auto record = [&](const RunResult& r, const Stata& stata) {
        INFO("rc " << r.rc << " store_rc " << r.store_rc << ": " << stata.errors);
        REQUIRE(r.rc == 0);
        REQUIRE(r.store_rc == 0);
        returned.add(r);
        runs.emplace_back();
        runs.back().add(r);
    };
    FakeServerProcess server;
    {  // validate: many passages with human(), then one passage, then the dry run
        Stata stata;
        load_plugin(stata);
        passages(stata);
        set_server_locals(stata, server, cache);
        stata.set_local("llmv_task", task);
        std::vector<std::string> w = validate_words();
        w[2] = "human=2";
        record(run_like_ado(stata, {"text", "human"}, w, "v_"), stata);
        stata.in_last = 1;
        record(run_like_ado(stata, {"text", "human"}, w, "o_"), stata);
        stata.in_last = 0;
        std::vector<std::string> dry = validate_words("dryrun=1");
        dry[3] = "generate=0";
        dry.erase(dry.begin() + 12);  // the first dryrun=0
        record(run_like_ado(stata, {"text"}, dry, "d_"), stata);
        stata.set_local("llmv_model", "");  // cache takes model() with clear only
        record(run_like_ado(stata, {}, {"cache", "action=describe"}, ""), stata);
    }
    {  // models: the vendor's list (the fake server's Anthropic catalogue)
        Stata stata;
        load_plugin(stata);
        ::setenv("ANTHROPIC_API_KEY", "sk-host-secret", 1);
        // ANTHROPIC_API_KEY goes to Anthropic's hosts only: the server on loopback gets the key
        // named for it (docs/providers.md, "Keys").
        ::setenv("LLMV_API_KEY", "sk-host-secret", 1);
        stata.set_local("llmv_provider", "anthropic");
        stata.set_local("llmv_base_url", server.root_url());
        stata.set_local("llmv_price_table", std::string(LLMV_SOURCE_DIR) + "/prompts/prices.csv");
        const RunResult listed = run_like_ado(stata, {}, {"models", "quiet=1"}, "");
        ::unsetenv("ANTHROPIC_API_KEY");
        ::unsetenv("LLMV_API_KEY");
        record(listed, stata);
    }
    {  // test: many passages, and one with backtranslations
        Stata stata;
        load_plugin(stata);
        const Design design;
        const auto texts = make_texts(design, {"Positive", "Negative"}, {"Positive", "Positive"});
        load_texts(stata, texts);
        std::vector<std::string> varlist = {"label", "passage", "bt"};
        for (const auto& e : embedding_names(design.dim)) varlist.push_back(e);
        const std::vector<std::string> words = {"test",
                                                "label=1",
                                                "passage=2",
                                                "bt=3",
                                                "ref=0",
                                                "embed=4",
                                                "dim=" + std::to_string(design.dim),
                                                "generate=1",
                                                "alpha=0.05",
                                                "seed=42",
                                                "permutations=99"};
        record(run_like_ado(stata, varlist, words, "t_"), stata);
        const auto one = make_texts(design, {"Negative"}, {"Negative"});
        load_texts(stata, one);
        record(run_like_ado(stata, varlist, words, "u_"), stata);
    }
    {  // power (the simulated provider; no data)
        Stata stata;
        load_plugin(stata);
        stata.set_local("llmv_task", task);
        record(run_like_ado(
                   stata, {},
                   {"power", "replications=4", "m=8", "n=4", "repeats=1", "alpha=0.05",
                    "threshold=0.75", "seed=3", "permutations=99", "concurrency=2", "follow=0.9",
                    "signal=0.3", "accuracy=0.8", "unparseable=0", "words=0", "dgpseed=5"},
                   "p_"),
               stata);
    }
    // The ado-file's own results: `return local NAME` and `return scalar NAME` of the programs
    // a user's command returns from.
    const std::string ado = read_file(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.ado");
    const std::regex own(R"(\n\s*return (local|scalar) (\w+))");
    for (auto it = std::sregex_iterator(ado.begin(), ado.end(), own); it != std::sregex_iterator();
         ++it) {
        const std::string kind = (*it)[1].str(), name = (*it)[2].str();
        if (name == "validation" || name == "text") continue;  // internal programs' results
        (kind == "local" ? returned.macros : returned.scalars).insert(name);
    }

    const std::string help = read_file(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.sthlp");
    std::set<std::string> in_help;
    const std::regex documented(R"(r\((\w+)\))");
    for (auto it = std::sregex_iterator(help.begin(), help.end(), documented);
         it != std::sregex_iterator(); ++it)
        in_help.insert((*it)[1].str());
    const auto stored_begin = help.find("{marker results}");
    const auto stored_end = help.find("{marker rc}");
    REQUIRE(stored_begin != std::string::npos);
    REQUIRE(stored_end != std::string::npos);
    const std::string stored = help.substr(stored_begin, stored_end - stored_begin);
    std::set<std::string> in_stored_results;
    for (auto it = std::sregex_iterator(stored.begin(), stored.end(), documented);
         it != std::sregex_iterator(); ++it)
        in_stored_results.insert((*it)[1].str());

    std::set<std::string> all = returned.scalars;
    all.insert(returned.macros.begin(), returned.macros.end());
    all.insert(returned.matrices.begin(), returned.matrices.end());
    std::set<std::string> undocumented, not_returned;
    for (const auto& name : all)
        if (!in_stored_results.count(name)) undocumented.insert(name);
    // Results no run above makes: `cache clear`'s r(removed); r(price_note), which a dry run
    // returns only when a model has no price; r(table11), only when a passage's LLM label
    // differs from human() and is valid (test_section5.cpp makes and checks it); r(waiting) and
    // r(batches), only while the batches of batchapi nowait are in progress (test_validate.cpp's
    // nowait test checks them).
    // `cache merge`'s r(merged_*) (test_power_cache.cpp checks them).
    const std::set<std::string> conditional = {"removed",        "price_note",      "table11",
                                               "waiting",        "batches",         "merged_answers",
                                               "merged_added",   "merged_same",     "merged_conflicts"};
    for (const auto& name : in_stored_results)
        if (!all.count(name) && !conditional.count(name)) not_returned.insert(name);
    CHECK(joined(undocumented) == "");
    CHECK(joined(not_returned) == "");
    (void)in_help;

    // One name, one kind of result, in every run.
    for (const Names& run : runs)
        for (const auto& name : run.macros) {
            INFO("r(" << name << ")");
            CHECK(run.matrices.count(name) == 0);
        }
    std::set<std::string> both;
    for (const auto& name : returned.macros)
        if (returned.matrices.count(name)) both.insert(name);
    CHECK(joined(both) == "");
    std::remove(cache.c_str());
}
