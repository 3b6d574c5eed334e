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

# The engine's names of the method settings, as `methods` names them: the table's settings that
# R spells methods[["validation"]], ... (c(validation = "validation_method", ...)).
method_settings <- function() {
  table <- engine_settings()
  rows <- startsWith(table$r, "methods[[")
  stats::setNames(table$name[rows], sub("^methods\\[\\[\"(.*)\"\\]\\]$", "\\1", table$r[rows]))
}

check_methods <- function(methods, call) {
  method_settings <- method_settings()
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

# preset = "paper": the engine's bundle of settings; what the call gives explicitly wins. Its
# methods go to `methods` (unless given), its other settings into `extra` under their R names.
apply_preset <- function(preset, methods, methods_given, extra, call) {
  presets <- .Call(llmv_presets)
  preset <- check_choice(preset, names(presets), "preset", call)
  values <- presets[[preset]]
  method_settings <- method_settings()
  if (!methods_given) {
    for (name in names(method_settings)) {
      setting <- method_settings[[name]]
      if (setting %in% names(values)) methods[[name]] <- values[[setting]]
    }
  }
  settings <- engine_settings()
  for (name in setdiff(names(values), method_settings)) {
    row <- settings[settings$name == name, , drop = FALSE]
    if (is.null(extra[[row$r]])) {
      extra[[row$r]] <- if (row$kind %in% c("integer", "number")) {
        as.numeric(values[[name]])
      } else {
        values[[name]]
      }
    }
  }
  list(methods = methods, extra = extra)
}

# The settings of the engine's table that llm_validate() takes through `...`: each one R
# spells and has no formal for, named by its R spelling, valued by its engine name. A setting
# added to the table with an R spelling is taken, checked and documented with no R code.
dots_settings <- function() {
  settings <- engine_settings()
  rows <- taken_through_dots(settings)
  stats::setNames(settings$name[rows], settings$r[rows])
}

# Which rows of a settings table (the engine's, or the generated settings_doc_table()) are
# validation settings R spells with no formal of llm_validate(): those `...` takes.
taken_through_dots <- function(table) {
  table$group == "validation" & !table$by_hand & nzchar(table$r) &
    !startsWith(table$r, "methods[[") & !table$r %in% names(formals(llm_validate))
}

# Settings `names` of the engine's record of a run (llmv_config_settings(): text by engine
# name), typed by the table's kinds: whole numbers as integers, numbers as doubles.
run_settings <- function(used, names) {
  table <- engine_settings()
  stats::setNames(lapply(names, function(name) {
    kind <- table$kind[table$name == name]
    switch(kind, integer = as.integer(used[[name]]), number = as.numeric(used[[name]]),
           used[[name]])
  }), names)
}

# The help of the table settings llm_validate() takes through `...`, one item each (name, what
# it does, what it allows, its default), from the generated settings_doc_table(): roxygen2
# writes it into ?llm_validate, so the help states the table's ranges and defaults.
dots_settings_help <- function() {
  table <- settings_doc_table()
  table <- table[taken_through_dots(table), , drop = FALSE]
  # Brackets of ranges are not links.
  escape <- function(x) gsub("([][])", "\\\\\\1", x)
  default <- ifelse(table$default == "the provider's", table$default,
                    paste0("`", table$default, "`"))
  paste0("\n\n", paste0("* `", table$r, "`: ", escape(table$doc), " Allowed: ",
                        escape(table$allowed), "; default ", default, ".", collapse = "\n"),
         "\n")
}

# The table settings among `extra` (R spellings), checked against the table's kinds and
# ranges: a list by engine name, for the engine's config (`settings`).
check_dots_settings <- function(extra, call) {
  spellings <- dots_settings()
  given <- list()
  for (r_name in intersect(names(spellings), names(extra))) {
    value <- extra[[r_name]]
    if (is.null(value)) next
    given[[spellings[[r_name]]]] <- check_table_value(value, spellings[[r_name]], r_name, call)
  }
  given
}

# One value of table setting `name` (spelled `arg` in R), by the setting's kind.
check_table_value <- function(x, name, arg, call) {
  settings <- engine_settings()
  row <- settings[settings$name == name, , drop = FALSE]
  switch(row$kind,
    choice = check_choice_setting(x, name, arg, call),
    flag = {
      if (!is.logical(x) || length(x) != 1 || is.na(x)) abort_argument(arg, "TRUE or FALSE", x, call)
      as.numeric(x)
    },
    seed = {
      if (!is_whole_number(x) || x < 0 || x > 2^53) {
        abort_argument(arg, "a whole number between 0 and 2^53", x, call)
      }
      format(x, scientific = FALSE)
    },
    check_setting(x, name, arg, call)
  )
}

# The price table the engine reads: the user's (option llmvalidate.price_table, or the
# environment variable LLMV_PRICE_TABLE, which the engine reads itself) or the shipped one.
price_table_path <- function() {
  own <- getOption("llmvalidate.price_table")
  if (!is.null(own)) return(as.character(own))
  if (nzchar(Sys.getenv("LLMV_PRICE_TABLE"))) return("")
  system.file("prompts", "prices.csv", package = "llmvalidate")
}
