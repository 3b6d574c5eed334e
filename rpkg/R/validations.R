# The results of llm_validate(): one llm_validation per passage, the llm_validations table
# of many, and the cost estimate as a table.

passage_validation <- function(passage, settings) {
  if (!isTRUE(passage$ok)) {
    return(NULL)
  }
  validation <- new_llm_validation(passage$tests, passage$label, passage$labels, settings)
  validation$id <- passage$id
  validation$annotations <- passage$annotations
  validation$task <- passage$task
  validation$provider <- passage$provider
  validation$model <- passage$model
  validation$embedding_provider <- passage$embedding_provider
  validation$embedding_model <- passage$embedding_model
  validation$synthetic <- isTRUE(passage$synthetic)
  validation$calls <- passage$calls
  validation
}

new_llm_validations <- function(result, validations, human) {
  passages <- result$passages
  pick <- function(field, type) {
    vapply(validations, function(v) if (is.null(v)) type[NA_integer_] else field(v), type)
  }
  frame <- data.frame(
    id = vapply(passages, `[[`, character(1), "id"),
    label = vapply(passages, function(p) if (isTRUE(p$ok)) p$label else NA_character_,
                   character(1)),
    verdict = vapply(passages, function(p) if (isTRUE(p$ok)) p$verdict else "error",
                     character(1)),
    tau = pick(function(v) unname(v$validation$statistic), numeric(1)),
    critical.value = pick(function(v) v$validation$critical.value, numeric(1)),
    p.value = pick(function(v) v$validation$p.value, numeric(1)),
    error = vapply(passages, function(p) if (isTRUE(p$ok)) NA_character_ else p$error_message,
                   character(1)),
    stringsAsFactors = FALSE
  )
  if (!is.null(human)) frame$human <- human
  frame$validation <- validations
  # A tibble when tibble is installed, so that it prints, subsets and joins as the rest of a
  # tidyverse workflow expects; print() still shows the tally first.
  table_class <- if (requireNamespace("tibble", quietly = TRUE)) c("tbl_df", "tbl") else NULL
  structure(frame, class = c("llm_validations", table_class, "data.frame"),
            synthetic = isTRUE(result$synthetic), calls = result$calls,
            cost = cost_tibble(result$cost))
}

# The engine's cost estimate, one row per model (chat, embedding): a tibble when tibble is
# installed, else a data frame. A run's accounting says which price it paid: `paid_through`
# ("synchronous" or "batch") and `paid_dollars`, the price of that route; an estimate (the dry
# run) prices both routes and has neither column.
cost_tibble <- function(cost) {
  if (is.null(cost)) return(NULL)
  frame <- as.data.frame(cost$lines, stringsAsFactors = FALSE)
  paid_through <- cost$paid_through %||% ""
  if (nzchar(paid_through)) {
    frame$paid_through <- rep(paid_through, nrow(frame))
    frame <- frame[c(setdiff(names(frame), c("paid_dollars", "prices_checked")),
                     "paid_dollars", "prices_checked")]
  } else {
    frame$paid_dollars <- NULL
  }
  if (requireNamespace("tibble", quietly = TRUE)) frame <- tibble::as_tibble(frame)
  frame
}
