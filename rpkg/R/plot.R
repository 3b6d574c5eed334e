#' Plot many validations as a grid of verdicts
#'
#' One row per passage and one column per test, in the spirit of the paper's
#' Table 7: backtranslation and separation (the prerequisites, passed or
#' failed), the validation test (not rejected or rejected) and the verdict
#' (valid in green, invalid in red, inconclusive in yellow; grey for a passage
#' that failed with an error), each cell also in words, with a legend. Beyond 40
#' passages, passages with the same outcomes share a row labelled with their
#' number.
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
  # Beyond 40 passages a row each would leave no room for their ids: passages with the same
  # outcomes are drawn as one row, labelled with how many they are.
  drawn <- grid_rows(cells, as.character(x[["id"]]))
  cells <- drawn$cells
  ids <- drawn$labels
  rows <- nrow(cells)
  columns <- ncol(cells)
  old <- graphics::par(mar = c(3, max(4, max(nchar(ids)) * 0.6), 4, 1))
  on.exit(graphics::par(old), add = TRUE)
  graphics::plot.new()
  graphics::plot.window(xlim = c(0, columns), ylim = c(0, rows), xaxs = "i", yaxs = "i")
  size <- if (rows <= 20) 0.8 else 0.6
  for (i in seq_len(rows)) {
    for (j in seq_len(columns)) {
      top <- rows - i + 1
      graphics::rect(j - 1, top - 1, j, top, col = colours[[cells[i, j]]], border = "white")
      graphics::text(j - 0.5, top - 0.5, cells[i, j], cex = size)
    }
  }
  graphics::axis(3, at = seq_len(columns) - 0.5, labels = c(tests, "verdict"), tick = FALSE,
                 line = -0.5)
  graphics::axis(2, at = rows - seq_len(rows) + 0.5, labels = ids, las = 1, tick = FALSE,
                 cex.axis = if (rows <= 20) 1 else 0.7)
  shown <- names(colours) %in% cells
  graphics::legend("bottom", legend = names(colours)[shown], fill = colours[shown], horiz = TRUE,
                   bty = "n", cex = 0.7, inset = c(0, -0.08), xpd = TRUE)
  graphics::title(main = main, line = 2.5)
  if (isTRUE(attr(x, "synthetic"))) {
    graphics::mtext("synthetic: simulated provider", side = 1, line = -0.2, cex = 0.7)
  }
  invisible(x)
}

# The rows plot() draws and their labels: a row per passage, labelled with its id, or beyond
# `most` passages a row per distinct set of outcomes, labelled with its number of passages.
grid_rows <- function(cells, ids, most = 40) {
  if (nrow(cells) <= most) {
    return(list(cells = cells, labels = ids))
  }
  pattern <- apply(cells, 1, paste, collapse = "\r")
  groups <- sort(table(pattern), decreasing = TRUE)
  grouped <- do.call(rbind, strsplit(names(groups), "\r", fixed = TRUE))
  list(cells = grouped,
       labels = sprintf("%d passage%s", as.integer(groups), ifelse(groups == 1, "", "s")))
}
