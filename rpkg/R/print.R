# Printing the results of a run of many passages and of a dry run.

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
  count <- function(n) format(n, big.mark = ",", scientific = FALSE)
  to_make <- x$to_make
  if (!is.null(to_make)) {
    cat(sprintf("  to be made:     %s, %s to embed\n",
                count_of(to_make[["chat_calls"]], "chat call"),
                count_of(to_make[["texts_to_embed"]], "text")))
  }
  cat(sprintf("  chat calls:     %s in all (annotation %s, simulation %s, backtranslation %s)\n",
              count(calls[["chat_calls"]]), count(calls[["annotation_calls"]]),
              count(calls[["simulation_calls"]]), count(calls[["backtranslation_calls"]])))
  if (!is.null(to_make)) {
    cat(sprintf("                  of which %s already cached, %s shared with an earlier passage\n",
                count(x$cached_calls), count(to_make[["shared_calls"]])))
  }
  requests <- calls[["embedding_requests"]]
  cat(sprintf("  embedded texts: %s in all%s\n", count(calls[["embedded_texts"]]),
              if (!is.na(requests)) paste(" in", count_of(requests, "request")) else ""))
  if (!is.null(to_make)) {
    cat(sprintf("                  of which %s already cached, %s shared with an earlier passage\n",
                count(to_make[["cached_texts"]]), count(to_make[["shared_texts"]])))
  }
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
