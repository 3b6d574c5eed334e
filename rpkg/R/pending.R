# A pending batch-API run: the handle llm_validate(batch = TRUE, wait = FALSE) returns (and
# saves at `path`), and llm_collect(), which goes on from it. The handle is the engine's
# (llmvalidate/pending.hpp): JSON that the command-line tool (`batch --collect FILE`) reads too.

save_pending <- function(handle, path, call = rlang::caller_env()) {
  engine_result(.Call(llmv_pending_save, handle, path.expand(path)), call = call)
  invisible(path)
}

# A handle already at `path` must be this run's (`key`), as ellmer's batch_chat() checks its
# file's hash.
check_pending_path <- function(path, key, call = rlang::caller_env()) {
  key <- engine_result(key, call = call)
  saved <- engine_result(.Call(llmv_pending_read, path.expand(path)), call = call)
  info <- engine_result(.Call(llmv_pending_info, saved), call = call)
  if (!identical(info$key, key)) {
    abort_llmv(c("{.arg path} holds the pending batch of another run: {.file {path}}.",
                 i = "It was saved {info$created} for {length(info$ids)} passage{?s}; collect it with {.code llm_collect({.str {path}})}, or give another {.arg path}.",
                 i = "A run is the same when its passages and settings are (the seed too: pass {.arg seed} or call {.fn set.seed})."),
               code = "llmv.input.invalid_argument", call = call)
  }
  invisible(TRUE)
}

new_llm_batch_pending <- function(handle, path = NULL, submitted = character(),
                                  batch_requests = NA_real_, call = rlang::caller_env()) {
  info <- engine_result(.Call(llmv_pending_info, handle), call = call)
  structure(
    list(handle = handle, path = path, cache = info$cache, batch_ids = info$batch_ids,
         created = info$created, key = info$key, passages = length(info$ids),
         provider = info$provider, model = info$model,
         submitted = as.character(submitted %||% character()),
         batch_requests = batch_requests),
    class = "llm_batch_pending"
  )
}

#' @export
print.llm_batch_pending <- function(x, ...) {
  out <- c(
    sprintf("<llm_batch_pending> %d passage%s through the %s batch API (%s), saved %s",
            x$passages, if (x$passages == 1) "" else "s", x$provider, x$model, x$created),
    sprintf("Provider batches out: %s",
            if (length(x$batch_ids)) paste(x$batch_ids, collapse = ", ") else "none"),
    sprintf("Cache: %s", x$cache),
    if (!is.null(x$path)) sprintf("Handle: %s", x$path) else
      "Handle: in this object (`path =` saves it to a file)",
    sprintf("Collect with llm_collect(%s): it polls once, or waits with `wait = TRUE`; nothing is submitted or paid twice.",
            if (!is.null(x$path)) encodeString(x$path, quote = "\"") else "<this object>")
  )
  cat(out, sep = "\n")
  invisible(x)
}

#' Collect a pending batch-API run
#'
#' Goes on with a run that [llm_validate()] left with its provider batches
#' out (`batch = TRUE, wait = FALSE`): from the `llm_batch_pending` object it
#' returned, or from the file it saved with `path = "..."` (in this R session
#' or another, or with the command-line tool's `llmvalidate batch --collect
#' FILE`). The same run goes on through the engine: the batches' ids and
#' answers are in the run's `cache`, so nothing is submitted or paid twice,
#' and collecting a finished run again reads every answer from the cache for
#' free.
#'
#' @param x An `llm_batch_pending` object, or the path of a handle saved by
#'   `llm_validate(..., path = )`.
#' @param wait `FALSE` (the default) polls the batches out once and submits
#'   the next phase's batches when they are done; `TRUE` waits until the run
#'   is finished (Ctrl-C stops waiting with an `llmvalidate_error_cancelled`
#'   condition; collecting again resumes).
#' @param provider,embedding `NULL`, or the providers of the run, for a key
#'   given as `api_key` (the handle never holds a key: without them, the keys
#'   come from the environment, as for any run).
#' @return When every passage is done, the same `llm_validations` table that
#'   the synchronous `llm_validate()` call returns; otherwise the
#'   `llm_batch_pending` object again (saved again at its path, with the
#'   batches now out).
#' @seealso [llm_validate()], [llm_details()].
#' @export
#' @examples
#' \dontrun{
#' pending <- llm_validate(texts, task = "sentiment", provider = llm_provider_openai(),
#'                         batch = TRUE, wait = FALSE, path = "sentiment-batch.json")
#' pending
#' # later, in this session or another:
#' results <- llm_collect("sentiment-batch.json")
#' }
llm_collect <- function(x, wait = FALSE, provider = NULL, embedding = NULL) {
  call <- rlang::current_env()
  path <- NULL
  if (inherits(x, "llm_batch_pending")) {
    handle <- x$handle
    path <- x$path
  } else if (is.character(x) && length(x) == 1 && !is.na(x)) {
    path <- x
    handle <- engine_result(.Call(llmv_pending_read, path.expand(path)), call = call)
  } else {
    abort_argument("x", "an `llm_batch_pending` object or the path of a saved handle", x, call)
  }
  if (!is.logical(wait) || length(wait) != 1 || is.na(wait)) {
    abort_argument("wait", "TRUE or FALSE", wait, call)
  }
  if (!is.null(provider) && !inherits(provider, "llm_provider")) {
    abort_argument("provider", "NULL or the run's chat provider, such as `llm_provider_openai()`",
                   provider, call)
  }
  if (!is.null(embedding) && !inherits(embedding, "llm_embedding_provider")) {
    abort_argument("embedding", "NULL or the run's embedding provider", embedding, call)
  }
  info <- engine_result(.Call(llmv_pending_info, handle), call = call)
  # The keys given and those of the environment, kept out of every message.
  secrets <- unique(c(provider_secrets(provider %||% list()),
                      if (!is.null(embedding)) provider_secrets(embedding)))
  bar <- new_progress_bar()
  result <- engine_result(redact(.Call(llmv_pending_collect, handle, wait,
                                       (if (!is.null(provider)) provider_key(provider)) %||% "",
                                       (if (!is.null(embedding)) provider_key(embedding)) %||% "",
                                       bar$update), secrets),
                          call = call)
  bar$done()
  if (identical(result$status, "waiting")) {
    if (!is.null(path)) save_pending(result$handle, path, call)
    return(new_llm_batch_pending(result$handle, path, submitted = unlist(result$submitted),
                                 batch_requests = result$batch_requests, call = call))
  }
  run <- list(handle = handle, ids = info$ids, settings = info$settings)
  validations_of_run(result, info$settings, list(name = info$provider), info$cache,
                     info$human, run, call)
}

#' The detailed validation of one passage
#'
#' [llm_validate()] returns a table with one row per passage; the full
#' `llm_validation` object of a passage (every test with its statistic,
#' critical value and p-value, the annotations, the calls; see
#' [llm_validation_methods]) is in its list column `validation`, and this
#' picks it out.
#'
#' @param x The result of [llm_validate()] or [llm_collect()].
#' @param passage The row: its position (default the first) or its `id`.
#' @return An `llm_validation` object; `NULL` for a passage that failed (its
#'   row's `error` says why).
#' @export
#' @examples
#' # The simulated provider is a synthetic data-generating process, not an LLM.
#' result <- llm_validate("Revenue grew strongly.", task = "sentiment",
#'   provider = llm_provider_simulated(), M = 10, n = 5, permutations = 99, seed = 1)
#' llm_details(result)
llm_details <- function(x, passage = 1) {
  call <- rlang::current_env()
  if (!inherits(x, "llm_validations")) {
    abort_argument("x", "the result of `llm_validate()`", x, call)
  }
  row <- if (is.character(passage) && length(passage) == 1) match(passage, x$id) else
    if (is.numeric(passage) && length(passage) == 1 && !is.na(passage) &&
          passage == round(passage) && passage >= 1 && passage <= nrow(x)) passage else NA
  if (is.na(row)) {
    abort_argument("passage", sprintf("a row number in 1..%d or one of the ids", nrow(x)),
                   passage, call)
  }
  validation <- x$validation[[row]]
  if (is.null(validation)) return(NULL)
  # The run of this passage alone, for llm_generations().
  run <- attr(x, "run")
  if (!is.null(run)) {
    keep <- run$ids == x$id[[row]]
    for (field in intersect(c("text", "ids", "templates", "variables"), names(run))) {
      if (!is.null(run[[field]])) run[[field]] <- run[[field]][keep]
    }
    validation$run <- run
  }
  validation
}
