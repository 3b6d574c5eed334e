// A pending batch-API run from R (llmvalidate/pending.hpp): its handle (JSON text in R), saved,
// read, described and collected with the engine's collect().
#include <atomic>
#include <string>
#include <vector>

#include "glue_calls.hpp"
#include "glue_convert.hpp"
#include "glue_run.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/pending.hpp"
#include "llmvalidate/pipeline.hpp"

using namespace glue;

extern "C" {

// What a handle holds, for printing and for the table a collected run gives.
SEXP llmv_pending_info(SEXP handle_) {
    BEGIN_RCPP
    const std::string text = Rcpp::as<std::string>(handle_);
    return guarded([&]() -> Rcpp::RObject {
        const pipeline::PendingBatch handle = pipeline::pending_from_json(text);
        const std::size_t count = handle.passages.size();
        Rcpp::CharacterVector ids(count), texts(count), human(count);
        bool any_human = false;
        for (std::size_t i = 0; i < count; ++i) {
            ids[i] = handle.passages[i].id;
            texts[i] = handle.passages[i].text;
            human[i] = handle.passages[i].human_label;
            any_human = any_human || !handle.passages[i].human_label.empty();
        }
        std::vector<std::string> names, values;
        for (const settings::Setting& setting : settings::table()) {
            if (setting.by_hand || !settings::binds(handle.config, setting.name)) continue;
            names.push_back(setting.name);
            values.push_back(
                settings::format_value(setting, settings::get(handle.config, setting)));
        }
        Rcpp::CharacterVector used = Rcpp::wrap(values);
        used.attr("names") = names;
        return Rcpp::List::create(
            Rcpp::Named("created") = handle.created, Rcpp::Named("key") = handle.key,
            Rcpp::Named("cache") = handle.config.cache_path,
            Rcpp::Named("batch_ids") = Rcpp::wrap(handle.batch_ids),
            Rcpp::Named("provider") = handle.config.provider,
            Rcpp::Named("model") = handle.config.model,
            Rcpp::Named("embedding_provider") = handle.config.embedding_provider,
            Rcpp::Named("embedding_model") = handle.config.embedding_model,
            Rcpp::Named("ids") = ids, Rcpp::Named("text") = texts,
            Rcpp::Named("human") = any_human ? Rcpp::RObject(human) : Rcpp::RObject(R_NilValue),
            Rcpp::Named("settings") = used);
    });
    END_RCPP
}

// The key the handle of this run would have (arguments as for llmv_pipeline_run): whether a
// handle saved at `path` is this run's.
SEXP llmv_pending_key(SEXP config_, SEXP text_, SEXP id_, SEXP human_label_, SEXP templates_,
                      SEXP variables_) {
    BEGIN_RCPP
    const Rcpp::List config_list(config_);
    return guarded([&]() -> Rcpp::RObject {
        const pipeline::ValidationConfig config = as_config(config_list);
        return Rcpp::wrap(pipeline::pending_key(
            config, as_passages(config, text_, id_, human_label_, templates_, variables_)));
    });
    END_RCPP
}

// Writes the handle to `path` (checked first: a text that is not a handle is refused).
SEXP llmv_pending_save(SEXP handle_, SEXP path_) {
    BEGIN_RCPP
    const std::string text = Rcpp::as<std::string>(handle_);
    const std::string path = Rcpp::as<std::string>(path_);
    return guarded([&]() -> Rcpp::RObject {
        pipeline::save_pending(pipeline::pending_from_json(text), path);
        return R_NilValue;
    });
    END_RCPP
}

// The handle saved at `path`, as JSON text (its key checked).
SEXP llmv_pending_read(SEXP path_) {
    BEGIN_RCPP
    const std::string path = Rcpp::as<std::string>(path_);
    return guarded([&]() -> Rcpp::RObject {
        return Rcpp::wrap(pipeline::pending_to_json(pipeline::load_pending(path)));
    });
    END_RCPP
}

// Collects the pending run (pipeline::collect): polls once (wait FALSE) or waits; the keys given
// ("" for none: the environment's) go to the run, never into the handle. The outcome as
// llmv_pipeline_run returns it.
SEXP llmv_pending_collect(SEXP handle_, SEXP wait_, SEXP api_key_, SEXP embedding_api_key_,
                          SEXP progress_) {
    BEGIN_RCPP
    const std::string text = Rcpp::as<std::string>(handle_);
    const bool wait = Rcpp::as<bool>(wait_);
    const std::string api_key = Rcpp::as<std::string>(api_key_);
    const std::string embedding_api_key = Rcpp::as<std::string>(embedding_api_key_);
    return guarded([&]() -> Rcpp::RObject {
        pipeline::PendingBatch handle = pipeline::pending_from_json(text);
        handle.config.api_key = api_key;
        handle.config.embedding_api_key = embedding_api_key;
        handle.config.messages_for = settings::FrontEnd::r;
        std::atomic<bool> cancel{false};
        const llmv::ScopedInterruptCheck interrupt_check([] { return interrupt_pending(); });
        std::vector<pipeline::RunWarning> warnings;  // for the run document
        const pipeline::RunSink sink = r_run_sink(cancel, progress_, &warnings);
        return outcome_to_r(pipeline::collect(handle, wait, sink), handle.config,
                            handle.passages, warnings);
    });
    END_RCPP
}

// The audit trail of a collected run (llm_generations()), its passages those of `ids`.
SEXP llmv_pending_generations(SEXP handle_, SEXP ids_) {
    BEGIN_RCPP
    const std::string text = Rcpp::as<std::string>(handle_);
    const std::vector<std::string> ids = Rcpp::as<std::vector<std::string>>(ids_);
    return guarded([&]() -> Rcpp::RObject {
        pipeline::PendingBatch handle = pipeline::pending_from_json(text);
        std::vector<pipeline::PassageInput> passages;
        for (const pipeline::PassageInput& passage : handle.passages)
            for (const std::string& id : ids)
                if (passage.id == id) passages.push_back(passage);
        handle.config.batch_api = false;
        handle.config.wait = true;
        return generations_to_r(pipeline::read_generations(handle.config, passages));
    });
    END_RCPP
}

}  // extern "C"
