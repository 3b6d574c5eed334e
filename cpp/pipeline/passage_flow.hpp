// The per-passage state machine (private to cpp/pipeline/): a passage's annotations give β̂,
// β̂ and the other labels get their pools, the pools are embedded and β̂'s (or every) pool is
// backtranslated, and the tests run once everything is in. The flow sends nothing itself:
// every request it needs goes to a PassageFlow::Requests (the scheduler, with its queue, cache
// and transport; or a test's script), which hands the answers back through deliver() and
// store_embedding().
#pragma once

#include <Eigen/Dense>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/stats.hpp"
#include "llmvalidate/task.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/requests.hpp"

namespace llmv::pipeline {

struct PoolState {
    int total = 0;  // texts wanted: M (+ B reference texts)
    int calls = 0;
    int calls_pending = 0;
    std::vector<std::vector<std::string>> call_texts;  // by call index
    std::vector<std::string> texts;                    // assembled when every call is back
    Eigen::MatrixXd embeddings;                        // rows = texts
    bool generated = false;
    // total and calls are final (β̂ known): until then only the calls whose prompts do not
    // depend on β̂ are sent (PassageFlow::start()).
    bool sized = false;
    int issued = 0;  // calls sent so far: 0 .. issued - 1
};

struct PassageState {
    std::size_t index = 0;
    std::size_t sequence = 0;  // admission order: older passages are served first
    PassageInput input;
    std::shared_ptr<const Task> task;  // the task's or the passage's own simulation template
    TaskVariables variables;
    PassageResult result;
    bool finished = false;

    std::vector<std::string> annotation_answers;  // by draw; "" while pending or failed
    int annotations_pending = 0;
    std::string beta;
    std::vector<std::string> reference;  // labels needing paper reference draws

    std::map<std::string, PoolState> pools;
    int pools_pending = 0;
    std::map<std::string, std::vector<std::string>>
        backtranslation;  // label -> answers by position
    int backtranslations_pending = 0;

    Eigen::VectorXd passage_embedding;
    bool passage_embedded = false;
    // The dimension of every vector received -> (pool label, row); row -1: the passage's own.
    // More than one dimension: the odd ones are rejected (check_dimensions).
    std::map<std::size_t, std::vector<std::pair<std::string, int>>> vector_dimensions;
    int embeddings_pending = 0;
    bool testing =
        false;  // its tests were handed to the test runner (PassageFlow::set_test_runner)
};
using PassagePtr = std::shared_ptr<PassageState>;

// One chat draw a passage needs, with its redraws.
struct ChatUnit {
    PassagePtr passage;
    Kind kind = Kind::annotate;
    std::string label;     // simulate: the pool's label; backtranslate: the pool annotated
    int position = 0;      // draw index: r, the call index c, or the text's position j
    int count = 0;         // simulate: texts asked for
    int attempt = 0;       // parse retries so far (the draw's cache key)
    int paid_redraws = 0;  // of them, after an answer paid for in this run (max_cached_attempts)
    int transport_attempt = 0;
    std::string prompt;
};

// Where one embedding goes: the passage's own (label "") or a pool text's row.
struct EmbedTarget {
    PassagePtr passage;
    std::string label;
    int row = 0;
};

// What the tests of one passage gave: their output, or the error that stopped them.
struct TestOutcome {
    stats::TestOutput output;
    std::string error_code;  // empty: ok
    std::string message;
    std::shared_ptr<const Error> error;  // the error itself, when the tests raised an llmv::Error
};
// Runs the tests of one passage: stats::run_tests(), its errors caught into the outcome.
TestOutcome run_passage_tests(const stats::TestInput& input);

// The part of a unit's prompt that other requests of the run repeat (provider prompt caching).
std::size_t shared_prefix(const ChatUnit& unit, int annotation_repeats);

class PassageFlow {
  public:
    class Requests {
      public:
        virtual ~Requests() = default;
        virtual void chat(ChatUnit unit) = 0;
        virtual void embedding(const std::string& text, EmbedTarget target) = 0;
        // Whether answers are kept (a cache): the message of a dimension mismatch says so.
        virtual bool keeps_answers() const = 0;
        // A vector of `dimension` where most of the passage's have `majority`: marked so that
        // no later run is served it as good.
        virtual void reject_embedding(const std::string& text, std::size_t dimension,
                                      std::size_t majority) = 0;
        // The passage's result is final (ok or failed): report it.
        virtual void finished(const PassagePtr& passage) = 0;
    };

    // `providers`: the names and models each result records (chat_model already the
    // simulated model's for the simulated provider). `secrets` are redacted from messages.
    PassageFlow(const ValidationConfig& config, std::shared_ptr<const Task> task,
                const ResolvedProviders& providers, Tally& tally,
                const std::vector<std::string>& secrets, Requests& requests);

    // Admits a passage (index: the order of admission) and sends its first requests.
    void start(PassageInput input);
    // One answer for one unit: recorded, or redrawn (attempt + 1), or given up on. An unusable
    // answer from the cache does not use up the redraw budget (max_cached_attempts).
    void deliver(ChatUnit& unit, const ParsedAnswer& parsed, bool from_cache);
    void store_embedding(const EmbedTarget& target, const std::vector<double>& vector);
    // With a test runner, a passage whose answers are all in hands its tests to it (the
    // scheduler's worker thread) instead of running them here; the runner gives the outcome
    // back through tests_done(), on the flow's own thread. Without one they run inline.
    using TestRunner = std::function<void(const PassagePtr&, stats::TestInput)>;
    void set_test_runner(TestRunner runner) { test_runner_ = std::move(runner); }
    void tests_done(const PassagePtr& passage, TestOutcome outcome);
    // The passage fails with `error`, whose message does not name the passage: the row's
    // error_message gets "passage <id>: " in front (unless name_passage is false: a reader's
    // own message), and the result keeps the error itself for a front end's own spelling.
    void fail(const PassagePtr& passage, const Error& error, bool name_passage = true);
    void fail(const PassagePtr& passage, const std::string& error_code, const std::string& message,
              bool name_passage = true) {
        fail(passage, Error(error_code, message), name_passage);
    }
    // Passages still open when the run ends were cut short: by a cancellation (`cancelled`),
    // else by a cache write that failed (cache_failure: what failed; no new request was sent),
    // else by the transport's end. Failed in the order of their index.
    void end_run(bool cancelled, const std::string& cache_failure = std::string());

    // A batch-API pass (engine.hpp, DeferredCalls): every open passage waits for a provider
    // batch; they are let go without a result (the next pass starts them again).
    void release_waiting() { open_.clear(); }
    std::size_t open_count() const { return open_.size(); }
    std::size_t admitted() const { return admitted_; }
    const std::vector<std::string>& labels() const { return labels_; }

  private:
    bool decode_input(const PassagePtr& passage);
    void fill_provenance(PassageState& passage);
    void annotations_done(const PassagePtr& passage);
    bool issue_pool_calls(const PassagePtr& passage, const std::string& label, int up_to);
    void pool_generated(const PassagePtr& passage, const std::string& label);
    void maybe_finish(const PassagePtr& passage);
    bool check_dimensions(const PassagePtr& passage);
    void finish(const PassagePtr& passage);

    const ValidationConfig& config_;
    std::shared_ptr<const Task> task_;
    std::vector<std::string> labels_;
    int m_ = 0;
    ResolvedProviders providers_;
    Tally& tally_;
    const std::vector<std::string>& secrets_;
    Requests& requests_;
    std::size_t admitted_ = 0;
    std::map<std::size_t, PassagePtr> open_;
    TestRunner test_runner_;
};

}  // namespace llmv::pipeline
