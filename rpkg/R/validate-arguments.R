# The checks and settings of llm_validate()'s arguments before the engine is called.

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
apply_preset <- function(preset, methods, methods_given, structured, call,
                         parse_retries = NULL) {
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
  if (is.null(parse_retries) && "parse_retries" %in% names(values)) {
    parse_retries <- as.numeric(values[["parse_retries"]])
  }
  list(methods = methods, structured = structured, parse_retries = parse_retries)
}

# The price table the engine reads: the user's (option llmvalidate.price_table, or the
# environment variable LLMV_PRICE_TABLE, which the engine reads itself) or the shipped one.
price_table_path <- function() {
  own <- getOption("llmvalidate.price_table")
  if (!is.null(own)) return(as.character(own))
  if (nzchar(Sys.getenv("LLMV_PRICE_TABLE"))) return("")
  system.file("prompts", "prices.csv", package = "llmvalidate")
}
