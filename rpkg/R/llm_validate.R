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
#' @param text A character vector or factor of passages (names, if any, become
#'   their ids, which must be distinct), or a data frame with a text column
#'   (`text_column`, default `text`) and optionally an id column (`id_column`,
#'   default `id`), a `human` column and `simulation` and `variables` list
#'   columns, such as [llm_passages()] gives: a passage's own simulation prompt
#'   for the task is then used, as in the paper's Section 4, and its variables
#'   that the task accepts. Strings marked as latin1 (or in the native
#'   encoding) are converted to UTF-8 with [enc2utf8()].
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
#'
#'   An 'ellmer' `Chat` (ellmer 0.2.0 to 0.5.0, e.g. `ellmer::chat_openai()`)
#'   is taken as the same provider: OpenAI, the OpenAI-compatible servers
#'   (`chat_openai_compatible()`, `chat_ollama()`, `chat_vllm()`,
#'   `chat_lmstudio()`, `chat_groq()`, `chat_deepseek()`, `chat_openrouter()`)
#'   and Azure OpenAI (`options = list(flavor = "azure")`, with a key) become
#'   [llm_provider_openai()], Anthropic [llm_provider_anthropic()], and
#'   Bedrock's Converse API (`ellmer::chat_aws_bedrock()` with `api =
#'   "converse"`) [llm_provider_bedrock()]; another Chat is an error. From the
#'   Chat come its model, its base URL (unless it is the vendor's default, which
#'   the engine then takes with the vendor's own key), a key given as a string
#'   (`credentials` that return one, or `api_key`; ellmer's default credentials
#'   are not read: the engine reads the vendor's variable as for
#'   [llm_provider_openai()], so `OPENAI_API_KEY` goes to OpenAI only, and
#'   Bedrock's AWS credentials from the environment as ellmer does),
#'   and each of its `params` for which `...` has a setting of the same name
#'   (`temperature`; a value given in `...` wins). A warning of class
#'   `llmvalidate_warning_ellmer_ignored` names what is not used (other
#'   `params`, `api_args`, `api_headers`). Needs the 'ellmer' package.
#' @param model The chat model; `NULL` takes the provider's `model`, else
#'   `LLMV_MODEL`, else the provider's default (the engine's table,
#'   [llm_provider_defaults()]). A server of your own (`base_url`) needs one.
#' @param embedding An embedding provider such as [llm_embedding_openai()];
#'   `NULL` takes the chat provider's own vendor (OpenAI's for Anthropic, when
#'   `OPENAI_API_KEY` is set), with its default model. A server of your own
#'   (`base_url`, `LLMV_BASE_URL`, [llm_provider_ollama()]) has no default
#'   embedding model, and the chat model is never used for embeddings: name it,
#'   e.g. `llm_embedding_openai(model = "nomic-embed-text")`, or set
#'   `LLMV_EMBEDDING_MODEL`; the run stops before any call otherwise.
#' @param M Texts per label pool.
#' @param n Texts asked for per simulation call.
#' @param alpha Level of the tests.
#' @param threshold Backtranslation accuracy needed to pass.
#' @param methods A named character vector: `validation` (`"exact"` or
#'   `"paper"`), `separation` (`"permutation"` or `"paper"`) and
#'   `backtranslation` (`"point"` or `"bound"`).
#' @param cache The path of an SQLite cache file, or `FALSE` (also `NULL`):
#'   nothing is cached or written to disk, and a re-run pays again. Defaults to
#'   `getOption("llmvalidate.cache")`, else [llm_cache_path()], the per-user
#'   cache shared with the command-line tool and Stata. To keep every run of a
#'   session off disk, set `options(llmvalidate.cache = FALSE)`; note that
#'   `options(llmvalidate.cache = NULL)` *removes* the option, so the default
#'   per-user file is used again.
#' @param concurrency Requests in flight.
#' @param seed `NULL` draws the seed from R's random number generator, so that
#'   [set.seed()] makes the run reproducible; or a whole number. The seed picks the
#'   permutations and the texts the model generates: another seed draws (and pays for) new
#'   texts and their backtranslations, the same seed reads them back from the cache (the
#'   passage's own annotation is reused either way). So without `set.seed()` or `seed`, every
#'   call draws new texts; `dry_run = TRUE` shows what a seed will cost.
#' @param dry_run `TRUE`: make no call, print and return the number of calls,
#'   texts and estimated tokens the run would need, and their price with the
#'   synchronous APIs and with the providers' batch APIs (the element `cost`,
#'   a tibble with one row per model). Prices come from the table shipped in
#'   `system.file("prompts", "prices.csv", package = "llmvalidate")`, or from a
#'   table of your own with the same columns:
#'   `options(llmvalidate.price_table = "<path>")`.
#' @param ... Further settings, by name. `batch = TRUE` sends the requests
#'   through the provider's batch API, OpenAI or Anthropic, at half the price
#'   (refused for a provider without one, such as [llm_provider_ollama()]);
#'   its status lines are messages of class `llmvalidate_message_batch`, which
#'   [suppressMessages()] silences. There is one provider batch per phase, each
#'   covering every passage; the batches' ids and answers are kept in `cache`,
#'   so calling `llm_validate()` again with the same cache resumes an
#'   interrupted run without submitting anything twice, and a later run
#'   without `batch` reads every answer free. Ctrl-C while it waits stops at
#'   once with an `llmvalidate_error_cancelled` condition, submitting nothing
#'   more. `wait = FALSE` (with `batch = TRUE`) submits the next phase's
#'   batches, or polls those out once, and returns at once an
#'   `llm_batch_pending` object, which prints what is out and how to collect
#'   it; `path = "file.json"` also saves its handle there (as ellmer's
#'   `batch_chat(path = )` does), and [llm_collect()] goes on from either, in
#'   this session or another (the command-line tool's `llmvalidate batch
#'   --collect file.json` too); calling the same `llm_validate()` again
#'   collects as well. `preset = "paper"` runs
#'   the paper's way: its bootstrap tests, `methods` paper/paper,
#'   `structured = "none"` and `parse_retries = 0`, where a bad
#'   backtranslation answer counts as wrong; what the call gives explicitly
#'   still wins. `variables` is a named character vector of the task's
#'   placeholders, e.g. `c(topic = "inflation")` for the `"topic"` task.
#'   The engine's settings (its table, shared with the command-line tool and
#'   Stata, `docs/settings.md`), each checked against its range:
#'   `r dots_settings_help()`
#' @param text_column,id_column For a data frame `text`: the names of the
#'   column of passages and of the column of their ids.
#' @param labels Deprecated: the human labels, now `human`. (Elsewhere in the
#'   package, `labels` is the label set of a task.)
#' @return An `llm_validations` data frame, whatever the number of passages
#'   (one string included; a tibble when tibble is installed; see
#'   [llm_validations_methods]) with one row per passage
#'   (`id`, `label`, `verdict`, `tau`, `critical.value`, `p.value`, `error`,
#'   `human` when given) and the detailed `llm_validation` objects (see
#'   [llm_validation_methods]) in the list column `validation`
#'   ([llm_details()] picks one out), and the attribute `cost` (the tokens the providers reported
#'   per model and their price at the price table's prices: `dollars` with the
#'   synchronous APIs, `batch_dollars` with the batch API, and what the run
#'   paid, `paid_dollars`, through `paid_through`, `"synchronous"` or
#'   `"batch"`). A passage that
#'   fails has verdict `"error"`; when every passage fails for the same reason
#'   (a key, a model, a server), `llm_validate()` raises that error instead.
#'   With `batch = TRUE, wait = FALSE`, an `llm_batch_pending` object while
#'   provider batches are out (see [llm_collect()]).
#'   With `dry_run = TRUE`, an `llm_dry_run` object; its element `settings`
#'   holds every setting of the engine's table as the run would use it
#'   (defaults included), as does the `run` element of a result.
#' @references Hansen, A. L. (2026). Validating Large Language Model
#'   Annotations. Finance and Economics Discussion Series 2026-020.
#'   \doi{10.17016/FEDS.2026.020}
#' @export
#' @examples
#' # The simulated provider is a synthetic data-generating process, not an LLM.
#' set.seed(1)
#' result <- llm_validate(
#'   "Revenue grew strongly and margins improved across every segment.",
#'   task = "sentiment", provider = llm_provider_simulated(),
#'   M = 20, n = 5, permutations = 199
#' )
#' result
#' llm_details(result)  # every test of the first passage
#' llm_validate("Revenue grew.", task = "sentiment", provider = llm_provider_simulated(),
#'              M = 20, n = 5, dry_run = TRUE)
llm_validate <- function(text, task, human = NULL, provider = NULL, model = NULL,
                         embedding = NULL,
                         # BEGIN GENERATED formals: M n alpha threshold methods
                         M = 100, n = 10, alpha = 0.05, threshold = 0.9,
                         methods = c(validation = "exact", separation = "permutation", backtranslation = "point"),
                         # END GENERATED
                         cache = getOption("llmvalidate.cache", llm_cache_path()),
                         # BEGIN GENERATED formals: concurrency=concurrency@llmvalidate.concurrency
                         concurrency = getOption("llmvalidate.concurrency", 16L),
                         # END GENERATED
                         seed = NULL, dry_run = FALSE, ..., text_column = "text",
                         id_column = "id", labels = NULL) {
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
  human_place <- NULL  # "human" when the human labels are a column of the data frame `text`
  # A data frame always gives the table of validations, whatever its number of rows.
  as_table <- is.data.frame(text)
  if (as_table) {
    text_column <- check_string(text_column, "text_column", call)
    id_column <- check_string(id_column, "id_column", call)
    columns <- names(text)
    if (!text_column %in% columns || nrow(text) == 0 ||
          !(is.character(text[[text_column]]) || is.factor(text[[text_column]]))) {
      abort_argument("text", sprintf(paste0(
        "a data frame with a character column `%s` (name another with `text_column`; see ",
        "`llm_passages()`)"), text_column), text, call)
    }
    if (!identical(id_column, "id") && !id_column %in% columns) {
      abort_argument("id_column", paste0("the name of a column of `text`: ",
                                         paste0("\"", columns, "\"", collapse = ", ")),
                     id_column, call)
    }
    templates <- if (is.list(text[["simulation"]])) text[["simulation"]]
    passage_variables <- if (is.list(text[["variables"]])) text[["variables"]]
    ids_given <- if (id_column %in% columns) as.character(text[[id_column]])
    if (is.null(human) && "human" %in% columns) {
      human_place <- "human"
      human <- as.character(text[["human"]])
      check_no_missing(human, "text", "human", ids_given, "human label", call = call)
    }
    text <- as.character(text[[text_column]])
    names(text) <- ids_given
  } else if (!identical(text_column, "text") || !identical(id_column, "id")) {
    abort_argument(if (identical(text_column, "text")) "id_column" else "text_column",
                   "left at its default unless `text` is a data frame",
                   if (identical(text_column, "text")) id_column else text_column, call)
  }
  if (is.factor(text)) text <- stats::setNames(as.character(text), names(text))
  if (!is.character(text) || length(text) == 0) {
    abort_argument("text", "a character vector (or factor) of passages without missing values",
                   text, call)
  }
  # Where each string came from, for the messages of check_no_missing() and check_utf8().
  text_place <- if (as_table) text_column
  check_no_missing(text, "text", text_place, names(text), call = call)
  task <- resolve_task(task, call)
  if (!is.null(names(text)) && anyDuplicated(names(text)[!is.na(names(text)) & names(text) != ""])) {
    given <- names(text)[!is.na(names(text)) & names(text) != ""]
    duplicate <- given[anyDuplicated(given)]
    where <- if (as_table) sprintf("the column `%s`", id_column) else "the names of `text`"
    abort_llmv(c("The passages' ids must be distinct: each id names one row of the result.",
                 x = "The id {.val {duplicate}} appears more than once in {where}."),
               code = "llmv.input.invalid_argument", call = call)
  }
  if (!is.null(human)) {
    if (is.atomic(human)) check_no_missing(human, "human", NULL, names(text), "label", call)
    human <- check_labels(human, "human", call)
    if (length(human) != length(text)) {
      abort_argument("human", sprintf("NULL or %d human label%s, one per passage",
                                      length(text), if (length(text) == 1) "" else "s"),
                     human, call)
    }
  }
  # The settings `...` takes: the engine table's settings that R spells and llm_validate()
  # has no formal for, and the structural ones. An ellmer Chat's params of these names count
  # as given there.
  extra_settings <- c(names(dots_settings()), "variables", "preset", "batch", "wait", "path")
  provider <- provider %||% getOption("llmvalidate.provider") %||% auto_provider()
  provider <- as_llm_provider(provider, extra_settings, call)
  if (!inherits(provider, "llm_provider")) {
    abort_argument("provider", paste0("a chat provider such as `llm_provider_openai()`, ",
                                      "`llm_provider_simulated()` or an ellmer Chat"),
                   provider, call)
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
  cache <- check_cache(cache, call)
  concurrency <- check_setting(concurrency, "concurrency", call = call)
  if (!is.logical(dry_run) || length(dry_run) != 1 || is.na(dry_run)) {
    abort_argument("dry_run", "TRUE or FALSE", dry_run, call)
  }
  extra <- check_settings(list(...), extra_settings, call)
  from_chat <- provider$settings[setdiff(names(provider$settings), names(extra))]
  extra[names(from_chat)] <- from_chat
  batch <- extra$batch %||% FALSE
  if (!is.logical(batch) || length(batch) != 1 || is.na(batch)) {
    abort_argument("batch", "TRUE or FALSE", batch, call)
  }
  wait <- extra$wait %||% TRUE
  if (!is.logical(wait) || length(wait) != 1 || is.na(wait)) {
    abort_argument("wait", "TRUE or FALSE", wait, call)
  }
  path <- extra$path
  if (!is.null(path)) {
    path <- check_string(path, "path", call)
    if (!isTRUE(batch) || isTRUE(wait)) {
      abort_argument("path", "NULL unless `batch = TRUE, wait = FALSE` (it is where the pending batch's handle is saved)",
                     path, call)
    }
  }
  # (wait = FALSE without batch, batch with a provider that has no batch API or without a cache:
  # refused by the engine's run, in R's terms.) An Ollama server reached through the OpenAI
  # protocol is known as such only here, by the constructor that made it.
  if (isTRUE(extra$batch) && isFALSE(provider$batch_api)) {
    abort_llmv(c("{.arg batch} must be FALSE with this provider: {provider$display} has no batch API.",
                 i = "Batch APIs: OpenAI's ({.fn llm_provider_openai}) and Anthropic's ({.fn llm_provider_anthropic}).",
                 x = "Received {.code batch = TRUE}."),
               code = "llmv.input.invalid_argument", call = call)
  }
  if (!is.null(extra$preset)) {
    preset <- apply_preset(extra$preset, methods, !missing(methods), extra, call)
    methods <- preset$methods
    extra <- preset$extra
  }
  # Each table setting given (in `...`, by the preset or by an ellmer Chat), checked against
  # the engine's table; those not given keep the engine's defaults.
  given_settings <- check_dots_settings(extra, call)
  encoding <- given_settings$input_encoding %||% setting_default("input_encoding")
  if (encoding == "utf-8") {
    # R knows the encoding of marked strings (latin1 from a file read with
    # `encoding = "latin1"`, or a native string elsewhere): the engine reads UTF-8 bytes. An
    # unmarked string that is not UTF-8 would be sent mangled: refused, before any call.
    check_utf8(text, place_text("text", text_place), names(text), call = call)
    check_utf8(names(text), if (as_table) place_text("text", id_column) else "The names of `text`",
               NULL, call = call)
    check_utf8(human, place_text(if (is.null(human_place)) "human" else "text", human_place),
               names(text), call = call)
    text <- enc2utf8(text)
    names(text) <- if (!is.null(names(text))) enc2utf8(names(text))
    if (!is.null(human)) human <- enc2utf8(human)
  }
  methods <- check_methods(methods, call)
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
    api_key = provider_key(provider) %||% "", options = provider$options,
    embedding_provider = if (is.null(embedding)) "" else embedding$name,
    embedding_model = if (is.null(embedding)) "" else embedding$model %||% "",
    embedding_base_url = if (is.null(embedding)) "" else embedding$base_url %||% "",
    m = M, n = n, alpha = alpha, threshold = threshold,
    validation_method = methods[["validation"]], separation_method = methods[["separation"]],
    backtranslation_rule = methods[["backtranslation"]],
    seed = seed, cache_path = cache %||% "", concurrency = concurrency,
    dry_run = dry_run, price_table = price_table_path(), batch_api = batch, wait = wait,
    settings = given_settings, variables = variables,
    simulated = if (!is.null(provider$simulated)) c(provider$simulated, seed = seed)
  )
  # The embedding provider's own key, when given (else the engine's rule: docs/providers.md).
  if (!is.null(embedding) && !is.null(provider_key(embedding))) {
    config$embedding_api_key <- provider_key(embedding)
  }
  ids <- names(text) %||% as.character(seq_along(text))
  ids[is.na(ids) | ids == ""] <- as.character(seq_along(text))[is.na(ids) | ids == ""]
  human_labels <- human %||% rep("", length(text))

  # The engine decides provider, models and keys (as for the CLI and Stata), before any call.
  resolution <- .Call(llmv_resolve_providers, config)
  if (inherits(resolution, "llmvalidate_engine_error") &&
        identical(resolution$setting, "embedding_model") &&
        identical(resolution$received, "none")) {
    engine_message <- resolution$message
    abort_llmv(c("{engine_message}",
                 i = paste0("Name it with {.code embedding = llm_embedding_openai(model = \"...\")} ",
                            "(the chat provider's server is used), or set ",
                            "{.envvar LLMV_EMBEDDING_MODEL}.")),
               code = resolution$code, call = call)
  }
  resolved <- engine_result(resolution, call = call)
  config$provider <- resolved$provider
  if (!resolved$synthetic) {
    config$model <- resolved$model
    config$base_url <- resolved$base_url
  }
  config$embedding_provider <- resolved$embedding_provider
  config$embedding_model <- resolved$embedding_model
  provider$name <- resolved$provider
  secrets <- unique(c(provider_secrets(provider),
                      if (!is.null(embedding)) provider_secrets(embedding)))
  # A variable the task requires (a general task's genre) is checked before any call, unless
  # the passages bring their own variables.
  if (is.null(passage_variables)) {
    engine_result(.Call(llmv_task_check_variables, config), call = call)
  }
  # Every setting of the engine's table as the run uses it, defaults included (provenance).
  used_settings <- engine_result(.Call(llmv_config_settings, config), call = call)
  announce_cache(resolved, cache)

  # The engine chooses the route (dry run, provider batches or synchronous requests), warns
  # before the first call (run_warning()) and classifies how the run ended (result$status);
  # this renders what it returns.
  bar <- new_progress_bar()
  if (bar$shown && !isTRUE(resolved$synthetic)) {
    bar <- new_progress_bar(calls_to_make(config, text, ids, human_labels, templates,
                                          passage_variables))
  }
  # As ellmer's batch_chat(path = ): the same path resumes the same run; a handle of another
  # run there is not overwritten.
  if (!is.null(path) && file.exists(path)) {
    check_pending_path(path, .Call(llmv_pending_key, config, unname(text), ids, human_labels,
                                   templates, passage_variables), call)
  }
  result <- engine_result(redact(.Call(llmv_pipeline_run, config, unname(text), ids, human_labels,
                                       templates, passage_variables, bar$update), secrets),
                          call = call)
  bar$done()
  if (identical(result$status, "estimated")) {
    report <- result
    report$status <- NULL
    report$synthetic <- isTRUE(resolved$synthetic)
    # The number of embedding requests depends on the provider's batch size: not known here.
    report$calls[["embedding_requests"]] <- NA_real_
    # A total missing a model's price is unknown (NA), not the priced part's sum.
    priced <- isTRUE(report$cost$complete)
    report$dollars <- if (priced) report$cost$dollars else NA_real_
    report$batch_dollars <- if (priced) report$cost$batch_dollars else NA_real_
    report$price_note <- report$cost$note
    report$cost <- cost_tibble(report$cost)
    report$providers <- resolved$description  # with what "auto" read, as resolved above
    report$settings <- used_settings
    report <- structure(report, class = "llm_dry_run")
    print(report)
    return(invisible(report))
  }
  if (identical(result$status, "waiting")) {
    # The batches are out (wait = FALSE): the engine's handle collects them (llm_collect()).
    if (!is.null(path)) save_pending(result$handle, path, call)
    return(new_llm_batch_pending(result$handle, path, submitted = unlist(result$submitted),
                                 batch_requests = result$batch_requests, call = call))
  }
  # What llm_generations() needs to read the run back from its cache (never the key).
  run_config <- config
  run_config$api_key <- ""
  run_config$embedding_api_key <- NULL
  run <- list(config = run_config, text = unname(text), ids = ids, templates = templates,
              variables = passage_variables, settings = used_settings)
  validations_of_run(result, used_settings, provider, cache, human, run, call)
}

# The table of a finished run (llm_validate(), llm_collect()): the engine's outcome rendered
# with its failure policy, one row per passage whatever their number.
validations_of_run <- function(result, used_settings, provider, cache, human, run,
                               call = rlang::caller_env()) {
  if (nzchar(result$unwritten_file %||% "")) {
    side_file <- result$unwritten_file
    reason <- result$unwritten_reason %||% ""
    # Only a lock (the run went on), or a write that failed otherwise (the run stopped paying).
    what <- if (!isTRUE(result$cache_stopped)) {
      paste("stayed", if (nzchar(reason)) reason else "locked by another process")
    } else {
      paste0("could not be written (", reason, "), so no new request was sent after that")
    }
    cli::cli_warn(
      c("!" = "The cache {.file {cache}} {what}: {result$unwritten_answers} answer{?s} paid for went to {.file {side_file}} instead.",
        i = "The next run with this cache adds them first, or add them now with {.code llm_cache_import({.str {side_file}}, cache = {.str {cache}})}; a re-run pays nothing for them."),
      class = c("llmvalidate_warning_unwritten", "llmvalidate_warning"), call = call
    )
  }
  # (A feature the model refused, and the switch, was warned of as it happened: run_warning().)
  changes <- result$setting_changes
  if (length(changes) > 0) used_settings[names(changes)] <- unname(changes)
  if (identical(result$status, "cancelled")) {
    abort_llmv(c("The run was interrupted.", cache_note(cache, "resume")),
               code = "llmv.cancelled", call = call)
  }
  # The settings each validation reports: the engine's record of the run's configuration
  # (used_settings), not a copy of R's arguments.
  settings <- run_settings(used_settings, c("alpha", "threshold", "permutations",
                                             "validation_method", "separation_method",
                                             "backtranslation_rule", "M", "n"))
  validations <- lapply(result$passages, passage_validation, settings = settings)
  run$settings <- used_settings
  run$document <- result$run_document  # what llm_report() renders
  # One passage that failed is that passage's error, in its own words.
  if (length(result$passages) == 1 && !isTRUE(result$passages[[1]]$ok)) {
    passage <- result$passages[[1]]
    passage_message <- passage$error_message
    abort_llmv(c("{passage_message}",
                 provider_error_hint(passage$error_code, provider, cache)),
               code = passage$error_code, call = call)
  }
  # The engine's failure policy: a run whose every passage failed for one cause (a key, a model
  # name, a server) is an error, not a table of "error" rows a script could carry on with; a
  # run with some failures warns.
  passages_failed <- result$failed
  first_error <- result$first_error_message
  if (identical(result$status, "failed") && isTRUE(result$same_cause)) {
    abort_llmv(c("Every passage ({passages_failed}) failed for the same reason: {first_error}",
                 provider_error_hint(result$first_error_code, provider, cache),
                 cache_note(cache, "rerun")),
               code = result$first_error_code, call = call)
  }
  if (passages_failed > 0) {
    cli::cli_warn(
      c("{passages_failed} of {length(result$passages)} passage{?s} failed; their rows have verdict \"error\".",
        i = "First error: {first_error}",
        cache_note(cache, "rerun")),
      class = c("llmvalidate_warning_passages_failed", "llmvalidate_warning"), call = call
    )
  }
  validations <- new_llm_validations(result, validations, human = human)
  attr(validations, "run") <- run
  validations
}

