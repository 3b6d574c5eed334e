#' Write a run's HTML report
#'
#' One self-contained HTML file (inline CSS and SVG, no external request,
#' printable to PDF): the verdicts by task and model, the share valid with its
#' interval, each passage's tests with the null distributions of its
#' statistics, Tables 9-11 when human labels were given, and every setting,
#' model, seed and cost of the run. The engine writes it, so the file is the
#' same, byte for byte up to its creation time, as the command-line tool's
#' `llmvalidate report` (or `--report`) and Stata's `llmvalidate report` for
#' the same run. A run on the simulated provider says so at the top of every
#' page, printed pages included.
#'
#' @param x An `llm_validation` or `llm_validations` from [llm_validate()], or
#'   the path of a run document written by the command-line tool
#'   (`--run-json FILE`).
#' @param file The HTML file to write.
#' @return `file`, invisibly.
#' @export
#' @examples
#' # The simulated provider is a synthetic data-generating process, not an LLM.
#' validations <- llm_validate(c(a = "Revenue grew strongly.", b = "Losses widened."),
#'   task = "sentiment", provider = llm_provider_simulated(), M = 20, n = 10,
#'   permutations = 99, seed = 1)
#' llm_report(validations, tempfile(fileext = ".html"))
llm_report <- function(x, file) {
  call <- rlang::current_env()
  check_string(file, "file", call = call)
  document <- run_document(x, call)
  html <- engine_result(.Call(llmv_render_report, document), call = call)
  # The engine's bytes as they are (UTF-8), whatever the session's encoding.
  writeBin(charToRaw(html), file)
  invisible(file)
}

run_document <- function(x, call) {
  document <- if (inherits(x, "llm_validations")) {
    attr(x, "run")$document
  } else if (inherits(x, "llm_validation")) {
    x$run$document
  } else if (is.character(x) && length(x) == 1 && file.exists(x)) {
    paste(readLines(x, warn = FALSE, encoding = "UTF-8"), collapse = "\n")
  } else {
    NULL
  }
  if (is.null(document) || !nzchar(document)) {
    abort_llmv(
      c("{.arg x} must be a result of {.fn llm_validate} or the path of a run document (`--run-json`).",
        i = "Results of {.fn llm_validate_embeddings} and results saved before version 0.1.0 carry no run document."),
      code = "llmv.input.invalid_argument", call = call, argument = "x"
    )
  }
  document
}

#' @importFrom rlang .data
NULL

# ---- autoplot() methods (ggplot2 in Suggests: the NAMESPACE registers them when it loads) ----

need_ggplot2 <- function(call) {
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    abort_llmv("{.fn autoplot} needs the {.pkg ggplot2} package.",
               code = "llmv.input.invalid_argument", call = call)
  }
}

synthetic_caption <- function(x) {
  if (isTRUE(attr(x, "synthetic")) || isTRUE(x$synthetic)) {
    "Synthetic: the simulated provider, not an LLM"
  } else {
    NULL
  }
}

# One validation: the null distribution of tau with tau and the critical value marked.
#' @exportS3Method ggplot2::autoplot
autoplot.llm_validation <- function(object, ...) {
  need_ggplot2(rlang::current_env())
  v <- object$validation
  draws <- data.frame(value = v$null_distribution %||% numeric())
  marks <- data.frame(what = c("statistic (tau)", "critical value"),
                      value = c(v$statistic, v$critical_value))
  ggplot2::ggplot(draws, ggplot2::aes(x = .data$value)) +
    ggplot2::geom_histogram(bins = 30, fill = "grey60", colour = "white") +
    ggplot2::geom_vline(data = marks, ggplot2::aes(xintercept = .data$value,
                                                   linetype = .data$what), linewidth = 0.8) +
    ggplot2::scale_linetype_manual(values = c("statistic (tau)" = "solid",
                                              "critical value" = "dashed"), name = NULL) +
    ggplot2::labs(x = "validation statistic under the null", y = "draws",
                  title = sprintf("Label %s: %s", object$label, object$verdict),
                  caption = synthetic_caption(object)) +
    ggplot2::theme_minimal() + ggplot2::theme(legend.position = "bottom")
}

# A set of validations: the verdict of each passage (a row each), or, beyond 40 passages,
# the count of each verdict by LLM label.
#' @exportS3Method ggplot2::autoplot
autoplot.llm_validations <- function(object, ...) {
  need_ggplot2(rlang::current_env())
  verdicts <- c("valid", "invalid", "inconclusive", "error")
  frame <- data.frame(id = as.character(object[["id"]]),
                      label = ifelse(is.na(object[["label"]]), "(failed)", object[["label"]]),
                      verdict = factor(object[["verdict"]], levels = verdicts))
  fills <- c(valid = "#1A9641", invalid = "#D7191C", inconclusive = "#FDD835", error = "grey70")
  plot <- if (nrow(frame) <= 40) {
    frame$id <- factor(frame$id, levels = rev(unique(frame$id)))
    ggplot2::ggplot(frame, ggplot2::aes(x = .data$verdict, y = .data$id, fill = .data$verdict)) +
      ggplot2::geom_tile(colour = "white") +
      ggplot2::geom_text(ggplot2::aes(label = .data$label), size = 3) +
      ggplot2::labs(x = NULL, y = "passage")
  } else {
    ggplot2::ggplot(frame, ggplot2::aes(y = .data$label, fill = .data$verdict)) +
      ggplot2::geom_bar() + ggplot2::labs(x = "passages", y = "LLM label")
  }
  plot + ggplot2::scale_fill_manual(values = fills, drop = FALSE, name = "verdict") +
    ggplot2::labs(caption = synthetic_caption(object)) + ggplot2::theme_minimal()
}

# A power analysis (one row or several, rbind-ed): the share of each verdict by M.
#' @exportS3Method ggplot2::autoplot
autoplot.llm_power <- function(object, ...) {
  need_ggplot2(rlang::current_env())
  shares <- intersect(c("share_valid", "share_invalid", "share_inconclusive"), names(object))
  frame <- do.call(rbind, lapply(shares, function(column) {
    data.frame(M = factor(object$M), verdict = sub("^share_", "", column),
               share = object[[column]],
               se = if (column == "share_valid") object$monte_carlo_se else NA_real_)
  }))
  ggplot2::ggplot(frame, ggplot2::aes(x = .data$M, y = .data$share, fill = .data$verdict)) +
    ggplot2::geom_col(position = "dodge") +
    ggplot2::geom_errorbar(ggplot2::aes(ymin = .data$share - 2 * .data$se,
                                        ymax = .data$share + 2 * .data$se),
                           position = ggplot2::position_dodge(0.9), width = 0.2, na.rm = TRUE) +
    ggplot2::scale_fill_manual(values = c(valid = "#1A9641", invalid = "#D7191C",
                                          inconclusive = "#FDD835"), name = "verdict") +
    ggplot2::labs(x = "M (texts per label)", y = "share of replications",
                  caption = "Synthetic: the simulated provider's data-generating process") +
    ggplot2::theme_minimal()
}
