# Printing the results of a run of many passages and of a dry run.

#' @export
print.llm_validations <- function(x, ...) {
  cat(sprintf("<llm_validations> %d passages: %s\n", nrow(x),
              paste(names(table(x$verdict)), table(x$verdict), sep = " ", collapse = ", ")))
  if (isTRUE(attr(x, "synthetic"))) {
    cat("Synthetic: simulated provider (a data-generating process, not a language model)\n")
  }
  shown <- as.data.frame(unclass(x)[setdiff(names(x), "validation")],
                         stringsAsFactors = FALSE)
  if (all(is.na(shown$error))) {
    shown$error <- NULL
  } else {
    long <- !is.na(shown$error) & nchar(shown$error) > 60
    shown$error[long] <- paste0(substr(shown$error[long], 1, 57), "...")
  }
  print(shown, ...)
  invisible(x)
}

#' @export
print.llm_dry_run <- function(x, ...) {
  calls <- x$calls
  cat(sprintf("<llm_dry_run> %d passage%s\n", as.integer(x$passages),
              if (x$passages == 1) "" else "s"))
  if (isTRUE(x$synthetic)) {
    cat("Synthetic: simulated provider (a data-generating process, not a language model)\n")
  } else if (nzchar(x$providers %||% "")) {
    cat(strwrap(x$providers, exdent = 2), sep = "\n")
  }
  cat(sprintf("  chat calls:     %s (annotation %s, simulation %s, backtranslation %s)\n",
              format(calls[["chat_calls"]]), format(calls[["annotation_calls"]]),
              format(calls[["simulation_calls"]]), format(calls[["backtranslation_calls"]])))
  requests <- calls[["embedding_requests"]]
  cat(sprintf("  embedded texts: %s%s\n", format(calls[["embedded_texts"]]),
              if (requests >= 0) sprintf(" in %s requests", format(requests)) else ""))
  cat(sprintf("  already cached: %s calls\n", format(x$cached_calls)))
  cat(sprintf("  tokens (estimated): %s in, %s out, %s embedded\n",
              format(x$estimated_input_tokens), format(x$estimated_output_tokens),
              format(x$estimated_embedding_tokens %||% 0)))
  if (!is.null(x$dollars) && is.na(x$dollars)) {
    cat("  price (estimated, calls still to make): unknown, not every model is priced\n")
  } else if (!is.null(x$dollars)) {
    cat(sprintf("  price (estimated, calls still to make): $%s synchronous, $%s batch API\n",
                formatC(x$dollars, format = "f", digits = 4),
                formatC(x$batch_dollars, format = "f", digits = 4)))
  }
  if (nzchar(x$price_note %||% "")) {
    cat(strwrap(paste("Prices:", x$price_note), indent = 2, exdent = 2), sep = "\n")
  }
  for (warning in x$warnings %||% character()) {
    cat(strwrap(paste("Warning:", warning), indent = 2, exdent = 2), sep = "\n")
  }
  if (nzchar(x$note)) cat(strwrap(paste("Note:", x$note), indent = 2, exdent = 2), sep = "\n")
  invisible(x)
}
