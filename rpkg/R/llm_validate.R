#' Validate LLM annotations of texts
#'
#' Runs the whole validation of Hansen (2026) for each passage: the model
#' annotates the passage, writes `M` texts for each label of the task (`n` per
#' call), annotates back the pool of its own label, the texts are embedded, and
#' the validation, separation and backtranslation tests decide the verdict. The
#' generated texts are compared with your passage, so **the task's simulation
#' prompt must describe your texts** (their kind, style and length; Sections 2
#' and 4.1 of the paper): every shipped task but `"phrasebank"` simulates
#' passages of a bank's 10-K filing, the paper's example. For another corpus,
#' build a task whose simulation prompt describes it with [llm_task()], use a
#' general task such as `"general_sentiment"` with `variables = c(genre =
#' "...")`, or give per-passage prompts (a data frame's `simulation` column). Many passages run as one stream of
#' requests, with up to `concurrency` in flight.
#'
#' Every response is kept in the `cache` file, by default the per-user cache
#' that the command-line tool and Stata share ([llm_cache_path()]): a re-run of
#' the same call makes no request and gives the same numbers, and a run
#' interrupted with Ctrl-C (which raises an error of class
#' `llmvalidate_error_cancelled`) resumes where it stopped. A run that pays for
#' answers without a cache warns before the first call.
#'
#' @param text A character vector of passages (names, if any, become their
#'   ids), or a data frame with a `text` column and optionally `id`,
#'   `simulation` and `variables` list columns, such as [llm_passages()] gives:
#'   a passage's own simulation prompt for the task is then used, as in the
#'   paper's Section 4, and its variables that the task accepts.
#' @param task A task built with [llm_task()], a shipped task name
#'   (`"sentiment"`, `"sentiment5"`, `"clarity"`, `"temporal"`, `"topic"`,
#'   `"phrasebank"`, `"general_sentiment"`) or the path of a task file (TOML,
#'   like those in `system.file("prompts", package = "llmvalidate")`). A
#'   general task such as `"general_sentiment"` requires a description of
#'   your texts: `variables = c(genre = "...")`.
#' @param human `NULL`, or human labels of the passages (one per passage),
#'   kept in the result's `human` column for [llm_validation_summary()]. A data
#'   frame `text` may carry them in a `human` column instead.
#' @param provider A chat provider such as [llm_provider_openai()] or
#'   [llm_provider_simulated()]. `NULL` takes `getOption("llmvalidate.provider")`,
#'   else the provider the environment configures (`LLMV_BASE_URL`,
#'   `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, AWS credentials, in this order;
#'   the same rule as the command-line tool and Stata). The simulated provider
#'   runs only when given.
#' @param model The chat model; `NULL` takes the provider's `model`, else
#'   `LLMV_MODEL`, else the provider's default (the engine's table,
#'   [llm_provider_defaults()]). A server of your own (`base_url`) needs one.
#' @param embedding An embedding provider such as [llm_embedding_openai()];
#'   `NULL` takes the chat provider's own vendor (OpenAI's for Anthropic, when
#'   `OPENAI_API_KEY` is set), with its default model.
#' @param M Texts per label pool.
#' @param n Texts asked for per simulation call.
#' @param alpha Level of the tests.
#' @param threshold Backtranslation accuracy needed to pass.
#' @param methods A named character vector: `validation` (`"exact"` or
#'   `"paper"`), `separation` (`"permutation"` or `"paper"`) and
#'   `backtranslation` (`"point"` or `"bound"`).
#' @param cache The path of an SQLite cache file, or `NULL` (nothing cached: a
#'   re-run pays again). Defaults to `getOption("llmvalidate.cache")`, else
#'   [llm_cache_path()], the per-user cache shared with the command-line tool
#'   and Stata.
#' @param concurrency Requests in flight.
#' @param seed `NULL` draws the seed from R's random number generator, so that
#'   [set.seed()] makes the run reproducible; or a whole number.
#' @param dry_run `TRUE`: make no call, print and return the number of calls,
#'   texts and estimated tokens the run would need, and their price with the
#'   synchronous APIs and with the providers' batch APIs (the element `cost`,
#'   a tibble with one row per model). Prices come from the table shipped in
#'   `system.file("prompts", "prices.csv", package = "llmvalidate")`, or from a
#'   table of your own with the same columns:
#'   `options(llmvalidate.price_table = "<path>")`.
#' @param ... Further settings: `batch = TRUE` (send the requests through the
#'   provider's batch API, OpenAI or Anthropic, at half the price: one provider
#'   batch per phase, each covering every passage; the batches' ids and answers
#'   are kept in `cache`, so calling `llm_validate()` again with the same cache
#'   resumes an interrupted run without submitting anything twice, and a later
#'   run without `batch` reads every answer free), `poll_interval` (seconds
#'   between two polls of a batch, default 30), `preset = "paper"` (the paper's way: its
#'   bootstrap tests, `methods` paper/paper, and `structured = "none"`; what
#'   the call gives explicitly still wins), `structured` (how the answer's
#'   JSON is asked for: `"schema"`, the API's structured output, the default;
#'   `"prompt"`, the schema in the prompt; `"none"`, the prompt alone as the
#'   paper sends it), `timeout` (seconds one request may take, retries apart;
#'   default 300), `drain` (after Ctrl-C, seconds the requests in flight may
#'   finish and be cached; default 10), `encoding` (`"utf-8"` or `"latin1"`,
#'   how the passages' bytes are read), `permutations` (default 999), `repeats`
#'   (annotations of each passage, default 1), `temperature` (default 1),
#'   `max_retries` (retries of a request after HTTP 429/5xx or a transport
#'   failure, honouring Retry-After; default 6), `variables` (a named character
#'   vector of the task's placeholders, e.g. `c(topic = "inflation")` for the
#'   `"topic"` task).
#' @param labels Deprecated: the human labels, now `human`. (Elsewhere in the
#'   package, `labels` is the label set of a task.)
#' @return For one passage, an `llm_validation` object (see
#'   [llm_validation_methods]). For several, an `llm_validations` data frame
#'   (a tibble when tibble is installed) with one row per passage and the
#'   `llm_validation` objects in the list column `validation`, and the
#'   attribute `cost` (the tokens the providers reported per model and their
#'   price at the price table's prices). With `dry_run = TRUE`, an
#'   `llm_dry_run` object.
#' @references Hansen, A. L. (2026). Validating Large Language Model
#'   Annotations. Finance and Economics Discussion Series 2026-020.
#'   \doi{10.17016/FEDS.2026.020}
#' @export
#' @examples
#' # The simulated provider is a synthetic data-generating process, not an LLM.
#' set.seed(1)
#' validation <- llm_validate(
#'   "Revenue grew strongly and margins improved across every segment.",
#'   task = "sentiment", provider = llm_provider_simulated(),
#'   M = 20, n = 5, permutations = 199
#' )
#' validation
#' llm_validate("Revenue grew.", task = "sentiment", provider = llm_provider_simulated(),
#'              M = 20, n = 5, dry_run = TRUE)
llm_validate <- function(text, task, human = NULL, provider = NULL, model = NULL,
                         embedding = NULL, M = 100, n = 10, alpha = 0.05, threshold = 0.9,
                         methods = c(validation = "exact", separation = "permutation",
                                     backtranslation = "point"),
                         cache = getOption("llmvalidate.cache", llm_cache_path()),
                         concurrency = getOption("llmvalidate.concurrency", 16L),
                         seed = NULL, dry_run = FALSE, ..., labels = NULL) {
  call <- rlang::current_env()
  if (!is.null(labels)) {
    if (!is.null(human)) {
      abort_argument("labels", "NULL when `human` is given (`labels` is its deprecated name)",
                     labels, call)
    }
    cli::cli_warn(
      c("The `labels` argument of `llm_validate()` is deprecated; use `human`.",
        i = "In the rest of the package `labels` is a task's label set, not the human labels."),
      class = c("llmvalidate_warning_deprecated", "llmvalidate_warning"), call = call
    )
    human <- labels
  }
  templates <- NULL
  passage_variables <- NULL
  if (is.data.frame(text)) {
    if (!is.character(text$text) || nrow(text) == 0) {
      abort_argument("text", "a data frame with a character column `text` (see `llm_passages()`)",
                     text, call)
    }
    templates <- if (is.list(text$simulation)) text$simulation
    if (is.null(human) && !is.null(text$human)) human <- as.character(text$human)
    passage_variables <- if (is.list(text$variables)) text$variables
    ids_given <- if (!is.null(text$id)) as.character(text$id)
    text <- text$text
    names(text) <- ids_given
  }
  if (!is.character(text) || length(text) == 0 || anyNA(text)) {
    abort_argument("text", "a character vector of passages without missing values", text, call)
  }
  task <- resolve_task(task, call)
  if (!is.null(human)) {
    human <- check_labels(human, "human", call)
    if (length(human) != length(text)) {
      abort_argument("human", sprintf("NULL or %d human label%s, one per passage",
                                      length(text), if (length(text) == 1) "" else "s"),
                     human, call)
    }
  }
  provider <- provider %||% getOption("llmvalidate.provider") %||% auto_provider()
  if (!inherits(provider, "llm_provider")) {
    abort_argument("provider", paste0("a chat provider such as `llm_provider_openai()` or ",
                                      "`llm_provider_simulated()`"), provider, call)
  }
  if (!is.null(model)) model <- check_string(model, "model", call)
  if (!is.null(embedding) && !inherits(embedding, "llm_embedding_provider")) {
    abort_argument("embedding", "NULL or an embedding provider such as `llm_embedding_openai()`",
                   embedding, call)
  }
  M <- check_setting(M, "M", call = call)
  n <- check_setting(n, "n", call = call)
  alpha <- check_alpha(alpha, call = call)
  threshold <- check_threshold(threshold, call = call)
  if (!is.null(cache)) cache <- path.expand(check_string(cache, "cache", call))
  concurrency <- check_setting(concurrency, "concurrency", call = call)
  if (!is.logical(dry_run) || length(dry_run) != 1 || is.na(dry_run)) {
    abort_argument("dry_run", "TRUE or FALSE", dry_run, call)
  }
  extra <- check_settings(list(...), c("permutations", "repeats", "temperature", "max_retries",
                                       "variables", "structured", "preset", "timeout", "drain",
                                       "encoding", "batch", "poll_interval"), call)
  batch <- extra$batch %||% FALSE
  if (!is.logical(batch) || length(batch) != 1 || is.na(batch)) {
    abort_argument("batch", "TRUE or FALSE", batch, call)
  }
  poll_interval <- extra$poll_interval %||% 30
  if (!is.numeric(poll_interval) || length(poll_interval) != 1 || is.na(poll_interval) ||
      poll_interval < 0) {
    abort_argument("poll_interval", "a number of seconds >= 0", poll_interval, call)
  }
  if (batch && is.null(cache)) {
    abort_argument("cache", "a cache file: a batch run (batch = TRUE) keeps its batches there and resumes from them", "NULL", call)
  }
  timeout <- check_setting(extra$timeout %||% setting_default("timeout"), "timeout", call = call)
  drain <- check_setting(extra$drain %||% setting_default("drain"), "drain", call = call)
  encoding <- check_choice_setting(extra$encoding %||% setting_default("input_encoding"),
                                   "input_encoding", "encoding", call)
  structured <- extra$structured
  if (!is.null(extra$preset)) {
    preset <- apply_preset(extra$preset, methods, !missing(methods), structured, call)
    methods <- preset$methods
    structured <- preset$structured
  }
  structured <- check_choice_setting(structured %||% setting_default("structured_output"),
                                     "structured_output", "structured", call)
  methods <- check_methods(methods, call)
  permutations <- check_permutations(extra$permutations %||% setting_default("permutations"),
                                     call)
  repeats <- check_setting(extra$repeats %||% setting_default("repeats"), "repeats", call = call)
  temperature <- check_setting(extra$temperature %||% setting_default("temperature"),
                               "temperature", call = call)
  max_retries <- check_setting(extra$max_retries %||% setting_default("max_retries"),
                               "max_retries", call = call)
  variables <- extra$variables
  if (!is.null(variables) && (!is.character(variables) || is.null(names(variables)) ||
                                anyNA(variables) || any(!nzchar(names(variables))))) {
    abort_argument("variables", "a named character vector, e.g. c(topic = \"inflation\")",
                   variables, call)
  }
  seed <- resolve_seed(seed, call)

  config <- list(
    task_path = task$path, task_source = task$source, provider = provider$name,
    model = model %||% provider$model %||% "", base_url = provider$base_url %||% "",
    api_key = provider$api_key %||% "", options = provider$options,
    embedding_provider = if (is.null(embedding)) "" else embedding$name,
    embedding_model = if (is.null(embedding)) "" else embedding$model %||% "",
    embedding_base_url = if (is.null(embedding)) "" else embedding$base_url %||% "",
    m = M, n = n, repeats = repeats, alpha = alpha, threshold = threshold,
    validation_method = methods[["validation"]], separation_method = methods[["separation"]],
    backtranslation_rule = methods[["backtranslation"]], permutations = permutations,
    seed = seed, cache_path = cache %||% "", concurrency = concurrency,
    temperature = temperature, structured_output = structured, dry_run = dry_run,
    price_table = price_table_path(),
    batch_api = batch, poll_interval = as.numeric(poll_interval),
    timeout = timeout, drain = drain, input_encoding = encoding,
    max_retries = as.integer(max_retries),
    variables = variables,
    simulated = if (!is.null(provider$simulated)) c(provider$simulated, seed = seed)
  )
  ids <- names(text) %||% as.character(seq_along(text))
  ids[is.na(ids) | ids == ""] <- as.character(seq_along(text))[is.na(ids) | ids == ""]
  human_labels <- human %||% rep("", length(text))

  # The engine decides provider, models and keys (as for the CLI and Stata), before any call.
  resolved <- engine_result(.Call(llmv_resolve_providers, config), call = call)
  config$provider <- resolved$provider
  if (!resolved$synthetic) {
    config$model <- resolved$model
    config$base_url <- resolved$base_url
  }
  config$embedding_provider <- resolved$embedding_provider
  config$embedding_model <- resolved$embedding_model
  provider$name <- resolved$provider
  secrets <- provider_secrets(provider)
  warn_sizes(config, call)
  # A variable the task requires (a general task's genre) is checked before any call, unless
  # the passages bring their own variables.
  if (is.null(passage_variables)) {
    engine_result(.Call(llmv_task_check_variables, config), call = call)
  }
  if (!dry_run) announce_cache(resolved, cache, call)
  if (dry_run) {
    report <- engine_result(redact(.Call(llmv_pipeline_run, config, unname(text), ids, human_labels,
                                         templates, passage_variables, NULL), secrets),
                            call = call)
    report$synthetic <- isTRUE(resolved$synthetic)
    report$dollars <- report$cost$dollars
    report$batch_dollars <- report$cost$batch_dollars
    report$price_note <- report$cost$note
    report$cost <- cost_tibble(report$cost)
    report$providers <- resolved$description  # with what "auto" read, as resolved above
    report <- structure(report, class = "llm_dry_run")
    print(report)
    return(invisible(report))
  }

  bar <- new_progress_bar()
  result <- engine_result(redact(.Call(llmv_pipeline_run, config, unname(text), ids, human_labels,
                                       templates, passage_variables, bar$update), secrets),
                          call = call)
  bar$done()
  if (nzchar(result$unwritten_file %||% "")) {
    side_file <- result$unwritten_file
    cli::cli_warn(
      c("!" = "The cache {.file {cache}} stayed locked by another process: {result$unwritten_answers} answer{?s} paid for went to {.file {side_file}} instead.",
        i = "Add them with {.code llm_cache_import({.str {side_file}}, cache = {.str {cache}})}; a re-run then pays nothing for them."),
      class = c("llmvalidate_warning_unwritten", "llmvalidate_warning"), call = call
    )
  }
  if (isTRUE(result$cancelled)) {
    abort_llmv(c("The run was interrupted.", cache_note(cache, "resume")),
               code = "llmv.cancelled", call = call)
  }
  settings <- list(alpha = alpha, threshold = threshold, permutations = permutations,
                   validation_method = methods[["validation"]],
                   separation_method = methods[["separation"]],
                   backtranslation_rule = methods[["backtranslation"]], M = M, n = n)
  validations <- lapply(result$passages, passage_validation, settings = settings)
  # What llm_generations() needs to read the run back from its cache (never the key).
  run_config <- config
  run_config$api_key <- ""
  run <- list(config = run_config, text = unname(text), ids = ids, templates = templates,
              variables = passage_variables)
  if (length(text) == 1) {
    passage <- result$passages[[1]]
    if (!isTRUE(passage$ok)) {
      passage_message <- passage$error_message
      abort_llmv(c("{passage_message}",
                   provider_error_hint(passage$error_code, provider, cache)),
                 code = passage$error_code, call = call)
    }
    validation <- validations[[1]]
    validation$run <- run
    return(validation)
  }
  failed <- !vapply(result$passages, function(p) isTRUE(p$ok), logical(1))
  if (any(failed)) {
    first_error <- result$passages[[which(failed)[1]]]$error_message
    cli::cli_warn(
      c("{sum(failed)} of {length(failed)} passage{?s} failed; their rows have verdict \"error\".",
        i = "First error: {first_error}",
        cache_note(cache, "rerun")),
      class = c("llmvalidate_warning_passages_failed", "llmvalidate_warning"), call = call
    )
  }
  validations <- new_llm_validations(result, validations, human = human)
  attr(validations, "run") <- run
  validations
}

#' The texts the model wrote for a validation, and its answers
#'
#' The audit trail of [llm_validate()]: for each passage, the annotations of
#' the passage and every text the model generated for each label (`K` labels
#' times `M` texts), with the label the model gave it back when its pool was
#' backtranslated. The texts are read from the run's `cache`: this makes no
#' call, and a passage whose answers the cache does not hold is left out with a
#' warning. With the simulated provider (a synthetic data-generating process,
#' not a language model) the texts are computed again, identically.
#'
#' @param result The result of [llm_validate()]: one `llm_validation` or an
#'   `llm_validations` table (its rows' passages).
#' @return A tibble (a data frame when tibble is not installed), one row per
#'   annotation of a passage (`kind` `"annotation"`, `text` the passage,
#'   `backtranslated` the label the model gave it) and per generated text
#'   (`kind` `"simulation"`, `label` the label it was written for, `draw` its
#'   position 1..M in the label's pool, `backtranslated` the label the model
#'   gave it back, `NA` for the pools that are not backtranslated), with the
#'   passage `id`, the chat `model` and the SHA-256 `prompt_hash` of the
#'   prompt that produced it.
#' @export
#' @examples
#' # The simulated provider is a synthetic data-generating process, not an LLM.
#' validation <- llm_validate("Revenue grew strongly.", task = "sentiment",
#'   provider = llm_provider_simulated(), M = 10, n = 5, permutations = 99, seed = 1)
#' generations <- llm_generations(validation)
#' table(generations$kind, generations$label, useNA = "ifany")
#' head(generations$text, 3)
llm_generations <- function(result) {
  call <- rlang::current_env()
  run <- if (inherits(result, "llm_validations")) attr(result, "run") else
    if (inherits(result, "llm_validation")) result$run
  if (is.null(run)) {
    abort_argument("result", "the result of `llm_validate()` (one validation or a table of them)",
                   result, call)
  }
  keep <- if (inherits(result, "llm_validations")) run$ids %in% result$id else
    rep(TRUE, length(run$ids))
  pick <- function(x) if (is.null(x)) NULL else x[keep]
  read <- engine_result(.Call(llmv_generations, run$config, run$text[keep], run$ids[keep],
                              pick(run$templates), pick(run$variables)),
                        call = call)
  if (length(read$failed_id) > 0) {
    failed_ids <- read$failed_id
    first <- read$failed_message[[1]]
    cli::cli_warn(
      c("The cache holds no complete run of {length(failed_ids)} passage{?s}: {.val {failed_ids}}; left out.",
        i = "First: {first}"),
      class = c("llmvalidate_warning_generations_missing", "llmvalidate_warning"), call = call
    )
  }
  rows <- as.data.frame(read$rows, stringsAsFactors = FALSE)
  if (requireNamespace("tibble", quietly = TRUE)) rows <- tibble::as_tibble(rows)
  rows
}

# Where the answers go, before the first call: a paid run without a cache warns; one with a
# cache says where it is, once per session and file.
announce_cache <- function(resolved, cache, call) {
  if (nzchar(resolved$cache_warning)) {
    cli::cli_warn(c("!" = "{resolved$cache_warning}"),
                  class = c("llmvalidate_warning_no_cache", "llmvalidate_warning"), call = call)
  } else if (!is.null(cache) && !isTRUE(resolved$synthetic)) {
    rlang::inform(paste0("Answers are cached in ", cache, "."),
                  class = "llmvalidate_message_cache", .frequency = "once",
                  .frequency_id = paste0("llmvalidate-cache-", cache))
  }
  invisible()
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
  key_variable <- switch(provider$name, openai = "OPENAI_API_KEY",
                         anthropic = "ANTHROPIC_API_KEY",
                         bedrock = "AWS_BEARER_TOKEN_BEDROCK or AWS_ACCESS_KEY_ID", "the key")
  hint <- switch(
    code,
    llmv.provider.rate_limited = paste0(
      "The provider kept answering HTTP 429: lower `concurrency` or raise `max_retries` ",
      "(in `...`); ", if (is.null(cache)) {
        "no `cache` was given, so a re-run pays again for every response."
      } else {
        "every response received is in the cache."
      }),
    llmv.provider.auth = paste0("The provider refused the key: check `api_key` or ",
                                key_variable, "."),
    llmv.provider.not_found = "Check `model` and `base_url`.",
    llmv.transport.failed = "Check `base_url` and the connection; the same call resumes.",
    llmv.transport.timeout = "Check `base_url` and the connection; the same call resumes.",
    NULL
  )
  if (is.null(hint)) character() else c(i = hint)
}

# Keys that an error message must never show: the provider's own and those in the
# environment variables the engine reads.
provider_secrets <- function(provider) {
  from_env <- Sys.getenv(c("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "ANTHROPIC_API_KEY",
                           "AWS_BEARER_TOKEN_BEDROCK",
                           "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"), unset = "")
  secrets <- c(provider$api_key, unname(from_env))
  unique(secrets[!is.na(secrets) & nchar(secrets) >= 4])
}

# Replaces every secret in the engine's messages (providers may echo a key back).
redact <- function(result, secrets) {
  if (length(secrets) == 0) {
    return(result)
  }
  scrub <- function(message) {
    for (secret in secrets) message <- gsub(secret, "<redacted>", message, fixed = TRUE)
    message
  }
  if (inherits(result, "llmvalidate_engine_error")) {
    result$message <- scrub(result$message)
  } else if (is.list(result$passages)) {
    result$passages <- lapply(result$passages, function(p) {
      p$error_message <- scrub(p$error_message)
      p
    })
  }
  result
}

# The task of a run: an llm_task (its TOML text goes to the engine as task_source), a shipped
# task by the engine's catalog (canonical name or alias, e.g. "sentiment" or
# "simple_sentiment"), or the path of a task file (task_path).
resolve_task <- function(task, call) {
  if (inherits(task, "llm_task")) {
    return(list(path = "", source = task$toml))
  }
  if (!is.character(task) || length(task) != 1 || is.na(task)) {
    abort_argument("task", "a shipped task name, the path of a task file or an `llm_task()`",
                   task, call)
  }
  if (file.exists(task) && !dir.exists(task)) {
    return(list(path = normalizePath(task), source = ""))
  }
  prompts <- system.file("prompts", package = "llmvalidate", mustWork = TRUE)
  list(path = engine_result(.Call(llmv_task_file, task, prompts), call = call), source = "")
}

# The named settings given in `...`, refused unless every one is among `allowed`.
check_settings <- function(extra, allowed, call) {
  unknown <- setdiff(names(extra), allowed)
  if (length(extra) > 0 && (is.null(names(extra)) || any(!nzchar(names(extra))) ||
                              length(unknown) > 0)) {
    abort_argument("...", paste0("named settings among ",
                                 paste0("`", allowed, "`", collapse = ", ")),
                   if (length(unknown) > 0) unknown else names(extra) %||% extra, call)
  }
  extra
}

check_count <- function(x, arg, call) {
  if (!is_whole_number(x) || x < 1 || x > .Machine$integer.max) {
    abort_argument(arg, "a whole number of at least 1", x, call)
  }
  as.integer(x)
}

# The engine's names of the three method settings, as `methods` names them.
method_settings <- c(validation = "validation_method", separation = "separation_method",
                     backtranslation = "backtranslation_rule")

check_methods <- function(methods, call) {
  defaults <- vapply(method_settings, setting_default, character(1))
  if (!is.character(methods) || is.null(names(methods)) ||
        !all(names(methods) %in% names(defaults))) {
    abort_argument("methods", paste0("a named character vector with names among ",
                                     paste0("`", names(defaults), "`", collapse = ", ")),
                   methods, call)
  }
  defaults[names(methods)] <- methods
  for (name in names(defaults)) {
    check_choice_setting(defaults[[name]], method_settings[[name]],
                         paste0("methods[[\"", name, "\"]]"), call)
  }
  defaults
}

# preset = "paper": the engine's bundle of settings; what the call gives explicitly wins.
apply_preset <- function(preset, methods, methods_given, structured, call) {
  presets <- .Call(llmv_presets)
  preset <- check_choice(preset, names(presets), "preset", call)
  values <- presets[[preset]]
  if (!methods_given) {
    for (name in names(method_settings)) {
      setting <- method_settings[[name]]
      if (setting %in% names(values)) methods[[name]] <- values[[setting]]
    }
  }
  if (is.null(structured) && "structured_output" %in% names(values)) {
    structured <- values[["structured_output"]]
  }
  list(methods = methods, structured = structured)
}

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
    statistic = pick(function(v) unname(v$validation$statistic), numeric(1)),
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

# The price table the engine reads: the user's (option llmvalidate.price_table, or the
# environment variable LLMV_PRICE_TABLE, which the engine reads itself) or the shipped one.
price_table_path <- function() {
  own <- getOption("llmvalidate.price_table")
  if (!is.null(own)) return(as.character(own))
  if (nzchar(Sys.getenv("LLMV_PRICE_TABLE"))) return("")
  system.file("prompts", "prices.csv", package = "llmvalidate")
}

# The engine's cost estimate, one row per model (chat, embedding): a tibble when tibble is
# installed, else a data frame.
cost_tibble <- function(cost) {
  if (is.null(cost)) return(NULL)
  frame <- as.data.frame(cost$lines, stringsAsFactors = FALSE)
  if (requireNamespace("tibble", quietly = TRUE)) frame <- tibble::as_tibble(frame)
  frame
}

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
  if (!is.null(x$dollars)) {
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

#' The paper's Section 4 passages, with their own simulation prompts
#'
#' Reads a passages file: the five passages of Hansen (2026), Section 4 (a 10-K
#' filing, an FOMC statement, a speech, a news article and a review, as shipped
#' in `prompts/passages/section4.toml`), each with the simulation prompt written
#' for it per task and the topics of Section 4.5. Pass the result as `text` to
#' [llm_validate()].
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

#' Plot many validations as a grid of verdicts
#'
#' One row per passage and one column per test, in the spirit of the paper's
#' Table 7: backtranslation and separation (the prerequisites, passed or
#' failed), the validation test (not rejected or rejected) and the verdict
#' (valid in green, invalid in red, inconclusive in yellow; grey for a passage
#' that failed with an error).
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
    vapply(x$validation, outcome, character(1), test = "backtranslation"),
    vapply(x$validation, outcome, character(1), test = "separation"),
    vapply(x$validation, outcome, character(1), test = "validation"),
    x$verdict
  )
  colours <- c(pass = "#A6D96A", fail = "#F46D43", "not rejected" = "#A6D96A",
               rejected = "#F46D43", valid = "#1A9641", invalid = "#D7191C",
               inconclusive = "#FDD835", error = "grey70")
  rows <- nrow(cells)
  columns <- ncol(cells)
  old <- graphics::par(mar = c(1, max(4, max(nchar(x$id)) * 0.6), 4, 1))
  on.exit(graphics::par(old), add = TRUE)
  graphics::plot.new()
  graphics::plot.window(xlim = c(0, columns), ylim = c(0, rows), xaxs = "i", yaxs = "i")
  for (i in seq_len(rows)) {
    for (j in seq_len(columns)) {
      top <- rows - i + 1
      graphics::rect(j - 1, top - 1, j, top, col = colours[[cells[i, j]]], border = "white")
      graphics::text(j - 0.5, top - 0.5, cells[i, j], cex = 0.8)
    }
  }
  graphics::axis(3, at = seq_len(columns) - 0.5, labels = c(tests, "verdict"), tick = FALSE,
                 line = -0.5)
  graphics::axis(2, at = rev(seq_len(rows)) - 0.5, labels = x$id, las = 1, tick = FALSE)
  graphics::title(main = main, line = 2.5)
  if (isTRUE(attr(x, "synthetic"))) {
    graphics::mtext("synthetic: simulated provider", side = 1, line = -0.2, cex = 0.7)
  }
  invisible(x)
}
