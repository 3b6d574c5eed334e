# What a run of llm_validate() tells the user about its cache and a provider's errors.

# Where the answers go, before the first call: a run with a cache says where it is, once per
# session and file (a paid run without one is warned of by the run itself, "no_cache").
announce_cache <- function(resolved, cache) {
  if (!is.null(cache) && !isTRUE(resolved$synthetic)) {
    rlang::inform(paste0("Answers are cached in ", cache, "."),
                  class = "llmvalidate_message_cache", .frequency = "once",
                  .frequency_id = paste0("llmvalidate-cache-", cache))
  }
  invisible()
}

# A warning of the engine's run, as it arises (pipeline::run's sink): before the first call,
# a paid run without a cache ("no_cache"), a model that retires within 60 days, with the date and
# the vendor's replacement ("model_retiring"), a test that cannot decide at this alpha and size
# ("cannot_decide": every verdict would be "inconclusive"; the dry run says it too); during the
# run, a feature the model refused and the run switched from, once ("fallback"); answers an
# earlier run left in a side file, added to the cache before the first call ("side_file"). Its
# class is llmvalidate_warning_<kind>; llm_power() raises the cannot_decide class through
# warn_sizes().
run_warning <- function(kind, text) {
  cli::cli_warn(c("!" = "{text}"),
                class = c(paste0("llmvalidate_warning_", kind), "llmvalidate_warning"))
}

# What a failed or interrupted run kept, as a cli bullet: only a run with a cache kept anything.
cache_note <- function(cache, what) {
  if (is.null(cache)) {
    return(c(i = paste0("No `cache` was given, so nothing received was kept: a re-run pays ",
                        "again for every response.")))
  }
  if (what == "resume") {
    c(i = "Every response received is in the cache; the same call resumes from it.")
  } else {
    c(i = "Responses received are in the cache: a re-run pays only for what failed.")
  }
}

# What to do about a provider error, as cli bullets (none for codes without advice).
provider_error_hint <- function(code, provider, cache = NULL) {
  # Where the engine's provider table says this provider's key comes from.
  defaults <- .Call(llmv_provider_defaults)
  row <- which(defaults$kind == "chat" & defaults$provider == provider$name)
  key_source <- if (length(row) == 1) defaults$credential[row] else "its environment variable"
  hint <- switch(
    code,
    llmv.provider.rate_limited = paste0(
      "The provider kept answering HTTP 429: lower `concurrency` or raise `max_retries` ",
      "(in `...`); ", if (is.null(cache)) {
        "no `cache` was given, so a re-run pays again for every response."
      } else {
        "every response received is in the cache."
      }),
    llmv.provider.auth = paste0("The provider refused the key: check `api_key`, or where the ",
                                "key comes from: ", key_source, "."),
    llmv.provider.not_found = "Check `model` and `base_url`.",
    llmv.transport.failed = "Check `base_url` and the connection; the same call resumes.",
    llmv.transport.timeout = "Check `base_url` and the connection; the same call resumes.",
    NULL
  )
  if (is.null(hint)) character() else c(i = hint)
}

# `cache`: a path, or NULL or FALSE for no cache at all (nothing written, a re-run pays again).
check_cache <- function(cache, call = rlang::caller_env()) {
  if (is.null(cache) || isFALSE(cache)) {
    return(NULL)
  }
  if (!is.character(cache) || length(cache) != 1 || is.na(cache) || !nzchar(cache)) {
    abort_argument("cache", "the path of a cache file, or FALSE (or NULL) to cache nothing",
                   cache, call)
  }
  path.expand(cache)
}

# A status line of a batch run (submitted, polled, collected), from the engine.
batch_status <- function(line) {
  cli::cli_inform(c(i = "Batch API: {line}"),
                  class = c("llmvalidate_message_batch", "llmvalidate_message"))
}
