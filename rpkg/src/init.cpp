// The R binding of the engine: one thin function per entry point, doing conversions only.
// Values are checked by the engine (and argument types by the R wrappers). No C++ exception
// crosses into R: llmv::Error comes back as a value of class "llmvalidate_engine_error"
// carrying the engine's stable code, which R turns into a classed condition (R/errors.R);
// anything else is caught by BEGIN_RCPP/END_RCPP.
//
// Registration is written by hand rather than by Rcpp::compileAttributes(), whose
// RcppExports.cpp would include RcppEigen.h (LinkingTo) and with it RcppEigen's own Eigen
// glue, which does not build against the system Eigen 3.4 that configure may select.
#include "glue_calls.hpp"

#include <R_ext/Rdynload.h>

extern "C" {

static const R_CallMethodDef call_methods[] = {
    {"llmv_settings", reinterpret_cast<DL_FUNC>(&llmv_settings), 0},
    {"llmv_config_settings", reinterpret_cast<DL_FUNC>(&llmv_config_settings), 1},
    {"llmv_error_category", reinterpret_cast<DL_FUNC>(&llmv_error_category), 1},
    {"llmv_task_file", reinterpret_cast<DL_FUNC>(&llmv_task_file), 2},
    {"llmv_task_build", reinterpret_cast<DL_FUNC>(&llmv_task_build), 1},
    {"llmv_describe_tasks", reinterpret_cast<DL_FUNC>(&llmv_describe_tasks), 1},
    {"llmv_task_read", reinterpret_cast<DL_FUNC>(&llmv_task_read), 2},
    {"llmv_task_check_variables", reinterpret_cast<DL_FUNC>(&llmv_task_check_variables), 1},
    {"llmv_validation_test", reinterpret_cast<DL_FUNC>(&llmv_validation_test), 5},
    {"llmv_separation_test", reinterpret_cast<DL_FUNC>(&llmv_separation_test), 7},
    {"llmv_backtranslation_test", reinterpret_cast<DL_FUNC>(&llmv_backtranslation_test), 6},
    {"llmv_run_tests", reinterpret_cast<DL_FUNC>(&llmv_run_tests), 7},
    {"llmv_summarize_passages", reinterpret_cast<DL_FUNC>(&llmv_summarize_passages), 5},
    {"llmv_benjamini_hochberg", reinterpret_cast<DL_FUNC>(&llmv_benjamini_hochberg), 1},
    {"llmv_pipeline_run", reinterpret_cast<DL_FUNC>(&llmv_pipeline_run), 7},
    {"llmv_generations", reinterpret_cast<DL_FUNC>(&llmv_generations), 5},
    {"llmv_load_passages", reinterpret_cast<DL_FUNC>(&llmv_load_passages), 1},
    {"llmv_power", reinterpret_cast<DL_FUNC>(&llmv_power), 3},
    {"llmv_size_warnings", reinterpret_cast<DL_FUNC>(&llmv_size_warnings), 1},
    {"llmv_render_report", reinterpret_cast<DL_FUNC>(&llmv_render_report), 1},
    {"llmv_resolve_providers", reinterpret_cast<DL_FUNC>(&llmv_resolve_providers), 1},
    {"llmv_default_cache_path", reinterpret_cast<DL_FUNC>(&llmv_default_cache_path), 0},
    {"llmv_provider_defaults", reinterpret_cast<DL_FUNC>(&llmv_provider_defaults), 0},
    {"llmv_test_methods", reinterpret_cast<DL_FUNC>(&llmv_test_methods), 0},
    {"llmv_models", reinterpret_cast<DL_FUNC>(&llmv_models), 5},
    {"llmv_presets", reinterpret_cast<DL_FUNC>(&llmv_presets), 0},
    {"llmv_sample_rows", reinterpret_cast<DL_FUNC>(&llmv_sample_rows), 3},
    {"llmv_record_probe", reinterpret_cast<DL_FUNC>(&llmv_record_probe), 0},
    {"llmv_record_probe_table", reinterpret_cast<DL_FUNC>(&llmv_record_probe_table), 1},
    {"llmv_record_probe_passage", reinterpret_cast<DL_FUNC>(&llmv_record_probe_passage), 0},
    {"llmv_default_sample_seed", reinterpret_cast<DL_FUNC>(&llmv_default_sample_seed), 0},
    {"llmv_cache_import", reinterpret_cast<DL_FUNC>(&llmv_cache_import), 2},
    {"llmv_cache_merge", reinterpret_cast<DL_FUNC>(&llmv_cache_merge), 2},
    {"llmv_normalize_labels", reinterpret_cast<DL_FUNC>(&llmv_normalize_labels), 1},
    {"llmv_pending_info", reinterpret_cast<DL_FUNC>(&llmv_pending_info), 1},
    {"llmv_pending_key", reinterpret_cast<DL_FUNC>(&llmv_pending_key), 6},
    {"llmv_pending_save", reinterpret_cast<DL_FUNC>(&llmv_pending_save), 2},
    {"llmv_pending_read", reinterpret_cast<DL_FUNC>(&llmv_pending_read), 1},
    {"llmv_pending_collect", reinterpret_cast<DL_FUNC>(&llmv_pending_collect), 5},
    {"llmv_pending_generations", reinterpret_cast<DL_FUNC>(&llmv_pending_generations), 2},
    {nullptr, nullptr, 0}};

void R_init_llmvalidate(DllInfo* dll) {
    R_registerRoutines(dll, nullptr, call_methods, nullptr, nullptr);
    R_useDynamicSymbols(dll, FALSE);
}

}  // extern "C"
