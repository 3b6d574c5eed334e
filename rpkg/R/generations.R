#' The texts the model wrote for a validation, and its answers
#'
#' The audit trail of [llm_validate()]: for each passage, the annotations of
#' the passage and every text the model generated for each label (`K` labels
#' times `M` texts), with the label the model gave it back when its pool was
#' backtranslated. The texts are read from the run's `cache`: this makes no
#' call, and a passage whose answers the cache does not hold is left out with a
#' warning. With the simulated provider (a synthetic data-generating process,
#' not a language model) the texts are computed again, identically.
#'
#' @param result The result of [llm_validate()] or [llm_collect()]: an
#'   `llm_validations` table (its rows' passages), or one passage's
#'   `llm_validation` from [llm_details()].
#' @return A tibble (a data frame when tibble is not installed), one row per
#'   annotation of a passage (`kind` `"annotation"`, `text` the passage,
#'   `backtranslated` the label the model gave it) and per generated text
#'   (`kind` `"simulation"`, `label` the label it was written for, `draw` its
#'   position 1..M in the label's pool, `backtranslated` the label the model
#'   gave it back, `NA` for the pools that are not backtranslated), with the
#'   passage `id`, the chat `model` and the SHA-256 `prompt_hash` of the
#'   prompt that produced it.
#' @export
#' @examples
#' # The simulated provider is a synthetic data-generating process, not an LLM.
#' validation <- llm_validate("Revenue grew strongly.", task = "sentiment",
#'   provider = llm_provider_simulated(), M = 10, n = 5, permutations = 99, seed = 1)
#' generations <- llm_generations(validation)
#' nrow(llm_generations(llm_details(validation)))
#' table(generations$kind, generations$label, useNA = "ifany")
#' head(generations$text, 3)
llm_generations <- function(result) {
  call <- rlang::current_env()
  run <- if (inherits(result, "llm_validations")) attr(result, "run") else
    if (inherits(result, "llm_validation")) result$run
  if (is.null(run)) {
    abort_argument("result", "the result of `llm_validate()` (one validation or a table of them)",
                   result, call)
  }
  keep <- if (inherits(result, "llm_validations")) run$ids %in% result$id else
    rep(TRUE, length(run$ids))
  pick <- function(x) if (is.null(x)) NULL else x[keep]
  read <- if (!is.null(run$handle)) {
    # A run collected from its pending batch's handle (llm_collect()).
    engine_result(.Call(llmv_pending_generations, run$handle, run$ids[keep]), call = call)
  } else {
    engine_result(.Call(llmv_generations, run$config, run$text[keep], run$ids[keep],
                        pick(run$templates), pick(run$variables)),
                  call = call)
  }
  if (length(read$failed_id) > 0) {
    failed_ids <- read$failed_id
    first <- read$failed_message[[1]]
    cli::cli_warn(
      c("The cache holds no complete run of {length(failed_ids)} passage{?s}: {.val {failed_ids}}; left out.",
        i = "First: {first}"),
      class = c("llmvalidate_warning_generations_missing", "llmvalidate_warning"), call = call
    )
  }
  rows <- as.data.frame(read$rows, stringsAsFactors = FALSE)
  if (requireNamespace("tibble", quietly = TRUE)) rows <- tibble::as_tibble(rows)
  rows
}
