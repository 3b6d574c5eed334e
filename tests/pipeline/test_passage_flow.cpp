// The per-passage state machine (cpp/pipeline/passage_flow.hpp) driven by a scripted provider:
// no transport, no server and no cache. Each request the flow makes is answered by the test's
// script, the way the scheduler answers it from the network or the cache.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/passage_flow.hpp"
#include "pipeline/simulated.hpp"

using namespace llmv;
using namespace llmv::pipeline;

namespace {

// The flow's requests, queued; answers are given back by ScriptedRun below.
class ScriptedRequests : public PassageFlow::Requests {
  public:
    std::deque<ChatUnit> chats;
    std::deque<std::pair<std::string, EmbedTarget>> embeddings;
    std::vector<PassageResult> results;  // in the order the flow finished them
    std::vector<std::string> rejected;
    bool keeps = false;

    void chat(ChatUnit unit) override { chats.push_back(std::move(unit)); }
    void embedding(const std::string& text, EmbedTarget target) override {
        embeddings.emplace_back(text, std::move(target));
    }
    bool keeps_answers() const override { return keeps; }
    void reject_embedding(const std::string& text, std::size_t, std::size_t) override {
        rejected.push_back(text);
    }
    void finished(const PassagePtr& passage) override { results.push_back(passage->result); }
};

ValidationConfig small_config() {
    ValidationConfig config;
    config.task_path = "simple_sentiment";
    config.m = 4;
    config.n = 3;  // ceil(4 / 3) = 2 simulation calls per label
    config.tests.permutations = 19;
    config.keep_texts = true;
    return config;
}

ResolvedProviders scripted_providers() {
    ResolvedProviders providers;
    providers.chat_provider = "scripted";
    providers.chat_model = "scripted-model";
    providers.embedding_provider = "scripted";
    providers.embedding_model = "scripted-embedding";
    return providers;
}

std::string label_answer(const std::string& label) { return nlohmann::json{{"label", label}}.dump(); }

std::string passages_answer(const std::string& label, int count, int call) {
    std::vector<std::string> texts;
    for (int i = 0; i < count; ++i)
        texts.push_back("A " + label + " text, call " + std::to_string(call) + ", number " + std::to_string(i) + ".");
    return nlohmann::json{{"passages", texts}}.dump();
}

// A provider that labels every text by the label it was written for (the label named in it),
// and y as `y_label`.
struct Script {
    std::string y_label = "Positive";
    // An answer to a unit (kind, label, position, attempt), and whether it comes from the cache.
    std::function<std::pair<std::string, bool>(const ChatUnit&)> answer;
    std::function<std::vector<double>(const std::string&)> embed = [](const std::string& text) {
        return shared_embedder().embed(text);
    };
};

std::pair<std::string, bool> good_answer(const ChatUnit& unit, const std::string& y_label) {
    switch (unit.kind) {
        case Kind::annotate: return {label_answer(y_label), false};
        case Kind::simulate: return {passages_answer(unit.label, unit.count, unit.position), false};
        case Kind::backtranslate: return {label_answer(unit.label), false};
    }
    return {"", false};
}

class ScriptedRun {
  public:
    explicit ScriptedRun(ValidationConfig config = small_config())
        : config_(std::move(config)),
          task_(std::make_shared<const Task>(load_config_task(config_))),
          flow_(config_, task_, scripted_providers(), tally_, secrets_, requests_) {}

    PassageFlow& flow() { return flow_; }
    ScriptedRequests& requests() { return requests_; }
    Tally& tally() { return tally_; }
    std::vector<std::string>& secrets() { return secrets_; }
    const std::vector<std::string>& labels() const { return task_->labels(); }
    std::vector<ChatUnit> seen;  // every unit answered, in order

    // Answers every queued request (embeddings first) until none is left, or `limit` answers.
    void drain(const Script& script, int limit = 100000) {
        while (limit-- > 0) {
            if (!requests_.embeddings.empty()) {
                auto [text, target] = std::move(requests_.embeddings.front());
                requests_.embeddings.pop_front();
                flow_.store_embedding(target, script.embed(text));
                continue;
            }
            if (requests_.chats.empty()) return;
            ChatUnit unit = std::move(requests_.chats.front());
            requests_.chats.pop_front();
            if (unit.passage->finished) continue;  // the scheduler drops these too
            seen.push_back(unit);
            const auto [text, from_cache] = script.answer ? script.answer(unit) : good_answer(unit, script.y_label);
            flow_.deliver(unit, parse_answer(unit.kind, unit.count, text, false, labels()), from_cache);
        }
    }

  private:
    ValidationConfig config_;
    std::shared_ptr<const Task> task_;
    Tally tally_;
    std::vector<std::string> secrets_;
    ScriptedRequests requests_;
    PassageFlow flow_;
};

PassageInput passage(const std::string& text, const std::string& id = "") {
    PassageInput input;
    input.text = text;
    input.id = id;
    return input;
}

int count_kind(const std::vector<ChatUnit>& units, Kind kind) {
    int count = 0;
    for (const ChatUnit& unit : units) count += unit.kind == kind;
    return count;
}

}  // namespace

TEST_CASE("passage flow: the annotation and the K pools come first, together, then backtranslation") {
    ScriptedRun run;
    run.flow().start(passage("The quarter went well and margins grew."));
    // Before β̂ is known: the annotation, every pool (K * ceil(M/n) calls, in the order of S)
    // and y's embedding. No backtranslation: it needs β̂.
    REQUIRE(run.requests().chats.size() == 1 + 3 * 2);
    CHECK(run.requests().chats.front().kind == Kind::annotate);
    for (std::size_t i = 1; i < run.requests().chats.size(); ++i) {
        CHECK(run.requests().chats[i].kind == Kind::simulate);
        CHECK(run.requests().chats[i].label == run.labels()[(i - 1) / 2]);
    }
    REQUIRE(run.requests().embeddings.size() == 1);
    CHECK(run.requests().embeddings.front().second.label.empty());
    Script script;
    script.y_label = "Negative";
    run.drain(script);
    REQUIRE(run.requests().results.size() == 1);
    const PassageResult& result = run.requests().results.front();
    INFO(result.error_message);
    REQUIRE(result.ok);
    CHECK(result.label == "Negative");
    CHECK(result.id == "1");
    CHECK(result.annotations == std::vector<std::string>{"Negative"});
    // The backtranslations come after every pool call.
    std::size_t last_simulation = 0, first_backtranslation = run.seen.size();
    for (std::size_t i = 0; i < run.seen.size(); ++i) {
        if (run.seen[i].kind == Kind::simulate) last_simulation = i;
        if (run.seen[i].kind == Kind::backtranslate) first_backtranslation = std::min(first_backtranslation, i);
    }
    CHECK(last_simulation < first_backtranslation);
    // R + K * ceil(M/n) + M calls, no retries; K * M + 1 texts embedded.
    CHECK(count_kind(run.seen, Kind::annotate) == 1);
    CHECK(count_kind(run.seen, Kind::simulate) == 3 * 2);
    CHECK(count_kind(run.seen, Kind::backtranslate) == 4);
    CHECK(result.calls.annotation_calls == 1);
    CHECK(result.calls.simulation_calls == 6);
    CHECK(result.calls.backtranslation_calls == 4);
    CHECK(result.calls.parse_retries == 0);
    for (const std::string& label : run.labels()) CHECK(result.pool_texts.at(label).size() == 4);
    // Only β̂'s pool is backtranslated, and every text came back as its own label.
    REQUIRE(result.backtranslation_answers.size() == 1);
    CHECK(result.backtranslation_answers.at("Negative") == std::vector<std::string>(4, "Negative"));
    CHECK(run.flow().open_count() == 0);
    CHECK(run.tally().progress.passages_failed == 0);
}

TEST_CASE("passage flow: an unparseable annotation is redrawn parse_retry_limit times, then the passage fails") {
    ValidationConfig config = small_config();
    config.parse_retry_limit = 2;
    ScriptedRun run(config);
    run.flow().start(passage("Sales were flat.", "p1"));
    Script script;
    script.answer = [](const ChatUnit& unit) {
        // The pools, asked for with the annotation, are answered well.
        return std::make_pair(unit.kind == Kind::annotate ? std::string("I think it is fine.")
                                                          : passages_answer(unit.label, unit.count, unit.position),
                              false);
    };
    run.drain(script);
    std::vector<ChatUnit> annotations;
    for (const ChatUnit& unit : run.seen)
        if (unit.kind == Kind::annotate) annotations.push_back(unit);
    REQUIRE(annotations.size() == 3);  // the draw and its two redraws
    for (int attempt = 0; attempt < 3; ++attempt) CHECK(annotations[static_cast<std::size_t>(attempt)].attempt == attempt);
    REQUIRE(run.requests().results.size() == 1);
    const PassageResult& result = run.requests().results.front();
    CHECK_FALSE(result.ok);
    CHECK(result.error_code == code::provider_unparseable);
    CHECK(result.error_message.find("passage p1") != std::string::npos);
    CHECK(result.calls.unparseable == 3);
    CHECK(result.calls.parse_retries == 2);
    CHECK(run.tally().progress.passages_failed == 1);
    CHECK(run.tally().totals.unparseable == 3);
}

TEST_CASE("passage flow: a backtranslation outside the label set is recorded as what the model wrote") {
    ValidationConfig config = small_config();
    config.parse_retry_limit = 1;
    ScriptedRun run(config);
    run.flow().start(passage("Costs rose sharply."));
    Script script;
    script.answer = [](const ChatUnit& unit) {
        if (unit.kind == Kind::backtranslate) return std::make_pair(label_answer("Bullish"), false);
        return good_answer(unit, "Positive");
    };
    run.drain(script);
    REQUIRE(run.requests().results.size() == 1);
    const PassageResult& result = run.requests().results.front();
    INFO(result.error_message);
    REQUIRE(result.ok);
    CHECK(result.backtranslation_answers.at("Positive") == std::vector<std::string>(4, "Bullish"));
    CHECK(result.calls.out_of_set == 4 * 2);
    CHECK(result.calls.parse_retries == 4);
}

TEST_CASE("passage flow: unusable answers from the cache are redrawn without using up the redraw budget") {
    ValidationConfig config = small_config();
    config.parse_retry_limit = 1;
    ScriptedRun run(config);
    run.flow().start(passage("Revenue doubled."));
    Script script;
    // Five cached unusable draws of the annotation, then a paid, usable one.
    script.answer = [](const ChatUnit& unit) {
        if (unit.kind == Kind::annotate && unit.attempt < 5) return std::make_pair(std::string("no idea"), true);
        return good_answer(unit, "Positive");
    };
    run.drain(script);
    REQUIRE(run.requests().results.size() == 1);
    const PassageResult& result = run.requests().results.front();
    INFO(result.error_message);
    REQUIRE(result.ok);
    CHECK(result.label == "Positive");
    CHECK(count_kind(run.seen, Kind::annotate) == 6);
    CHECK(result.calls.parse_retries == 5);
    CHECK(result.calls.annotation_calls == 1);

    // The same unusable answers paid for in this run end the chain after parse_retry_limit.
    ScriptedRun paid(config);
    paid.flow().start(passage("Revenue doubled."));
    script.answer = [](const ChatUnit& unit) {
        if (unit.kind == Kind::annotate && unit.attempt < 5) return std::make_pair(std::string("no idea"), false);
        return good_answer(unit, "Positive");
    };
    paid.drain(script);
    REQUIRE(paid.requests().results.size() == 1);
    CHECK_FALSE(paid.requests().results.front().ok);
    CHECK(count_kind(paid.seen, Kind::annotate) == 2);
}

TEST_CASE("passage flow: a provider error fails only its passage, with the provider's code and no secret") {
    ScriptedRun run;
    run.secrets().push_back("sk-secret-123");
    run.flow().start(passage("First passage.", "a"));
    run.flow().start(passage("Second passage.", "b"));
    REQUIRE(run.requests().chats.size() == 2 * (1 + 3 * 2));  // each: its annotation and its pools
    const ChatUnit first = run.requests().chats.front();
    // What the scheduler does with an HTTP 401 for this unit's request.
    run.flow().fail(first.passage, code::provider_auth, "annotation call: key sk-secret-123 refused");
    run.drain(Script());
    REQUIRE(run.requests().results.size() == 2);
    const PassageResult& failed = run.requests().results.front();
    CHECK(failed.id == "a");
    CHECK_FALSE(failed.ok);
    CHECK(failed.error_code == code::provider_auth);
    CHECK(failed.error_message.find("sk-secret-123") == std::string::npos);
    CHECK(failed.verdict_name == "error");
    const PassageResult& done = run.requests().results.back();
    CHECK(done.id == "b");
    CHECK(done.ok);
    // The failed passage's queued requests were never answered.
    for (const ChatUnit& unit : run.seen) CHECK(unit.passage->input.id == "b");
    // A late answer for a finished passage changes nothing.
    ChatUnit late = first;
    run.flow().deliver(late, parse_answer(Kind::annotate, 0, label_answer("Positive"), false, run.labels()), false);
    CHECK(run.requests().results.size() == 2);
}

TEST_CASE("passage flow: the passages still open when the run ends fail in index order") {
    const bool cancelled = GENERATE(true, false);
    ScriptedRun run;
    for (const char* id : {"x", "y", "z"}) run.flow().start(passage(std::string("Passage ") + id + ".", id));
    // Only the annotations are answered: every passage is waiting for its pools.
    Script script;
    int answered = 0;
    script.answer = [&](const ChatUnit& unit) {
        ++answered;
        return good_answer(unit, "Neutral");
    };
    run.drain(script, 3 + 3);  // three embeddings of y, three annotations
    CHECK(answered == 3);
    CHECK(run.flow().open_count() == 3);
    run.flow().end_run(cancelled);
    REQUIRE(run.requests().results.size() == 3);
    std::vector<std::string> order;
    for (const PassageResult& result : run.requests().results) {
        order.push_back(result.id);
        CHECK(result.error_code == (cancelled ? code::cancelled : code::internal));
    }
    CHECK(order == std::vector<std::string>{"x", "y", "z"});
    CHECK(run.flow().open_count() == 0);
    CHECK(run.tally().progress.passages_failed == 3);
}

TEST_CASE("passage flow: a vector of another dimension fails the passage and is rejected where answers are kept") {
    const bool keeps = GENERATE(true, false);
    ScriptedRun run;
    run.requests().keeps = keeps;
    run.flow().start(passage("Guidance was cut."));
    Script script;
    std::string odd_text;
    script.embed = [&](const std::string& text) {
        std::vector<double> vector = shared_embedder().embed(text);
        if (odd_text.empty() && text.find("call 1, number 0") != std::string::npos) {
            odd_text = text;
            vector.push_back(0.5);
        }
        return vector;
    };
    run.drain(script);
    REQUIRE(run.requests().results.size() == 1);
    const PassageResult& result = run.requests().results.front();
    CHECK_FALSE(result.ok);
    CHECK(result.error_code == code::dimension_mismatch);
    CHECK(run.requests().rejected == std::vector<std::string>{odd_text});
    CHECK((result.error_message.find("marked rejected in the cache") != std::string::npos) == keeps);
}

TEST_CASE("passage flow: a blank passage fails before any request") {
    ScriptedRun run;
    run.flow().start(passage("   ", "blank"));
    CHECK(run.requests().chats.empty());
    CHECK(run.requests().embeddings.empty());
    REQUIRE(run.requests().results.size() == 1);
    CHECK(run.requests().results.front().error_code == code::invalid_argument);
    CHECK(run.flow().admitted() == 1);
}

TEST_CASE("passage flow: replay_only reads the pools and backtranslation back without embedding") {
    ValidationConfig config = small_config();
    config.replay_only = true;
    ScriptedRun run(config);
    run.flow().start(passage("Orders rose."));
    CHECK(run.requests().embeddings.empty());
    run.drain(Script());
    CHECK(run.requests().embeddings.empty());
    REQUIRE(run.requests().results.size() == 1);
    const PassageResult& result = run.requests().results.front();
    CHECK(result.ok);
    CHECK(result.verdict_name.empty());
    CHECK(result.backtranslation_answers.at("Positive").size() == 4);
}

TEST_CASE("passage flow: the paper's validation test adds B reference draws to beta's pool only") {
    ValidationConfig config = small_config();
    config.tests.validation_method = "paper";
    config.paper_b = 5;
    ScriptedRun run(config);
    run.flow().start(passage("Demand held up."));
    run.drain(Script());
    REQUIRE(run.requests().results.size() == 1);
    const PassageResult& result = run.requests().results.front();
    INFO(result.error_message);
    REQUIRE(result.ok);
    // β̂ (Positive): ceil((4 + 5) / 3) = 3 calls, 9 texts; the two others ceil(4 / 3) = 2 calls, 4 texts.
    CHECK(result.calls.simulation_calls == 3 + 2 + 2);
    CHECK(result.pool_texts.at("Positive").size() == 9);
    CHECK(result.pool_texts.at("Neutral").size() == 4);
    // Backtranslation covers the M pool texts, not the references.
    CHECK(result.calls.backtranslation_calls == 4);
    CHECK(result.calls.embedded_texts == 0);  // counted by the scheduler, not the flow
    CHECK(run.tally().progress.calls_total ==
          expected_calls_per_passage(config, 3).chat_calls + expected_calls_per_passage(config, 3).embedded_texts);
}

TEST_CASE("passage flow: with reference draws, only the calls that do not depend on beta go before it") {
    ValidationConfig config = small_config();
    config.tests.validation_method = "paper";
    config.paper_b = 5;
    ScriptedRun run(config);
    run.flow().start(passage("Demand held up."));
    // M = 4, n = 3: the first call of each pool asks for 3 texts whatever β̂ is; the second asks
    // for 1 (M) or 3 (M + B, β̂'s pool), so it waits for β̂.
    REQUIRE(run.requests().chats.size() == 1 + 3);
    for (std::size_t i = 1; i < run.requests().chats.size(); ++i) {
        CHECK(run.requests().chats[i].position == 0);
        CHECK(run.requests().chats[i].count == 3);
    }
    run.drain(Script());
    REQUIRE(run.requests().results.size() == 1);
    REQUIRE(run.requests().results.front().ok);
    // Every call is the one a pool of its final size asks for (its count is in its prompt and
    // cache key): count = min(n, total - c * n), total = M + B for β̂ (Positive), M otherwise.
    std::map<std::string, std::vector<int>> counts;
    for (const ChatUnit& unit : run.seen) {
        if (unit.kind != Kind::simulate) continue;
        auto& list = counts[unit.label];
        if (list.size() <= static_cast<std::size_t>(unit.position)) list.resize(unit.position + 1, 0);
        list[unit.position] = unit.count;
    }
    CHECK(counts.at("Positive") == std::vector<int>{3, 3, 3});
    CHECK(counts.at("Neutral") == std::vector<int>{3, 1});
    CHECK(counts.at("Negative") == std::vector<int>{3, 1});
}

TEST_CASE("passage flow: backtranslate_all_labels backtranslates every pool") {
    ValidationConfig config = small_config();
    config.backtranslate_all_labels = true;
    ScriptedRun run(config);
    run.flow().start(passage("Inventories fell."));
    run.drain(Script());
    REQUIRE(run.requests().results.size() == 1);
    const PassageResult& result = run.requests().results.front();
    INFO(result.error_message);
    REQUIRE(result.ok);
    CHECK(result.calls.backtranslation_calls == 3 * 4);
    REQUIRE(result.backtranslation_answers.size() == 3);
    for (const std::string& label : run.labels())
        CHECK(result.backtranslation_answers.at(label) == std::vector<std::string>(4, label));
}

TEST_CASE("passage flow: with a test runner the tests are handed off, and their outcome gives the inline numbers") {
    ScriptedRun inline_run;
    inline_run.flow().start(passage("Orders were cancelled."));
    inline_run.drain(Script());
    REQUIRE(inline_run.requests().results.size() == 1);
    const PassageResult& expected = inline_run.requests().results.front();
    REQUIRE(expected.ok);

    ScriptedRun run;
    std::vector<std::pair<PassagePtr, stats::TestInput>> handed;
    run.flow().set_test_runner([&](const PassagePtr& p, stats::TestInput input) {
        handed.emplace_back(p, std::move(input));
    });
    run.flow().start(passage("Orders were cancelled."));
    run.drain(Script());
    // Every answer is in, the tests are with the runner: not finished yet.
    REQUIRE(handed.size() == 1);
    CHECK(run.requests().results.empty());
    CHECK(run.flow().open_count() == 1);
    // The runner (a worker thread in the scheduler) computes them and gives them back.
    run.flow().tests_done(handed[0].first, run_passage_tests(handed[0].second));
    REQUIRE(run.requests().results.size() == 1);
    const PassageResult& result = run.requests().results.front();
    REQUIRE(result.ok);
    CHECK(result.verdict == expected.verdict);
    CHECK(result.tests.validation.statistic == expected.tests.validation.statistic);
    CHECK(result.tests.validation.p_value == expected.tests.validation.p_value);
    CHECK(result.backtranslation_answers == expected.backtranslation_answers);
    CHECK(run.flow().open_count() == 0);

    // An error in the tests fails the passage with its code, as inline.
    ScriptedRun failing;
    PassagePtr waiting;
    failing.flow().set_test_runner([&](const PassagePtr& p, stats::TestInput) { waiting = p; });
    failing.flow().start(passage("Orders were cancelled.", "p9"));
    failing.drain(Script());
    REQUIRE(waiting);
    TestOutcome outcome;
    outcome.error_code = code::invalid_argument;
    outcome.message = "a pool with one text";
    failing.flow().tests_done(waiting, outcome);
    REQUIRE(failing.requests().results.size() == 1);
    CHECK_FALSE(failing.requests().results.front().ok);
    CHECK(failing.requests().results.front().error_code == code::invalid_argument);
    CHECK(failing.requests().results.front().error_message == "passage p9: a pool with one text");
}
