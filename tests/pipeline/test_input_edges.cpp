// Issue 41, item 6: inputs at their edges, through the CLI.
// - A UTF-8 byte order mark before a quoted header (R's write.csv with fileEncoding
//   "UTF-8-BOM", Excel's "CSV UTF-8") reads as the header it is.
// - A header that names a column twice is one clear error naming it and its positions.
// - A directory given as --input is said to be one.
// - A passage larger than --max-passage-bytes fails on its own row, naming it; the others run.
// - Another program's SQLite file given as --cache is refused and left untouched.
// - A non-integer where an integer is needed is refused with the value as written.
// The simulated provider (a synthetic data-generating process, not an LLM) answers.
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"

using cli_test::CliResult;
using cli_test::run_cli;
using cli_test::TempDir;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

void write(const std::string& path, const std::string& bytes) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << bytes;
}

std::string bytes_of(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// `batch` with the simulated provider, small pools, no cache.
CliResult simulated_batch(const std::string& input, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"batch",
                                     "--task",
                                     "simple_sentiment",
                                     "--input",
                                     input,
                                     "--text-column",
                                     "text",
                                     "--provider",
                                     "simulated",
                                     "-M",
                                     "5",
                                     "-n",
                                     "5",
                                     "--permutations",
                                     "19",
                                     "--no-cache",
                                     "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
}

}  // namespace

TEST_CASE("input edges: a UTF-8 BOM before a quoted header", "[cli][inputs]") {
    TempDir dir;
    const std::string input = dir.file("bom.csv");
    // As R's write.csv(..., fileEncoding = "UTF-8-BOM") writes it: every name quoted.
    write(input,
          "\xEF\xBB\xBF\"id\",\"text\"\n\"a1\",\"Profit fell sharply.\"\n\"a2\",\"Sales rose.\"\n");
    const CliResult result = simulated_batch(input, {"--id-column", "id"});
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(contains(result.out, "a1"));
    CHECK(contains(result.out, "a2"));
    // The same file without quotes, and JSON lines with a BOM, read alike.
    write(input, "\xEF\xBB\xBFid,text\na1,Profit fell sharply.\n");
    CHECK(simulated_batch(input, {"--id-column", "id"}).exit_code == 0);
    const std::string jsonl = dir.file("bom.jsonl");
    write(jsonl, "\xEF\xBB\xBF{\"id\":\"j1\",\"text\":\"Profit fell sharply.\"}\n");
    const CliResult lines = simulated_batch(jsonl, {"--id-column", "id"});
    INFO(lines.err);
    CHECK(lines.exit_code == 0);
    CHECK(contains(lines.out, "j1"));
}

TEST_CASE("input edges: a column name used twice is one error naming it and its positions",
          "[cli][inputs]") {
    TempDir dir;
    const std::string input = dir.file("twice.csv");
    write(input, "id,text,id,score,score\n1,Profit fell.,1,2,3\n2,Sales rose.,2,4,5\n");
    const CliResult result = simulated_batch(input);
    INFO(result.err);
    CHECK(result.exit_code == 3);
    CHECK(contains(result.err, "\"id\" in columns 1 and 3"));
    CHECK(contains(result.err, "\"score\" in columns 4 and 5"));
    CHECK_FALSE(contains(result.err, "field(s) where the header has"));
    CHECK(result.out.empty());  // no row was run
}

TEST_CASE("input edges: a directory as --input is said to be one", "[cli][inputs]") {
    TempDir dir;
    const CliResult result = simulated_batch(dir.path());
    INFO(result.err);
    CHECK(result.exit_code == 5);
    CHECK(contains(result.err, "`--input`"));
    CHECK(contains(result.err, "(a directory)"));
    CHECK_FALSE(contains(result.err, "(empty)"));
}

TEST_CASE("input edges: a passage over --max-passage-bytes fails on its own row, named",
          "[cli][inputs]") {
    TempDir dir;
    const std::string input = dir.file("big.csv");
    const std::string big(3000, 'x');
    write(input, "id,text\nsmall,Profit fell sharply.\nhuge," + big + "\n");
    const CliResult result = simulated_batch(
        input, {"--id-column", "id", "--max-passage-bytes", "1000", "--format", "jsonl"});
    INFO(result.err);
    CHECK(result.exit_code == 3);
    CHECK(contains(result.err, "passage huge"));
    CHECK(contains(result.err, "3000 bytes; `--max-passage-bytes` allows 1000"));
    CHECK(contains(result.out, "\"id\":\"small\""));
    CHECK(contains(result.out, "\"status\":\"ok\""));
    // The default limit is documented in the help.
    const CliResult help = run_cli({"batch", "--help"});
    CHECK(contains(help.out, "--max-passage-bytes"));
    CHECK(contains(help.out, "1000000"));
}

TEST_CASE("input edges: another program's SQLite file as --cache is refused, untouched",
          "[cli][inputs]") {
    TempDir dir;
    const std::string path = dir.file("other.sqlite");
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE people(name TEXT); INSERT INTO people VALUES('Ada');",
                         nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    const std::string before = bytes_of(path);
    struct stat status_before {};
    REQUIRE(::stat(path.c_str(), &status_before) == 0);
    const CliResult result =
        run_cli({"run", "--task", "simple_sentiment", "--text", "Profit fell.", "--provider",
                 "openai", "--base-url", "http://127.0.0.1:1/v1", "--model", "m",
                 "--embedding-model", "e", "--cache", path, "--quiet"});
    INFO(result.err);
    CHECK(result.exit_code == 3);
    CHECK(contains(result.err, "`--cache`"));
    CHECK(contains(result.err, "another program"));
    CHECK(contains(result.err, "people"));
    struct stat status_after {};
    REQUIRE(::stat(path.c_str(), &status_after) == 0);
    CHECK(bytes_of(path) == before);
    CHECK(status_after.st_mtim.tv_sec == status_before.st_mtim.tv_sec);
    CHECK(status_after.st_mtim.tv_nsec == status_before.st_mtim.tv_nsec);
    CHECK_FALSE(std::filesystem::exists(path + "-wal"));
}

TEST_CASE("input edges: a non-integer where an integer is needed is refused as written",
          "[cli][inputs]") {
    for (const std::string option : {"--permutations", "-M", "--max-passage-bytes"}) {
        const CliResult result =
            run_cli({"run", "--task", "simple_sentiment", "--text", "Profit fell.", "--provider",
                     "simulated", "--dry-run", option, "1.5"});
        INFO(option << ": " << result.err);
        CHECK(result.exit_code == 3);
        CHECK(contains(result.err, "received 1.5"));
    }
    const CliResult json =
        run_cli({"test"},
                "{\"label\":\"A\",\"labels\":[\"A\",\"B\"],\"passage\":[1,0],\"pools\":{\"A\":"
                "[[1,0],[0.9,0.1],[0.8,0.2]],\"B\":[[0,1],[0.1,0.9],[0.2,0.8]]},"
                "\"permutations\":1.5}");
    INFO(json.err);
    CHECK(json.exit_code == 3);
    CHECK(contains(json.err, "received 1.5"));
}
