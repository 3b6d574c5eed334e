# Methods for the htest-style results of validation_test(), separation_test() and
# backtranslation_test(). Printing is print.htest's, plus the critical value and the decision.

format_number <- function(x, digits = 4) {
  if (length(x) == 0 || is.null(x) || is.na(x)) {
    return("NA")
  }
  if (is.infinite(x)) {
    return(if (x > 0) "Inf" else "-Inf")
  }
  formatC(x, digits = digits, format = "f")
}

format_p <- function(p, digits = 3) {
  if (is.null(p) || is.na(p)) {
    return("NA")
  }
  format.pval(p, digits = digits, eps = 1e-4)
}

print_test_footer <- function(x, digits) {
  cat("critical value: ", format(x$critical.value, digits = max(1L, digits - 2L)),
      " (alpha = ", format(x$alpha), ")\n", sep = "")
  cat("conclusion: ", x$conclusion, "\n\n", sep = "")
}

#' Print, format and convert results of the tests on embeddings
#'
#' `print()` shows the standard `htest` block, then the critical value and the
#' conclusion. `format()` gives a one-line summary. `as.data.frame()`, `tidy()`
#' and `glance()` give one-row data frames (tibbles when \pkg{tibble} is
#' installed, for `tidy()` and `glance()`); `tidy()` has the `term` and
#' `estimate` columns that \pkg{modelsummary} expects, and
#' `parameters::model_parameters()` gives the same frame, so that modelsummary
#' (which asks it first) shows the statistic rather than the test's call.
#' `glance()` has the critical value as a number; in a \pkg{modelsummary}
#' table (its `glance_custom()`) it reads with 3 decimals.
#'
#' @param x A result of [validation_test()], [separation_test()] or
#'   [backtranslation_test()].
#' @param digits Number of significant digits.
#' @param row.names,optional Ignored; for compatibility with the generic.
#' @param ... Ignored.
#' @return `print()` returns `x` invisibly; `format()` a string; the others a
#'   data frame with one row.
#' @name llmv_test_methods
#' @examples
#' set.seed(1)
#' pool <- matrix(rnorm(200), 40)
#' result <- validation_test(rnorm(5), pool)
#' format(result)
#' as.data.frame(result)
NULL

#' @rdname llmv_test_methods
#' @export
print.llmv_validation_test <- function(x, digits = getOption("digits"), ...) {
  NextMethod()
  print_test_footer(x, digits)
  invisible(x)
}

#' @rdname llmv_test_methods
#' @export
print.llmv_separation_test <- function(x, digits = getOption("digits"), ...) {
  NextMethod()
  print_test_footer(x, digits)
  invisible(x)
}

#' @rdname llmv_test_methods
#' @export
print.llmv_backtranslation_test <- function(x, digits = getOption("digits"), ...) {
  NextMethod()
  labels <- names(x$counts)
  labels[!nzchar(labels)] <- "\"\""
  counts <- paste0(labels, ": ", x$counts, collapse = ", ")
  cat("labels back: ", counts, "\n", sep = "")
  cat("threshold: ", format(x$critical.value), "\n", sep = "")
  cat("conclusion: ", x$conclusion, "\n\n", sep = "")
  invisible(x)
}

format_test <- function(x, digits = 4) {
  statistic <- paste(names(x$statistic), "=", format_number(unname(x$statistic), digits))
  parameter <- paste(names(x$parameter), "=", x$parameter, collapse = ", ")
  p_value <- if (is.null(x$p.value)) NULL else paste("p =", format_p(x$p.value))
  critical <- if (inherits(x, "llmv_backtranslation_test")) {
    paste("threshold =", format(x$critical.value))
  } else {
    paste("critical value =", format_number(x$critical.value, digits))
  }
  sprintf("%s: %s; %s at alpha = %s", x$method,
          paste(c(statistic, critical, p_value, parameter), collapse = ", "),
          x$conclusion, format(x$alpha))
}

#' @rdname llmv_test_methods
#' @export
format.llmv_validation_test <- function(x, digits = 4, ...) format_test(x, digits)

#' @rdname llmv_test_methods
#' @export
format.llmv_separation_test <- function(x, digits = 4, ...) format_test(x, digits)

#' @rdname llmv_test_methods
#' @export
format.llmv_backtranslation_test <- function(x, digits = 4, ...) format_test(x, digits)

test_frame <- function(x) {
  backtranslation <- inherits(x, "llmv_backtranslation_test")
  data.frame(
    term = names(x$statistic),
    estimate = unname(x$statistic),
    statistic = unname(x$statistic),
    p.value = if (is.null(x$p.value)) NA_real_ else x$p.value,
    conf.low = if (backtranslation) x$conf.int[[1]] else NA_real_,
    conf.high = if (backtranslation) x$conf.int[[2]] else NA_real_,
    critical.value = x$critical.value,
    conclusion = x$conclusion,
    method = x$method,
    stringsAsFactors = FALSE
  )
}

glance_frame <- function(x) {
  data.frame(
    statistic = unname(x$statistic),
    p.value = if (is.null(x$p.value)) NA_real_ else x$p.value,
    critical.value = x$critical.value,
    alpha = x$alpha,
    nobs = unname(x$parameter[[1]]),
    conclusion = x$conclusion,
    method = x$method,
    stringsAsFactors = FALSE
  )
}

as_tidy_frame <- function(frame) {
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(frame) else frame
}

#' @rdname llmv_test_methods
#' @export
as.data.frame.llmv_validation_test <- function(x, row.names = NULL, optional = FALSE, ...) {
  test_frame(x)
}

#' @rdname llmv_test_methods
#' @export
as.data.frame.llmv_separation_test <- as.data.frame.llmv_validation_test

#' @rdname llmv_test_methods
#' @export
as.data.frame.llmv_backtranslation_test <- as.data.frame.llmv_validation_test

#' @rdname llmv_test_methods
#' @exportS3Method generics::tidy
tidy.llmv_validation_test <- function(x, ...) as_tidy_frame(test_frame(x))

#' @rdname llmv_test_methods
#' @exportS3Method generics::tidy
tidy.llmv_separation_test <- tidy.llmv_validation_test

#' @rdname llmv_test_methods
#' @exportS3Method generics::tidy
tidy.llmv_backtranslation_test <- tidy.llmv_validation_test

#' @rdname llmv_test_methods
#' @exportS3Method generics::glance
glance.llmv_validation_test <- function(x, ...) as_tidy_frame(glance_frame(x))

#' @rdname llmv_test_methods
#' @exportS3Method generics::glance
glance.llmv_separation_test <- glance.llmv_validation_test

#' @rdname llmv_test_methods
#' @exportS3Method generics::glance
glance.llmv_backtranslation_test <- glance.llmv_validation_test

# modelsummary prints a goodness-of-fit column it does not know as it is: the critical value
# showed 15 digits. In the table only (glance() keeps the number), it has the 3 decimals of
# modelsummary's default `fmt`.

#' @rdname llmv_test_methods
#' @exportS3Method modelsummary::glance_custom
glance_custom.llmv_validation_test <- function(x, ...) {
  value <- x$critical.value
  data.frame(critical.value = if (is.null(value) || is.na(value)) "" else sprintf("%.3f", value),
             stringsAsFactors = FALSE)
}

#' @rdname llmv_test_methods
#' @exportS3Method modelsummary::glance_custom
glance_custom.llmv_separation_test <- glance_custom.llmv_validation_test

#' @rdname llmv_test_methods
#' @exportS3Method modelsummary::glance_custom
glance_custom.llmv_backtranslation_test <- glance_custom.llmv_validation_test

# modelsummary asks parameters::model_parameters() before broom's tidy(), and for an htest that
# describes the call, not the statistic: the test's row would be lost. Give it the tidy() frame.

#' @rdname llmv_test_methods
#' @param model As `x`, for `parameters::model_parameters()`.
#' @exportS3Method parameters::model_parameters
model_parameters.llmv_validation_test <- function(model, ...) as_tidy_frame(test_frame(model))

#' @rdname llmv_test_methods
#' @exportS3Method parameters::model_parameters
model_parameters.llmv_separation_test <- model_parameters.llmv_validation_test

#' @rdname llmv_test_methods
#' @exportS3Method parameters::model_parameters
model_parameters.llmv_backtranslation_test <- model_parameters.llmv_validation_test

#' Plot a test's null distribution
#'
#' For [validation_test()] and [separation_test()]: a histogram of the null
#' distribution (the pool's scores, the permutation or bootstrap draws), with
#' the statistic (solid) and the critical value (dashed) marked. For
#' [backtranslation_test()]: the counts of the labels that came back, with the
#' threshold marked.
#'
#' @param x A result of [validation_test()], [separation_test()] or
#'   [backtranslation_test()].
#' @param main,xlab Title and axis label.
#' @param ... Passed to [graphics::hist()] or [graphics::barplot()].
#' @return `x`, invisibly.
#' @name llmv_test_plots
#' @examples
#' set.seed(1)
#' pool <- matrix(rnorm(200), 40)
#' plot(validation_test(rnorm(5), pool))
NULL

#' @rdname llmv_test_plots
#' @export
plot.llmv_validation_test <- function(x, main = x$method, xlab = "tau", ...) {
  plot_null(x, main, xlab, ...)
}

#' @rdname llmv_test_plots
#' @export
plot.llmv_separation_test <- function(x, main = x$method, xlab = "xi", ...) {
  plot_null(x, main, xlab, ...)
}

plot_null <- function(x, main, xlab, ...) {
  statistic <- unname(x$statistic)
  critical <- x$critical.value
  null <- x$null.distribution
  marks <- c(statistic, critical[is.finite(critical)])
  # Ticks that span the statistic too: a statistic outside the null histogram sits on the axis,
  # not beyond its last tick at the plot's edge.
  xlim <- range(pretty(range(c(null, marks), finite = TRUE)))
  graphics::hist(null, main = main, xlab = xlab, xlim = xlim, col = "grey85",
                 border = "white", ...)
  graphics::abline(v = statistic, col = "#D55E00", lwd = 2)
  if (is.finite(critical)) {
    graphics::abline(v = critical, col = "grey20", lwd = 1.5, lty = 2)
  }
  graphics::legend("topleft", legend = c(xlab, "critical value"), col = c("#D55E00", "grey20"),
                   lty = c(1, 2), lwd = c(2, 1.5), bty = "n", cex = 0.8)
  invisible(x)
}

#' @rdname llmv_test_plots
#' @export
plot.llmv_backtranslation_test <- function(x, main = x$method, xlab = "label back", ...) {
  counts <- x$counts
  is_target <- vapply(names(counts), function(label) {
    identical(normalize_label(label), normalize_label(x$label))
  }, logical(1))
  graphics::barplot(counts, main = main, xlab = xlab, ylab = "texts",
                    col = ifelse(is_target, "#009E73", "grey70"), border = NA, ...)
  graphics::abline(h = x$critical.value * x$parameter[["M"]], lty = 2)
  invisible(x)
}

# The engine's one label normaliser (labels.hpp), so that R compares labels as the engine does.
normalize_label <- function(label) {
  .Call(llmv_normalize_labels, as.character(label))
}
