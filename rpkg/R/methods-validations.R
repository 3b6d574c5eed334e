#' Methods for the validations of many passages
#'
#' [llm_validate()] on a data frame or several passages returns an
#' `llm_validations` tibble, one row per passage. It subsets, filters and
#' arranges like a tibble and keeps its class while the `id`, `verdict` and
#' `validation` columns are there (`res[1:3, ]` and `dplyr::filter()` print
#' the tally of those passages, and [llm_generations()] reads their texts);
#' without them (`dplyr::count()`, `dplyr::select(res, id)`) the result is a
#' plain tibble. `print()` shows the tally of verdicts, then the rows through
#' tibble's printer (`n`, `width`). `tidy()` gives one row per passage with
#' the numbers of every test, the Benjamini-Hochberg adjusted p-value and the
#' `term`/`estimate` columns (\eqn{\tau} of each passage, `term` `"tau (id)"`);
#' `tidy(x, passages = FALSE)` the tally instead, one row per verdict
#' (`term` `"share valid"`, `"share invalid"`, `"share inconclusive"`,
#' `"share error"`; `estimate` the share of the passages, `n` their count).
#' `glance()` gives one row for the run: `n` (the passages), the count of each
#' verdict (`n_valid`, `n_invalid`, `n_inconclusive`, `n_error`),
#' `share_valid` (the share valid among the decided passages, valid or
#' invalid) and `synthetic`; `summary()` the tallies of the paper's Tables 9
#' and 10 (see [llm_validation_summary()]).
#'
#' In a \pkg{modelsummary} table beside a regression, a result of many
#' passages is the tally: the four shares as estimates and the counts,
#' `share_valid` (3 decimals) and `synthetic` (`"yes"` or `"no"`) as
#' goodness-of-fit rows, whatever the number of passages. `coef_omit`,
#' `coef_map` and `gof_map` select among these rows (e.g. `coef_omit =
#' "error"`, `gof_map = c("nobs", "n", "share_valid")`). For one
#' \eqn{\tau} row per passage, give `passages = TRUE` to `modelsummary()`
#' (it passes it on), or `options(llmvalidate.modelsummary_passages = TRUE)`.
#'
#' @param x,object,data,model An `llm_validations` data frame from
#'   [llm_validate()].
#' @param passages For `tidy()`: `TRUE` (the default) for one row per passage,
#'   `FALSE` for one row per verdict. For `model_parameters()` (which
#'   \pkg{modelsummary} asks for a table's rows): the same, with the default
#'   `getOption("llmvalidate.modelsummary_passages", FALSE)`.
#' @param i,j,drop As for data frames.
#' @param template The `llm_validations` data frame that `data` came from.
#' @param n,width Rows and width to print, as for tibbles.
#' @param ... Passed on ([llm_validation_summary()] for `summary()`, tibble's
#'   printer for `print()`); else ignored.
#' @return `[` and `dplyr_reconstruct()` an `llm_validations` data frame while
#'   the rows keep their `id`, `verdict` and `validation` columns (else a plain
#'   tibble or data frame); `tidy()` and `glance()` tibbles (data frames when
#'   tibble is not installed); `summary()` an `llm_validation_summary`.
#' @name llm_validations_methods
#' @examples
#' # The simulated provider is a synthetic data-generating process, not an LLM.
#' res <- llm_validate(c(a = "Revenue grew strongly.", b = "Losses widened.",
#'                       c = "The board met on Tuesday."),
#'   task = "sentiment", provider = llm_provider_simulated(), M = 20, n = 10,
#'   permutations = 99, seed = 1)
#' res[1:2, ]
#' print(res, n = 2)
#' if (requireNamespace("generics", quietly = TRUE)) {
#'   generics::tidy(res)
#'   generics::glance(res)
#' }
#' summary(res)
NULL

# The columns without which a table is no longer a table of validations.
validations_key_columns <- c("id", "verdict", "validation")

# `out` derived from the validations `template`: still validations (class and attributes of
# the template) while the key columns are there, else a plain table without them.
restore_validations <- function(out, template) {
  if (!is.data.frame(out)) return(out)
  if (!all(validations_key_columns %in% names(out))) {
    class(out) <- setdiff(class(out), "llm_validations")
    for (name in c("synthetic", "calls", "run", "cost")) attr(out, name) <- NULL
    return(out)
  }
  for (name in c("synthetic", "run")) attr(out, name) <- attr(template, name)
  class(out) <- unique(c("llm_validations", setdiff(class(out), "llm_validations")))
  out
}

#' @rdname llm_validations_methods
#' @export
`[.llm_validations` <- function(x, i, j, ..., drop = TRUE) {
  restore_validations(NextMethod(), x)
}

#' @rdname llm_validations_methods
#' @exportS3Method dplyr::dplyr_reconstruct
dplyr_reconstruct.llm_validations <- function(data, template) {
  # dplyr's own default keeps every attribute of the template; the class is ours to decide.
  restore_validations(tibble_or_frame(data), template)
}

# A data frame without our class, as a tibble when tibble is installed.
tibble_or_frame <- function(data) {
  attributes_kept <- Filter(Negate(is.null), list(synthetic = attr(data, "synthetic"),
                                                  run = attr(data, "run")))
  class(data) <- setdiff(class(data), "llm_validations")
  if (requireNamespace("tibble", quietly = TRUE)) data <- tibble::as_tibble(data)
  for (name in names(attributes_kept)) attr(data, name) <- attributes_kept[[name]]
  data
}

validations_tidy <- function(x) {
  validations <- x[["validation"]]
  rows <- lapply(seq_len(nrow(x)), function(k) {
    v <- validations[[k]]
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
  ids <- x[["id"]]
  # term and estimate: modelsummary's names for a row and its number (tau of the passage).
  out <- data.frame(id = ids, term = term_of("tau", ids), estimate = frame$tau, frame,
                    p.adjusted = p_adjusted, verdict = x[["verdict"]], error = x[["error"]],
                    stringsAsFactors = FALSE)
  rownames(out) <- NULL
  out
}

# The tally of verdicts as a tidy frame: one row per verdict, in a fixed order (so that the rows
# of several runs line up in a table), with the share of the passages and their count.
validations_tally <- function(x) {
  verdicts <- c("valid", "invalid", "inconclusive", "error")
  counts <- vapply(verdicts, function(verdict) sum(x[["verdict"]] == verdict), integer(1))
  data.frame(term = paste("share", verdicts),
             estimate = if (nrow(x) > 0) counts / nrow(x) else rep(NA_real_, 4),
             n = unname(counts), verdict = verdicts, stringsAsFactors = FALSE)
}

check_passages_flag <- function(passages, call = rlang::caller_env()) {
  if (!is.logical(passages) || length(passages) != 1 || is.na(passages)) {
    abort_argument("passages", "TRUE or FALSE", passages, call)
  }
  passages
}

#' @rdname llm_validations_methods
#' @exportS3Method generics::tidy
tidy.llm_validations <- function(x, passages = TRUE, ...) {
  passages <- check_passages_flag(passages)
  as_tidy_frame(if (passages) validations_tidy(x) else validations_tally(x))
}

# modelsummary asks parameters::model_parameters() first: for a data frame that is no model, it
# printed "Objects of class `NULL` are currently not supported." and fell back to tidy(), one
# row per passage. Give it the tally (or the passages' rows, on request).

#' @rdname llm_validations_methods
#' @exportS3Method parameters::model_parameters
model_parameters.llm_validations <- function(
    model, passages = getOption("llmvalidate.modelsummary_passages", FALSE), ...) {
  tidy.llm_validations(model, passages = passages)
}

#' @rdname llm_validations_methods
#' @exportS3Method generics::glance
glance.llm_validations <- function(x, ...) {
  verdicts <- x[["verdict"]]
  count <- function(verdict) sum(verdicts == verdict)
  decided <- count("valid") + count("invalid")
  as_tidy_frame(data.frame(
    n = nrow(x), n_valid = count("valid"), n_invalid = count("invalid"),
    n_inconclusive = count("inconclusive"), n_error = count("error"),
    share_valid = if (decided > 0) count("valid") / decided else NA_real_,
    synthetic = isTRUE(attr(x, "synthetic")), stringsAsFactors = FALSE
  ))
}

# modelsummary formats a goodness-of-fit row by its gof_map entry, and an entry it does not know
# (`gof_map = c("n", "share_valid")`) with no decimals: share_valid showed 0, and `synthetic`
# (TRUE) 1. glance_custom() replaces glance()'s columns in the table only: as text, formatted.

#' @rdname llm_validations_methods
#' @exportS3Method modelsummary::glance_custom
glance_custom.llm_validations <- function(x, ...) {
  glanced <- glance.llm_validations(x)
  data.frame(
    share_valid = if (is.na(glanced$share_valid)) "" else sprintf("%.3f", glanced$share_valid),
    synthetic = if (glanced$synthetic) "yes" else "no", stringsAsFactors = FALSE
  )
}

#' @rdname llm_validations_methods
#' @export
summary.llm_validations <- function(object, ...) llm_validation_summary(object, ...)

#' @rdname llm_validations_methods
#' @export
print.llm_validations <- function(x, ..., n = NULL, width = NULL) {
  verdicts <- table(x[["verdict"]])
  cat(sprintf("<llm_validations> %d passage%s: %s\n", nrow(x), if (nrow(x) == 1) "" else "s",
              paste(names(verdicts), verdicts, sep = " ", collapse = ", ")))
  if (isTRUE(attr(x, "synthetic"))) {
    cat("Synthetic: simulated provider (a data-generating process, not a language model)\n")
  }
  shown <- tibble_or_frame(x)
  attr(shown, "synthetic") <- attr(shown, "run") <- NULL
  shown[["validation"]] <- NULL
  errors <- shown[["error"]]
  if (!is.null(errors) && all(is.na(errors))) shown[["error"]] <- NULL
  if (inherits(shown, "tbl_df")) {
    print(shown, n = n, width = width, ...)
  } else {
    print(if (is.null(n)) shown else utils::head(shown, n), ...)
  }
  invisible(x)
}
