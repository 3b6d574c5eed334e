// The per-passage state machine (passage_flow.hpp).
#include "pipeline/passage_flow.hpp"

#include <algorithm>
#include <cstdio>

#include "core/http.hpp"
#include "core/utf8.hpp"
#include "llmvalidate/error.hpp"
#include "pipeline/engine.hpp"

namespace llmv::pipeline {

// A simulation prompt is sent for every call of its pool, the annotation template before the
// quoted text for every backtranslation of a pool (and the whole annotation prompt for R > 1
// draws).
std::size_t shared_prefix(const ChatUnit& unit, int annotation_repeats) {
    switch (unit.kind) {
        case Kind::simulate:
            return unit.prompt.size();
        case Kind::annotate:
            return annotation_repeats > 1 ? unit.prompt.size() : 0;
        case Kind::backtranslate: {
            const auto pool = unit.passage->pools.find(unit.label);
            if (pool == unit.passage->pools.end() ||
                unit.position >= static_cast<int>(pool->second.texts.size()))
                return 0;
            const std::size_t at =
                unit.prompt.find(pool->second.texts[static_cast<std::size_t>(unit.position)]);
            return at == std::string::npos ? 0 : at;
        }
    }
    return 0;
}

PassageFlow::PassageFlow(const ValidationConfig& config, std::shared_ptr<const Task> task,
                         const ResolvedProviders& providers, Tally& tally,
                         const std::vector<std::string>& secrets, Requests& requests)
    : config_(config),
      task_(std::move(task)),
      labels_(task_->labels()),
      m_(pool_size(config)),
      providers_(providers),
      tally_(tally),
      secrets_(secrets),
      requests_(requests) {}

void PassageFlow::start(PassageInput input) {
    auto passage = std::make_shared<PassageState>();
    passage->index = admitted_;
    passage->sequence = admitted_;
    ++admitted_;
    passage->input = std::move(input);
    if (passage->input.id.empty()) passage->input.id = std::to_string(passage->index + 1);
    fill_provenance(*passage);
    open_[passage->index] = passage;
    const CallCounts expected =
        expected_calls_per_passage(config_, static_cast<int>(labels_.size()));
    tally_.progress.calls_total += expected.annotation_calls + expected.simulation_calls +
                                   expected.backtranslation_calls + expected.embedded_texts;

    if (!passage->input.input_error.empty()) {
        passage->result.id = utf8_replace_invalid(passage->input.id);
        fail(passage,
             passage->input.input_error_code.empty() ? code::invalid_argument
                                                     : passage->input.input_error_code,
             passage->input.input_error, false);
        return;
    }
    if (!decode_input(passage)) return;
    // A passage larger than the limit fails on its own row before anything is sent.
    if (passage->input.text.size() > static_cast<std::size_t>(config_.max_passage_bytes)) {
        fail(passage, Error(code::invalid_argument,
                            "the text has " + std::to_string(passage->input.text.size()) +
                                " bytes; `max_passage_bytes` allows " +
                                std::to_string(config_.max_passage_bytes),
                            {"max_passage_bytes"}));
        return;
    }
    // Checked before any request: a blank passage would pay for a pool it cannot use.
    if (is_blank(passage->input.text)) {
        fail(passage, code::invalid_argument,
             std::string("the text is ") +
                 (passage->input.text.empty() ? "empty" : "only whitespace") +
                 "; every passage needs text");
        return;
    }
    try {
        passage->task = passage->input.simulation_template.empty()
                            ? task_
                            : std::make_shared<const Task>(task_for_input(*task_, passage->input));
        passage->variables = passage_variables(config_, passage->input);
        const std::string prompt =
            passage->task->render_annotation(passage->input.text, passage->variables);
        PassageResult& result = passage->result;
        result.prompt_hashes["task"] = passage->task->definition_hash();
        result.prompt_hashes["annotation"] = prompt_hash(prompt);
        for (const std::string& label : labels_) {
            result.prompt_hashes["simulation:" + label] =
                prompt_hash(passage->task->render_simulation(label, config_.n, passage->input.text,
                                                             passage->variables));
        }
        passage->annotation_answers.assign(static_cast<std::size_t>(config_.annotation_repeats),
                                           "");
        passage->annotations_pending = config_.annotation_repeats;
        for (int r = 0; r < config_.annotation_repeats; ++r) {
            ChatUnit unit;
            unit.passage = passage;
            unit.kind = Kind::annotate;
            unit.position = r;
            unit.prompt = prompt;
            requests_.chat(std::move(unit));
        }
        // The K pools go with the annotations (every method needs all of them, whatever the
        // label): one round trip instead of two before the backtranslations. Only a label's
        // reference draws (paper methods) depend on β̂; the calls that would differ with them,
        // a call's count is in its prompt and cache key, wait for annotations_done().
        const int early_calls = uses_paper_method(config_) && config_.paper_b > 0
                                    ? m_ / std::max(1, config_.n)
                                    : calls_for(m_, config_.n);
        passage->pools_pending = static_cast<int>(labels_.size());
        for (const std::string& label : labels_) {
            if (!issue_pool_calls(passage, label, early_calls)) return;
        }
    } catch (const Error& error) {
        fail(passage, error);
        return;
    }
    if (config_.replay_only) return;  // reading texts back: nothing to embed
    passage->embeddings_pending += 1;
    requests_.embedding(passage->input.text, EmbedTarget{passage, "", 0});
}

// Request bodies are JSON, which must be UTF-8: with input_encoding "latin1" every field is
// decoded; otherwise a field that is not UTF-8 fails this passage alone (false), with the id
// and label shown in its output row made valid.
bool PassageFlow::decode_input(const PassagePtr& passage) {
    PassageInput& input = passage->input;
    if (config_.input_encoding == "latin1") {
        for (std::string* field : {&input.text, &input.id, &input.human_label})
            *field = latin1_to_utf8(*field);
        for (auto& variable : input.variables) variable.second = latin1_to_utf8(variable.second);
        passage->result.id = input.id;
        passage->result.human_label = input.human_label;
        return true;
    }
    std::vector<std::pair<std::string, const std::string*>> fields = {
        {"text", &input.text}, {"id", &input.id}, {"human label", &input.human_label}};
    for (const auto& variable : input.variables)
        fields.emplace_back("variable " + variable.first, &variable.second);
    for (const auto& [what, value] : fields) {
        const std::size_t at = first_invalid_utf8(*value);
        if (at == std::string::npos) continue;
        passage->result.id = utf8_replace_invalid(input.id);
        passage->result.human_label = utf8_replace_invalid(input.human_label);
        char byte[8];
        std::snprintf(byte, sizeof byte, "0x%02X",
                      static_cast<unsigned>(static_cast<unsigned char>((*value)[at])));
        const std::size_t from = at > 20 ? at - 20 : 0;
        fail(passage,
             Error(code::invalid_encoding,
                   "the " + what + " is not valid UTF-8 (byte " + byte + " at byte " +
                       std::to_string(at + 1) + ", near \"" +
                       utf8_replace_invalid(value->substr(from, at - from + 20)) +
                       "\"); `input_encoding` takes utf-8 or latin1 (ISO 8859-1, e.g. the original "
                       "Financial PhraseBank files)",
                   {"input_encoding"}));
        return false;
    }
    return true;
}

void PassageFlow::fill_provenance(PassageState& passage) {
    PassageResult& result = passage.result;
    result.index = passage.index;
    result.id = passage.input.id;
    result.human_label = passage.input.human_label;
    if (config_.keep_texts) result.passage_text = passage.input.text;
    result.label_set = labels_;
    result.task_name = task_->name();
    result.provider = providers_.chat_provider;
    result.model = providers_.chat_model;
    result.embedding_provider = providers_.embedding_provider;
    result.embedding_model = providers_.embedding_model;
    result.synthetic = providers_.synthetic_chat || providers_.local_embedding;
    result.m = m_;
    result.n = config_.n;
    result.repeats = config_.annotation_repeats;
    result.alpha = config_.tests.alpha;
    result.threshold = config_.tests.threshold;
    result.permutations = stats::draws_permutations(config_.tests) ? config_.tests.permutations : 0;
    result.b = stats::draws_reference(config_.tests) ? config_.paper_b : 0;
    result.validation_method = config_.tests.validation_method;
    result.separation_method = config_.tests.separation_method;
    result.backtranslation_rule = config_.tests.backtranslation_rule;
    result.seed = config_.tests.seed;
    result.verdict_name = "error";
}

void PassageFlow::annotations_done(const PassagePtr& passage) {
    std::map<std::string, int> votes;
    for (const std::string& answer : passage->annotation_answers) {
        if (!answer.empty()) ++votes[answer];
    }
    if (votes.empty()) {
        fail(passage, code::provider_unparseable,
             "none of the " + std::to_string(config_.annotation_repeats) +
                 " annotations of the passage gave a label of the task's set (after " +
                 std::to_string(config_.parse_retry_limit) +
                 " retries each); the answers are kept in the cache as unusable, and a re-run "
                 "asks again for exactly these draws");
        return;
    }
    // Modal label; ties go to the label that comes first in S.
    int best = 0;
    for (const std::string& label : labels_) {
        const auto found = votes.find(label);
        if (found != votes.end() && found->second > best) {
            best = found->second;
            passage->beta = label;
        }
    }
    passage->result.label = passage->beta;
    passage->result.annotations = passage->annotation_answers;
    passage->result.annotation_stability =
        static_cast<double>(best) / static_cast<double>(config_.annotation_repeats);
    passage->reference = reference_labels(config_, labels_, passage->beta);

    // The pools' sizes are known now: the calls that waited for β̂ go, β̂'s pool first (it
    // also feeds backtranslation, the longest chain).
    std::vector<std::string> order = {passage->beta};
    for (const std::string& label : labels_) {
        if (label != passage->beta) order.push_back(label);
    }
    for (const std::string& label : order) {
        PoolState& pool = passage->pools[label];
        const bool with_reference = std::find(passage->reference.begin(), passage->reference.end(),
                                              label) != passage->reference.end();
        pool.total = m_ + (with_reference ? config_.paper_b : 0);
        pool.calls = calls_for(pool.total, config_.n);
        pool.sized = true;
        if (!issue_pool_calls(passage, label, pool.calls)) return;
        if (pool.calls_pending == 0)
            pool_generated(passage, label);  // every call came back already
        if (passage->finished) return;
    }
    // The calls_total estimate assumed no reference draws beyond the formula; fix it now.
    const CallCounts expected =
        expected_calls_per_passage(config_, static_cast<int>(labels_.size()));
    std::int64_t actual = 0;
    for (const auto& entry : passage->pools) actual += entry.second.calls;
    tally_.progress.calls_total += actual - expected.simulation_calls;
}

// Sends the calls of `label`'s pool from the first not sent yet up to `up_to` (exclusive).
// false: the passage failed (a prompt could not be rendered).
bool PassageFlow::issue_pool_calls(const PassagePtr& passage, const std::string& label, int up_to) {
    PoolState& pool = passage->pools[label];
    // Before β̂ the pool's size is M: a count that is final for every call sent now.
    const int total = pool.sized ? pool.total : m_;
    if (static_cast<int>(pool.call_texts.size()) < up_to)
        pool.call_texts.resize(static_cast<std::size_t>(up_to));
    try {
        for (; pool.issued < up_to; ++pool.issued) {
            ChatUnit unit;
            unit.passage = passage;
            unit.kind = Kind::simulate;
            unit.label = label;
            unit.position = pool.issued;
            unit.count = std::min(config_.n, total - pool.issued * config_.n);
            unit.prompt = passage->task->render_simulation(label, unit.count, passage->input.text,
                                                           passage->variables);
            ++pool.calls_pending;
            requests_.chat(std::move(unit));
        }
    } catch (const Error& error) {
        fail(passage, error);
        return false;
    }
    return true;
}

void PassageFlow::pool_generated(const PassagePtr& passage, const std::string& label) {
    PoolState& pool = passage->pools[label];
    for (auto& texts : pool.call_texts) {
        for (auto& text : texts) {
            if (static_cast<int>(pool.texts.size()) < pool.total)
                pool.texts.push_back(std::move(text));
        }
    }
    pool.call_texts.clear();
    pool.generated = true;
    --passage->pools_pending;
    if (config_.keep_texts) passage->result.pool_texts[label] = pool.texts;
    if (label == passage->beta || config_.backtranslate_all_labels) {
        auto& answers = passage->backtranslation[label];
        answers.assign(static_cast<std::size_t>(m_), "");
        passage->backtranslations_pending += m_;
        for (int j = 0; j < m_; ++j) {
            ChatUnit unit;
            unit.passage = passage;
            unit.kind = Kind::backtranslate;
            unit.label = label;
            unit.position = j;
            try {
                unit.prompt = passage->task->render_annotation(
                    pool.texts[static_cast<std::size_t>(j)], passage->variables);
            } catch (const Error& error) {
                fail(passage, error);
                return;
            }
            requests_.chat(std::move(unit));
        }
    }
    // Embeddings last: a local embedder answers inline, and the last vector may finish the
    // passage (its pools are then cleared), so that nothing of the pool is read after it.
    if (!config_.replay_only) {
        pool.embeddings.resize(static_cast<Eigen::Index>(pool.texts.size()), 0);
        const std::size_t count = pool.texts.size();
        passage->embeddings_pending += static_cast<int>(count);
        for (std::size_t j = 0; j < count; ++j) {
            if (passage->finished || passage->testing) return;
            requests_.embedding(pool.texts[j], EmbedTarget{passage, label, static_cast<int>(j)});
        }
    }
    maybe_finish(passage);
}

void PassageFlow::maybe_finish(const PassagePtr& passage) {
    if (passage->finished || passage->testing) return;
    if (passage->annotations_pending > 0 || passage->beta.empty()) return;
    if (passage->pools_pending > 0 || passage->backtranslations_pending > 0 ||
        passage->embeddings_pending > 0) {
        return;
    }
    if (config_.replay_only) {
        passage->result.ok = true;
        passage->result.verdict_name = "";
        passage->result.backtranslation_answers = passage->backtranslation;
        finish(passage);
        return;
    }
    if (!check_dimensions(passage)) return;
    stats::TestInput input;
    input.label = passage->beta;
    input.labels = labels_;
    input.passage = passage->passage_embedding;
    for (const auto& entry : passage->pools) {
        const PoolState& pool = entry.second;
        input.pools[entry.first] =
            pool.embeddings.topRows(std::min<Eigen::Index>(m_, pool.embeddings.rows()));
        if (pool.total > m_) {
            input.paper_reference[entry.first] =
                pool.embeddings.bottomRows(pool.embeddings.rows() - m_);
        }
    }
    input.backtranslation = passage->backtranslation;
    input.options = config_.tests;
    if (test_runner_) {
        passage->testing = true;
        passage->pools.clear();  // the input holds the vectors now; the texts are not needed
        test_runner_(passage, std::move(input));
        return;
    }
    tests_done(passage, run_passage_tests(input));
}

TestOutcome run_passage_tests(const stats::TestInput& input) {
    TestOutcome outcome;
    try {
        outcome.output = stats::run_tests(input);
    } catch (const Error& error) {
        outcome.error_code = error.code();
        outcome.message = error.what();
        outcome.error = std::make_shared<const Error>(error);
    } catch (const std::exception& error) {
        outcome.error_code = code::internal;
        outcome.message = error.what();
    }
    return outcome;
}

void PassageFlow::tests_done(const PassagePtr& passage, TestOutcome outcome) {
    passage->testing = false;
    if (passage->finished) return;  // failed meanwhile (a cancellation)
    if (!outcome.error_code.empty()) {
        if (outcome.error)
            fail(passage, *outcome.error);
        else
            fail(passage, outcome.error_code, outcome.message);
        return;
    }
    PassageResult& result = passage->result;
    result.tests = std::move(outcome.output);
    result.ok = true;
    result.verdict = result.tests.verdict;
    result.verdict_name = stats::verdict_name(result.verdict);
    if (config_.keep_texts) result.backtranslation_answers = passage->backtranslation;
    finish(passage);
}

void PassageFlow::fail(const PassagePtr& passage, const Error& error, bool name_passage) {
    if (passage->finished) return;
    // The result becomes the error row (and is counted as failed once).
    PassageResult& result = passage->result;
    result.ok = false;
    result.error_code = error.code();
    // In the front end's terms (`--encoding`, not `input_encoding`).
    const std::string message = redact(settings::message(error, config_.messages_for), secrets_);
    // result.id: the id with invalid UTF-8 replaced, once the input was read.
    const std::string& id = result.id.empty() ? passage->input.id : result.id;
    result.error_message = name_passage ? "passage " + id + ": " + message : message;
    // What a front end spells its own way: every text it carries redacted as the row's is.
    if (error.has_subject()) {
        ErrorSubject subject = error.subject();
        for (std::string* text : {&subject.received, &subject.received_value, &subject.allowed})
            *text = redact(*text, secrets_);
        result.error = std::make_shared<const Error>(error.code(), std::move(subject));
    } else {
        result.error = std::make_shared<const Error>(error.code(), message, error.settings_named());
    }
    result.verdict_name = "error";
    ++tally_.progress.passages_failed;
    finish(passage);
}

void PassageFlow::finish(const PassagePtr& passage) {
    if (passage->finished) return;
    passage->finished = true;
    open_.erase(passage->index);
    // Texts and answers are no longer needed once the result holds the numbers; the passage
    // may still be referenced by queued units.
    passage->pools.clear();
    passage->backtranslation.clear();
    requests_.finished(passage);
}

void PassageFlow::end_run(bool cancelled, const std::string& cache_failure) {
    std::vector<PassagePtr> open;
    for (auto& entry : open_) open.push_back(entry.second);
    std::sort(open.begin(), open.end(),
              [](const PassagePtr& a, const PassagePtr& b) { return a->index < b->index; });
    for (const PassagePtr& passage : open) {
        if (!cache_failure.empty() && !cancelled) {
            fail(passage, code::cache,
                 "not finished: the cache could not be written: " + cache_failure +
                     "; no new request was sent after that");
            continue;
        }
        fail(passage, cancelled ? code::cancelled : code::internal,
             cancelled
                 ? "cancelled before this passage finished; a re-run with the same cache resumes "
                   "without repeating any call"
                 : "the run ended before this passage finished");
    }
}

void PassageFlow::deliver(ChatUnit& unit, const ParsedAnswer& parsed, bool from_cache) {
    const PassagePtr passage = unit.passage;
    if (passage->finished || passage->testing) return;
    CallCounts& counts = passage->result.calls;
    CallCounts& totals = tally_.totals;
    if (unit.attempt == 0) {
        if (unit.kind == Kind::annotate) ++counts.annotation_calls;
        if (unit.kind == Kind::simulate) ++counts.simulation_calls;
        if (unit.kind == Kind::backtranslate) ++counts.backtranslation_calls;
        if (unit.kind == Kind::annotate) ++totals.annotation_calls;
        if (unit.kind == Kind::simulate) ++totals.simulation_calls;
        if (unit.kind == Kind::backtranslate) ++totals.backtranslation_calls;
    }
    if (!parsed.ok) {
        if (parsed.out_of_set) {
            ++counts.out_of_set;
            ++totals.out_of_set;
        } else {
            ++counts.unparseable;
            ++totals.unparseable;
        }
        // A cached unusable answer never ends the chain: the redraw budget is for answers paid
        // for in this run (see max_cached_attempts).
        if ((from_cache && unit.attempt + 1 < max_cached_attempts) ||
            unit.paid_redraws < config_.parse_retry_limit) {
            if (!from_cache) ++unit.paid_redraws;
            ++unit.attempt;
            ++counts.parse_retries;
            ++totals.parse_retries;
            ++tally_.progress.retries;
            ++tally_.progress.calls_total;
            requests_.chat(std::move(unit));
            return;
        }
    }
    switch (unit.kind) {
        case Kind::annotate:
            passage->annotation_answers[static_cast<std::size_t>(unit.position)] =
                parsed.ok ? parsed.label : "";
            if (--passage->annotations_pending == 0) annotations_done(passage);
            break;
        case Kind::simulate: {
            if (!parsed.ok) {
                fail(
                    passage, code::provider_unparseable,
                    "simulation call " + std::to_string(unit.position + 1) + " of label '" +
                        unit.label + "' gave no usable passages after " +
                        std::to_string(config_.parse_retry_limit) + " retries (" + parsed.problem +
                        "); the answers are kept in the cache as unusable, and a re-run asks again "
                        "for exactly these draws");
                return;
            }
            PoolState& pool = passage->pools[unit.label];
            pool.call_texts[static_cast<std::size_t>(unit.position)] = parsed.passages;
            if (--pool.calls_pending == 0 && pool.sized) pool_generated(passage, unit.label);
            break;
        }
        case Kind::backtranslate: {
            // A final failure is recorded as what came back: it counts as a wrong label.
            std::string answer = parsed.ok ? parsed.label
                                           : (parsed.out_of_set && !parsed.raw_label.empty()
                                                  ? parsed.raw_label
                                                  : std::string("<unparseable>"));
            passage->backtranslation[unit.label][static_cast<std::size_t>(unit.position)] =
                std::move(answer);
            --passage->backtranslations_pending;
            maybe_finish(passage);
            break;
        }
    }
}

void PassageFlow::store_embedding(const EmbedTarget& target, const std::vector<double>& vector) {
    const PassagePtr& passage = target.passage;
    if (passage->finished || passage->testing) return;
    passage->vector_dimensions[vector.size()].emplace_back(target.label,
                                                           target.label.empty() ? -1 : target.row);
    if (target.label.empty()) {
        passage->passage_embedding = Eigen::Map<const Eigen::VectorXd>(
            vector.data(), static_cast<Eigen::Index>(vector.size()));
        passage->passage_embedded = true;
    } else {
        PoolState& pool = passage->pools[target.label];
        if (pool.embeddings.cols() == 0) {
            pool.embeddings.resize(pool.embeddings.rows(),
                                   static_cast<Eigen::Index>(vector.size()));
        }
        // Another dimension: check_dimensions sorts it out once every vector is in.
        if (pool.embeddings.cols() == static_cast<Eigen::Index>(vector.size())) {
            pool.embeddings.row(target.row) = Eigen::Map<const Eigen::RowVectorXd>(
                vector.data(), static_cast<Eigen::Index>(vector.size()));
        }
    }
    --passage->embeddings_pending;
    maybe_finish(passage);
}

// Every vector of a passage must have one dimension. When they differ, the dimension most of
// them have is taken as the model's; the others are rejected where answers are kept (so that no
// later run is served them as good, and a re-run asks again for exactly those) and the passage
// fails.
bool PassageFlow::check_dimensions(const PassagePtr& passage) {
    const auto& dimensions = passage->vector_dimensions;
    if (dimensions.size() <= 1) return true;
    std::size_t majority = 0, most = 0;
    for (const auto& [dimension, vectors] : dimensions) {
        if (vectors.size() > most) {
            most = vectors.size();
            majority = dimension;
        }
    }
    std::size_t odd = 0;
    std::string odd_dimensions;
    for (const auto& [dimension, vectors] : dimensions) {
        if (dimension == majority) continue;
        odd += vectors.size();
        odd_dimensions += (odd_dimensions.empty() ? "" : ", ") + std::to_string(dimension);
        for (const auto& [label, row] : vectors) {
            const std::string& text =
                row < 0 ? passage->input.text
                        : passage->pools[label].texts[static_cast<std::size_t>(row)];
            requests_.reject_embedding(text, dimension, majority);
        }
    }
    const bool kept = requests_.keeps_answers();
    fail(passage, code::dimension_mismatch,
         "the embedding model returned " + std::to_string(odd) + " vector(s) of " + odd_dimensions +
             " dimensions where the other " + std::to_string(most) + " have " +
             std::to_string(majority) +
             (kept ? "; they are marked rejected in the cache, and a re-run asks for exactly those "
                     "again"
                   : "; no cache is in use, so a re-run asks for every embedding again"));
    return false;
}

}  // namespace llmv::pipeline
