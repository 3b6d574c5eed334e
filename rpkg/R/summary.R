#' Summaries over many passages, against human labels when there are some
#'
#' The summaries of the paper's Section 5. Table 9: among the passages whose
#' prerequisites pass (verdict `"valid"` or `"invalid"`), the share that is
#' valid, overall and by LLM label, and the share whose LLM label agrees with
#' the human one. Table 10: the cross-table of LLM against human labels with the
#' number of passages and the share valid in each cell. Table 11: the
#' disagreements with the human label that pass. And the
#' Benjamini-Hochberg adjusted p-values of the validation tests across passages.
#'
#' @param x An `llm_validations` data frame from [llm_validate()] (passages
#'   that failed with an error are left out; its `human` column is used when
#'   `human` is `NULL`), a list of `llm_validation` objects (from
#'   [llm_validate_embeddings()]), or a data frame with one row per passage and
#'   columns `label` (the LLM's label), `verdict` and, optionally, `p.value`
#'   (as from `as.data.frame()` of validations, stacked with [rbind()]).
#' @param human `NULL`, or the human labels of the passages, in the same order.
#' @param labels The label set, which orders the tables. `NULL`: the labels in
#'   order of appearance.
#' @return An object of class `llm_validation_summary`: a list with `by_label`
#'   (Table 9, overall row first), `cross` (Table 10; `NULL` without human
#'   labels), `disagreements` (Table 11: `id`, `llm_label` and `human_label` of
#'   the passages whose LLM label differs from the human one and whose
#'   annotation is valid; `NULL` without human labels), `n_total`,
#'   `n_inconclusive` and `p_adjusted` (`NULL` without p-values).
#' @inherit validation_test references
#' @export
#' @examples
#' passages <- data.frame(
#'   label = c("Positive", "Positive", "Negative", "Neutral", "Negative"),
#'   verdict = c("valid", "invalid", "valid", "inconclusive", "valid"),
#'   p.value = c(0.40, 0.01, 0.22, 0.03, 0.65)
#' )
#' llm_validation_summary(passages,
#'   human = c("Positive", "Neutral", "Negative", "Neutral", "Negative"))
llm_validation_summary <- function(x, human = NULL, labels = NULL) {
  if (inherits(x, "llm_validations")) {
    kept <- x[["verdict"]] != "error"
    if (is.null(human) && "human" %in% names(x)) human <- x[["human"]][kept]
    x <- as.data.frame(unclass(x)[c("id", "label", "verdict", "p.value")],
                       stringsAsFactors = FALSE)[kept, , drop = FALSE]
  }
  x <- summary_input(x)
  if (!is.null(human)) {
    human <- check_labels(human, "human")
    if (length(human) != nrow(x)) {
      abort_argument("human", sprintf("a vector of %s, one per passage", count_of(nrow(x), "label")),
                     human, rlang::current_env())
    }
  }
  labels <- if (is.null(labels)) unique(c(x$label, human)) else check_labels(labels, "labels")

  result <- engine_result(
    .Call(llmv_summarize_passages, x$label, x$verdict, if (is.null(human)) character() else human,
          labels, as.character(x$id %||% seq_len(nrow(x))))
  )
  by_label <- as.data.frame(result$table9, stringsAsFactors = FALSE)
  by_label$label[by_label$label == ""] <- "(all)"
  by_label <- nan_to_na(by_label)
  if (is.null(human)) {
    by_label$n_human_agree <- NULL
    by_label$share_human <- NULL
  }
  cross <- if (is.null(human)) NULL else nan_to_na(as.data.frame(result$table10, stringsAsFactors = FALSE))
  disagreements <- if (is.null(human)) NULL else as.data.frame(result$table11, stringsAsFactors = FALSE)
  # The engine's Table 11 carries each passage's text where it has it; here it has none (join
  # by `id` to show the sentences).
  if (!is.null(disagreements) && all(!nzchar(disagreements$text))) disagreements$text <- NULL
  p_adjusted <- if (!"p.value" %in% names(x)) {
    NULL
  } else {
    engine_result(.Call(llmv_benjamini_hochberg, as.double(x$p.value)))
  }
  structure(
    list(
      by_label = by_label,
      cross = cross,
      disagreements = disagreements,
      n_total = result$n_total,
      n_inconclusive = result$n_inconclusive,
      p_adjusted = p_adjusted
    ),
    class = "llm_validation_summary"
  )
}

summary_input <- function(x, call = rlang::caller_env()) {
  if (is.list(x) && !is.data.frame(x) && length(x) > 0 &&
        all(vapply(x, inherits, logical(1), "llm_validation"))) {
    x <- do.call(rbind, lapply(x, validation_glance))
  }
  if (!is.data.frame(x) || !all(c("label", "verdict") %in% names(x)) || nrow(x) == 0) {
    abort_argument(
      "x", "a list of <llm_validation> objects or a data frame with columns `label` and `verdict`",
      x, call
    )
  }
  x$label <- check_labels(x$label, "x$label", call = call)
  x$verdict <- check_labels(x$verdict, "x$verdict", call = call)
  verdicts <- c("valid", "invalid", "inconclusive")
  unknown <- setdiff(x$verdict, verdicts)
  if (length(unknown) > 0) {
    abort_argument("x$verdict", paste0("made of ", paste0("\"", verdicts, "\"", collapse = ", ")),
                   unknown[[1]], call)
  }
  if ("p.value" %in% names(x) && !is.numeric(x[["p.value"]])) {
    abort_argument("x$p.value", "a numeric column of p-values", x$p.value, call)
  }
  x
}

#' @export
print.llm_validation_summary <- function(x, digits = 3, ...) {
  cat(sprintf("<llm_validation_summary> %s, %d inconclusive\n\n",
              count_of(x$n_total, "passage"), x$n_inconclusive))
  cat("Share valid among passages whose prerequisites pass, by LLM label:\n")
  print(x$by_label, digits = digits, row.names = FALSE)
  if (!is.null(x$cross)) {
    cat("\nLLM label x human label (prerequisites passing):\n")
    print(x$cross, digits = digits, row.names = FALSE)
  }
  if (!is.null(x$disagreements)) {
    cat(sprintf("\nDisagreements with the human label that pass (Table 11): %d\n",
                nrow(x$disagreements)))
    if (nrow(x$disagreements) > 0) print(x$disagreements, row.names = FALSE)
  }
  if (!is.null(x$p_adjusted)) {
    cat(sprintf("\nBenjamini-Hochberg adjusted p-values: %d of %d at or below 0.05\n",
                sum(x$p_adjusted <= 0.05, na.rm = TRUE), length(x$p_adjusted)))
  }
  invisible(x)
}

# A share of no passages is missing (NA), not the NaN of 0 / 0.
nan_to_na <- function(frame) {
  for (name in names(frame)) {
    if (is.double(frame[[name]])) frame[[name]][is.nan(frame[[name]])] <- NA_real_
  }
  frame
}
