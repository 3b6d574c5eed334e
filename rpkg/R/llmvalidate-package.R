#' @keywords internal
#' @details
#' The tests of Hansen (2026) on embeddings you bring:
#' [validation_test()], [separation_test()], [backtranslation_test()], and
#' all of them with the verdict at once, [llm_validate_embeddings()]. Over many
#' passages: [llm_validation_summary()].
#'
#' Errors are conditions of class `llmvalidate_error` and a class per stable
#' engine code, e.g. `llmvalidate_error_invalid_embedding` for
#' `llmv.input.invalid_embedding`; the code itself is in the condition's
#' `code` field.
#' @references Hansen, A. L. (2026). Validating Large Language Model
#'   Annotations. Finance and Economics Discussion Series 2026-020.
#'   \doi{10.17016/FEDS.2026.020}
"_PACKAGE"

## usethis namespace: start
#' @useDynLib llmvalidate, .registration = TRUE
#' @importFrom Rcpp evalCpp
## usethis namespace: end
NULL
