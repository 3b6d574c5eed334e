#' Build a task: the label set and the prompts of a validation
#'
#' A task says what the model annotates and how it simulates texts: the label
#' set, the annotation prompt (passage to label) and the simulation prompt
#' (label to `n` texts). **The simulation prompt must describe your texts**
#' (their kind, style and length; Hansen 2026, Section 4.1): the tests compare
#' the texts it makes the model write with your passage, so a prompt that
#' describes other texts gives spurious "invalid" verdicts.
#'
#' `llm_task()` checks the task when it is built, with the same checker as a
#' task file (the engine's): every placeholder must be allowed where it is used.
#' The annotation prompt must quote the passage with `{text}` and may use
#' `{labels}` (the label set joined by ", "); the simulation prompt must use
#' `{label}` (the label simulated) and may use `{n}` (texts per call),
#' `{labels}`, `{length}` (the passage's word count) and `{example}` (the
#' passage itself). Both may use your own variables (`variables`, `required`,
#' `genre`). Write `{{` and `}}` for literal braces.
#'
#' `llm_task("sentiment")` (a shipped task's name or alias, or the path of a
#' task file) loads a task so that you can print it and change it:
#' `llm_task(task, simulation = "...")` keeps every part you do not give.
#' Shipped tasks are of two kinds (see `system.file("prompts", "README.md",
#' package = "llmvalidate")`): paper tasks keep the paper's prompts, most of
#' which describe a bank's 10-K filing; general tasks, such as
#' `"general_sentiment"`, require `genre`, a description of your texts.
#'
#' @param labels The label set, a character vector of at least two labels;
#'   or a task to load or to change (a shipped task's name, the path of a task
#'   file, or an `llm_task`).
#' @param annotation The annotation prompt, with `{text}`.
#' @param simulation The simulation prompt, with `{label}`; it describes your
#'   texts.
#' @param backtranslation `NULL` (the default) or the annotation prompt: the
#'   model labels its own texts back with the annotation prompt, as in the
#'   paper.
#' @param name The task's name: lower-case letters, digits, `_` or `-`.
#' @param ... Further parts of a task (the fields of a task file):
#'   `annotation_format` and `simulation_format` (the instructions on the JSON
#'   answer appended to each prompt; `NULL` takes the engine's, `""` sends
#'   none), `label_case` (`"as_is"` or `"lower"`: how `{label}` is spelled),
#'   `label_instructions` (a named list of named character vectors: a
#'   placeholder of the simulation prompt with a value per label, e.g.
#'   `list(extra = c(Neutral = "A neutral passage ..."))`), `variables` (a named
#'   character vector of placeholders with default values), `required` (names
#'   of placeholders that must be given at run time, in `llm_validate(...,
#'   variables = )`), `variable_descriptions` (a named character vector that
#'   says what a variable holds, quoted when a required one is missing),
#'   `title`, `description` and `source`.
#' @param genre `NULL`, or a description of your texts (kind, style, length,
#'   e.g. `"comments on a Reddit investing forum, informal, one to three
#'   sentences"`) for a simulation prompt with `{genre}`, such as the general
#'   tasks'.
#' @return An `llm_task` object: a list with the parts above and `toml`, the
#'   task file's text (write it with `writeLines(task$toml, "my_task.toml")`).
#'   Give it to [llm_validate()] as `task`.
#' @export
#' @examples
#' task <- llm_task(
#'   labels = c("Hawkish", "Neutral", "Dovish"),
#'   annotation = paste("Classify the monetary policy stance of this passage as one of:",
#'                      "{labels}.\nPASSAGE: {text}"),
#'   simulation = paste("Write {n} sentences from FOMC statements whose policy stance is",
#'                      "{label}. Formal central-bank style, around 30 words each."),
#'   name = "fomc_stance"
#' )
#' task
#' llm_task("general_sentiment", genre = "short informal comments on an investing forum")
llm_task <- function(labels, annotation, simulation, backtranslation = NULL, name = "custom", ...,
                     genre = NULL) {
  call <- rlang::current_env()
  extra <- check_settings(list(...), task_extra_parts, call)
  base <- NULL
  if (inherits(labels, "llm_task")) {
    base <- labels
  } else if (is.character(labels) && length(labels) == 1 && !is.na(labels) &&
               missing(annotation) && missing(simulation)) {
    base <- read_task(labels, "labels", call)
  }
  parts <- if (is.null(base)) list() else unclass(base)[task_parts]
  if (is.null(base)) parts$labels <- labels
  if (!missing(annotation)) parts$annotation <- annotation
  if (!missing(simulation)) parts$simulation <- simulation
  if (is.null(base) || !missing(name)) parts$name <- name
  for (part in names(extra)) parts[part] <- list(extra[[part]])
  if (is.null(base) && is.null(extra$label_case)) parts$label_case <- NULL

  if (is.null(base) && missing(annotation)) {
    abort_argument("annotation", "the annotation prompt, a single string with {text}", NULL, call)
  }
  if (is.null(base) && missing(simulation)) {
    abort_argument("simulation", "the simulation prompt, a single string with {label}", NULL, call)
  }
  check_task_parts(parts, call)
  if (!is.null(backtranslation) &&
        !(is.character(backtranslation) && length(backtranslation) == 1 &&
            identical(backtranslation, parts$annotation))) {
    abort_argument("backtranslation", paste(
      "NULL or the annotation prompt: the model labels its own texts back with the",
      "annotation prompt (as in the paper); to change both, change `annotation`"),
      backtranslation, call)
  }
  if (!is.null(genre)) {
    genre <- check_string(genre, "genre", call)
    if (!grepl("{genre}", parts$simulation, fixed = TRUE)) {
      abort_argument("genre", paste(
        "NULL for a simulation prompt without {genre}; describe your texts in",
        "`simulation` itself, or add {genre} to it"), genre, call)
    }
    parts$variables <- c(parts$variables[names(parts$variables) != "genre"], genre = genre)
    parts$required <- setdiff(parts$required, "genre")
  }
  if (!is.null(base) && missing(annotation) && missing(simulation) && missing(name) &&
        length(extra) == 0 && is.null(genre)) {
    return(base)  # loaded as it is: keep the file's own text
  }
  new_llm_task(engine_result(.Call(llmv_task_build, parts), call = call))
}

#' @rdname llm_task
#' @param x A shipped task's name or alias, the path of a task file, or an
#'   `llm_task`.
#' @export
as_llm_task <- function(x) {
  if (inherits(x, "llm_task")) {
    return(x)
  }
  call <- rlang::current_env()
  if (!is.character(x) || length(x) != 1 || is.na(x)) {
    abort_argument("x", "a shipped task name, the path of a task file or an `llm_task`", x, call)
  }
  read_task(x, "x", call)
}

# The parts of an llm_task given to the engine (R names; the engine maps them to TOML fields).
task_parts <- c("name", "title", "description", "source", "labels", "annotation",
                "annotation_format", "simulation", "simulation_format", "label_case",
                "label_instructions", "variables", "required", "variable_descriptions")
task_extra_parts <- c("annotation_format", "simulation_format", "label_case",
                      "label_instructions", "variables", "required", "variable_descriptions",
                      "title", "description", "source")

new_llm_task <- function(fields) {
  structure(fields, class = "llm_task")
}

# A shipped task by name or alias, or a task file, with its text. `arg` names the argument.
read_task <- function(task, arg, call) {
  prompts <- system.file("prompts", package = "llmvalidate", mustWork = TRUE)
  if (file.exists(task) && !dir.exists(task)) {
    task <- normalizePath(task)
  } else if (grepl("/", task, fixed = TRUE) || grepl("[.]toml$", task) ||
               !file.exists(file.path(prompts, paste0(canonical_task(task, prompts), ".toml")))) {
    shipped <- engine_result(.Call(llmv_describe_tasks, prompts), call = call)
    abort_argument(arg, paste0(
      if (arg == "labels") "a label set (with `annotation` and `simulation`), " else "",
      "the path of a task file that exists, or a shipped task: ", shipped), task, call,
      code = "llmv.task.invalid")
  }
  new_llm_task(engine_result(.Call(llmv_task_read, task, prompts), call = call))
}

# The file name of a shipped task or alias (the engine's catalog), without checking it exists.
canonical_task <- function(task, prompts) {
  path <- tryCatch(.Call(llmv_task_file, task, prompts), error = function(e) NULL)
  if (is.character(path)) sub("[.]toml$", "", basename(path)) else task
}

# R types only; what the values may be is the engine's check.
check_task_parts <- function(parts, call) {
  if (!is.character(parts$labels) || anyNA(parts$labels)) {
    abort_argument("labels", "a character vector of labels without missing values", parts$labels,
                   call)
  }
  for (arg in c("annotation", "simulation", "name", "title", "description", "source",
                "label_case")) {
    if (!is.null(parts[[arg]])) check_string(parts[[arg]], arg, call)
  }
  for (arg in c("annotation_format", "simulation_format")) {
    if (!is.null(parts[[arg]])) {
      check_string(parts[[arg]], arg, call)
    }
  }
  for (arg in c("variables", "variable_descriptions")) {
    value <- parts[[arg]]
    if (length(value) > 0 && !is_named_strings(value)) {
      abort_argument(arg, "a named character vector, e.g. c(genre = \"customer reviews\")",
                     value, call)
    }
  }
  if (!is.null(parts$required) && (!is.character(parts$required) || anyNA(parts$required))) {
    abort_argument("required", "a character vector of variable names", parts$required, call)
  }
  instructions <- parts$label_instructions
  if (length(instructions) > 0 &&
        (!is.list(instructions) || is.null(names(instructions)) ||
           !all(vapply(instructions, is_named_strings, logical(1))))) {
    abort_argument("label_instructions", paste(
      "a named list of named character vectors, one value per label, e.g.",
      "list(extra = c(Neutral = \"...\"))"), instructions, call)
  }
  invisible(parts)
}

is_named_strings <- function(x) {
  is.character(x) && !anyNA(x) && !is.null(names(x)) && all(nzchar(names(x)))
}

#' @export
print.llm_task <- function(x, ...) {
  indent <- function(text) paste0("  ", gsub("\n", "\n  ", text, fixed = TRUE))
  cat("<llm_task> ", x$name, if (nzchar(x$title)) paste0(": ", x$title), "\n", sep = "")
  cat("Labels: ", paste(x$labels, collapse = ", "), "\n", sep = "")
  if (nzchar(x$source)) cat("Source: ", x$source, "\n", sep = "")
  if (!is.null(x$file)) cat("File: ", basename(x$file), "\n", sep = "")
  if (length(x$required) > 0) {
    cat("Requires: ", paste(x$required, collapse = ", "),
        " (give it with llm_validate(..., variables = c(", x$required[1], " = \"...\"))",
        if ("genre" %in% x$required) " or llm_task(task, genre = \"...\")", ")\n", sep = "")
  }
  if (length(x$variables) > 0) {
    cat("Variables: ", paste0(names(x$variables), " = ", encodeString(x$variables, quote = "\""),
                              collapse = ", "), "\n", sep = "")
  }
  cat("Annotation prompt:\n", indent(x$annotation), "\n", sep = "")
  cat("Simulation prompt", if (identical(x$label_case, "lower")) " ({label} in lower case)",
      ":\n", indent(x$simulation), "\n", sep = "")
  for (variable in names(x$label_instructions)) {
    values <- x$label_instructions[[variable]]
    cat("Per-label {", variable, "}:\n",
        paste0("  ", names(values), ": ", values, collapse = "\n"), "\n", sep = "")
  }
  invisible(x)
}
