// `llmvalidate power` and `llmvalidate cache`: the plugin's power and cache subcommands, checked
// against the command-line tool's `llmvalidate power` and `llmvalidate cache --json` (the same
// engine functions, so the same numbers).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <stdexcept>
#include <string>

#include "fake_server_process.hpp"
#include "fake_stata.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

const std::string kTask = std::string(LLMV_SOURCE_DIR) + "/prompts/simple_sentiment.toml";

bool exists(const std::string& path) {
    struct stat info;
    return ::stat(path.c_str(), &info) == 0;
}

// A small dataset that power and cache must leave alone.
void load_bystander_data(Stata& stata) {
    stata.clear();
    stata.add_numeric("x", {1, 2, 3});
    stata.add_string("s", {"a", "b", "c"}, /*strl=*/false);
}

std::string run_command(const std::string& command) {
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) throw std::runtime_error("popen failed");
    std::string output;
    char buffer[4096];
    std::size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
    const int status = pclose(pipe);
    if (status != 0)
        throw std::runtime_error(command + " exited with " + std::to_string(status) + ":\n" +
                                 output);
    return output;
}

std::vector<std::string> power_words(const std::string& extra = "") {
    std::vector<std::string> w = {"power",
                                  "replications=24",
                                  "m=8",
                                  "n=4",
                                  "repeats=1",
                                  "alpha=0.05",
                                  "threshold=0.75",
                                  "seed=3",
                                  "permutations=99",
                                  "concurrency=4",
                                  "follow=0.9",
                                  "signal=0.3",
                                  "accuracy=0.8",
                                  "unparseable=0",
                                  "words=0",
                                  "dgpseed=5"};
    if (!extra.empty()) w.push_back(extra);
    return w;
}

// The share printed on the CLI's line that starts with `label` (3 decimals), as a count of
// `replications` replications.
int cli_count(const std::string& report, const std::string& label, int replications) {
    const auto at = report.find(label);
    REQUIRE(at != std::string::npos);
    const double share = std::stod(report.substr(at + label.size()));
    return static_cast<int>(std::lround(share * replications));
}

int count_of(double share, int replications) {
    const double count = share * replications;
    REQUIRE(std::fabs(count - std::round(count)) < 1e-9);  // a share of whole replications
    return static_cast<int>(std::lround(count));
}

}  // namespace

TEST_CASE("power: shares equal the CLI's llmvalidate power, r(power) equals the scalars",
          "[power]") {
    Stata stata;
    load_plugin(stata);
    load_bystander_data(stata);
    const auto before = stata.data;
    stata.set_local("llmv_task", kTask);
    const RunResult r = run_like_ado(stata, {}, power_words(), "p_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.store_rc == 0);
    REQUIRE(stata.unexpected.empty());
    REQUIRE(stata.data == before);
    REQUIRE(r.macros.at("synthetic") == "yes");
    REQUIRE(r.macros.at("provider") == "simulated");
    REQUIRE(r.macros.at("true_label") == "Positive");  // the task's first label
    REQUIRE(r.macros.at("seed") == "3");
    REQUIRE(r.macros.at("dgpseed") == "5");
    REQUIRE(r.scalars.at("M") == 8);
    REQUIRE(r.scalars.at("accuracy") == 0.8);

    const int reps = static_cast<int>(r.scalars.at("replications"));
    REQUIRE(reps == 24);
    REQUIRE(r.scalars.at("N_correct") + r.scalars.at("N_wrong") == reps);
    REQUIRE(count_of(r.scalars.at("p_valid"), reps) + count_of(r.scalars.at("p_invalid"), reps) +
                count_of(r.scalars.at("p_inconclusive"), reps) ==
            reps);
    // With accuracy 0.8 over 24 draws, both kinds of annotation occur (a fixed-seed fact).
    REQUIRE(r.scalars.at("N_wrong") > 0);
    REQUIRE(r.scalars.at("N_correct") > 0);

    const Matrix& table = r.matrices.at("power");
    REQUIRE(table.rows == 9);
    REQUIRE(table.cols == 1);
    const std::vector<std::string> rows = {"correct",      "bt_pass",       "sep_pass",
                                           "not_rejected", "valid",         "invalid",
                                           "inconclusive", "valid_correct", "invalid_wrong"};
    REQUIRE(r.matrix_rownames.at("power") == rows);
    const std::vector<std::string> scalars = {
        "p_correct", "p_bt_pass",      "p_sep_pass",      "p_not_rejected", "p_valid",
        "p_invalid", "p_inconclusive", "p_valid_correct", "p_invalid_wrong"};
    for (int i = 0; i < 9; ++i) {
        INFO(rows[static_cast<std::size_t>(i)]);
        REQUIRE(table.at(i + 1, 1) == r.scalars.at(scalars[static_cast<std::size_t>(i)]));
    }

    // The CLI on the same settings: every count agrees (its report prints 3 decimals, enough
    // to recover a count out of 24).
    const std::string report = run_command(
        std::string(LLMV_CLI_PATH) + " power --task " + kTask +
        " --replications 24 --pool-size 8 --per-call 4 --repeats 1 --alpha 0.05"
        " --threshold 0.75 --seed 3 --permutations 99 --concurrency 4 --follow 0.9 --signal 0.3"
        " --accuracy 0.8 --unparseable 0 --dgp-seed 5 --quiet 2>&1");
    INFO(report);
    std::smatch match;
    REQUIRE(std::regex_search(report, match,
                              std::regex(R"(annotation correct in (\d+), wrong in (\d+))")));
    REQUIRE(std::stoi(match[1]) == r.scalars.at("N_correct"));
    REQUIRE(std::stoi(match[2]) == r.scalars.at("N_wrong"));
    const std::vector<std::pair<std::string, std::string>> lines = {
        {"P(annotation correct)", "p_correct"},
        {"P(backtranslation passes)", "p_bt_pass"},
        {"P(every separation test passes)", "p_sep_pass"},
        {"P(validity not rejected)", "p_not_rejected"},
        {"P(verdict valid)", "p_valid"},
        {"P(verdict invalid)", "p_invalid"},
        {"P(verdict inconclusive)", "p_inconclusive"}};
    for (const auto& line : lines) {
        INFO(line.first);
        REQUIRE(cli_count(report, line.first, reps) == count_of(r.scalars.at(line.second), reps));
    }

    // stata/tests/power_cache.do runs these settings and prints what a Stata user should see.
    std::ifstream do_file(std::string(LLMV_SOURCE_DIR) + "/stata/tests/power_cache.do");
    REQUIRE(do_file.good());
    const std::string do_text((std::istreambuf_iterator<char>(do_file)),
                              std::istreambuf_iterator<char>());
    REQUIRE(do_text.find("replications(24) m(8) n(4) threshold(0.75) seed(3)") !=
            std::string::npos);
    REQUIRE(do_text.find("dgpseed(5) permutations(99) follow(0.9) accuracy(0.8)") !=
            std::string::npos);
    REQUIRE(std::regex_search(do_text, match,
                              std::regex(R"(correct in (\d+) replications, wrong in (\d+))")));
    REQUIRE(std::stoi(match[1]) == r.scalars.at("N_correct"));
    REQUIRE(std::stoi(match[2]) == r.scalars.at("N_wrong"));

    // Another seed of the data-generating process gives other draws.
    const RunResult other = run_like_ado(stata, {}, power_words("dgpseed=6"), "p_");
    REQUIRE(other.rc == 0);
    REQUIRE(other.macros.at("dgpseed") == "6");
}

TEST_CASE("power: Break stops the simulation and stores nothing, a re-run completes",
          "[power][break]") {
    Stata stata;
    load_plugin(stata);
    load_bystander_data(stata);
    stata.set_local("llmv_task", kTask);
    stata.break_after_polls = 1;
    const RunResult broken = run_like_ado(stata, {}, power_words(), "p_");
    REQUIRE(broken.rc == 1);
    REQUIRE(stata.errors.find("Break") != std::string::npos);
    REQUIRE(stata.matrices.empty());
    REQUIRE(stata.scalars.empty());
    stata.break_after_polls = -1;
    stata.stop_flag = 0;
    const RunResult again = run_like_ado(stata, {}, power_words(), "p_");
    INFO(stata.errors);
    REQUIRE(again.rc == 0);
    REQUIRE(again.store_rc == 0);
    REQUIRE(again.scalars.at("replications") == 24);
}

TEST_CASE("power: bad settings name the option and the value", "[power][errors]") {
    Stata stata;
    load_plugin(stata);
    load_bystander_data(stata);
    stata.set_local("llmv_task", kTask);
    SECTION("a true label outside the task") {
        stata.set_local("llmv_truelabel", "Ecstatic");
        REQUIRE(run_like_ado(stata, {}, power_words(), "p_").rc == 198);
        REQUIRE(stata.errors.find("Ecstatic") != std::string::npos);
        REQUIRE(stata.errors.find("Positive") != std::string::npos);  // the allowed labels
    }
    SECTION("no replications") {
        REQUIRE(run_like_ado(stata, {}, power_words("replications=0"), "p_").rc == 198);
        // The Stata option, not the engine's field (issue 10).
        REQUIRE(stata.errors.find("`replications()`") != std::string::npos);
    }
    SECTION("a probability above 1") {
        REQUIRE(run_like_ado(stata, {}, power_words("follow=1.5"), "p_").rc == 198);
        REQUIRE(stata.errors.find("`follow()`") != std::string::npos);
        REQUIRE(stata.errors.find("simulated.") == std::string::npos);
        REQUIRE(stata.errors.find("1.5") != std::string::npos);
    }
    SECTION("no task") {
        stata.set_local("llmv_task", "");
        REQUIRE(run_like_ado(stata, {}, power_words(), "p_").rc == 198);
        REQUIRE(stata.errors.find("task()") != std::string::npos);
    }
    SECTION("an option the plugin does not know") {
        REQUIRE(run_like_ado(stata, {}, power_words("provider=openai"), "p_").rc == 198);
    }
}

TEST_CASE("cache: describe equals the CLI's cache report, clear by model and then all",
          "[cache][server]") {
    const std::string cache = temporary_path(".sqlite");
    Stata stata;
    load_plugin(stata);

    // Fill a cache with a validate run against the fake provider server (the simulated
    // provider caches nothing: its answers cost nothing).
    FakeServerProcess server;
    stata.clear();
    stata.add_string("text",
                     {"Demand rose sharply and clients reported record profits.",
                      "Clients were hit by falling prices and several defaulted."},
                     /*strl=*/false);
    stata.select_all();
    stata.set_local("llmv_task", kTask);
    stata.set_local("llmv_provider", "openai");
    stata.set_local("llmv_model", "fake-chat");
    stata.set_local("llmv_embedding_model", "fake-embed");
    stata.set_local("llmv_base_url", server.base_url());
    stata.set_local("llmv_apikey", "sk-host-secret");
    stata.set_local("llmv_cache", cache);
    const std::vector<std::string> validate = {
        "validate",      "text=1",  "human=0",         "generate=0",
        "m=6",           "n=3",     "repeats=1",       "alpha=0.05",
        "threshold=0.9", "seed=11", "permutations=99", "concurrency=4",
        "dryrun=0"};
    const RunResult first = run_like_ado(stata, {"text"}, validate, "v_");
    INFO(stata.errors);
    REQUIRE(first.rc == 0);
    REQUIRE(first.scalars.at("calls") > 0);
    const auto before = stata.data;

    const std::string chat_model = stata.local("llmv_model");
    stata.set_local("llmv_model", "");
    const RunResult described = run_like_ado(stata, {}, {"cache", "action=describe"}, "");
    INFO(stata.errors);
    REQUIRE(described.rc == 0);
    REQUIRE(described.store_rc == 0);
    REQUIRE(stata.data == before);
    REQUIRE(described.macros.at("action") == "describe");
    REQUIRE(described.macros.at("using") == cache);
    REQUIRE(described.scalars.count("removed") == 0);

    const auto cli = nlohmann::json::parse(
        run_command(std::string(LLMV_CLI_PATH) + " cache --json --cache " + cache));
    REQUIRE(described.scalars.at("entries") == cli.at("entries").get<double>());
    REQUIRE(described.scalars.at("entries") > 0);
    REQUIRE(described.scalars.at("ok_entries") == cli.at("ok_entries").get<double>());
    REQUIRE(described.scalars.at("other_entries") == cli.at("other_entries").get<double>());
    REQUIRE(described.scalars.at("size_bytes") == cli.at("size_bytes").get<double>());
    const auto& models = cli.at("models");
    REQUIRE(described.scalars.at("N_models") == static_cast<double>(models.size()));
    REQUIRE_FALSE(models.empty());
    const Matrix& table = described.matrices.at("models");
    REQUIRE(table.rows == static_cast<int>(models.size()));
    REQUIRE(table.cols == 4);
    const auto names = split_list(described.macros.at("model_names"));
    REQUIRE(names.size() == models.size());
    for (std::size_t i = 0; i < models.size(); ++i) {
        const auto& row = models[i];
        const int line = static_cast<int>(i) + 1;
        REQUIRE(names[i] ==
                row.at("provider").get<std::string>() + "/" + row.at("model").get<std::string>());
        REQUIRE(table.at(line, 1) == row.at("entries").get<double>());
        REQUIRE(table.at(line, 2) == row.at("ok_entries").get<double>());
        REQUIRE(table.at(line, 3) == row.at("input_tokens").get<double>());
        REQUIRE(table.at(line, 4) == row.at("output_tokens").get<double>());
    }

    // merge (issue 41): this cache into a new one, as a sharded job's caches are brought
    // together; every entry once, and twice changes nothing.
    const std::string merged = temporary_path(".sqlite");
    stata.set_local("llmv_cache", merged);
    stata.set_local("llmv_merge_from", "\"" + cache + "\"");
    const RunResult merge = run_like_ado(stata, {}, {"cache", "action=merge"}, "");
    INFO(stata.errors);
    REQUIRE(merge.rc == 0);
    REQUIRE(merge.scalars.at("merged_added") == described.scalars.at("entries"));
    REQUIRE(merge.scalars.at("merged_conflicts") == 0);
    REQUIRE(merge.scalars.at("entries") == described.scalars.at("entries"));
    const RunResult twice = run_like_ado(stata, {}, {"cache", "action=merge"}, "");
    REQUIRE(twice.rc == 0);
    REQUIRE(twice.scalars.at("merged_added") == 0);
    REQUIRE(twice.scalars.at("merged_same") == described.scalars.at("entries"));
    REQUIRE(twice.scalars.at("entries") == described.scalars.at("entries"));
    stata.set_local("llmv_merge_from", "\"" + cache + ".missing\"");
    REQUIRE(run_like_ado(stata, {}, {"cache", "action=merge"}, "").rc == 601);
    stata.set_local("llmv_merge_from", "");
    stata.set_local("llmv_cache", cache);
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((merged + suffix).c_str());

    // Clearing one model removes exactly its entries.
    const std::string model = models[0].at("model").get<std::string>();
    double model_entries = 0;  // a model may be served by several providers
    for (const auto& row : models)
        if (row.at("model") == model) model_entries += row.at("entries").get<double>();
    stata.set_local("llmv_model", model);
    const RunResult cleared = run_like_ado(stata, {}, {"cache", "action=clear"}, "");
    INFO(stata.errors);
    REQUIRE(cleared.rc == 0);
    REQUIRE(cleared.scalars.at("removed") == model_entries);
    REQUIRE(cleared.scalars.at("entries") == described.scalars.at("entries") - model_entries);
    REQUIRE(cleared.macros.at("model") == model);

    // Clearing every entry empties it: the next run pays for every call again.
    stata.set_local("llmv_model", "");
    const RunResult emptied = run_like_ado(stata, {}, {"cache", "action=clear"}, "");
    REQUIRE(emptied.rc == 0);
    REQUIRE(emptied.scalars.at("removed") == cleared.scalars.at("entries"));
    REQUIRE(emptied.scalars.at("entries") == 0);
    REQUIRE(emptied.scalars.at("N_models") == 0);
    REQUIRE(emptied.matrices.count("models") == 0);
    stata.set_local("llmv_model", chat_model);
    const RunResult again = run_like_ado(stata, {"text"}, validate, "w_");
    REQUIRE(again.rc == 0);
    REQUIRE(again.scalars.at("calls") == first.scalars.at("calls"));
    std::remove(cache.c_str());
    std::remove((cache + "-wal").c_str());
    std::remove((cache + "-shm").c_str());
}

TEST_CASE("cache: a missing file, a bad subcommand or model() with describe is refused",
          "[cache][errors]") {
    Stata stata;
    load_plugin(stata);
    load_bystander_data(stata);
    SECTION("a file that does not exist is reported, not created") {
        const std::string missing_file = temporary_path(".sqlite");
        stata.set_local("llmv_cache", missing_file);
        REQUIRE(run_like_ado(stata, {}, {"cache", "action=describe"}, "").rc == 601);
        REQUIRE(stata.errors.find(missing_file) != std::string::npos);
        REQUIRE_FALSE(exists(missing_file));
    }
    SECTION("no file") {
        stata.set_local("llmv_cache", "");
        REQUIRE(run_like_ado(stata, {}, {"cache", "action=describe"}, "").rc == 198);
    }
    SECTION("an unknown subcommand") {
        stata.set_local("llmv_cache", "/tmp");
        REQUIRE(run_like_ado(stata, {}, {"cache", "action=purge"}, "").rc == 198);
        REQUIRE(stata.errors.find("purge") != std::string::npos);
        REQUIRE(stata.errors.find("describe, clear") != std::string::npos);
    }
    SECTION("a file that is not a cache") {
        const std::string path = temporary_path(".txt");
        FILE* file = std::fopen(path.c_str(), "w");
        std::fputs("this is not an SQLite database, it is a text file of some length\n", file);
        std::fclose(file);
        stata.set_local("llmv_cache", path);
        const int rc = run_like_ado(stata, {}, {"cache", "action=describe"}, "").rc;
        REQUIRE(rc == 603);
        stata.set_local("llmv_model", "some-model");  // model() belongs to clear
        REQUIRE(run_like_ado(stata, {}, {"cache", "action=describe"}, "").rc == 198);
        REQUIRE(stata.errors.find("model(some-model)") != std::string::npos);
        std::remove(path.c_str());
    }
}

