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
#' only, and `ANTHROPIC_API_KEY` to Anthropic's hosts only: a server of your
#' own (`base_url`, `LLMV_BASE_URL`, `ANTHROPIC_BASE_URL`) gets a key only
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
#' llm_provider_openai()   # the engine's default model when the run starts
#' llm_provider_defaults() # which that is, per provider, with its date and source
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
llm_provider_simulated <- function(
                                   # BEGIN GENERATED formals: follow_probability label_signal annotator_accuracy unparseable_probability words
                                   follow_probability = 0.97, label_signal = 0.3,
                                   annotator_accuracy = 0.97, unparseable_probability = 0,
                                   words = 0
                                   # END GENERATED
                                   ) {
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
#' @details An embedding provider's key: its `api_key` when given; else the
#'   chat provider's key when the chat provider is the same vendor's on the same
#'   server (`llm_provider_openai()` with `llm_embedding_openai()`, both
#'   without a `base_url` or with the same one); else the vendor's environment
#'   variable (`OPENAI_API_KEY` for OpenAI's own hosts), or
#'   `LLMV_EMBEDDING_API_KEY` for a server of your own (`base_url`). Printing
#'   the provider says which, never the key.
#' @export
llm_embedding_openai <- function(model = NULL, base_url = NULL, api_key = NULL) {
  new_provider("openai", model, base_url, api_key, list(), "llm_embedding_provider")
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

# Where a provider's key comes from when the run starts, in words (never the key itself): the
# engine's rule (resolution.cpp) and its table's credential column.
key_source <- function(x) {
  if (!is.null(provider_key(x))) {
    return("<redacted> (given as `api_key`)")
  }
  if (grepl("^ollama", x$display %||% x$name)) {
    return("none needed")
  }
  if (x$name == "auto") {
    return("from the environment, that of the provider picked when the run starts")
  }
  defaults <- .Call(llmv_provider_defaults)
  embedding <- inherits(x, "llm_embedding_provider")
  kind <- if (embedding) "embedding" else "chat"
  row <- which(defaults$kind == kind & defaults$provider == x$name)
  variable <- if (length(row) == 1 && nzchar(defaults$credential[row])) {
    defaults$credential[row]
  } else {
    "the provider's environment variable"
  }
  # "as bedrock": the credentials of that chat provider's row.
  as_chat <- which(defaults$kind == "chat" & defaults$provider == sub("^as ", "", variable))
  if (startsWith(variable, "as ") && length(as_chat) == 1) variable <- defaults$credential[as_chat]
  if (!embedding) {
    if (!is.null(x$base_url) && x$name %in% c("openai", "anthropic")) {
      return(paste0("LLMV_API_KEY, or the variable `options = list(api_key_env = )` names ",
                    "(", if (x$name == "openai") "OPENAI_API_KEY goes to OpenAI's" else
                      "ANTHROPIC_API_KEY goes to Anthropic's", " hosts only)"))
    }
    return(paste("from the environment:", variable))
  }
  chat <- defaults$provider[defaults$kind == "chat" & defaults$embedding_provider == x$name]
  same <- if (length(chat) > 0) {
    sprintf("the chat provider's key when it is %s%s, ",
            paste0("llm_provider_", chat, "()", collapse = " or "),
            if (is.null(x$base_url)) " on the same server" else " with this base_url")
  } else {
    ""
  }
  paste0(same, "else ", if (is.null(x$base_url)) variable else "LLMV_EMBEDDING_API_KEY")
}

#' @export
format.llmv_provider <- function(x, ...) {
  kind <- if (inherits(x, "llm_embedding_provider")) "embedding provider" else "chat provider"
  key <- key_source(x)
  lines <- sprintf("<llmvalidate %s: %s>", kind, x$display %||% x$name)
  if (x$name != "simulated") {
    lines <- c(lines,
               sprintf("  model:    %s", x$model %||% "(provider default)"),
               sprintf("  base_url: %s",
                       without_url_credentials(x$base_url) %||% "(provider default)"),
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
#' profiles), with each model's lifecycle, the engine's default models marked
#' and whether the price table has each. The same list as
#' `llmvalidate models --provider P` on the command line and
#' `llmvalidate models, provider(P)` in Stata. Use it when a run stops because
#' a model "is not available at" a vendor, or warns that its model retires
#' soon: vendors retire models, and say so in these lists.
#'
#' The lifecycle is the vendor's own (OpenAI's `shutdown_date`, Anthropic's
#' `lifecycle` and `retires_at`, Bedrock's model lifecycle status and end of
#' life); where the vendor gives no date, the dated table shipped with the
#' package gives one, with its source. A run checks its models the same way
#' before its first call: a retired model stops it, one retiring within 60
#' days gives a warning (class `llmvalidate_warning_model_retiring`) with the
#' date and the vendor's replacement.
#'
#' @param provider The vendor: `"openai"`, `"anthropic"` or `"bedrock"`, or a
#'   provider object such as `llm_provider_openai(base_url = ...)`, whose
#'   vendor, base URL and key are used.
#' @param base_url `NULL` (the vendor's default or its environment variable, or
#'   the provider object's), or the base URL of the vendor's API.
#' @param cache `NULL` (ask the vendor), or a cache file: a list read from the
#'   vendor less than a day ago is returned from it, and a list read now is
#'   kept there, where runs on that cache read it instead of asking again.
#' @return A data frame with columns `id`, `name` (the vendor's display name),
#'   `kind` (`"model"` or `"inference profile"`), `status` (the vendor's
#'   lifecycle word, when given), `lifecycle` (`"active"`, `"deprecated"` or
#'   `"retired"`), `retires` (the retirement date, `"YYYY-MM-DD"`, or `""`),
#'   `replacement` (the vendor's recommended replacement, when known),
#'   `lifecycle_source` (`"vendor"`, or the shipped table's source of the
#'   date), `default_for` (`"chat"`, `"embedding"` or `""`) and `priced`.
#'   Its attribute `fetched` says when the vendor answered.
#' @export
#' @examples
#' \dontrun{
#' llm_models("anthropic")
#' llm_models(llm_provider_openai())
#' }
llm_models <- function(provider, base_url = NULL, cache = NULL) {
  api_key <- NULL
  if (inherits(provider, "llmv_provider")) {
    api_key <- provider_key(provider)
    base_url <- base_url %||% provider$base_url
    provider <- provider$name
  }
  provider <- check_string(provider, "provider")
  if (!is.null(base_url)) base_url <- check_string(base_url, "base_url")
  if (!is.null(cache)) cache <- path.expand(check_string(cache, "cache"))
  listed <- engine_result(.Call(llmv_models, provider, base_url %||% "", price_table_path(),
                                api_key %||% "", cache %||% ""))
  models <- tibble::as_tibble(listed$models)
  attr(models, "fetched") <- listed$fetched
  models
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
#' run's warning names it) rather than lost. The next run with that cache adds
#' them itself before its first call (a warning of class
#' `llmvalidate_warning_side_file` says so); this adds them now, to any cache,
#' so that a re-run pays nothing for them. The command-line tool does the same
#' with `llmvalidate cache --import FILE`.
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

#' Merge other caches into one
#'
#' A job split into shards (`llmvalidate batch --shard I/N`, one per machine or
#' cluster node, each with its own cache: SQLite's locking cannot be trusted on
#' a network file system) leaves one cache per shard. This adds every answer of
#' those caches to `cache`, so that a run over the whole corpus on it pays for
#' nothing again. Every key is kept once; a key `cache` already holds with
#' another answer (two shards that each paid for one request, such as a shared
#' pool of generated texts) is a conflict: `cache`'s answer is kept. The
#' command-line tool does the same with `llmvalidate cache --merge FILE...`.
#'
#' @param from The cache files to add, in order.
#' @param cache The cache file to add them to; the default is the per-user
#'   cache, [llm_cache_path()].
#' @return A data frame, invisibly, a row per file of `from`: `answers` (what
#'   it holds), `added` (new to `cache`), `same` (there already, identical) and
#'   `conflicts`.
#' @export
#' @examples
#' # Two empty shard caches merged into a third.
#' shards <- c(tempfile(fileext = ".sqlite"), tempfile(fileext = ".sqlite"))
#' for (shard in shards) llm_cache_merge(character(), cache = shard)
#' merged <- llm_cache_merge(shards, cache = tempfile(fileext = ".sqlite"))
#' merged
llm_cache_merge <- function(from, cache = getOption("llmvalidate.cache", llm_cache_path())) {
  call <- rlang::current_env()
  if (!is.character(from) || anyNA(from)) {
    abort_llmv(c("{.arg from} must be a character vector of cache files.",
                 x = "Received {.obj_type_friendly {from}}."),
               code = "llmv.input.invalid_argument", call = call)
  }
  cache <- path.expand(check_string(cache, "cache", call))
  merged <- engine_result(.Call(llmv_cache_merge, cache, path.expand(from)), call = call)
  for (i in seq_len(nrow(merged))) {
    cli::cli_inform(paste0("Merged {.file {merged$from[i]}} into {.file {cache}}: ",
                           "{merged$answers[i]} answers, {merged$added[i]} new, ",
                           "{merged$conflicts[i]} conflicting."))
  }
  invisible(merged)
}

# --- An ellmer Chat as the chat provider ------------------------------------------------------
#
# llm_validate(provider = <ellmer Chat>) runs on the Chat's vendor and model through the engine,
# as llm_provider_openai() (or _anthropic(), _bedrock()) with the same settings would. What is
# read from the Chat, for ellmer 0.2.0 to 0.5.0 (the tests run the installed version):
#   - chat$get_provider(): an S7 object; its class says the vendor, its `name` the service,
#     `base_url`, `extra_headers` (0.3.0 on), and the key: `credentials` (0.4.0 on, a function
#     of no argument) or `api_key` (a string, before 0.4.0);
#   - chat$get_model(): the model's name;
#   - the model's `params` and `extra_args` (ellmer's `api_args`): chat$get_model_object()
#     from 0.5.0 on, the provider's properties of those names before.

# The ellmer provider classes whose requests llmvalidate's own providers can make: OpenAI and
# servers that speak its Chat Completions API with a bearer key at `base_url`, Azure OpenAI
# (a key, not Entra ID), Anthropic, and Bedrock's Converse API. Only the Chat's own class
# counts, not its parents': ellmer derives services with other endpoints or other
# authentication (Databricks, Snowflake, Posit, Bedrock's Messages API, ...) from these.
ellmer_provider_classes <- c(
  ProviderOpenAI = "openai", ProviderOpenAICompatible = "openai", ProviderOllama = "openai",
  ProviderVllm = "openai", ProviderLMStudio = "openai", ProviderGroq = "openai",
  ProviderDeepSeek = "openai", ProviderOpenRouter = "openai", ProviderAzureOpenAI = "azure",
  ProviderAnthropic = "anthropic", ProviderAWSBedrock = "bedrock"
)

# The base URL each vendor's ellmer Chat has by default (ellmer's spelling, trailing slashes
# removed): left out of the provider, so that the engine takes the vendor's own default and
# reads the vendor's key, exactly as for llm_provider_openai() without `base_url`.
ellmer_vendor_urls <- c(
  openai = "^https://api\\.openai\\.com/v1$",
  anthropic = "^https://api\\.anthropic\\.com/v1$",
  bedrock = "^https://bedrock-runtime\\.[a-z0-9-]+\\.amazonaws\\.com$"
)

is_ellmer_chat <- function(x) {
  inherits(x, "Chat") && inherits(x, "R6") && is.function(x$get_provider)
}

is_single_string <- function(x) is.character(x) && length(x) == 1 && !is.na(x) && nzchar(x)

# A property of an ellmer S7 object, NULL when its class has none of that name.
ellmer_property <- function(object, name) {
  if (name %in% S7::prop_names(object)) S7::prop(object, name) else NULL
}

# `provider` unchanged unless it is an ellmer Chat, which becomes an `llm_provider`. `settings`
# are the names of the settings llm_validate() takes in `...`: the Chat's params of those names
# (after the engine's settings table) go to `$settings`, which the call's own settings override.
as_llm_provider <- function(provider, settings = character(), call = rlang::caller_env()) {
  if (!is_ellmer_chat(provider)) {
    return(provider)
  }
  rlang::check_installed(c("ellmer", "S7"), "to use an ellmer Chat as `provider`.", call = call)
  chat <- provider
  vendor <- chat$get_provider()
  class_name <- sub("^.*::", "", class(vendor)[[1]])
  service <- ellmer_property(vendor, "name") %||% class_name
  kind <- ellmer_provider_classes[class_name]
  if (is.na(kind)) {
    abort_llmv(
      c(paste("{.arg provider} must be a chat provider such as {.fn llm_provider_openai}, or an",
              "ellmer Chat of a provider class that llmvalidate can stand in for."),
        x = "Received an ellmer Chat with provider class {.cls {class_name}} ({service}).",
        i = "Allowed ellmer provider classes: {.code {names(ellmer_provider_classes)}}.",
        i = if (grepl("^ProviderAWSBedrock", class_name))
          "For Bedrock, make the Chat with {.code ellmer::chat_aws_bedrock(api = \"converse\")}."),
      code = "llmv.input.invalid_argument", call = call
    )
  }
  kind <- unname(kind)
  model <- chat$get_model()
  if (!is_single_string(model)) model <- NULL
  base_url <- sub("/+$", "", ellmer_property(vendor, "base_url") %||% "")
  ignored <- character()

  name <- if (kind == "azure") "openai" else kind
  options <- list()
  if (kind == "azure") {
    # ellmer keeps `<endpoint>/openai/deployments/<deployment>`; the engine wants the endpoint,
    # with the deployment as the model.
    parts <- regmatches(base_url, regexec("^(https?://.+)/openai/deployments/([^/]+)$", base_url))[[1]]
    if (length(parts) != 3) {
      abort_llmv(
        c(paste("{.arg provider} must be an Azure OpenAI Chat whose base URL is",
                "{.path <endpoint>/openai/deployments/<deployment>}, as {.fn ellmer::chat_azure_openai} makes it."),
          x = "Received a Chat with base URL {.url {base_url}}.",
          i = "Use {.code llm_provider_openai(base_url = , options = list(flavor = \"azure\"))}."),
        code = "llmv.input.invalid_argument", call = call
      )
    }
    base_url <- parts[[2]]
    model <- parts[[3]]
    options <- list(flavor = "azure")
    api_version <- ellmer_property(vendor, "api_version")
    if (is_single_string(api_version)) options$api_version <- api_version
  } else if (grepl(ellmer_vendor_urls[[kind]], tolower(base_url))) {
    base_url <- ""
  } else if (kind == "anthropic" && nzchar(base_url)) {
    # ellmer's Anthropic URLs end in /v1 (it posts to <base>/messages); the engine adds it.
    if (!grepl("/v1$", base_url)) {
      abort_llmv(
        c("{.arg provider} must be an Anthropic Chat whose base URL ends in {.path /v1}, as ellmer's do.",
          x = "Received a Chat with base URL {.url {base_url}}.",
          i = "Use {.code llm_provider_anthropic(base_url = )} with the URL before {.path /v1/messages}."),
        code = "llmv.input.invalid_argument", call = call
      )
    }
    base_url <- sub("/v1$", "", base_url)
  }

  # AWS credentials always come from the environment, as ellmer's do (paws.common).
  key <- if (kind != "bedrock") ellmer_key(vendor) else list(key = NULL, ignored = FALSE)
  if (key$ignored) ignored <- c(ignored, "credentials (a function that gives no key string)")
  if (length(ellmer_property(vendor, "extra_headers"))) ignored <- c(ignored, "api_headers")

  details <- if (is.function(chat$get_model_object)) chat$get_model_object() else vendor
  params <- ellmer_property(details, "params") %||% list()
  if (length(ellmer_property(details, "extra_args"))) ignored <- c(ignored, "api_args")
  taken <- ellmer_settings(params, settings, call)
  if (length(taken$ignored)) {
    ignored <- c(ignored, paste0("params$", taken$ignored))
  }

  converted <- new_provider(name, model, if (nzchar(base_url)) base_url else NULL, key$key,
                            options, "llm_provider", call = call)
  converted$display <- sprintf("%s (ellmer Chat: %s)", name, service)
  if (class_name == "ProviderOllama") converted$batch_api <- FALSE  # as llm_provider_ollama()
  converted$settings <- taken$settings
  if (length(ignored)) {
    usable <- ellmer_usable_params(settings)
    usable <- if (length(usable)) paste0("params$", usable) else "no params"
    cli::cli_warn(
      c("!" = "{.fn llm_validate} does not use these settings of the ellmer Chat: {.field {ignored}}.",
        i = paste("It takes a Chat's vendor, model, base URL, a key given as a string, and",
                  "{.field {usable}} (an argument of the call wins)."),
        i = if (key$ignored) "Give the key as a string, or set the variable the engine reads ({.fn llm_provider_defaults})."),
      class = c("llmvalidate_warning_ellmer_ignored", "llmvalidate_warning"), call = call
    )
  }
  converted
}

# The key of an ellmer provider, only when it is a string the user gave: list(key =, ignored =).
# ellmer's default credentials read a variable of its choosing (OPENAI_API_KEY even for another
# server), so that key is left to the engine, which reads each vendor's own variable and sends
# it to that vendor only.
ellmer_key <- function(vendor) {
  none <- list(key = NULL, ignored = FALSE)
  names <- S7::prop_names(vendor)
  if ("credentials" %in% names) {
    credentials <- S7::prop(vendor, "credentials")
    if (is.null(credentials)) {
      return(none)
    }
    if (is_single_string(credentials)) {
      return(list(key = credentials, ignored = FALSE))
    }
    if (!is.function(credentials)) {
      return(list(key = NULL, ignored = TRUE))
    }
    closure <- environment(credentials)
    if (!is.null(closure) && identical(topenv(closure), asNamespace("ellmer"))) {
      # ellmer's own function: a key given as `api_key` is kept in its closure; else it is
      # ellmer's default, which reads the environment.
      key <- get0("api_key", envir = closure, inherits = FALSE)
      return(list(key = if (is_single_string(key)) key, ignored = FALSE))
    }
    # The user's own function, called as ellmer calls it before each request.
    key <- tryCatch(credentials(), error = function(e) NULL)
    if (is_single_string(key)) {
      return(list(key = key, ignored = FALSE))
    }
    return(list(key = NULL, ignored = TRUE))
  }
  if ("api_key" %in% names) {
    # Before 0.4.0 the Chat holds the key as a string, read from an environment variable when
    # none was given: a key that is the value of one is left to the engine's own rules.
    key <- S7::prop(vendor, "api_key")
    if (is_single_string(key) && !key %in% Sys.getenv()) {
      return(list(key = key, ignored = FALSE))
    }
  }
  none
}

# The names of ellmer's standard params that llm_validate() takes as settings of the same name
# (the engine's settings table spells them so for R, and `...` accepts them).
ellmer_usable_params <- function(settings) {
  table <- engine_settings()
  same <- table$name[table$r == table$name]
  intersect(names(formals(ellmer::params)), intersect(same, settings))
}

# The Chat's params: those llm_validate() has a setting for, checked against the engine's table,
# and the names of the others (with ellmer's extra params).
ellmer_settings <- function(params, settings, call) {
  usable <- ellmer_usable_params(settings)
  extra <- names(params$extra_args)
  params$extra_args <- NULL
  taken <- list()
  for (name in intersect(names(params), usable)) {
    taken[[name]] <- check_setting(params[[name]], name, paste0("params$", name), call = call)
  }
  list(settings = taken, ignored = c(setdiff(names(params), usable), extra))
}
