# A cli progress bar over the requests of a run, shown when the session is
# interactive or options(llmvalidate.progress = TRUE) is set. Its total is the dry run's count
# of calls and texts to be made (cached and shared ones apart), not the formula's upper bound.
new_progress_bar <- function(to_make = NULL) {
  show <- getOption("llmvalidate.progress", interactive())
  if (!isTRUE(show)) {
    return(list(update = NULL, done = function() invisible(), shown = FALSE))
  }
  env <- new.env()
  env$id <- NULL
  planned <- if (is.null(to_make)) NA_real_ else to_make
  list(
    shown = TRUE,
    # done and total: the engine's request units (cache hits and shared ones included), and
    # those served by the cache.
    update = function(done, total, cached = 0) {
      position <- progress_position(done, total, cached, planned)
      if (is.null(env$id)) {
        # auto_terminate = FALSE: cli ends a bar that reaches its total, and the engine's
        # total can grow after that (a resumed run, a redraw), so the next update found no bar
        # ("Cannot find progress bar"); the bar ends in done() alone.
        env$id <- cli::cli_progress_bar("Validating", total = position[["total"]],
                                        auto_terminate = FALSE, .envir = env)
      }
      cli::cli_progress_update(id = env$id, set = position[["set"]],
                               total = position[["total"]], .envir = env)
    },
    done = function() {
      if (!is.null(env$id)) cli::cli_progress_done(id = env$id, .envir = env)
      invisible()
    }
  )
}

# The calls and texts a run will make (its dry run), for the progress bar's total; NULL when the
# dry run cannot say (it never stops the run: the run reports its own errors).
calls_to_make <- function(config, text, ids, human_labels, templates, passage_variables) {
  config$dry_run <- TRUE
  # Its warnings are the run's own, which the run raises itself.
  report <- tryCatch(suppressWarnings(.Call(llmv_pipeline_run, config, unname(text), ids,
                                            human_labels, templates, passage_variables, NULL)),
                     error = function(e) NULL)
  if (is.null(report) || inherits(report, "llmvalidate_engine_error") || is.null(report$to_make)) {
    return(NULL)
  }
  unname(report$to_make[["chat_calls"]] + report$to_make[["texts_to_embed"]])
}

# Where the bar stands: with the dry run's count (`planned`), the calls made so far (request
# units done less those the cache served) out of it; without, the engine's units.
progress_position <- function(done, total, cached, planned) {
  made <- if (is.na(planned)) done else max(0, done - cached)
  goal <- max(if (is.na(planned)) total else planned, made, 1)
  c(set = min(made, goal), total = goal)
}
