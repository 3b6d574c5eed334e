#' Chat and embedding providers
#'
#' Describe the model that annotates and writes texts (a chat provider) and the
#' model that embeds them (an embedding provider), for [llm_validate()]. Like
#' 'ellmer', a provider is a small object; nothing is contacted when it is
#' created.
#'
#' Keys are read from environment variables when the run starts
#' (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `AWS_BEARER_TOKEN_BEDROCK` or
#' `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`), unless `api_key` is given.
#' Bedrock takes its region from `AWS_REGION` (or `AWS_DEFAULT_REGION`) and signs
#' requests with AWS Signature Version 4 unless a bearer token is set; Azure
#' OpenAI is `llm_provider_openai(base_url = , options = list(flavor = "azure"))`
#' with `AZURE_OPENAI_API_KEY`. `OPENAI_API_KEY` is sent to OpenAI's hosts
#' only: a server of your own (`base_url`, `LLMV_BASE_URL`) gets a key only
#' when one is named for it: `api_key`, `options = list(api_key_env = )`, else
#' `LLMV_API_KEY` (`LLMV_EMBEDDING_API_KEY` for an embedding server other than
#' the chat server).
#'
#' Printing a provider never shows a key, and keys are removed from every
#' error message the provider's answers lead to.
#'
#' Anthropic offers no embedding model; pair `llm_provider_anthropic()` with
#' [llm_embedding_openai()], [llm_embedding_bedrock()] or
#' [llm_embedding_ollama()] (the paper insists on one embedding model for every
#' text of a validation, whichever it is).
#'
#' `llm_provider_simulated()` is not a language model: it is the documented
#' synthetic data-generating process of the engine (texts are drawn from label
#' lexicons, the annotator answers with the given accuracy). Results made with
#' it are marked as synthetic. Use it to try the package offline, for power
#' analysis, and in examples.
#'
#' @param model Model name; `NULL` takes `llm_validate(model = )`, else
#'   `LLMV_MODEL` (`LLMV_EMBEDDING_MODEL` for an embedding provider), else the
#'   provider's default from the engine's table ([llm_provider_defaults()]). A
#'   server of your own (`base_url`) has no default model: name the one it
#'   serves.
#' @param base_url Base URL of the API; `NULL` takes the provider's default or
#'   its environment variable (`OPENAI_BASE_URL`, `OLLAMA_HOST`, ...).
#' @param api_key The key; `NULL` (recommended) reads the environment variable
#'   when the run starts.
#' @param options A named list of further provider options (strings), e.g.
#'   `list(flavor = "azure")` for Azure OpenAI.
#' @return An object of class `llm_provider` (chat) or `llm_embedding_provider`.
#' @name llm_provider
#' @examples
#' llm_provider_openai(model = "gpt-4.1-mini")
#' llm_provider_simulated(annotator_accuracy = 0.8)
NULL

new_provider <- function(name, model, base_url, api_key, options, class, simulated = NULL,
                         call = rlang::caller_env()) {
  if (!is.null(model)) model <- check_string(model, "model", call = call)
  if (!is.null(base_url)) base_url <- check_string(base_url, "base_url", call = call)
  if (!is.null(api_key)) api_key <- check_string(api_key, "api_key", call = call)
  if (!is.list(options) || (length(options) > 0 && is.null(names(options)))) {
    abort_argument("options", "a named list of strings", options, call)
  }
  # The key lives in an environment, so that str(), dput() and a printed list show
  # `<environment>`, never the key itself.
  secret <- new.env(parent = emptyenv())
  secret$api_key <- api_key
  structure(
    list(name = name, model = model, base_url = base_url, secret = secret,
         options = lapply(options, as.character), simulated = simulated),
    class = c(class, "llmv_provider")
  )
}

# The key a provider was given (NULL: read from the environment when the run starts).
provider_key <- function(provider) {
  if (is.environment(provider$secret)) provider$secret$api_key else NULL
}

#' @rdname llm_provider
#' @export
llm_provider_openai <- function(model = NULL, base_url = NULL, api_key = NULL, options = list()) {
  new_provider("openai", model, base_url, api_key, options, "llm_provider")
}

#' @rdname llm_provider
#' @export
llm_provider_anthropic <- function(model = NULL, base_url = NULL, api_key = NULL,
                                   options = list()) {
  new_provider("anthropic", model, base_url, api_key, options, "llm_provider")
}

#' @rdname llm_provider
#' @export
llm_provider_bedrock <- function(model = NULL, base_url = NULL, api_key = NULL,
                                 options = list()) {
  new_provider("bedrock", model, base_url, api_key, options, "llm_provider")
}

#' @rdname llm_provider
#' @details `llm_provider_ollama()` speaks Ollama's OpenAI-compatible API at
#'   `base_url` (default `http://localhost:11434/v1`); no key is needed.
#' @export
llm_provider_ollama <- function(model = NULL, base_url = "http://localhost:11434/v1",
                                options = list()) {
  provider <- new_provider("openai", model, base_url, NULL, options, "llm_provider")
  provider$display <- "ollama (OpenAI-compatible API)"
  provider$batch_api <- FALSE  # Ollama has no batch API
  provider
}

#' @rdname llm_provider
#' @param follow_probability Probability that a generated text is written in
#'   the requested label.
#' @param label_signal Share of a generated text's words drawn from its label's
#'   lexicon (0: the label leaves no trace).
#' @param annotator_accuracy Probability that the simulated annotator returns
#'   the text's latent label.
#' @param unparseable_probability Probability that an answer is not valid JSON.
#' @param words Words per generated text; 0 takes the passage's length.
#' @export
llm_provider_simulated <- function(follow_probability = 0.97, label_signal = 0.3,
                                   annotator_accuracy = 0.97, unparseable_probability = 0,
                                   words = 0) {
  call <- rlang::current_env()
  # Ranges and messages: the engine's settings table (its "simulated" group).
  dgp <- list(
    follow_probability = check_setting(follow_probability, "follow_probability", call = call),
    label_signal = check_setting(label_signal, "label_signal", call = call),
    annotator_accuracy = check_setting(annotator_accuracy, "annotator_accuracy", call = call),
    unparseable_probability = check_setting(unparseable_probability, "unparseable_probability",
                                            call = call),
    words = as.double(check_setting(words, "words", call = call))
  )
  new_provider("simulated", NULL, NULL, NULL, list(), "llm_provider", simulated = dgp)
}

#' @rdname llm_provider
#' @export
llm_embedding_openai <- function(model = NULL, base_url = NULL) {
  new_provider("openai", model, base_url, NULL, list(), "llm_embedding_provider")
}

#' @rdname llm_provider
#' @export
llm_embedding_bedrock <- function(model = NULL, base_url = NULL) {
  new_provider("bedrock-titan", model, base_url, NULL, list(), "llm_embedding_provider")
}

#' @rdname llm_provider
#' @export
llm_embedding_ollama <- function(model = NULL, base_url = NULL) {
  new_provider("ollama", model, base_url, NULL, list(), "llm_embedding_provider")
}

#' @rdname llm_provider
#' @details `llm_embedding_simulated()` is the engine's hashed bag-of-words
#'   embedder: deterministic, offline, not a language model.
#' @export
llm_embedding_simulated <- function() {
  new_provider("simulated", NULL, NULL, NULL, list(), "llm_embedding_provider")
}

#' @export
format.llmv_provider <- function(x, ...) {
  kind <- if (inherits(x, "llm_embedding_provider")) "embedding provider" else "chat provider"
  key <- if (!is.null(provider_key(x))) {
    "<redacted>"
  } else if (grepl("^ollama", x$display %||% x$name)) {
    "none needed"
  } else {
    "from the environment"
  }
  lines <- sprintf("<llmvalidate %s: %s>", kind, x$display %||% x$name)
  if (x$name != "simulated") {
    lines <- c(lines,
               sprintf("  model:    %s", x$model %||% "(provider default)"),
               sprintf("  base_url: %s", x$base_url %||% "(provider default)"),
               sprintf("  key:      %s", key))
  } else {
    lines <- c(lines, "  synthetic: a simulated data-generating process, not a language model")
    if (!is.null(x$simulated)) {
      dgp <- x$simulated
      lines <- c(lines, sprintf("  %s = %s", names(dgp), vapply(dgp, format, "")))
    }
  }
  lines
}

#' @export
print.llmv_provider <- function(x, ...) {
  cat(format(x), sep = "\n")
  invisible(x)
}

`%||%` <- function(x, y) if (is.null(x)) y else x

# `provider = NULL` without the llmvalidate.provider option: the engine picks the provider the
# environment configures (resolution.hpp), as the command-line tool and Stata do.
auto_provider <- function() {
  new_provider("auto", NULL, NULL, NULL, list(), "llm_provider")
}

#' Default models and credentials of each provider
#'
#' The engine's one table of provider defaults, the same for R, Stata and the
#' command-line tool: the model each provider uses when none is given, the
#' embedding provider of the same vendor (the only one that may receive the
#' chat provider's key and base URL), and where each key is read from. The
#' `simulated` and `hashed` rows are the synthetic stand-ins (a data-generating
#' process and a hashed bag of words), not language models.
#'
#' @return A data frame with columns `kind` (`"chat"` or `"embedding"`),
#'   `provider`, `model`, `embedding_provider`, `credential`, `checked` (the
#'   date the default was last compared with the vendor's catalogue) and
#'   `source` (where that catalogue was read), `key_variables` (a list column:
#'   the environment variables that hold the provider's secrets, which no
#'   message shows), `auto_rank` (the order in which `provider = "auto"` tries
#'   the chat providers; 0: never) and `batch_api` (the vendor's batch API is
#'   supported: `batch = TRUE`). [llm_models()] lists what a vendor serves
#'   today.
#' @export
#' @examples
#' llm_provider_defaults()
llm_provider_defaults <- function() {
  defaults <- .Call(llmv_provider_defaults)
  tibble::as_tibble(defaults)
}

#' The models a vendor serves, from its own API
#'
#' Asks the vendor for the models your credentials can use (OpenAI and
#' Anthropic `GET /v1/models`; Bedrock `ListFoundationModels` and its inference
#' profiles), with the engine's default models marked and whether the price
#' table has each. The same list as `llmvalidate models --provider P` on the
#' command line. Use it when a
#' run stops because a model "is not available at" a vendor: vendors retire
#' models.
#'
#' @param provider The vendor: `"openai"`, `"anthropic"` or `"bedrock"`.
#' @param base_url `NULL` (the vendor's default or its environment variable),
#'   or the base URL of the vendor's API.
#' @return A data frame with columns `id`, `name` (the vendor's display name),
#'   `kind` (`"model"` or `"inference profile"`), `status` (the vendor's
#'   lifecycle word, when given), `default_for` (`"chat"`, `"embedding"` or
#'   `""`) and `priced`.
#' @export
#' @examples
#' \dontrun{
#' llm_models("anthropic")
#' }
llm_models <- function(provider, base_url = NULL) {
  provider <- check_string(provider, "provider")
  if (!is.null(base_url)) base_url <- check_string(base_url, "base_url")
  listed <- engine_result(.Call(llmv_models, provider, base_url %||% "", price_table_path()))
  tibble::as_tibble(listed$models)
}

#' Where llm_validate() caches answers
#'
#' The per-user cache file every front end shares: `LLMV_CACHE` when set,
#' else `cache.sqlite` in `tools::R_user_dir("llmvalidate", "cache")`. The
#' command-line tool (`llmvalidate cache --path`) and Stata use the same file,
#' so an answer paid for from one is read free from the others. Nothing is
#' created until a run with a real provider writes to it. To cache nothing,
#' give `cache = FALSE` to [llm_validate()] or set
#' `options(llmvalidate.cache = FALSE)`; `options(llmvalidate.cache = NULL)`
#' removes the option, so this default file is used again.
#'
#' @return The path, a string.
#' @export
#' @examples
#' llm_cache_path()
llm_cache_path <- function() {
  .Call(llmv_default_cache_path)
}

#' Add answers from a side file to a cache
#'
#' When another process holds the cache file's lock through every retry of a
#' run, the answers the run paid for are written to a side file instead (the
#' run's warning names it) rather than lost. This adds them to a cache, so that
#' a re-run pays nothing for them. The command-line tool does the same with
#' `llmvalidate cache --import FILE`.
#'
#' @param side_file The side file the warning named (JSON lines).
#' @param cache The cache file to add them to; the default is the per-user
#'   cache, [llm_cache_path()].
#' @return The number of answers added, invisibly.
#' @export
#' @examples
#' # A side file of one answer (as a locked cache leaves them) into a new cache.
#' side_file <- tempfile(fileext = ".jsonl")
#' writeLines(character(), side_file)
#' cache <- tempfile(fileext = ".sqlite")
#' llm_cache_import(side_file, cache = cache)
llm_cache_import <- function(side_file, cache = getOption("llmvalidate.cache", llm_cache_path())) {
  call <- rlang::current_env()
  side_file <- check_string(side_file, "side_file", call)
  cache <- path.expand(check_string(cache, "cache", call))
  added <- engine_result(.Call(llmv_cache_import, cache, path.expand(side_file)), call = call)
  cli::cli_inform("Imported {added} answer{?s} into {.file {cache}}.")
  invisible(added)
}
