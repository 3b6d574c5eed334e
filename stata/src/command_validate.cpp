// `llmvalidate varname, task(...)`: validates the passages of a string variable (str# or strL)
// through the engine's pipeline (cpp/include/llmvalidate/pipeline.hpp). The ado-file passes
//
//   varlist:  passage  [human]           (string variables)
//   locals:   llmv_task (a file path), llmv_provider, llmv_model, llmv_embedding,
//             llmv_embedding_model, llmv_base_url, llmv_embedding_base_url, llmv_cache,
//             llmv_apikey (the chat provider's key only; never shown)
//   words:    text=1 human=0|2 generate=0|1 m= n= repeats= alpha= threshold= seed=
//             permutations= vmethod= smethod= rule= concurrency= dryrun=0|1
//
// The build defines LLMV_STATA_HAVE_PIPELINE=1 when cpp/pipeline/ implements validate_batch();
// until then `validate` answers rc 199 ("not yet available in this build").
#include "commands.hpp"
#include "return_codes.hpp"

#if LLMV_STATA_HAVE_PIPELINE
#include <string>
#include <vector>

#include "arguments.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/settings.hpp"
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

void read_validation_settings(const Arguments& args, pipeline::ValidationConfig& config) {
    // The ado passes each setting as a word named like its Stata option (alpha=0.05); the
    // settings table parses and checks it, and its messages name the option: alpha().
    for (const settings::Setting& setting : settings::table())
        if (!setting.stata.empty() && args.has(setting.stata))
            setting.set(config, settings::parse(setting, args.text(setting.stata, ""),
                                                settings::FrontEnd::stata));
}

namespace {
std::string local_or(const Api& api, const std::string& name, const std::string& fallback) {
    const auto value = api.local(name);
    return value && !value->empty() ? *value : fallback;
}
}  // namespace

int command_validate(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({"text", "human", "generate", "m", "n", "repeats", "alpha", "threshold", "seed",
                     "permutations", "vmethod", "smethod", "rule", "concurrency", "dryrun"});
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
    read_validation_settings(args, config);
    config.dry_run = args.integer("dryrun", 0) != 0;
    const bool generate = args.integer("generate", 0) != 0;
    settings::check(config, settings::FrontEnd::stata);
    pipeline::check_config(config);

    std::vector<pipeline::PassageInput> inputs;
    std::vector<int> input_obs;
    std::vector<int> empty_obs;
    for (int obs = api.in_first(); obs <= api.in_last(); ++obs) {
        if (!api.selected(obs)) continue;
        pipeline::PassageInput input;
        input.text = api.string(text_var, obs);
        if (input.text.find_first_not_of(" \t\r\n") == std::string::npos) {
            empty_obs.push_back(obs);  // no passage: its results stay missing
            continue;
        }
        input.id = std::to_string(obs);
        if (human_var != 0) input.human_label = api.string(human_var, obs);
        inputs.push_back(std::move(input));
        input_obs.push_back(obs);
    }
    if (inputs.empty() && empty_obs.empty())
        throw StataFailure(kRcNoObservations, "no observations");
    if (inputs.empty())
        throw StataFailure(kRcData, "llmvalidate: every passage in the sample is empty");
    if (!empty_obs.empty())
        api.display("{txt}(" + std::to_string(empty_obs.size()) +
                    " empty passage(s): results set to missing)\n");

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
        announce(api, std::move(results));
        return 0;
    }

    ProgressDots progress(api);
    const auto batch = pipeline::validate_batch(config, inputs, progress.callbacks(), true);
    progress.finish(batch.cancelled);

    std::vector<Outcome> outcomes;
    std::vector<std::string> labels;
    for (std::size_t k = 0; k < batch.passages.size(); ++k) {
        const auto& passage = batch.passages[k];
        const int obs = input_obs[passage.index];
        if (labels.empty()) labels = passage.label_set;
        if (passage.ok)
            outcomes.push_back({obs, passage.label, &passage.tests, ""});
        else
            outcomes.push_back({obs, passage.label, nullptr, passage.error_message});
    }
    fill_results(results, outcomes, config.tests, labels, generate, true);
    results.scalar("N_empty", static_cast<double>(empty_obs.size()));
    results.scalar("calls", static_cast<double>(batch.calls.chat_calls));
    results.scalar("cache_hits", static_cast<double>(batch.calls.cache_hits));
    results.macro("provider", config.provider);
    results.macro("model", config.model);
    results.macro("synthetic", batch.synthetic ? "yes" : "no");
    for (const auto& outcome : outcomes)
        if (outcome.output == nullptr)
            api.text("observation " + std::to_string(outcome.obs) + ": " + outcome.error + "\n");
    announce(api, std::move(results));
    return 0;
}

#endif

}  // namespace llmv::stata
