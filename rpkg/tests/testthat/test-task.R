# llm_task(): a task built from its parts, checked by the engine's task parser when it is built,
# gives the results of the same task written as a TOML file; shipped tasks load for printing and
# changing; a general task without genre fails before any call.
stance_annotation <- "Classify the stance of this comment as one of: {labels}.\nCOMMENT: {text}"
stance_simulation <- paste("Write {n} comments from an investing forum that are {label} about",
                           "the stock, informal, one or two sentences each.")
comment <- "Loving this dip, buying more tomorrow."

stance_task <- function(...) {
  llm_task(c("Bullish", "Neutral", "Bearish"), stance_annotation, stance_simulation, ...)
}

# One passage: its llm_validation (llm_details(); llm_validate() gives a one-row table).
simulated <- function(task, ...) {
  llm_details(llm_validate(comment, task = task, provider = llm_provider_simulated(), M = 20,
                           n = 5, permutations = 99, seed = 7, cache = NULL, ...))
}

# Everything but the record of how the run was configured (a path or the task's text).
without_run <- function(validation) {
  validation$run <- NULL
  validation
}

test_that("a task built with llm_task() gives bit-identical results to the same TOML file", {
  path <- withr::local_tempfile(fileext = ".toml")
  writeLines(c(
    'name = "custom"',
    'labels = ["Bullish", "Neutral", "Bearish"]',
    "[annotation]",
    paste0("template = '''", stance_annotation, "'''"),
    "[simulation]",
    paste0("template = '''", stance_simulation, "'''")
  ), path)
  from_object <- simulated(stance_task())
  from_file <- simulated(path)
  expect_identical(without_run(from_object), without_run(from_file))
  expect_identical(from_object$validation$statistic, from_file$validation$statistic)
  # and its own toml text, written out, is that task too
  written <- withr::local_tempfile(fileext = ".toml")
  writeLines(stance_task()$toml, written)
  expect_identical(without_run(simulated(written)), without_run(from_object))
})

test_that("an llm_task prints its labels and prompts", {
  expect_snapshot(print(stance_task(name = "stance")))
  expect_snapshot(print(llm_task("general_sentiment")))
})

test_that("llm_task() loads a shipped task by name or alias and changes one part of it", {
  sentiment <- llm_task("sentiment")
  expect_s3_class(sentiment, "llm_task")
  expect_identical(sentiment$name, "simple_sentiment")
  expect_identical(sentiment$labels, c("Positive", "Neutral", "Negative"))
  expect_identical(as_llm_task("simple_sentiment")$toml, sentiment$toml)
  expect_identical(as_llm_task(sentiment), sentiment)
  tweets <- llm_task(sentiment, simulation = "Write {n} tweets about a stock that are {label}.")
  expect_identical(tweets$annotation, sentiment$annotation)
  expect_identical(tweets$label_case, "lower")
  expect_identical(tweets$name, "simple_sentiment")
  expect_match(tweets$toml, "Write {n} tweets", fixed = TRUE)
  # A shipped task given as an object runs like its name.
  expect_identical(without_run(simulated(sentiment)), without_run(simulated("sentiment")))
})

test_that("genre fills a general task's description of the texts", {
  general <- llm_task("general_sentiment", genre = "comments on a Reddit investing forum")
  expect_identical(general$variables, c(genre = "comments on a Reddit investing forum"))
  expect_identical(general$required, character(0))
  by_object <- simulated(general)
  by_variables <- simulated("general_sentiment",
                            variables = c(genre = "comments on a Reddit investing forum"))
  expect_identical(by_object$validation$statistic, by_variables$validation$statistic)
  expect_identical(by_object$label, by_variables$label)
})

test_that("a general task without genre fails before any call, naming genre", {
  expect_snapshot(error = TRUE, {
    simulated("general_sentiment")
    simulated(llm_task("general_sentiment"), dry_run = TRUE)
  })
  expect_error(simulated("general_sentiment"), class = "llmvalidate_error_task_invalid")
})

test_that("llm_task() checks its parts when it is built, naming the argument", {
  expect_snapshot(error = TRUE, {
    llm_task(c("A", "B"), "Classify this.", "Write {n} {label} texts.")
    llm_task(c("A", "B"), "Classify {text}", "Write {n} texts about {firm}.")
    llm_task(c("A", "B"), "Classify {text}", "Write {n} texts.")
    llm_task("A", "Classify {text}", "Write {n} {label} texts.")
    llm_task(c("A", "a"), "Classify {text}", "Write {n} {label} texts.")
    llm_task(c("A", "B"), "Classify {text}", "Write {n} {label} texts.", name = "My Task")
    llm_task(c("A", "B"), "Classify {text} }", "Write {n} {label} texts.")
    llm_task(c("A", "B"), "Classify {text}", "Write {n} {label} texts.", label_case = "upper")
    llm_task(c("A", "B"), "Classify {text}", "Write {n} {extra} texts.",
             label_instructions = list(extra = c(C = "x")))
    llm_task(c("A", "B"), "Classify {text}", "Write {n} {label} texts.", required = "label")
    llm_task(c("A", "B"), "Classify {text}")
    llm_task(c("A", "B"), simulation = "Write {n} {label} texts.")
    llm_task(c("A", NA), "Classify {text}", "Write {n} {label} texts.")
    llm_task(c("A", "B"), c("Classify {text}", "x"), "Write {n} {label} texts.")
    llm_task(c("A", "B"), "Classify {text}", "Write {n} {label} texts.", variables = "x")
    llm_task(c("A", "B"), "Classify {text}", "Write {n} {label} texts.",
             label_instructions = c(extra = "x"))
    llm_task(c("A", "B"), "Classify {text}", "Write {n} {label} texts.", colour = "red")
    llm_task(c("A", "B"), "Classify {text}", "Write {n} {label} texts.",
             backtranslation = "Label it: {text}")
    llm_task(c("A", "B"), "Classify {text}", "Write {n} {label} texts.", genre = "tweets")
    llm_task(c("A", "B"), "Classify {text}", "Write {n} {label} {genre}.", genre = 3)
    llm_task("sentimentt")
    as_llm_task("nosuch.toml")
    as_llm_task(3)
  })
})

test_that("backtranslation may repeat the annotation prompt, and genre declares a variable", {
  task <- llm_task(c("A", "B"), "Classify {text}", "Write {n} {label} {genre}.",
                   backtranslation = "Classify {text}", genre = "tweets")
  expect_identical(task$variables, c(genre = "tweets"))
})

test_that("llm_validate() refuses a task that is neither a name, a path nor an llm_task", {
  expect_snapshot(error = TRUE, simulated(list(labels = "a")))
})
