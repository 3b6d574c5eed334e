// End-to-end tests of the pipeline against the fake provider server on 127.0.0.1: exact call
// counts against the server's request counter, cache re-runs, cancellation and resume,
// verdicts for data-generating processes built to be valid / invalid / inconclusive, and
// faults in the middle of a batch.
#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cache/temp_cache_dir.hpp"
#include "fake_config.hpp"
#include "fake_server/fake_server.hpp"
#include "llm/structured_output.hpp"
#include "llm/synthetic_text.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/task.hpp"

namespace fs = std::filesystem;
using namespace llmv;
using namespace llmv::pipeline;

namespace {

std::string temp_cache(const std::string& name) {
    static int counter = 0;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    fs::path dir = fs::temp_directory_path() /
                   ("llmv-pipeline-" + std::to_string(stamp) + "-" + std::to_string(++counter));
    fs::create_directories(dir);
    return (dir / (name + ".sqlite")).string();
}

using llmv::test::fake_config;

// A passage written the way the fake server writes passages for `label`.
std::string server_style_passage(const std::string& label, std::uint64_t variant) {
    return SyntheticText(0).passages(label, 1, variant).front();
}

std::size_t embedded_inputs(const fake::FakeServer& server) {
    std::size_t inputs = 0;
    for (const auto& request : server.recorded(100000)) {
        if (request.endpoint != "openai.embeddings") continue;
        const auto body = nlohmann::json::parse(request.body);
        inputs += body["input"].is_array() ? body["input"].size() : 1;
    }
    return inputs;
}

}  // namespace

TEST_CASE("one passage makes exactly R + K*ceil(M/n) + M chat calls and embeds K*M + 1 texts") {
    fake::FakeServer server;
    server.start();
    ValidationConfig config = fake_config(server, temp_cache("counts"));
    config.annotation_repeats = 3;  // R
    config.m = 20;                  // M
    config.n = 6;                   // ceil(20 / 6) = 4 calls per label
    PassageInput passage{"p1", server_style_passage("negative", 11), "", {}, ""};
    const PassageResult result = validate_passage(config, passage);
    REQUIRE(result.ok);
    const std::size_t k = 3;
    const std::size_t expected_chat = 3 + k * 4 + 20;
    CHECK(server.count("openai.chat") == expected_chat);
    CHECK(embedded_inputs(server) == k * 20 + 1);
    CHECK(result.calls.annotation_calls == 3);
    CHECK(result.calls.simulation_calls == static_cast<std::int64_t>(k * 4));
    CHECK(result.calls.backtranslation_calls == 20);
    CHECK(result.calls.chat_calls == static_cast<std::int64_t>(expected_chat));
    CHECK(result.calls.embedded_texts == static_cast<std::int64_t>(k * 20 + 1));
    CHECK(result.calls.cache_hits == 0);
    // The formula of the header agrees with what was sent.
    const CallCounts formula = expected_calls_per_passage(config, 3);
    CHECK(formula.chat_calls == static_cast<std::int64_t>(expected_chat));
    CHECK(formula.embedded_texts == static_cast<std::int64_t>(k * 20 + 1));
    // The dry run predicts the same numbers and sends nothing.
    server.reset_counters();
    const DryRunReport report = dry_run(config, {passage});
    CHECK(report.calls.chat_calls == static_cast<std::int64_t>(expected_chat));
    CHECK(report.calls.embedded_texts == static_cast<std::int64_t>(k * 20 + 1));
    CHECK(report.estimated_input_tokens > 0);
    CHECK(server.total_count() == 0);
}

TEST_CASE("a re-run with the cache makes zero calls and reproduces every number") {
    fake::FakeServer server;
    server.start();
    const ValidationConfig config = fake_config(server, temp_cache("rerun"));
    std::vector<PassageInput> passages = {{"a", server_style_passage("negative", 21), "", {}, ""},
                                          {"b", server_style_passage("positive", 22), "", {}, ""}};
    const BatchResult first = validate_batch(config, passages);
    const std::size_t sent = server.total_count();
    REQUIRE(sent > 0);
    const BatchResult second = validate_batch(config, passages);
    CHECK(server.total_count() == sent);  // nothing new reached the server
    REQUIRE(first.passages.size() == 2);
    REQUIRE(second.passages.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        const PassageResult& a = first.passages[i];
        const PassageResult& b = second.passages[i];
        REQUIRE(a.ok);
        REQUIRE(b.ok);
        CHECK(b.calls.chat_calls == 0);
        CHECK(b.calls.cache_hits > 0);
        CHECK(a.label == b.label);
        CHECK(a.verdict == b.verdict);
        CHECK(a.tests.validation.statistic == b.tests.validation.statistic);
        CHECK(a.tests.validation.p_value == b.tests.validation.p_value);
        CHECK(a.tests.backtranslation.accuracy == b.tests.backtranslation.accuracy);
        REQUIRE(a.tests.separation.size() == b.tests.separation.size());
        for (std::size_t s = 0; s < a.tests.separation.size(); ++s) {
            CHECK(a.tests.separation[s].statistic == b.tests.separation[s].statistic);
            CHECK(a.tests.separation[s].p_value == b.tests.separation[s].p_value);
        }
    }
}

TEST_CASE("cancelling at 50% keeps the cache consistent and the re-run repeats no answered call") {
    fake::FakeServer server;
    server.start();
    std::vector<PassageInput> passages;
    for (int i = 0; i < 4; ++i) {
        passages.push_back({"p" + std::to_string(i),
                            server_style_passage(i % 2 ? "positive" : "negative", 40 + i),
                            "",
                            {},
                            ""});
    }
    // The full run on a fresh cache: how many chat requests the batch needs.
    ValidationConfig full = fake_config(server, temp_cache("full"));
    full.concurrency = 1;  // at most one request is abandoned by the cancellation
    const BatchResult reference = validate_batch(full, passages);
    const std::size_t chat_needed = server.count("openai.chat");
    for (const auto& result : reference.passages) REQUIRE(result.ok);
    server.reset_counters();

    ValidationConfig config = full;
    config.cache_path = temp_cache("cancel");
    std::atomic<bool> cancel{false};
    BatchCallbacks callbacks;
    callbacks.cancel = &cancel;
    callbacks.progress_interval_seconds = 0;
    callbacks.on_progress = [&](const Progress&) {
        if (server.count("openai.chat") * 2 >= chat_needed) cancel = true;
    };
    const BatchResult cut = validate_batch(config, passages, callbacks);
    CHECK(cut.cancelled);
    std::size_t unfinished = 0;
    for (const auto& result : cut.passages) {
        if (!result.ok) {
            CHECK(result.error_code == "llmv.cancelled");
            ++unfinished;
        }
    }
    CHECK(unfinished > 0);
    const std::size_t chat_first = server.count("openai.chat");
    CHECK(chat_first < chat_needed);
    std::uint64_t cached_chat = 0;
    {
        Cache cache(config.cache_path);
        for (const auto& model : cache.models()) {
            if (model.model == "fake-chat") cached_chat = model.entries;
        }
    }
    // Every answer received before the cancellation is in the cache.
    CHECK(cached_chat + 1 >= chat_first);
    CHECK(cached_chat <= chat_first);

    // The dry run sees exactly what the cache serves. What is still to make is exact where every
    // passage's label is cached; a passage whose annotation is not may turn out to share its
    // backtranslation with another one with the same pool and label: an upper bound then.
    const DryRunReport plan = dry_run(config, passages);
    INFO("needed " << chat_needed << ", cached " << cached_chat << ", formula "
                   << plan.calls.chat_calls << ", shared " << plan.calls.shared);
    CHECK(plan.cached_calls == static_cast<std::int64_t>(cached_chat));
    CHECK(plan.chat_calls_to_make >= static_cast<std::int64_t>(chat_needed - cached_chat));
    CHECK(plan.chat_calls_to_make <= static_cast<std::int64_t>(chat_needed - cached_chat) + 2 * 20);
    server.reset_counters();
    const BatchResult resumed = validate_batch(config, passages);
    // Resuming sends exactly the requests whose answers were not cached: nothing answered twice.
    CHECK(server.count("openai.chat") == chat_needed - cached_chat);
    for (std::size_t i = 0; i < passages.size(); ++i) {
        REQUIRE(resumed.passages[i].ok);
        CHECK(resumed.passages[i].tests.validation.p_value ==
              reference.passages[i].tests.validation.p_value);
        CHECK(resumed.passages[i].verdict == reference.passages[i].verdict);
    }
}

TEST_CASE("verdicts: valid, invalid and inconclusive data-generating processes") {
    SECTION("valid: y is written the way the model writes texts of its label") {
        fake::FakeServer server;
        server.start();
        const ValidationConfig config = fake_config(server, temp_cache("valid"));
        const PassageResult result =
            validate_passage(config, {"y", server_style_passage("negative", 5), "", {}, ""});
        REQUIRE(result.ok);
        CHECK(result.label == "Negative");
        CHECK(result.tests.backtranslation.pass);
        for (const auto& separation : result.tests.separation) CHECK(separation.pass);
        CHECK_FALSE(result.tests.validation.reject);
        CHECK(result.verdict == stats::Verdict::valid);
    }
    SECTION("invalid: y carries the label's words but none of the model's other vocabulary") {
        fake::FakeServer server;
        server.start();
        ValidationConfig config = fake_config(server, temp_cache("invalid"));
        config.m = 40;  // rank ⌊α(M + 1)⌋ = 2: y need not lie below every pool text
        const std::string y =
            "Losses decline weak falling slump crisis: zebra quantum violin glacier meadow orchid "
            "nebula saffron tundra walrus lantern cobalt prism harbor velvet comet basalt thistle.";
        const PassageResult result = validate_passage(config, {"y", y, "", {}, ""});
        REQUIRE(result.ok);
        CHECK(result.label == "Negative");
        CHECK(result.tests.backtranslation.pass);
        INFO("tau " << result.tests.validation.statistic << ", p "
                    << result.tests.validation.p_value << ", null min "
                    << result.tests.validation.null_distribution.minCoeff());
        CHECK(result.tests.validation.reject);
        CHECK(result.verdict == stats::Verdict::invalid);
    }
    SECTION("inconclusive: the annotator mislabels its own texts too often") {
        fake::FakeServerOptions options;
        options.annotation_error_rate = 0.5;
        fake::FakeServer server(options);
        server.start();
        const ValidationConfig config = fake_config(server, temp_cache("inconclusive"));
        const PassageResult result =
            validate_passage(config, {"y", server_style_passage("negative", 5), "", {}, ""});
        REQUIRE(result.ok);
        CHECK_FALSE(result.tests.backtranslation.pass);
        CHECK(result.tests.backtranslation.accuracy < 0.9);
        CHECK(result.verdict == stats::Verdict::inconclusive);
    }
}

TEST_CASE("faults in the middle of a batch lose no passage") {
    fake::FakeServer server;
    server.start();
    ValidationConfig config = fake_config(server, temp_cache("faults"));
    config.m = 10;
    config.n = 5;
    using Kind = fake::Fault::Kind;
    std::vector<fake::Fault> chat_faults;
    for (int i = 0; i < 6; ++i) chat_faults.push_back(fake::Fault::of(Kind::none));
    chat_faults.push_back(fake::Fault::http(503));
    chat_faults.push_back(fake::Fault::of(Kind::label_outside_set));
    chat_faults.push_back(fake::Fault::of(Kind::none));
    chat_faults.push_back(fake::Fault::of(Kind::malformed_json));
    chat_faults.push_back(fake::Fault::of(Kind::none));
    chat_faults.push_back(fake::Fault::of(Kind::drop_connection));
    chat_faults.push_back(fake::Fault::of(Kind::truncated_body));
    chat_faults.push_back(fake::Fault::of(Kind::none));
    chat_faults.push_back(fake::Fault::of(Kind::refusal));
    chat_faults.push_back(fake::Fault::http(429, "0"));
    server.push_faults("openai.chat", chat_faults);
    server.push_faults("openai.embeddings", {fake::Fault::http(500)});
    std::vector<PassageInput> passages;
    for (int i = 0; i < 3; ++i) {
        passages.push_back(
            {"f" + std::to_string(i), server_style_passage("positive", 70 + i), "", {}, ""});
    }
    const BatchResult batch = validate_batch(config, passages);
    REQUIRE(batch.passages.size() == 3);
    for (const auto& result : batch.passages) {
        INFO(result.id << ": " << result.error_code << " " << result.error_message);
        CHECK(result.ok);
        CHECK(result.verdict_name != "error");
    }
    CHECK(batch.calls.transport_retries >= 3);  // 503, dropped connection, 429, embeddings 500
    CHECK(batch.calls.out_of_set + batch.calls.unparseable >= 2);  // outside S and the refusal
    CHECK(batch.calls.parse_retries >= 2);
    CHECK(batch.summary.n_failed == 0);
}

TEST_CASE("a provider error fails only the passages that needed the call, with its code") {
    fake::FakeServer server;
    server.start();
    ValidationConfig config = fake_config(server, temp_cache("auth"));
    config.api_key = "wrong-key";
    const PassageResult result = validate_passage(config, {"y", "Some passage.", "", {}, ""});
    CHECK_FALSE(result.ok);
    CHECK(result.error_code == "llmv.provider.auth");
    CHECK_THAT(result.error_message, Catch::Matchers::Contains("passage y"));
    CHECK(result.error_message.find("wrong-key") == std::string::npos);
}

TEST_CASE("the dry run sees what the cache already holds and makes no call") {
    fake::FakeServer server;
    server.start();
    const ValidationConfig config = fake_config(server, temp_cache("dry"));
    const PassageInput passage{"y", server_style_passage("negative", 8), "", {}, ""};
    const DryRunReport before = dry_run(config, {passage, passage});
    CHECK(before.cached_calls == 0);
    // The second passage's annotation and pool prompts are the first one's.
    CHECK(before.calls.shared == 1 + 3 * 4);
    CHECK(before.chat_calls_to_make == 2 * (1 + 3 * 4 + 20) - (1 + 3 * 4));
    CHECK(before.cached_embedded_texts == 0);
    const PassageResult done = validate_passage(config, passage);
    REQUIRE(done.ok);
    REQUIRE(done.calls.parse_retries == 0);
    server.reset_counters();
    const DryRunReport after = dry_run(config, {passage});
    // The cache is followed as the run would: the annotation gives β̂, its cached pool gives the
    // backtranslation prompts and the texts to embed. Everything is served, nothing is made.
    CHECK(after.cached_calls == 1 + 3 * 4 + 20);
    CHECK(after.chat_calls_to_make == 0);
    CHECK(after.cached_embedded_texts == 3 * 20 + 1);
    CHECK(after.texts_to_embed == 0);
    CHECK(server.total_count() == 0);
    // A second passage with the same prompts would share the first one's requests.
    const DryRunReport twice = dry_run(config, {passage, passage});
    CHECK(twice.cached_calls == 1 + 3 * 4 + 20);
    CHECK(twice.calls.shared == 1 + 3 * 4 + 20);
    CHECK(twice.chat_calls_to_make == 0);
    CHECK(twice.shared_embedded_texts == 3 * 20 + 1);
}

TEST_CASE("a side file line that is not an answer is refused, naming the file and the line") {
    test::TempCacheDir directory("llmv-import");
    const std::string side_file = directory.path + "/side.jsonl";
    std::ofstream(side_file) << side_file_line(CacheKey{"openai", "e", "m",
                                                        nlohmann::json::object(), "p", 0, 0},
                                               CacheEntry{}, {})
                             << "\n{\"key\": 1}\n";
    Cache cache(directory.cache());
    CHECK_THROWS_WITH(cache.import_side_file(side_file),
                      Catch::Matchers::Contains(side_file + ", line 2") &&
                          Catch::Matchers::Contains("side_file"));
    CHECK(cache.stats().entries == 0);  // nothing added from a file with a bad line
    std::filesystem::remove(side_file);
}

TEST_CASE(
    "read_generations returns K*M texts per passage and the answers the server served, with no "
    "call") {
    fake::FakeServer server;
    server.start();
    ValidationConfig config = fake_config(server, temp_cache("generations"));
    // Its simulation prompt quotes the passage: no request is shared between the passages, so
    // what was served and what is read back are the same multisets.
    config.task_path = "financial_phrasebank";
    config.annotation_repeats = 2;
    const std::vector<PassageInput> passages = {
        {"a", server_style_passage("negative", 31), "", {}, ""},
        {"b", server_style_passage("positive", 32), "", {}, ""}};
    const BatchResult batch = validate_batch(config, passages);
    REQUIRE(batch.passages.size() == 2);
    REQUIRE(batch.passages[0].ok);
    REQUIRE(batch.passages[1].ok);

    // What the server served: every generated text, and every label it answered.
    std::multiset<std::string> served_texts;
    std::multiset<std::string> served_labels;
    for (const fake::ServedAnswer& answer : server.served()) {
        if (answer.endpoint != "openai.chat") continue;
        const auto body = nlohmann::json::parse(answer.response_body);
        const std::string content = body["choices"][0]["message"]["content"].get<std::string>();
        const PassagesAnswer texts = parse_passages_answer(content);
        if (texts.status == AnswerStatus::ok) {
            served_texts.insert(texts.passages.begin(), texts.passages.end());
        } else {
            served_labels.insert(
                parse_label_answer(content, {"Positive", "Neutral", "Negative"}).label);
        }
    }

    server.reset_counters();
    const Generations generations = read_generations(config, passages);
    CHECK(server.total_count() == 0);
    CHECK(generations.failed.empty());
    const std::size_t k = 3, m = 20, r = 2;
    REQUIRE(generations.rows.size() == 2 * (r + k * m));
    std::multiset<std::string> read_texts;
    std::multiset<std::string> read_labels;
    for (std::size_t p = 0; p < 2; ++p) {
        const PassageResult& result = batch.passages[p];
        std::size_t annotations = 0, backtranslated = 0;
        std::map<std::string, std::size_t> per_label;
        for (const GenerationRow& row : generations.rows) {
            if (row.passage_id != result.id) continue;
            CHECK(row.model == "fake-chat");
            if (row.kind == "annotation") {
                ++annotations;
                CHECK(row.text == passages[p].text);
                CHECK(row.answer == result.annotations[static_cast<std::size_t>(row.draw)]);
                CHECK(row.prompt_hash == result.prompt_hashes.at("annotation"));
                read_labels.insert(row.answer);
                continue;
            }
            REQUIRE(row.kind == "simulation");
            ++per_label[row.label];
            read_texts.insert(row.text);
            CHECK(row.prompt_hash == result.prompt_hashes.at("simulation:" + row.label));
            if (row.label == result.label) {
                CHECK_FALSE(row.answer.empty());
                ++backtranslated;
                read_labels.insert(row.answer);
            } else {
                CHECK(row.answer.empty());
            }
        }
        CHECK(annotations == r);
        CHECK(backtranslated == m);
        CHECK(per_label.size() == k);
        for (const auto& entry : per_label) CHECK(entry.second == m);
        // The backtranslation accuracy of the test is the share of the rows' answers.
        CHECK(static_cast<double>(result.tests.backtranslation.correct) ==
              static_cast<double>(std::count_if(
                  generations.rows.begin(), generations.rows.end(), [&](const GenerationRow& row) {
                      return row.passage_id == result.id && row.kind == "simulation" &&
                             row.label == result.label && row.answer == result.label;
                  })));
    }
    CHECK(read_texts == served_texts);
    CHECK(read_labels == served_labels);
}

TEST_CASE("read_generations fails a passage the cache does not hold, without calling") {
    fake::FakeServer server;
    server.start();
    const ValidationConfig config = fake_config(server, temp_cache("generations-missing"));
    const Generations generations =
        read_generations(config, {{"never-run", server_style_passage("neutral", 41), "", {}, ""}});
    CHECK(server.total_count() == 0);
    CHECK(generations.rows.empty());
    REQUIRE(generations.failed.size() == 1);
    CHECK(generations.failed[0].error_code == code::cache);
    CHECK_THAT(generations.failed[0].error_message,
               Catch::Matchers::Contains("the cache holds no answer to its annotation call"));

    ValidationConfig no_cache = config;
    no_cache.cache_path.clear();
    CHECK_THROWS_WITH(read_generations(no_cache, {{"x", "Some text.", "", {}, ""}}),
                      Catch::Matchers::Contains("the cache file of the run"));
}

TEST_CASE("read_generations recomputes the simulated provider's texts exactly") {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.provider = "simulated";
    config.m = 10;
    config.n = 5;
    config.tests.permutations = 99;
    config.keep_texts = true;
    const std::vector<PassageInput> passages = {
        {"s", "Revenue grew strongly this year.", "", {}, ""}};
    const BatchResult batch = validate_batch(config, passages);
    REQUIRE(batch.passages.at(0).ok);
    const std::vector<GenerationRow> kept = generation_rows(batch.passages[0]);
    config.keep_texts = false;
    const Generations read = read_generations(config, passages);
    CHECK(read.synthetic);
    REQUIRE(read.rows.size() == kept.size());
    REQUIRE(kept.size() == 1 + 3 * 10);
    for (std::size_t i = 0; i < kept.size(); ++i) {
        CHECK(read.rows[i].text == kept[i].text);
        CHECK(read.rows[i].answer == kept[i].answer);
        CHECK(read.rows[i].label == kept[i].label);
        CHECK(read.rows[i].draw == kept[i].draw);
    }
}

TEST_CASE("an empty or white-space-only passage is refused before any call") {
    fake::FakeServer server;
    server.start();
    const ValidationConfig config = fake_config(server, temp_cache("blank"));
    for (const std::string& blank : {std::string(" \t\n "), std::string()}) {
        const std::vector<PassageInput> passages = {
            {"a", server_style_passage("negative", 51), "", {}, ""}, {"b", blank, "", {}, ""}};
        try {
            validate_batch(config, passages);
            FAIL("no error");
        } catch (const Error& error) {
            CHECK(error.code() == code::invalid_argument);
            CHECK_THAT(error.what(),
                       Catch::Matchers::Contains("passage \"b\" (row 2)") &&
                           Catch::Matchers::Contains("a passage with text to annotate"));
        }
        CHECK_THROWS_WITH(dry_run(config, passages),
                          Catch::Matchers::Contains("passage \"b\" (row 2)"));
        CHECK_THROWS_WITH(read_generations(config, passages),
                          Catch::Matchers::Contains("passage \"b\" (row 2)"));
        CHECK(server.total_count() == 0);
    }
    // A streamed batch cannot look ahead: the blank row fails alone, with no call of its own.
    ValidationConfig one_call = config;
    one_call.m = 4;
    one_call.n = 4;
    std::size_t next = 0;
    const std::vector<PassageInput> rows = {{"blank", "   ", "", {}, ""}};
    const BatchResult batch = validate_stream(
        one_call,
        [&](PassageInput& out) { return next < rows.size() ? (out = rows[next++], true) : false; },
        {}, true);
    REQUIRE(batch.passages.size() == 1);
    CHECK_FALSE(batch.passages[0].ok);
    CHECK(batch.passages[0].error_code == code::invalid_argument);
    CHECK(server.total_count() == 0);
}

// Issue 11: the paper sends each prompt alone, one user message, and reads JSON from the free
// text. structured_output = "none" does the same: no system message, no schema, no tools, and
// the annotation request's text is the task's prompt byte for byte.
TEST_CASE("structured output none sends the task's prompt alone, as the paper does") {
    fake::FakeServer server;
    server.start();
    test::TempCacheDir directory("llmv-structured");
    ValidationConfig config = fake_config(server, directory.cache());
    settings::apply_preset(config, "paper");
    REQUIRE(config.structured_output == "none");
    config.tests.validation_method = "exact";  // the paper's B reference texts are not needed here
    config.tests.separation_method = "permutation";
    const PassageInput passage{"y", server_style_passage("negative", 3), "", {}, ""};
    const PassageResult result = validate_passage(config, passage);
    INFO(result.error_message);
    REQUIRE(result.ok);
    const std::string annotation_prompt =
        load_task("simple_sentiment").render_annotation(passage.text);
    std::size_t chat_requests = 0;
    bool annotation_seen = false;
    for (const auto& request : server.recorded(100000)) {
        if (request.endpoint != "openai.chat") continue;
        ++chat_requests;
        const auto body = nlohmann::json::parse(request.body);
        REQUIRE(body["messages"].size() == 1);
        CHECK(body["messages"][0]["role"] == "user");
        CHECK_FALSE(body.contains("response_format"));
        CHECK_FALSE(body.contains("tools"));
        CHECK_FALSE(body.contains("tool_choice"));
        if (body["messages"][0]["content"] == annotation_prompt) annotation_seen = true;
    }
    CHECK(static_cast<std::int64_t>(chat_requests) == result.calls.chat_calls);
    CHECK(annotation_seen);

    // "prompt" puts the schema in the prompt instead of the API's structured output, and keeps
    // the task's answer-format instructions (no schema travels with the request).
    config.structured_output = "prompt";
    server.reset_counters();
    REQUIRE(validate_passage(config, passage).ok);
    for (const auto& request : server.recorded(100000)) {
        if (request.endpoint != "openai.chat") continue;
        const auto body = nlohmann::json::parse(request.body);
        CHECK_FALSE(body.contains("response_format"));
        CHECK(body["messages"][0]["content"].get<std::string>().find("Answer with a JSON object") !=
              std::string::npos);
        CHECK(body["messages"][0]["content"].get<std::string>().find("JSON Schema") !=
              std::string::npos);
    }
}

// Issue 26: with structured output "schema" the JSON Schema travels with every request, so the
// prompts leave out the task's answer-format instructions (a fifth to a third of the input tokens);
// answer_format "always" keeps them, as earlier versions did, so that a cache they filled
// serves again. The dry run renders the same prompts as the run.
TEST_CASE("answer-format instructions are left out when the schema travels with the request") {
    fake::FakeServer server;
    server.start();
    test::TempCacheDir directory("llmv-answer-format");
    ValidationConfig config = fake_config(server, directory.cache());
    REQUIRE(config.structured_output == "schema");
    REQUIRE(config.answer_format == "auto");
    const Task task = load_task("simple_sentiment");
    REQUIRE(!task.annotation_answer_format().empty());
    const PassageInput passage{"y", server_style_passage("negative", 3), "", {}, ""};
    const auto chat_prompts = [&] {
        std::vector<std::string> prompts;
        for (const auto& request : server.recorded(100000)) {
            if (request.endpoint != "openai.chat") continue;
            const auto body = nlohmann::json::parse(request.body);
            CHECK(body.contains("response_format"));  // the schema, with every request
            prompts.push_back(body["messages"].back()["content"].get<std::string>());
        }
        return prompts;
    };
    const auto mentions_format = [](const std::string& prompt) {
        return prompt.find("Answer with a JSON object") != std::string::npos;
    };

    const PassageResult lean = validate_passage(config, passage);
    INFO(lean.error_message);
    REQUIRE(lean.ok);
    const std::vector<std::string> lean_prompts = chat_prompts();
    REQUIRE(static_cast<std::int64_t>(lean_prompts.size()) == lean.calls.chat_calls);
    CHECK(std::none_of(lean_prompts.begin(), lean_prompts.end(), mentions_format));
    // The annotation prompt is the task's template alone.
    CHECK(std::count(lean_prompts.begin(), lean_prompts.end(),
                     task.without_answer_formats().render_annotation(passage.text)) ==
          config.annotation_repeats);
    const DryRunReport lean_dry = dry_run(config, {passage});

    // "always": every prompt ends with the instructions, as before; new cache keys, so the run
    // pays again once, and its re-run is served from the cache.
    config.answer_format = "always";
    server.reset_counters();
    const PassageResult full = validate_passage(config, passage);
    REQUIRE(full.ok);
    const std::vector<std::string> full_prompts = chat_prompts();
    REQUIRE(!full_prompts.empty());
    CHECK(std::all_of(full_prompts.begin(), full_prompts.end(), mentions_format));
    CHECK(std::count(full_prompts.begin(), full_prompts.end(),
                     task.render_annotation(passage.text)) == config.annotation_repeats);
    server.reset_counters();
    REQUIRE(validate_passage(config, passage).ok);
    CHECK(server.total_count() == 0);
    const DryRunReport full_dry = dry_run(config, {passage});
    // What the instructions cost: the dry run counts fewer input tokens without them.
    CHECK(lean_dry.estimated_input_tokens < full_dry.estimated_input_tokens);
    CHECK(lean_dry.calls.chat_calls == full_dry.calls.chat_calls);

    // Structured output "prompt" keeps them: the previous test case checks its requests.
}

TEST_CASE("answer_format takes auto or always and a wrong value names it") {
    ValidationConfig config;
    config.answer_format = "sometimes";
    try {
        settings::check(config);
        FAIL("answer_format \"sometimes\" was accepted");
    } catch (const Error& error) {
        CHECK(std::string(error.what()).find("`answer_format`") != std::string::npos);
        CHECK(std::string(error.what()).find(R"(one of "auto", "always"; received "sometimes")") !=
              std::string::npos);
    }
}

// Issue 26: the dry run bills what a request carries beside its prompt. With structured output
// schema: the answer's JSON Schema, and for Claude's forced tool also the tool-use system
// prompt (313 tokens on the Claude 4 models, Anthropic's tool-use pricing page); nothing with
// structured output none.
TEST_CASE("the dry run counts the schema and Claude's tool-use system prompt per call") {
    fake::FakeServer server;
    server.start();
    test::TempCacheDir directory("llmv-dry-overhead");
    ValidationConfig config = fake_config(server, directory.cache());
    const PassageInput passage{"y", server_style_passage("negative", 3), "", {}, ""};
    const DryRunReport openai = dry_run(config, {passage});
    ValidationConfig plain = config;
    plain.structured_output = "none";
    plain.answer_format = "always";  // the same prompts as the schema run, with the sentence
    ValidationConfig sentence = config;
    sentence.answer_format = "always";
    const DryRunReport without_schema = dry_run(plain, {passage});
    const DryRunReport with_schema = dry_run(sentence, {passage});
    REQUIRE(with_schema.calls.chat_calls == without_schema.calls.chat_calls);
    // Each call's schema: at least the wrapper's 10 tokens more, per call.
    CHECK(with_schema.estimated_input_tokens - without_schema.estimated_input_tokens >=
          10 * with_schema.calls.chat_calls);

    ValidationConfig claude = config;
    claude.provider = "anthropic";
    claude.model = "claude-sonnet-4-6";
    claude.base_url = "";  // a dry run sends nothing
    claude.api_key = "sk-ant-test";
    const DryRunReport anthropic = dry_run(claude, {passage});
    REQUIRE(anthropic.calls.chat_calls == openai.calls.chat_calls);
    // The same prompts and schemas; the forced tool's system prompt on every call.
    CHECK(anthropic.estimated_input_tokens - openai.estimated_input_tokens ==
          313 * anthropic.calls.chat_calls);
    CHECK(server.total_count() == 0);
}
