#' A reproducible sample of a corpus's rows
#'
#' Draws `n` rows of `data` (after keeping those that `where` selects) with the
#' engine's own random number generator, so that the same `seed` draws the same
#' rows as the command-line tool's `batch --sample n --sample-seed seed --where
#' ...` and Stata. The paper's Section 5 validates two samples of 100 Financial
#' PhraseBank sentences: one with 100% annotator agreement and one with 50-66%.
#' The rows keep their order in `data`; [set.seed()] plays no part.
#'
#' @param data A data frame: one row per passage, in the order of the file it
#'   was read from (row positions are what the draw picks).
#' @param n The number of rows to draw; at most the rows `where` keeps.
#' @param seed A whole number: the draw's seed.
#' @param where `NULL` (every row), or a named list of the values to keep per
#'   column, e.g. `list(agreement = c(50, 66))`; values compare as text, as in
#'   the CLI's `--where "agreement=50|66"`.
#' @return The sampled rows of `data`, with a column `row`, their position in
#'   `data` (the CLI's passage ids).
#' @export
#' @examples
#' corpus <- data.frame(text = paste("Sentence", 1:50), agreement = rep(c(100, 66), 25))
#' llm_sample(corpus, n = 5, seed = 1, where = list(agreement = 100))
llm_sample <- function(data, n, seed = 1, where = NULL) {
  call <- rlang::current_env()
  if (!is.data.frame(data)) abort_argument("data", "a data frame", data, call)
  n <- check_count(n, "n", call)
  if (!is_whole_number(seed) || seed < 0 || seed > 2^53) {
    abort_argument("seed", "a whole number in 0..2^53", seed, call)
  }
  keep <- rep(TRUE, nrow(data))
  if (!is.null(where)) {
    if (!is.list(where) || is.null(names(where)) || any(!nzchar(names(where)))) {
      abort_argument("where", "NULL or a named list of values per column, e.g. list(agreement = 100)",
                     where, call)
    }
    missing_columns <- setdiff(names(where), names(data))
    if (length(missing_columns) > 0) {
      abort_argument("where", paste0("columns of `data`: ", paste(names(data), collapse = ", ")),
                     missing_columns, call)
    }
    for (column in names(where)) {
      keep <- keep & trimws(as.character(data[[column]])) %in% trimws(as.character(where[[column]]))
    }
  }
  positions <- which(keep)
  drawn <- engine_result(.Call(llmv_sample_rows, as.double(length(positions)), as.double(n),
                               as.double(seed)), call = call)
  rows <- positions[drawn]
  out <- data[rows, , drop = FALSE]
  out$row <- rows
  rownames(out) <- NULL
  out
}
