#' An overview of several runs over the same passages (the paper's Tables 7 and 8)
#'
#' One row per passage and one column per run: the LLM's label of the passage
#' and the verdict, as the paper's Table 7 (one column per task) and Table 8
#' (one column per model) show them. Give each run the same passages (for
#' example [llm_passages()]), one run per task or per model; a model's answers
#' are cached under its own keys, so adding a model later pays only for that
#' model.
#'
#' @param runs A named list of `llm_validations` data frames from
#'   [llm_validate()], one per column, each over the same passages in the same
#'   order. The names are the column headers.
#' @return A data frame with the column `id` (the passages' ids) and one
#'   character column per run, each cell "label (verdict)".
#' @export
#' @examples
#' passages <- llm_passages()
#' simulated <- llm_provider_simulated()
#' runs <- lapply(c(sentiment = "simple_sentiment", temporal = "temporal_focus"),
#'                function(task) llm_validate(passages, task = task, provider = simulated,
#'                                            M = 20, n = 10, permutations = 99, seed = 1))
#' llm_overview(runs)
llm_overview <- function(runs) {
  call <- rlang::current_env()
  if (!is.list(runs) || inherits(runs, "data.frame") || length(runs) == 0 ||
        is.null(names(runs)) || any(!nzchar(names(runs))) ||
        !all(vapply(runs, inherits, logical(1), "llm_validations"))) {
    abort_argument("runs", "a named list of <llm_validations> from llm_validate(), one per column",
                   runs, call)
  }
  ids <- runs[[1]]$id
  for (name in names(runs)) {
    if (!identical(runs[[name]]$id, ids)) {
      abort_argument(paste0("runs$", name),
                     sprintf("a run over the same passages as the first (%s)",
                             paste(ids, collapse = ", ")),
                     runs[[name]]$id, call)
    }
  }
  cells <- lapply(runs, function(run) {
    ifelse(run$verdict == "error", "error", paste0(run$label, " (", run$verdict, ")"))
  })
  data.frame(id = ids, cells, check.names = FALSE, stringsAsFactors = FALSE)
}
