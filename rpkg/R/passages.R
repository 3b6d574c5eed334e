#' The paper's Section 4 passages, with their own simulation prompts
#'
#' Reads a passages file: the five passages of Hansen (2026), Section 4 (a 10-K
#' filing, an earnings call, a news article, a Federal Reserve governor's speech
#' and a Reddit comment, as shipped in `prompts/passages/section4.toml`), each
#' with the simulation prompt written for it per task and its values of the
#' tasks' variables: `topic` (the Section 4.5 topic it discusses, Table 5),
#' `topic_not_discussed` (Table 6: `variables = c(topic = "@topic_not_discussed")`
#' takes each passage's own) and `genre` (for `general_sentiment`). Pass the
#' result as `text` to [llm_validate()].
#'
#' @param path `NULL` for the shipped file, or the path of a passages file in
#'   the same format.
#' @return A data frame of class `llm_passages`, one row per passage, with
#'   columns `id`, `title`, `source`, `text`, and the list columns `variables`
#'   and `simulation` (named character vectors).
#' @export
#' @examples
#' passages <- llm_passages()
#' passages[, c("id", "title")]
#' names(passages$simulation[[1]])
llm_passages <- function(path = NULL) {
  call <- rlang::current_env()
  if (is.null(path)) {
    path <- system.file("prompts", "passages", "section4.toml", package = "llmvalidate",
                        mustWork = TRUE)
  }
  path <- check_string(path, "path", call)
  if (!file.exists(path) || dir.exists(path)) {
    abort_argument("path", "NULL or the path of a passages file that exists", path, call,
                   code = "llmv.io.failed")
  }
  fields <- engine_result(.Call(llmv_load_passages, normalizePath(path)), call = call)
  frame <- data.frame(id = fields$id, title = fields$title, source = fields$source,
                      text = fields$text, stringsAsFactors = FALSE)
  frame$variables <- fields$variables
  frame$simulation <- fields$simulation
  structure(frame, class = c("llm_passages", "data.frame"))
}
