// The entry points of the R binding, one per .Call() of R/ (registered in init.cpp). Each
// file of the glue defines those of one job: glue_tests.cpp, glue_pipeline.cpp, glue_task.cpp,
// glue_settings.cpp, glue_cache.cpp and glue_pending.cpp.
#pragma once

// Rcpp.h first: it includes Rinternals.h without the macros (length, error, ...) that would
// break the standard headers.
#include <Rcpp.h>

extern "C" {

SEXP llmv_settings();
SEXP llmv_config_settings(SEXP config);
SEXP llmv_error_category(SEXP code_);
SEXP llmv_task_file(SEXP name_, SEXP prompts_dir_);
SEXP llmv_task_build(SEXP parts_);
SEXP llmv_describe_tasks(SEXP prompts_dir_);
SEXP llmv_task_read(SEXP name_, SEXP prompts_dir_);
SEXP llmv_task_check_variables(SEXP config_);
SEXP llmv_validation_test(SEXP passage_, SEXP pool_, SEXP alpha_, SEXP method_, SEXP reference_);
SEXP llmv_separation_test(SEXP pool_a_, SEXP pool_b_, SEXP alpha_, SEXP method_, SEXP permutations_,
                          SEXP reference_, SEXP seed_);
SEXP llmv_backtranslation_test(SEXP target_, SEXP labels_back_, SEXP labels_, SEXP threshold_,
                               SEXP rule_, SEXP alpha_);
SEXP llmv_run_tests(SEXP label_, SEXP labels_, SEXP passage_, SEXP pools_, SEXP backtranslation_,
                    SEXP paper_reference_, SEXP settings_);
SEXP llmv_summarize_passages(SEXP llm_label_, SEXP verdict_, SEXP human_label_, SEXP labels_,
                             SEXP ids_);
SEXP llmv_benjamini_hochberg(SEXP p_values_);
SEXP llmv_pipeline_run(SEXP config_, SEXP text_, SEXP id_, SEXP human_label_, SEXP templates_,
                       SEXP variables_, SEXP progress_);
SEXP llmv_generations(SEXP config_, SEXP text_, SEXP id_, SEXP templates_, SEXP variables_);
SEXP llmv_load_passages(SEXP path_);
SEXP llmv_power(SEXP config_, SEXP true_label_, SEXP replications_);
SEXP llmv_size_warnings(SEXP config_);
SEXP llmv_render_report(SEXP text_);
SEXP llmv_resolve_providers(SEXP config_);
SEXP llmv_default_cache_path();
SEXP llmv_provider_defaults();
SEXP llmv_test_methods();
SEXP llmv_models(SEXP provider_, SEXP base_url_, SEXP price_table_, SEXP api_key_, SEXP cache_);
SEXP llmv_presets();
SEXP llmv_sample_rows(SEXP population_, SEXP n_, SEXP seed_);
// Test only (record_probe.cpp): a probe record through the R writer of the records.
SEXP llmv_record_probe();
SEXP llmv_record_probe_table(SEXP rows);
SEXP llmv_record_probe_passage();
SEXP llmv_default_sample_seed();
SEXP llmv_cache_import(SEXP cache_, SEXP side_file_);
SEXP llmv_cache_merge(SEXP cache_, SEXP from_);
SEXP llmv_normalize_labels(SEXP labels_);
SEXP llmv_pending_info(SEXP handle_);
SEXP llmv_pending_key(SEXP config_, SEXP text_, SEXP id_, SEXP human_label_, SEXP templates_,
                      SEXP variables_);
SEXP llmv_pending_save(SEXP handle_, SEXP path_);
SEXP llmv_pending_read(SEXP path_);
SEXP llmv_pending_collect(SEXP handle_, SEXP wait_, SEXP api_key_, SEXP embedding_api_key_,
                          SEXP progress_);
SEXP llmv_pending_generations(SEXP handle_, SEXP ids_);

}  // extern "C"
