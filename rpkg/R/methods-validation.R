# Methods for llm_validation, the result of a full validation of one passage.

verdict_colour <- function(verdict) {
  switch(verdict,
    valid = cli::col_green(verdict),
    invalid = cli::col_red(verdict),
    cli::col_yellow(verdict)
  )
}

# A term names the statistic and, in brackets, its label: "xi (Negative)". Not "xi: Negative",
# which modelsummary renders as an interaction ("xi x Negative").
term_of <- function(statistic, label) paste0(statistic, " (", label, ")")
term_label <- function(term) sub("^[a-z]+ \\((.*)\\)$", "\\1", term)

# One row per test, in the order of the paper's Table 1: backtranslation, separation,
# validation.
validation_rows <- function(x) {
  rows <- list()
  add <- function(test, term, result) {
    rows[[length(rows) + 1]] <<- data.frame(
      test = test,
      term = term,
      estimate = unname(result$statistic),
      p.value = if (is.null(result$p.value)) NA_real_ else result$p.value,
      critical.value = result$critical.value,
      conclusion = result$conclusion,
      method = result$method,
      stringsAsFactors = FALSE
    )
  }
  if (!is.null(x$backtranslation)) {
    add("backtranslation", term_of("accuracy", x$label), x$backtranslation)
  }
  for (label in names(x$backtranslation_other)) {
    add("backtranslation", term_of("accuracy", label), x$backtranslation_other[[label]])
  }
  for (label in names(x$separation)) {
    add("separation", term_of("xi", label), x$separation[[label]])
  }
  add("validation", "tau", x$validation)
  do.call(rbind, rows)
}

#' Print, summarise and convert a validation
#'
#' `print()` shows a compact block in the layout of the paper's Table 1: each
#' test with its statistic, critical value, p-value and outcome, then the
#' verdict. `summary()` adds the settings and the reason for the verdict.
#' `as.data.frame()` and `glance()` give one row per validation (so that many
#' validations stack into one data frame). Both call the pool size `M`: the
#' number of texts the model wrote for each label, which is the sample of the
#' validation test (not a number of passages: a validation is of one passage,
#' so neither has `nobs`, which \pkg{modelsummary} would show as `Num.Obs.`
#' beside a regression's). `glance()` gives the rows a \pkg{modelsummary}
#' table shows below the estimates (label, verdict, the prerequisites, `M`,
#' `alpha` and the seed as a string; the statistics are `tidy()`'s);
#' `as.data.frame()` has the statistics too. `tidy()` gives one row per test,
#' with the `term` (e.g. `"xi (Negative)"`) and `estimate` columns that
#' \pkg{modelsummary} expects.
#'
#' @param x,object An `llm_validation`, from [llm_validate_embeddings()].
#' @param digits Digits after the decimal point.
#' @param row.names,optional Ignored; for compatibility with the generic.
#' @param ... Ignored.
#' @return `print()` returns `x` invisibly; `format()` a string; `summary()` an
#'   object of class `summary.llm_validation`; the others data frames.
#' @name llm_validation_methods
#' @examples
#' set.seed(1)
#' centres <- list(Positive = c(3, 0, 0, 0), Negative = c(0, 3, 0, 0))
#' pools <- lapply(centres, function(centre) t(replicate(30, centre + rnorm(4))))
#' validation <- llm_validate_embeddings(centres$Positive + rnorm(4), pools, "Positive",
#'   backtranslation = list(Positive = rep("Positive", 30)), permutations = 199)
#' print(validation)
#' format(validation)
#' as.data.frame(validation)
#' summary(validation)
NULL

#' @rdname llm_validation_methods
#' @export
print.llm_validation <- function(x, digits = 3, ...) {
  cat(format_validation_block(x, digits), sep = "\n")
  invisible(x)
}

# Table 1's outcome words.
short_outcome <- function(conclusion) {
  outcomes <- c(
    "backtranslation passes" = "pass", "backtranslation fails" = "fail",
    "separation holds" = "pass", "separation fails" = "fail",
    "validity not rejected" = "not rejected", "validity rejected" = "rejected"
  )
  outcome <- unname(outcomes[conclusion])
  outcome[startsWith(conclusion, "cannot decide")] <- "cannot decide"
  outcome
}

# The settings a validation's tests ran with: `permutations` (R) only when the permutation test
# ran, and B, the reference texts, only when one of the paper's tests did (never "permutations =
# 999" for a run that drew none).
settings_line <- function(settings, b, seed) {
  parts <- c(sprintf("alpha = %s", format(settings$alpha)),
             sprintf("threshold = %s", format(settings$threshold)))
  if (identical(method_draws("separation", settings$separation_method), "R")) {
    parts <- c(parts, sprintf("permutations = %d", as.integer(settings$permutations)))
  }
  if (!is.null(b) && isTRUE(b > 0)) parts <- c(parts, sprintf("B = %d", as.integer(b)))
  paste(c(parts, sprintf("seed = %s", format(seed, scientific = FALSE))), collapse = ", ")
}

format_validation_block <- function(x, digits) {
  rows <- validation_rows(x)
  table <- data.frame(
    Test = ifelse(rows$test == "validation", "Validation",
                  ifelse(rows$test == "separation",
                         paste0("Separation vs ", term_label(rows$term)),
                         paste0("Backtranslation of ", term_label(rows$term)))),
    Statistic = vapply(rows$estimate, format_number, character(1), digits = digits),
    `Critical value` = vapply(rows$critical.value, format_number, character(1),
                              digits = digits),
    `p-value` = vapply(rows$p.value, format_p, character(1)),
    Outcome = short_outcome(rows$conclusion),
    check.names = FALSE,
    stringsAsFactors = FALSE
  )
  table$`p-value`[table$`p-value` == "NA"] <- "-"
  widths <- pmax(nchar(names(table)), vapply(table, function(column) max(nchar(column)),
                                             numeric(1)))
  pad <- function(values, width, left) formatC(values, width = if (left) -width else width)
  line <- function(values) {
    paste(vapply(seq_along(values), function(i) pad(values[[i]], widths[[i]], i %in% c(1, 5)),
                 character(1)), collapse = "  ")
  }
  body <- vapply(seq_len(nrow(table)), function(i) line(unlist(table[i, ])), character(1))
  verdict_line <- if (nzchar(x$verdict_reason)) x$verdict_reason else x$verdict
  settings <- x$settings
  m <- x$validation$parameter[[1]]
  c(
    sprintf("<llm_validation> label %s: %s", encodeString(x$label, quote = "\""),
            verdict_colour(x$verdict)),
    sub("\\s+$", "", c(line(names(table)), body)),
    paste0(sprintf("M = %d, ", as.integer(m)), settings_line(settings, x$b, x$seed)),
    paste0("Verdict: ", verdict_line),
    if (isTRUE(x$synthetic)) {
      "Synthetic: simulated provider (a data-generating process, not a language model)"
    }
  )
}

#' @rdname llm_validation_methods
#' @export
format.llm_validation <- function(x, digits = 3, ...) {
  sprintf("%s is %s (tau = %s, critical value = %s, p = %s)",
          encodeString(x$label, quote = "\""), x$verdict,
          format_number(unname(x$validation$statistic), digits),
          format_number(x$validation$critical.value, digits),
          format_p(x$validation$p.value))
}

#' @rdname llm_validation_methods
#' @export
summary.llm_validation <- function(object, ...) {
  structure(
    list(
      label = object$label,
      verdict = object$verdict,
      verdict_reason = object$verdict_reason,
      tests = validation_rows(object),
      settings = object$settings,
      b = object$b,
      seed = object$seed
    ),
    class = "summary.llm_validation"
  )
}

#' @rdname llm_validation_methods
#' @export
print.summary.llm_validation <- function(x, digits = 3, ...) {
  cat(sprintf("Validation of the label %s: %s\n", encodeString(x$label, quote = "\""),
              verdict_colour(x$verdict)))
  if (nzchar(x$verdict_reason)) {
    cat(x$verdict_reason, "\n", sep = "")
  }
  cat("\n")
  tests <- x$tests
  tests$method <- NULL
  print(tests, digits = digits, row.names = FALSE)
  cat(sprintf(
    "\nMethods: validation %s, separation %s, backtranslation rule %s.\n",
    x$settings$validation_method, x$settings$separation_method,
    x$settings$backtranslation_rule
  ))
  cat(settings_line(x$settings, x$b, x$seed), "\n", sep = "")
  invisible(x)
}

validation_glance <- function(x) {
  separation_pass <- vapply(x$separation, function(test) test$pass, logical(1))
  data.frame(
    label = x$label,
    verdict = x$verdict,
    tau = unname(x$validation$statistic),
    critical.value = x$validation$critical.value,
    p.value = x$validation$p.value,
    validity_rejected = x$validation$reject,
    separation_pass = if (length(separation_pass)) all(separation_pass) else NA,
    backtranslation_accuracy = if (is.null(x$backtranslation)) {
      NA_real_
    } else {
      unname(x$backtranslation$statistic)
    },
    backtranslation_pass = if (is.null(x$backtranslation)) NA else x$backtranslation$pass,
    M = as.integer(x$validation$parameter[[1]]),
    alpha = x$settings$alpha,
    seed = x$seed,
    stringsAsFactors = FALSE
  )
}

#' @rdname llm_validation_methods
#' @export
as.data.frame.llm_validation <- function(x, row.names = NULL, optional = FALSE, ...) {
  validation_glance(x)
}

#' @rdname llm_validation_methods
#' @exportS3Method generics::tidy
tidy.llm_validation <- function(x, ...) as_tidy_frame(validation_rows(x))

#' @rdname llm_validation_methods
#' @exportS3Method generics::glance
glance.llm_validation <- function(x, ...) {
  frame <- validation_glance(x)
  # The goodness-of-fit rows of a modelsummary table. The pool size is M, not the number of
  # observations: under `nobs` it would show as Num.Obs. beside a regression's N. The
  # statistics are tidy()'s rows (modelsummary prints these columns unformatted, 15 digits);
  # the seed is an identifier.
  frame$seed <- format(frame$seed, scientific = FALSE)
  frame <- frame[setdiff(names(frame), c("tau", "critical.value", "p.value",
                                         "backtranslation_accuracy"))]
  as_tidy_frame(frame)
}

#' Plot a validation
#'
#' The null distribution of the validation test with \eqn{\tau} and its
#' critical value marked, next to the null distribution of every separation
#' test with \eqn{\xi} and its critical value.
#'
#' @param x An `llm_validation`.
#' @param ... Passed to [graphics::hist()].
#' @return `x`, invisibly.
#' @export
#' @examples
#' set.seed(1)
#' centres <- list(Positive = c(3, 0, 0, 0), Negative = c(0, 3, 0, 0))
#' pools <- lapply(centres, function(centre) t(replicate(30, centre + rnorm(4))))
#' validation <- llm_validate_embeddings(centres$Positive + rnorm(4), pools, "Positive",
#'   permutations = 199)
#' plot(validation)
plot.llm_validation <- function(x, ...) {
  panels <- 1 + length(x$separation)
  old <- graphics::par(mfrow = c(1, panels))
  on.exit(graphics::par(old), add = TRUE)
  plot(x$validation, main = sprintf("Validation of \"%s\"", x$label), ...)
  for (label in names(x$separation)) {
    plot(x$separation[[label]], main = sprintf("Separation from \"%s\"", label), ...)
  }
  invisible(x)
}
