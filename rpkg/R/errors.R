# Errors: every condition the package raises has class "llmvalidate_error" plus one class
# per stable engine code, so that callers can catch exactly what they expect:
#   llmv.input.invalid_embedding -> llmvalidate_error_invalid_embedding
#   llmv.provider.rate_limited   -> llmvalidate_error_rate_limited
#   llmv.transport.failed        -> llmvalidate_error_transport_failed
# one class per area (llmvalidate_error_input, llmvalidate_error_provider, ...), and one per
# category of the engine's error taxonomy (llmvalidate_error_invalid_input, ..._transport).
# Checks done in R raise the same classes as the engine would.

# The condition classes of an engine code, most specific first.
error_classes <- function(code) {
  parts <- strsplit(code, ".", fixed = TRUE)[[1]]
  parts <- parts[parts != "llmv"]
  if (length(parts) == 0) {
    parts <- "internal"
  }
  what <- parts[length(parts)]
  area <- if (length(parts) > 1) parts[1] else NULL
  # Generic last words ("failed", "invalid", "config") need their area to say anything.
  if (!is.null(area) && what %in% c("failed", "invalid", "config")) {
    what <- paste(area, what, sep = "_")
  }
  # The engine's category (usage, invalid_input, provider, transport, io, cancelled, internal).
  category <- .Call(llmv_error_category, code)
  classes <- paste0("llmvalidate_error_", c(what, area, category))
  c(unique(classes), "llmvalidate_error")
}

abort_llmv <- function(message, code, call = rlang::caller_env(), ...,
                       .envir = parent.frame()) {
  cli::cli_abort(
    message,
    class = error_classes(code),
    code = code,
    call = call,
    ...,
    .envir = .envir
  )
}

# Runs a glue function's result through: an engine error becomes a classed condition. Its
# message is already in R's terms; the condition also carries what the engine said it is about
# (`argument`, R's name of the setting, "" when none; `received`; `allowed`).
engine_result <- function(result, call = rlang::caller_env()) {
  if (inherits(result, "llmvalidate_engine_error")) {
    engine_message <- result$message
    abort_llmv("{engine_message}", code = result$code, call = call,
               argument = result$argument %||% "", received = result$received %||% "",
               allowed = result$allowed %||% "")
  }
  result
}

# --- Argument checks in R: name the argument, the value received and what is allowed -------

# "1 row", "2 rows": a count and its noun, singular for one.
count_of <- function(n, singular, plural = paste0(singular, "s")) {
  paste(trimws(format(n, big.mark = ",", scientific = FALSE)), ifelse(n == 1, singular, plural))
}

# "an integer", "a double": the indefinite article a word takes (by its first letter, which is
# right for the words these messages use: R's types and classes).
with_article <- function(word) {
  paste(ifelse(grepl("^[aeiouAEIOU]", word), "an", "a"), word)
}

# A short description of a value for messages.
describe_value <- function(x) {
  if (is.null(x)) {
    return("NULL")
  }
  if (is.data.frame(x)) {
    return(sprintf("a data frame with %s and %s", count_of(nrow(x), "row"),
                   count_of(ncol(x), "column")))
  }
  if (is.matrix(x)) {
    return(sprintf("%s matrix with %s and %s", with_article(typeof(x)),
                   count_of(nrow(x), "row"), count_of(ncol(x), "column")))
  }
  if (is.atomic(x) && length(x) == 1) {
    if (is.character(x)) {
      return(encodeString(x, quote = "\""))
    }
    return(format(x, digits = 15))
  }
  if (is.atomic(x)) {
    missing <- sum(is.na(x))
    return(sprintf("%s vector of length %d%s", with_article(typeof(x)), length(x),
                   if (missing > 0) paste(" with", count_of(missing, "missing value")) else ""))
  }
  if (is.list(x) && identical(class(x), "list")) {
    named <- if (is.null(names(x))) " without names" else ""
    return(sprintf("a list of length %d%s", length(x), named))
  }
  sprintf("an object of class <%s>", paste(class(x), collapse = "/"))
}

abort_argument <- function(arg, allowed, x, call, code = "llmv.input.invalid_argument") {
  received <- describe_value(x)
  abort_llmv(
    c("{.arg {arg}} must be {allowed}.", x = "Received {received}."),
    code = code,
    call = call
  )
}

check_number <- function(x, arg, lower, upper, open, call, allowed) {
  ok <- is.numeric(x) && length(x) == 1 && !is.na(x)
  if (ok) {
    ok <- if (open) x > lower && x < upper else x >= lower && x <= upper
  }
  if (!ok) {
    abort_argument(arg, allowed, x, call)
  }
  as.double(x)
}

# The engine's settings table (cpp/include/llmvalidate/settings.hpp): every setting's name
# per front end, default, range and documentation. R restates none of them.
# The engine's registry of test methods (stats.hpp): test, name, title, doc and draws (what its
# null distribution draws: "M" pool texts, "R" permutations, "B" reference texts). R's choices,
# its tests' `parameter` and what print() shows read it, never a list of method names of R's own.
engine_test_methods <- function(test) {
  methods <- as.data.frame(.Call(llmv_test_methods), stringsAsFactors = FALSE)
  methods[methods$test == test, , drop = FALSE]
}

method_names <- function(test) engine_test_methods(test)$name

# "M", "R" or "B" for the method `name` of `test`; NA for a name the registry does not have.
method_draws <- function(test, name) {
  methods <- engine_test_methods(test)
  methods$draws[match(name, methods$name)]
}

# The methods of `test` that draw B reference texts (they need `reference`).
reference_methods <- function(test) {
  methods <- engine_test_methods(test)
  methods$name[methods$draws == "B"]
}

engine_settings <- local({
  table <- NULL
  function() {
    if (is.null(table)) {
      table <<- as.data.frame(.Call(llmv_settings), stringsAsFactors = FALSE)
    }
    table
  }
})

# Checks one number against the engine's range for setting `name` and names it `arg`.
check_setting <- function(x, name, arg = name, call = rlang::caller_env()) {
  settings <- engine_settings()
  row <- settings[settings$name == name, , drop = FALSE]
  ok <- is.numeric(x) && length(x) == 1 && !is.na(x) && is.finite(x)
  if (ok) {
    ok <- (if (row$low_open) x > row$low else x >= row$low) &&
      (if (row$high_open) x < row$high else x <= row$high) &&
      (row$kind != "integer" || x == floor(x))
  }
  if (!ok) {
    abort_argument(arg, row$allowed, x, call)
  }
  if (row$kind == "integer") as.integer(x) else as.double(x)
}

# The engine's default of a setting, as R would type it.
setting_default <- function(name) {
  settings <- engine_settings()
  value <- settings$default[settings$name == name]
  if (settings$kind[settings$name == name] %in% c("integer", "number")) as.numeric(value) else value
}

check_alpha <- function(alpha, arg = "alpha", call = rlang::caller_env()) {
  check_setting(alpha, "alpha", arg, call)
}

check_threshold <- function(threshold, arg = "threshold", call = rlang::caller_env()) {
  check_setting(threshold, "threshold", arg, call)
}

is_whole_number <- function(x) {
  is.numeric(x) && length(x) == 1 && !is.na(x) && is.finite(x) && x == floor(x)
}

# Before any call: a warning for each test that cannot decide at this alpha and size (the
# engine's size_warnings(); every verdict would be "inconclusive"). Returns them invisibly.
warn_sizes <- function(config, call = rlang::caller_env()) {
  warnings <- engine_result(.Call(llmv_size_warnings, config), call = call)
  for (warning in warnings) {
    cli::cli_warn(c("!" = "{warning}"),
                  class = c("llmvalidate_warning_cannot_decide", "llmvalidate_warning"),
                  call = call)
  }
  invisible(warnings)
}

check_permutations <- function(permutations, call = rlang::caller_env()) {
  check_setting(permutations, "permutations", call = call)
}

# The engine's seed: NULL draws one from R's RNG, so that set.seed() governs.
resolve_seed <- function(seed, call = rlang::caller_env()) {
  if (is.null(seed)) {
    return(as.double(sample.int(.Machine$integer.max, 1)))
  }
  if (!is_whole_number(seed) || seed < 0 || seed > 2^53) {
    abort_argument("seed", "NULL or a whole number between 0 and 2^53", seed, call)
  }
  as.double(seed)
}

# `method = c("a", "b")` picks "a"; otherwise one string among the choices.
check_choice <- function(x, choices, arg, call = rlang::caller_env()) {
  if (identical(x, choices)) {
    return(choices[[1]])
  }
  if (!is.character(x) || length(x) != 1 || is.na(x) || !x %in% choices) {
    allowed <- paste0("one of ", paste0("\"", choices, "\"", collapse = ", "))
    abort_argument(arg, allowed, x, call)
  }
  x
}

# A choice setting of the engine's table: the values it allows come from there.
check_choice_setting <- function(x, name, arg = name, call = rlang::caller_env()) {
  settings <- engine_settings()
  choices <- strsplit(settings$choices[settings$name == name], ",", fixed = TRUE)[[1]]
  check_choice(x, choices, arg, call)
}

check_string <- function(x, arg, call = rlang::caller_env()) {
  if (!is.character(x) || length(x) != 1 || is.na(x)) {
    abort_argument(arg, "a single string", x, call)
  }
  x
}

# One label (e.g. a target): a string or a factor of length one.
check_label <- function(x, arg, call = rlang::caller_env()) {
  if (is.factor(x)) {
    x <- as.character(x)
  }
  if (!is.character(x) || length(x) != 1 || is.na(x)) {
    abort_argument(arg, "a single label (a string or a factor of length 1)", x, call)
  }
  x
}

check_labels <- function(x, arg, call = rlang::caller_env()) {
  if (is.factor(x)) {
    x <- as.character(x)
  }
  if (!is.character(x) || anyNA(x)) {
    abort_argument(arg, "a character vector without missing values", x, call)
  }
  x
}

# Embeddings: a numeric matrix with one row per text.
check_embeddings <- function(x, arg, call = rlang::caller_env()) {
  if (is.data.frame(x) && all(vapply(x, is.numeric, logical(1)))) {
    x <- as.matrix(x)
  }
  if (!is.matrix(x) || !is.numeric(x)) {
    abort_argument(arg, "a numeric matrix with one row per text", x, call,
                   code = "llmv.input.invalid_embedding")
  }
  storage.mode(x) <- "double"
  x
}

# One passage: a numeric vector (or a one-row matrix).
check_passage <- function(x, arg = "passage", call = rlang::caller_env()) {
  if (is.matrix(x) && nrow(x) == 1) {
    x <- x[1, ]
  }
  if (!is.numeric(x) || !is.null(dim(x)) || length(x) == 0) {
    abort_argument(arg, "a numeric vector (the embedding of one text)", x, call,
                   code = "llmv.input.invalid_embedding")
  }
  as.double(x)
}

check_reference <- function(reference, method, reference_methods,
                            call = rlang::caller_env()) {
  paper_method <- paste(reference_methods, collapse = "\" or \"")
  if (method %in% reference_methods) {
    if (is.null(reference)) {
      abort_argument(
        "reference",
        sprintf("a numeric matrix of B further texts when `method = \"%s\"`", method),
        reference, call
      )
    }
    return(check_embeddings(reference, "reference", call = call))
  }
  if (!is.null(reference)) {
    abort_argument(
      "reference", sprintf("NULL unless `method = \"%s\"`", paper_method), reference, call
    )
  }
  NULL
}
