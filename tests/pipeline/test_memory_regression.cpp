// Peak memory does not grow with the rows (issue 26): `llmvalidate batch` on 8 times as many
// passages, against the fake provider server, stays within a fixed margin of the small run's
// peak. Memory kept per passage (vectors, texts, results) would show here: one passage's
// vectors alone are tens of kilobytes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"

using namespace llmv;
using cli_test::CliResult;

namespace {

std::string passages_csv(int rows) {
    static const char* what[] = {"profit rose", "sales fell", "orders grew", "costs climbed"};
    std::string csv = "id,text\n";
    for (int i = 1; i <= rows; ++i) {
        csv += "r" + std::to_string(i) + ",\"Company " + std::to_string(i) + " said " +
               what[i % 4] + " in quarter " + std::to_string(1 + i % 4) + ", according to report " +
               std::to_string(i * 7) + ".\"\n";
    }
    return csv;
}

// Peak RSS (KiB) of a batch run over `rows` passages (`extra`: more options, such as the
// batch API's).
long peak_of_batch(const fake::FakeServer& server, const cli_test::TempDir& dir, int rows,
                   const std::vector<std::string>& extra = {}) {
    const std::string name = std::to_string(rows) + (extra.empty() ? "" : "-api");
    const std::string input = dir.file("rows-" + name + ".csv");
    cli_test::write_file(input, passages_csv(rows));
    std::vector<std::string> args = {"batch",
                                     "--task",
                                     "simple_sentiment",
                                     "--input",
                                     input,
                                     "--text-column",
                                     "text",
                                     "--id-column",
                                     "id",
                                     "--provider",
                                     "openai",
                                     "--model",
                                     "fake-chat",
                                     "--base-url",
                                     server.base_url() + "/v1",
                                     "--embedding-model",
                                     "fake-embedding",
                                     "--cache",
                                     dir.file("cache-" + name + ".sqlite"),
                                     "-M",
                                     "10",
                                     "-n",
                                     "10",
                                     "--concurrency",
                                     "4",
                                     "--permutations",
                                     "19",
                                     "--quiet",
                                     "--output",
                                     dir.file("out-" + name + ".csv")};
    args.insert(args.end(), extra.begin(), extra.end());
    long peak_kb = 0;
    const CliResult result = cli_test::run_cli(args, "", &peak_kb);
    INFO(result.err.substr(0, 2000));
    REQUIRE(result.exit_code == 0);
    // Every passage has its row.
    const std::string out = cli_test::read_file(dir.file("out-" + name + ".csv"));
    CHECK(static_cast<int>(std::count(out.begin(), out.end(), '\n')) == rows + 1);
    return peak_kb;
}

// Peak RSS of 60 and of 480 passages: 420 more passages may add at most 16 MiB, under 40 KiB a
// passage (one passage's pools alone, 20 texts of 512 doubles, take 80 KiB).
void check_flat_peak(const std::vector<std::string>& extra) {
    fake::FakeServerOptions options;
    options.api_key = "";
    options.embedding_dimensions = 512;
    fake::FakeServer server(options);
    server.start();
    cli_test::TempDir dir;
    const long small = peak_of_batch(server, dir, 60, extra);
    const long big = peak_of_batch(server, dir, 480, extra);
    INFO("peak RSS: 60 rows " << small / 1024 << " MiB, 480 rows " << big / 1024 << " MiB");
    CHECK(big > 0);
    CHECK(big <= small + 16 * 1024);
}

}  // namespace

TEST_CASE("peak memory of a batch run does not grow with the rows", "[cli][memory]") {
    check_flat_peak({});
}

// The batch-API path (issue 26): a pass holds a bounded number of passages, the batches'
// answers and the missing requests wait on disk, results files are read a line at a time.
// Before, the peak grew with the rows (at 512-d, 27 MB at 60 rows and 87 MB at 480; at 1536-d
// and M = 20, 230 MB at 100 rows).
TEST_CASE("peak memory of a batch-API run does not grow with the rows", "[cli][memory][batch]") {
    check_flat_peak({"--batch-api", "--poll-interval", "0.2"});
}
