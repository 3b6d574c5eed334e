#' Plot many validations as a grid of verdicts
#'
#' One row per passage and one column per test, in the spirit of the paper's
#' Table 7: backtranslation and separation (the prerequisites, passed or
#' failed), the validation test (not rejected or rejected) and the verdict
#' (valid in green, invalid in red, inconclusive in yellow; grey for a passage
#' that failed with an error).
#'
#' @param x An `llm_validations` data frame from [llm_validate()].
#' @param main Title of the plot.
#' @param ... Unused.
#' @return `x`, invisibly.
#' @export
#' @examples
#' # The simulated provider is a synthetic data-generating process, not an LLM.
#' validations <- llm_validate(c(a = "Revenue grew strongly.", b = "Losses widened."),
#'   task = "sentiment", provider = llm_provider_simulated(), M = 20, n = 10,
#'   permutations = 99, seed = 1)
#' plot(validations)
plot.llm_validations <- function(x, main = "Verdicts", ...) {
  outcome <- function(v, test) {
    if (is.null(v)) {
      return("error")
    }
    switch(test,
      backtranslation = if (isTRUE(v$backtranslation$pass)) "pass" else "fail",
      separation = if (all(vapply(v$separation, function(s) isTRUE(s$pass), logical(1)))) {
        "pass"
      } else {
        "fail"
      },
      validation = if (isTRUE(v$validation$reject)) "rejected" else "not rejected"
    )
  }
  tests <- c("backtranslation", "separation", "validation")
  cells <- cbind(
    vapply(x[["validation"]], outcome, character(1), test = "backtranslation"),
    vapply(x[["validation"]], outcome, character(1), test = "separation"),
    vapply(x[["validation"]], outcome, character(1), test = "validation"),
    x[["verdict"]]
  )
  colours <- c(pass = "#A6D96A", fail = "#F46D43", "not rejected" = "#A6D96A",
               rejected = "#F46D43", valid = "#1A9641", invalid = "#D7191C",
               inconclusive = "#FDD835", error = "grey70")
  rows <- nrow(cells)
  columns <- ncol(cells)
  old <- graphics::par(mar = c(1, max(4, max(nchar(x[["id"]])) * 0.6), 4, 1))
  on.exit(graphics::par(old), add = TRUE)
  graphics::plot.new()
  graphics::plot.window(xlim = c(0, columns), ylim = c(0, rows), xaxs = "i", yaxs = "i")
  # Beyond about 40 rows the words and ids no longer fit: colours only, and every k-th id.
  words <- rows <= 40
  for (i in seq_len(rows)) {
    for (j in seq_len(columns)) {
      top <- rows - i + 1
      graphics::rect(j - 1, top - 1, j, top, col = colours[[cells[i, j]]],
                     border = if (words) "white" else NA)
      if (words) graphics::text(j - 0.5, top - 0.5, cells[i, j], cex = 0.8)
    }
  }
  graphics::axis(3, at = seq_len(columns) - 0.5, labels = c(tests, "verdict"), tick = FALSE,
                 line = -0.5)
  labelled <- unique(round(seq(1, rows, length.out = min(rows, 40))))
  graphics::axis(2, at = rows - labelled + 0.5, labels = x[["id"]][labelled], las = 1,
                 tick = FALSE, cex.axis = if (words) 1 else 0.7)
  if (!words) {
    graphics::legend("bottom", legend = names(colours)[names(colours) %in% cells],
                     fill = colours[names(colours) %in% cells], horiz = TRUE, bty = "n",
                     cex = 0.7, inset = c(0, -0.06), xpd = TRUE)
  }
  graphics::title(main = main, line = 2.5)
  if (isTRUE(attr(x, "synthetic"))) {
    graphics::mtext("synthetic: simulated provider", side = 1, line = -0.2, cex = 0.7)
  }
  invisible(x)
}
