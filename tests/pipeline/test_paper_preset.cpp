// The paper preset against the fake provider server: an unusable backtranslation answer counts
// as wrong at once (no redraw, as the author's code), parse_retries given beside the preset
// still wins, and the dry run prices the B reference texts the paper's tests draw.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "fake_server/fake_server.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/task.hpp"
#include "pipeline/fake_config.hpp"

using namespace llmv;
using cli_test::CliResult;
using cli_test::run_cli;

namespace {

constexpr int kPool = 20;

std::vector<std::string> preset_run(const fake::FakeServer& server, const std::string& cache) {
    return {"run",
            "--task",
            "simple_sentiment",
            "--text",
            "Revenue rose and margins held.",
            "--provider",
            "openai",
            "--model",
            "fake-chat",
            "--base-url",
            server.base_url() + "/v1",
            "--embedding-model",
            "fake-embedding",
            "--cache",
            cache,
            "-M",
            std::to_string(kPool),
            "-n",
            "10",
            "--paper-b",
            "20",
            "--concurrency",
            "1",
            "--json",
            "--quiet"};
}

fake::FakeServerOptions keyless() {
    fake::FakeServerOptions options;
    options.api_key = "";
    return options;
}

// The passage's annotation is answered as asked; every label answer after it (the
// backtranslation of the pool: simulation answers ignore this fault) is outside S.
void every_backtranslation_out_of_set(fake::FakeServer& server) {
    std::vector<fake::Fault> faults{fake::Fault::of(fake::Fault::Kind::none)};
    faults.resize(1000, fake::Fault::of(fake::Fault::Kind::label_outside_set));
    server.push_faults("openai.chat", faults);
}

nlohmann::json only_row(const CliResult& result) {
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    return nlohmann::json::parse(result.out.substr(0, result.out.find('\n')));
}

}  // namespace

TEST_CASE(
    "under the paper preset an out-of-set backtranslation answer counts as wrong, with no redraw",
    "[cli][paper]") {
    fake::FakeServer server(keyless());
    server.start();
    every_backtranslation_out_of_set(server);
    cli_test::TempDir dir;
    std::vector<std::string> args = preset_run(server, dir.file("cache.sqlite"));
    args.push_back("--paper");
    const nlohmann::json row = only_row(run_cli(args));
    INFO(row.dump().substr(0, 2000));
    const nlohmann::json& calls = row["calls"];
    CHECK(calls["parse_retries"].get<int>() == 0);
    CHECK(calls["out_of_set"].get<int>() == kPool);
    CHECK(calls["backtranslation_calls"].get<int>() == kPool);
    // One request per call: the annotation, the pools with their references, the backtranslation.
    CHECK(static_cast<int>(server.count("openai.chat")) ==
          calls["annotation_calls"].get<int>() + calls["simulation_calls"].get<int>() + kPool);
    CHECK(row["tests"]["backtranslation"]["accuracy"].get<double>() == 0.0);
    CHECK(row["verdict"].get<std::string>() == "inconclusive");
}

TEST_CASE(
    "parse_retries given beside the preset wins, and without the preset unusable answers are "
    "redrawn",
    "[cli][paper]") {
    for (const bool with_preset : {true, false}) {
        INFO("with the preset: " << with_preset);
        fake::FakeServer server(keyless());
        server.start();
        every_backtranslation_out_of_set(server);
        cli_test::TempDir dir;
        std::vector<std::string> args = preset_run(server, dir.file("cache.sqlite"));
        if (with_preset) args.insert(args.end(), {"--paper", "--parse-retries", "2"});
        const nlohmann::json row = only_row(run_cli(args));
        const int redraws = with_preset ? 2 : 3;  // 3: the setting's default
        CHECK(row["calls"]["parse_retries"].get<int>() == kPool * redraws);
        CHECK(row["calls"]["out_of_set"].get<int>() == kPool * (redraws + 1));
    }
}

TEST_CASE("the dry run under the paper preset prices the B reference texts' tokens",
          "[dryrun][paper]") {
    fake::FakeServer server(keyless());
    server.start();
    pipeline::ValidationConfig config = test::fake_config(server, "");
    config.model = "gpt-4o-mini";  // priced in the shipped table
    config.embedding_model = "text-embedding-3-small";
    config.price_table = LLMV_SOURCE_DIR "/prompts/prices.csv";
    config.m = 20;
    config.n = 10;
    config.paper_b = 30;
    const pipeline::PassageInput passage{
        "p1", "Revenue rose and margins held in every segment.", "", {}, ""};
    const pipeline::DryRunReport plain = pipeline::dry_run(config, {passage});
    settings::apply_preset(config, "paper", settings::FrontEnd::cli);
    const pipeline::DryRunReport paper = pipeline::dry_run(config, {passage});
    // The same preset without the paper's tests: the difference is the reference texts alone.
    pipeline::ValidationConfig without_references = config;
    without_references.tests.validation_method = "exact";
    without_references.tests.separation_method = "permutation";
    const pipeline::DryRunReport base = pipeline::dry_run(without_references, {passage});
    CHECK(server.total_count() == 0);
    REQUIRE(paper.cost.complete);
    CHECK(paper.cost.dollars > plain.cost.dollars);

    // Three labels each draw B = 30 texts more, in 3 calls of n = 10; a generated text is
    // estimated as long as y (at least 15 tokens) plus 2 for its quotes, 4 per answer.
    const std::int64_t k = 3, b = 30, calls = 3;
    const std::int64_t text_tokens = std::max<std::int64_t>(15, (passage.text.size() + 3) / 4);
    CHECK(paper.calls.simulation_calls - base.calls.simulation_calls == k * calls);
    CHECK(paper.estimated_output_tokens - base.estimated_output_tokens ==
          k * (b * (text_tokens + 2) + 4 * calls));
    CHECK(paper.estimated_embedding_tokens - base.estimated_embedding_tokens ==
          k * b * text_tokens);
    // Each further call's prompt is the label's pool prompt for n = 10 texts: its tokens again.
    const Task task = load_task("simple_sentiment", LLMV_SOURCE_DIR "/prompts");
    std::int64_t prompt_tokens = 0;
    for (const std::string& label : task.labels())
        prompt_tokens +=
            calls * static_cast<std::int64_t>(
                        (task.render_simulation(label, 10, passage.text, {}).size() + 3) / 4);
    CHECK(paper.estimated_input_tokens - base.estimated_input_tokens == prompt_tokens);
    // Dollars: the table's prices of exactly these further tokens (gpt-4o-mini: $0.15 and $0.60
    // per million input and output tokens; text-embedding-3-small: $0.02).
    const double extra =
        (0.15 * static_cast<double>(paper.estimated_input_tokens - base.estimated_input_tokens) +
         0.60 * static_cast<double>(paper.estimated_output_tokens - base.estimated_output_tokens) +
         0.02 * static_cast<double>(paper.estimated_embedding_tokens -
                                    base.estimated_embedding_tokens)) /
        1e6;
    CHECK(paper.cost.dollars - base.cost.dollars == Approx(extra).epsilon(1e-9));

    // The formula the report prints counts the reference draws too (issue 42): every label
    // draws B more under both paper tests, and its numbers give the report's counts.
    CHECK(base.note.find("R + K*ceil(M/n) + M chat calls and K*M + 1 embedded texts") !=
          std::string::npos);
    CHECK(paper.note.find("R + K*ceil((M+B)/n) + M chat calls and K*M + K*B + 1 embedded "
                          "texts per passage (the paper's tests draw B = 30 reference texts "
                          "for every one of the K = 3 labels)") != std::string::npos);
    const std::int64_t r = config.annotation_repeats, m = 20, n = 10;
    CHECK(paper.calls.chat_calls == r + k * ((m + b + n - 1) / n) + m);
    CHECK(paper.calls.embedded_texts == k * m + k * b + 1);
    // The paper's validation test alone: only β̂'s pool draws the B texts (L = 1 of K).
    pipeline::ValidationConfig validation_only = without_references;
    validation_only.tests.validation_method = "paper";
    const pipeline::DryRunReport one = pipeline::dry_run(validation_only, {passage});
    CHECK(one.note.find("(K-L)*ceil(M/n) + L*ceil((M+B)/n)") != std::string::npos);
    CHECK(one.note.find("L = 1 of the K = 3 labels") != std::string::npos);
    CHECK(one.calls.embedded_texts == k * m + b + 1);
}

TEST_CASE("a dry run with an unpriced model says the total is unknown, not $0.00",
          "[cli][dryrun]") {
    cli_test::TempDir dir;
    const CliResult result = run_cli(
        {"run", "--task", "simple_sentiment", "--text", "Revenue rose.", "--provider", "openai",
         "--model", "no-such-model-in-the-table", "--base-url", "http://127.0.0.1:9/v1",
         "--embedding-model", "text-embedding-3-small", "--cache", dir.file("cache.sqlite"),
         "--price-table", LLMV_SOURCE_DIR "/prompts/prices.csv", "--dry-run", "--paper"});
    INFO(result.out << result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(result.out.find(
              "price of the calls to be made (est.): unknown, not every model is priced") !=
          std::string::npos);
    CHECK(result.out.find("(est.): $") == std::string::npos);
}
