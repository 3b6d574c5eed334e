#' Methods for the validations of many passages
#'
#' [llm_validate()] on several passages returns an `llm_validations` data
#' frame, one row per passage. It subsets like a data frame and keeps its
#' class (`res[1:3, ]` prints the tally of those passages, and
#' [llm_generations()] reads their texts). `tidy()` gives one row per passage
#' with the numbers of every test and the Benjamini-Hochberg adjusted p-value;
#' `glance()` one row for the run; `summary()` the tallies of the paper's
#' Tables 9 and 10 (see [llm_validation_summary()]).
#'
#' @param x,object An `llm_validations` data frame from [llm_validate()].
#' @param i,j,drop As for data frames.
#' @param ... Passed on ([llm_validation_summary()] for `summary()`); else
#'   ignored.
#' @return `[` an `llm_validations` data frame while the rows keep their
#'   `id`, `verdict` and `validation` columns (else what the data frame method
#'   gives); `tidy()` and `glance()` tibbles (data frames when tibble is not
#'   installed); `summary()` an `llm_validation_summary`.
#' @name llm_validations_methods
#' @examples
#' # The simulated provider is a synthetic data-generating process, not an LLM.
#' res <- llm_validate(c(a = "Revenue grew strongly.", b = "Losses widened.",
#'                       c = "The board met on Tuesday."),
#'   task = "sentiment", provider = llm_provider_simulated(), M = 20, n = 10,
#'   permutations = 99, seed = 1)
#' res[1:2, ]
#' if (requireNamespace("generics", quietly = TRUE)) {
#'   generics::tidy(res)
#'   generics::glance(res)
#' }
#' summary(res)
NULL

#' @rdname llm_validations_methods
#' @export
`[.llm_validations` <- function(x, i, j, ..., drop = TRUE) {
  out <- NextMethod()
  if (!is.data.frame(out)) return(out)
  if (!all(c("id", "verdict", "validation") %in% names(out))) {
    # Not a table of validations any more: a plain data frame.
    class(out) <- setdiff(class(out), "llm_validations")
    attr(out, "synthetic") <- attr(out, "calls") <- attr(out, "run") <- NULL
    return(out)
  }
  for (name in c("synthetic", "run")) attr(out, name) <- attr(x, name)
  class(out) <- class(x)
  out
}

validations_tidy <- function(x) {
  rows <- lapply(seq_len(nrow(x)), function(k) {
    v <- x$validation[[k]]
    if (is.null(v)) {
      return(data.frame(label = NA_character_, tau = NA_real_, critical.value = NA_real_,
                        p.value = NA_real_, separation_pass = NA,
                        backtranslation_accuracy = NA_real_, backtranslation_pass = NA,
                        stringsAsFactors = FALSE))
    }
    validation_glance(v)[c("label", "tau", "critical.value", "p.value", "separation_pass",
                           "backtranslation_accuracy", "backtranslation_pass")]
  })
  frame <- do.call(rbind, rows)
  p_adjusted <- rep(NA_real_, nrow(x))
  ok <- !is.na(frame$p.value)
  if (any(ok)) p_adjusted[ok] <- engine_result(.Call(llmv_benjamini_hochberg, frame$p.value[ok]))
  out <- data.frame(id = x$id, frame, p.adjusted = p_adjusted, verdict = x$verdict,
                    error = x$error, stringsAsFactors = FALSE)
  rownames(out) <- NULL
  out
}

#' @rdname llm_validations_methods
#' @exportS3Method generics::tidy
tidy.llm_validations <- function(x, ...) as_tidy_frame(validations_tidy(x))

#' @rdname llm_validations_methods
#' @exportS3Method generics::glance
glance.llm_validations <- function(x, ...) {
  count <- function(verdict) sum(x$verdict == verdict)
  decided <- count("valid") + count("invalid")
  as_tidy_frame(data.frame(
    n = nrow(x), n_valid = count("valid"), n_invalid = count("invalid"),
    n_inconclusive = count("inconclusive"), n_error = count("error"),
    share_valid = if (decided > 0) count("valid") / decided else NA_real_,
    synthetic = isTRUE(attr(x, "synthetic")), stringsAsFactors = FALSE
  ))
}

#' @rdname llm_validations_methods
#' @export
summary.llm_validations <- function(object, ...) llm_validation_summary(object, ...)
