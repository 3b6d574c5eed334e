# A cli progress bar over the requests of a run, shown when the session is
# interactive or options(llmvalidate.progress = TRUE) is set.
new_progress_bar <- function() {
  show <- getOption("llmvalidate.progress", interactive())
  if (!isTRUE(show)) {
    return(list(update = NULL, done = function() invisible()))
  }
  env <- new.env()
  env$id <- NULL
  list(
    update = function(done, total) {
      if (is.null(env$id)) {
        env$id <- cli::cli_progress_bar("Validating", total = max(total, 1), .envir = env)
      }
      cli::cli_progress_update(id = env$id, set = done, total = max(total, 1), .envir = env)
    },
    done = function() {
      if (!is.null(env$id)) cli::cli_progress_done(id = env$id, .envir = env)
      invisible()
    }
  )
}
