// `llmvalidate varname, task(...)`: validates the passages of a string variable (str# or strL)
// through the engine's pipeline (cpp/include/llmvalidate/pipeline.hpp). The ado-file passes
//
//   varlist:  passage  [human]           (string variables)
//   locals:   llmv_task (a file path), llmv_provider, llmv_model, llmv_embedding,
//             llmv_embedding_model, llmv_base_url, llmv_embedding_base_url, llmv_cache,
//             llmv_apikey (the chat provider's key only; never shown),
//             llmv_generations (a file to write the run's generations to, as CSV: saving())
//   words:    text=1 human=0|2 generate=0|1 m= n= repeats= alpha= threshold= seed=
//             permutations= vmethod= smethod= rule= concurrency= maxretries= dryrun=0|1
//             continue=0|1 matrix=0|1 matrixmax=
//
// When no passage could be validated (a closed port, a refused key, a task variable missing),
// the command fails with the rc of the first failure's category, as `llmvalidate batch` exits
// nonzero; continue=1 (the option continue) stores the results anyway, every one missing.
//
// The build defines LLMV_STATA_HAVE_PIPELINE=1 when cpp/pipeline/ implements validate_batch();
// until then `validate` answers rc 199 ("not yet available in this build").
#include "commands.hpp"
#include "return_codes.hpp"

#if LLMV_STATA_HAVE_PIPELINE
#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/settings.hpp"
#include "messages.hpp"
#include "results.hpp"
#include "test_results.hpp"
#include "validation_settings.hpp"
#endif

namespace llmv::stata {

#if !LLMV_STATA_HAVE_PIPELINE

bool pipeline_available() { return false; }

int command_validate(Api&, int, char*[]) {
    throw StataFailure(kRcNotAvailable,
                       "llmvalidate: validating passages (LLM calls) is not yet available in this "
                       "build of the plugin; llmvalidate test (on embeddings you already have) is");
}

#else

bool pipeline_available() { return true; }

ProgressDots::ProgressDots(Api& api) : api_(api) {
    callbacks_.cancel = &cancel_;
    callbacks_.on_progress = [this](const pipeline::Progress& progress) {
        while (dots_ < progress.passages_done) {
            ++dots_;
            api_.display(dots_ % 50 == 0 ? ". " + std::to_string(dots_) + "\n" : ".");
        }
        if (api_.poll()) cancel_ = true;
    };
}

void ProgressDots::finish(bool cancelled_by_pipeline) {
    if (dots_ % 50 != 0) api_.display("\n");
    if (cancelled_by_pipeline || cancel_) throw BreakRequested();
}

namespace {
std::string local_or(const Api& api, const std::string& name, const std::string& fallback) {
    const auto value = api.local(name);
    return value && !value->empty() ? *value : fallback;
}
}  // namespace

namespace {
// saving(): every annotation and generated text of the run, as CSV for the ado-file to import.
void write_generations(const std::string& path, const pipeline::BatchResult& batch) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << pipeline::generations_csv_header() << "\n";
    for (const auto& passage : batch.passages)
        for (const auto& row : pipeline::generation_rows(passage))
            out << pipeline::generation_csv_line(row) << "\n";
    out.flush();
    if (!out) throw StataFailure(603, "llmvalidate: saving(): could not write the generations to " + path);
}
}  // namespace

int command_validate(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({"text", "human", "generate", "m", "n", "repeats", "alpha", "threshold", "seed",
                     "permutations", "vmethod", "smethod", "rule", "concurrency", "dryrun",
                     "matrix", "matrixmax", "structured", "preset", "continue", "maxretries",
                     "timeout", "drain", "encoding"});
    forget_pending();
    const int text_var = args.integer("text", 1);
    const int human_var = args.integer("human", 0);
    if (text_var < 1 || text_var > api.variables() || !api.is_string(text_var))
        throw StataFailure(109,
                           "llmvalidate: the passages must be a string variable (str# or strL)");
    if (human_var != 0 && (human_var > api.variables() || !api.is_string(human_var)))
        throw StataFailure(109, "llmvalidate: human() must be a string variable");

    pipeline::ValidationConfig config;
    config.task_path = local_or(api, "llmv_task", "");
    if (config.task_path.empty())
        throw StataFailure(kRcSyntax, "llmvalidate: option task() is required");
    config.provider = local_or(api, "llmv_provider", config.provider);
    config.model = local_or(api, "llmv_model", "");
    config.embedding_provider = local_or(api, "llmv_embedding", "");
    config.embedding_model = local_or(api, "llmv_embedding_model", "");
    config.base_url = local_or(api, "llmv_base_url", "");
    config.embedding_base_url = local_or(api, "llmv_embedding_base_url", "");
    config.cache_path = local_or(api, "llmv_cache", "");
    config.api_key = local_or(api, "llmv_apikey", "");
    // paper: a preset first, so that options given beside it win.
    if (args.has("preset"))
        settings::apply_preset(config, args.text("preset", ""), settings::FrontEnd::stata);
    read_validation_settings(args, config);
    config.dry_run = args.integer("dryrun", 0) != 0;
    const bool generate = args.integer("generate", 0) != 0;
    settings::check(config, settings::FrontEnd::stata);
    const std::string generations_path = local_or(api, "llmv_generations", "");
    config.keep_texts = !generations_path.empty();
    pipeline::check_config(config);

    std::vector<pipeline::PassageInput> inputs;
    std::vector<int> input_obs;
    for (int obs = api.in_first(); obs <= api.in_last(); ++obs) {
        if (!api.selected(obs)) continue;
        pipeline::PassageInput input;
        input.text = api.string(text_var, obs);
        input.id = std::to_string(obs);
        if (human_var != 0) input.human_label = api.string(human_var, obs);
        // An empty or blank passage stops the command before any call (the engine's check).
        try {
            pipeline::check_passage_text(input, inputs.size());
        } catch (const Error& error) {
            throw StataFailure(kRcData, "llmvalidate: observation " + std::to_string(obs) +
                                            ": the passage is empty or only white space; every "
                                            "passage needs text (leave such observations out with "
                                            "if, e.g. if strtrim(varname) != \"\"). No call was "
                                            "made. (" + error.what() + ")");
        }
        inputs.push_back(std::move(input));
        input_obs.push_back(obs);
    }
    if (inputs.empty()) throw StataFailure(kRcNoObservations, "no observations");

    Results results;
    if (config.dry_run) {
        const auto report = pipeline::dry_run(config, inputs);
        results.scalar("N", static_cast<double>(report.passages));
        results.scalar("calls", static_cast<double>(report.calls.chat_calls));
        results.scalar("cached_calls", static_cast<double>(report.cached_calls));
        results.scalar("embedded_texts", static_cast<double>(report.calls.embedded_texts));
        results.scalar("input_tokens", static_cast<double>(report.estimated_input_tokens));
        results.scalar("output_tokens", static_cast<double>(report.estimated_output_tokens));
        results.macro("note", report.note);
        results.macro("dryrun", "yes");
        std::string warnings;
        for (const std::string& warning : report.warnings) {
            api.display("{txt}Warning: " + warning + "\n");
            warnings += (warnings.empty() ? "" : " ") + warning;
        }
        results.macro("warnings", warnings);
        announce(api, std::move(results));
        return 0;
    }

    // Where the answers are kept, as the CLI and R say it, and a warning before anything is
    // paid for without a cache. The simulated provider pays nothing and caches nothing.
    if (config.provider != "simulated")
        api.text("Cache: " +
                 (config.cache_path.empty() ? std::string("none (nocache)") : config.cache_path) +
                 "\n");
    const std::string no_cache = pipeline::cache_warning(config);
    if (!no_cache.empty()) api.text("Warning: " + no_cache + "\n");

    ProgressDots progress(api);
    const auto batch = pipeline::validate_batch(config, inputs, progress.callbacks(), true);
    progress.finish(batch.cancelled);

    if (!generations_path.empty()) write_generations(generations_path, batch);

    std::vector<Outcome> outcomes;
    std::vector<std::string> labels;
    const pipeline::PassageResult* first_failure = nullptr;
    for (std::size_t k = 0; k < batch.passages.size(); ++k) {
        const auto& passage = batch.passages[k];
        const int obs = input_obs[passage.index];
        if (labels.empty()) labels = passage.label_set;
        if (passage.ok) {
            outcomes.push_back({obs, passage.label, &passage.tests, ""});
            continue;
        }
        outcomes.push_back(
            {obs, passage.label, nullptr,
             validate_passage_message(passage.error_code, passage.id, passage.error_message)});
        if (first_failure == nullptr || passage.index < first_failure->index)
            first_failure = &passage;
    }
    const auto succeeded = std::count_if(outcomes.begin(), outcomes.end(),
                                         [](const Outcome& o) { return o.output != nullptr; });
    if (succeeded == 0 && first_failure != nullptr && args.integer("continue", 0) == 0) {
        for (const auto& outcome : outcomes)
            api.text("observation " + std::to_string(outcome.obs) + ": " + outcome.error + "\n");
        std::string first = validate_passage_message(first_failure->error_code, first_failure->id,
                                                     first_failure->error_message);
        if (!first.empty() && first.back() == '.') first.pop_back();
        throw StataFailure(
            return_code_for(first_failure->error_code),
            "llmvalidate: no passage could be validated: all " + std::to_string(outcomes.size()) +
                " failed (the first, observation " +
                std::to_string(input_obs[first_failure->index]) + ": " + first +
                "). Nothing was stored; " +
                (config.cache_path.empty()
                     ? std::string("no cache was used (nocache), so a re-run pays again. ")
                     : "any answer received is kept in the cache " + config.cache_path + ". ") +
                "Option continue stores the results anyway (all missing), with r(N_failed).");
    }
    fill_results(results, outcomes, config.tests, labels, generate, true);
    // r(results) has a row per passage: past Stata's matrix limit (matrixmax=, from the ado)
    // it could not be created after the whole run, so it is left out; nomatrix leaves it out.
    const bool want_matrix = args.integer("matrix", 1) != 0;
    const int matrix_max = args.integer("matrixmax", 0);
    const bool too_many = matrix_max > 0 && outcomes.size() > static_cast<std::size_t>(matrix_max);
    if (!want_matrix || too_many) {
        auto& matrices = results.matrices;
        matrices.erase(std::remove_if(matrices.begin(), matrices.end(),
                                      [](const ResultMatrix& m) { return m.key == "results"; }),
                       matrices.end());
        if (want_matrix)
            api.display("{txt}(r(results) left out: " + std::to_string(outcomes.size()) +
                        " passages exceed the matrix limit of " + std::to_string(matrix_max) +
                        " rows; use generate() for per-passage results)\n");
    }
    results.scalar("calls", static_cast<double>(batch.calls.chat_calls));
    results.scalar("cache_hits", static_cast<double>(batch.calls.cache_hits));
    results.macro("provider", config.provider);
    results.macro("model", config.model);
    results.macro("cache", config.cache_path);
    results.macro("synthetic", batch.synthetic ? "yes" : "no");
    for (const auto& outcome : outcomes)
        if (outcome.output == nullptr)
            api.text("observation " + std::to_string(outcome.obs) + ": " + outcome.error + "\n");
    announce(api, std::move(results));
    return 0;
}

#endif

}  // namespace llmv::stata
