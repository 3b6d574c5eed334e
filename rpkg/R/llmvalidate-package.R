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
#' @examples
#' # The whole validation of your own texts, here with the simulated provider
#' # (a synthetic data-generating process, not an LLM; see llm_provider_openai()
#' # and friends for real ones).
#' texts <- data.frame(
#'   id = c("q1", "q2"),
#'   text = c("Revenue grew strongly and margins improved.", "Losses widened again.")
#' )
#' res <- llm_validate(texts, task = "sentiment", provider = llm_provider_simulated(),
#'                     M = 20, n = 10, permutations = 99, seed = 1)
#' res
#' @references Hansen, A. L. (2026). Validating Large Language Model
#'   Annotations. Finance and Economics Discussion Series 2026-020.
#'   \doi{10.17016/FEDS.2026.020}
"_PACKAGE"

## usethis namespace: start
#' @useDynLib llmvalidate, .registration = TRUE
#' @importFrom Rcpp evalCpp
## usethis namespace: end
NULL

