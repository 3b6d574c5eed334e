// A job split across machines (issue 41, item 8): `batch --shard I/N` takes a share of the rows
// that does not depend on their order, each shard runs with its own cache, and `cache --merge`
// brings the caches together. Three shards run separately and merged give the rows and the
// cache entries of one run, and a run over the whole file on the merged cache asks for nothing;
// merging twice changes nothing.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "batch_cli.hpp"
#include "cli_process.hpp"
#include "fake_server/fake_server.hpp"

using namespace llmv;
using namespace llmv::test;

namespace {

std::map<std::string, std::string> rows_of(const std::string& dir, const std::string& name) {
    return result_rows(slurp(dir + "/" + name));
}

// The cache's entries (`llmvalidate cache --json`).
long entries_of(const std::string& dir, const std::string& cache) {
    const Spawned shown = spawn_cli({"cache", "--cache", cache, "--json"}, dir);
    REQUIRE(wait_cli(shown) == 0);
    return nlohmann::json::parse(slurp(shown.out))["entries"].get<long>();
}

std::string run_cli_out(const std::vector<std::string>& args, const std::string& dir,
                        int expected = 0) {
    const Spawned spawned = spawn_cli(args, dir);
    const int code = wait_cli(spawned);
    INFO(slurp(spawned.err));
    if (expected >= 0)
        CHECK(code == expected);
    else
        CHECK(code != 0);  // any failure
    return slurp(spawned.out) + slurp(spawned.err);
}

}  // namespace

TEST_CASE("shards: three shards run apart and merged give one run's rows and cache",
          "[batch][cli][shards]") {
    const VendorKeys keys;
    fake::FakeServer server;
    server.start();
    const std::string dir = scratch_dir("llmv-shards", "three");
    write_input(dir + "/in.csv", 30);
    run_cli_out(cli_args(server, "openai", dir + "/in.csv", dir + "/one.sqlite",
                         dir + "/one.jsonl", false),
                dir);
    const std::map<std::string, std::string> one = rows_of(dir, "one.jsonl");
    REQUIRE(one.size() == 30);

    // The same rows in another order are split the same way.
    {
        std::ifstream in(dir + "/in.csv");
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        std::reverse(lines.begin() + 1, lines.end());
        std::ofstream out(dir + "/reversed.csv");
        for (const std::string& line : lines) out << line << "\n";
    }
    std::map<std::string, std::string> sharded;
    std::vector<std::string> caches;
    for (int i = 1; i <= 3; ++i) {
        const std::string shard = std::to_string(i) + "/3";
        const std::string name = "shard" + std::to_string(i);
        std::vector<std::string> args = cli_args(server, "openai", dir + "/in.csv",
                                                 dir + "/" + name + ".sqlite",
                                                 dir + "/" + name + ".jsonl", false);
        args.insert(args.end(), {"--shard", shard});
        run_cli_out(args, dir);
        caches.push_back(dir + "/" + name + ".sqlite");
        const auto rows = rows_of(dir, name + ".jsonl");
        CHECK_FALSE(rows.empty());
        for (const auto& [id, row] : rows) CHECK(sharded.emplace(id, row).second);  // once

        std::vector<std::string> reordered = cli_args(server, "openai", dir + "/reversed.csv",
                                                      dir + "/" + name + ".sqlite",
                                                      dir + "/" + name + "-reversed.jsonl", false);
        reordered.insert(reordered.end(), {"--shard", shard});
        run_cli_out(reordered, dir);
        std::set<std::string> ids, reversed_ids;
        for (const auto& [id, row] : rows) ids.insert(id);
        for (const auto& [id, row] : rows_of(dir, name + "-reversed.jsonl")) reversed_ids.insert(id);
        CHECK(ids == reversed_ids);
    }
    CHECK(sharded == one);  // every row once, as one run gives it

    std::vector<std::string> merge = {"cache", "--cache", dir + "/merged.sqlite", "--merge"};
    merge.insert(merge.end(), caches.begin(), caches.end());
    const std::string merged = run_cli_out(merge, dir);
    CHECK_THAT(merged, Catch::Matchers::Contains("0 conflicting"));
    CHECK(entries_of(dir, dir + "/merged.sqlite") == entries_of(dir, dir + "/one.sqlite"));
    // Twice: nothing new.
    const std::string again = run_cli_out(merge, dir);
    CHECK(again.find(" 0 new") != std::string::npos);
    CHECK(again.find("0 conflicting") != std::string::npos);
    CHECK(entries_of(dir, dir + "/merged.sqlite") == entries_of(dir, dir + "/one.sqlite"));

    // The whole file on the merged cache: no request, one run's rows.
    const std::size_t served = server.total_count();
    run_cli_out(cli_args(server, "openai", dir + "/in.csv", dir + "/merged.sqlite",
                         dir + "/whole.jsonl", false),
                dir);
    CHECK(server.total_count() == served);
    CHECK(rows_of(dir, "whole.jsonl") == one);
}

TEST_CASE("shards: --shard and --merge say what they take", "[batch][cli][shards]") {
    const VendorKeys keys;
    fake::FakeServer server;
    server.start();
    const std::string dir = scratch_dir("llmv-shards", "errors");
    write_input(dir + "/in.csv", 2);
    for (const char* bad : {"0/3", "4/3", "2", "a/b", "1/0"}) {
        INFO(bad);
        std::vector<std::string> args = cli_args(server, "openai", dir + "/in.csv",
                                                 dir + "/c.sqlite", dir + "/o.jsonl", false);
        args.insert(args.end(), {"--shard", bad});
        const std::string err = run_cli_out(args, dir, 3);
        CHECK_THAT(err, Catch::Matchers::Contains("`--shard` must be I/N with whole numbers "
                                                  "1 <= I <= N, e.g. 2/3"));
        CHECK_THAT(err, Catch::Matchers::Contains("received \"" + std::string(bad) + "\""));
    }
    CHECK(server.total_count() == 0);
    const std::string missing =
        run_cli_out({"cache", "--cache", dir + "/m.sqlite", "--merge", dir + "/none.sqlite"}, dir,
                    5);
    CHECK_THAT(missing, Catch::Matchers::Contains("--merge"));
    CHECK_THAT(missing, Catch::Matchers::Contains(dir + "/none.sqlite"));
    {
        std::ofstream(dir + "/foreign.sqlite") << "not a database";
    }
    const std::string foreign = run_cli_out(
        {"cache", "--cache", dir + "/m.sqlite", "--merge", dir + "/foreign.sqlite"}, dir, -1);
    CHECK_THAT(foreign, Catch::Matchers::Contains("foreign.sqlite"));
    run_cli_out({"cache", "--cache", dir + "/m.sqlite", dir + "/x.sqlite"}, dir, 2);
}
