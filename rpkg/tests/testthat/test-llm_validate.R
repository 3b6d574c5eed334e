# llm_validate() end to end with the simulated provider (a synthetic data-generating process,
# no network), small M and n so that the suite stays fast.
passage <- "Revenue grew strongly and margins improved across every segment this year."

# One string gives the same table as several (issue 42); its passage's llm_validation is
# llm_details() away, which the tests of one passage read.
simulated_table <- function(text = passage, ...) {
  llm_validate(text, task = "sentiment", provider = llm_provider_simulated(),
               M = 20, n = 5, permutations = 199, ...)
}
simulated_run <- function(text = passage, ...) {
  result <- simulated_table(text, ...)
  if (length(text) == 1 && inherits(result, "llm_validations")) llm_details(result) else result
}

test_that("one string gives a one-row llm_validations table, as several do", {
  table <- simulated_table(seed = 11)
  expect_s3_class(table, "llm_validations")
  expect_identical(nrow(table), 1L)
  expect_identical(table$id, "1")
  expect_s3_class(table$validation[[1]], "llm_validation")
  details <- llm_details(table)
  expect_identical(details$validation, table$validation[[1]]$validation)
  expect_identical(details$label, table$label)
  expect_identical(llm_details(table, "1")$validation, details$validation)
  expect_error(llm_details(table, 2), class = "llmvalidate_error_invalid_argument")
  expect_error(llm_details(table$validation[[1]]), class = "llmvalidate_error_invalid_argument")
})

test_that("one passage's details are an llm_validation marked synthetic", {
  validation <- simulated_run(seed = 11)
  expect_s3_class(validation, "llm_validation")
  expect_true(validation$label %in% c("Positive", "Neutral", "Negative"))
  expect_true(validation$verdict %in% c("valid", "invalid", "inconclusive"))
  expect_true(validation$synthetic)
  expect_equal(unname(validation$validation$parameter[[1]]), 20)
  expect_output(print(validation), "Synthetic: simulated provider")
  expect_s3_class(as.data.frame(validation), "data.frame")
})

test_that("set.seed() makes a run reproducible and seed = NULL follows R's RNG", {
  set.seed(3)
  first <- simulated_run()
  set.seed(3)
  second <- simulated_run()
  expect_identical(first$seed, second$seed)
  expect_identical(first$validation$statistic, second$validation$statistic)
  expect_identical(first$validation$p.value, second$validation$p.value)
})

test_that("many passages give an llm_validations data frame, one row per passage", {
  texts <- c(a = passage, b = "Losses widened and the outlook was cut sharply.")
  validations <- simulated_run(texts, seed = 5, human = c("Positive", "Negative"))
  expect_s3_class(validations, "llm_validations")
  expect_s3_class(validations, "data.frame")
  expect_identical(validations$id, c("a", "b"))
  expect_identical(validations$human, c("Positive", "Negative"))
  expect_true(all(validations$verdict %in% c("valid", "invalid", "inconclusive")))
  expect_s3_class(validations$validation[[2]], "llm_validation")
  expect_output(print(validations), "Synthetic")
})

test_that("a re-run with the same cache and seed reproduces identical numbers", {
  # The simulated provider's answers are fixed by the request, like cached answers; the
  # cache itself is exercised against the fake server (test-fake-server.R).
  cache <- withr::local_tempfile(fileext = ".sqlite")
  first <- simulated_run(seed = 7, cache = cache)
  second <- simulated_run(seed = 7, cache = cache)
  expect_identical(first$validation$statistic, second$validation$statistic)
  expect_identical(first$validation$p.value, second$validation$p.value)
  expect_identical(first$separation[[1]]$statistic, second$separation[[1]]$statistic)
  expect_identical(first$verdict, second$verdict)
  other_seed <- simulated_run(seed = 8, cache = cache)
  expect_false(identical(first$validation$statistic, other_seed$validation$statistic))
})

test_that("dry_run counts R + K*ceil(M/n) + M chat calls and K*M + 1 texts", {
  labels_k <- 3  # sentiment: Positive, Neutral, Negative
  m <- 20
  n <- 5
  expect_output(report <- simulated_run(seed = 1, dry_run = TRUE), "chat calls")
  expect_s3_class(report, "llm_dry_run")
  expect_equal(report$calls[["chat_calls"]], 1 + labels_k * ceiling(m / n) + m)
  expect_equal(report$calls[["embedded_texts"]], labels_k * m + 1)
  expect_true(report$synthetic)
  # The price: a tibble with one row per model; the simulated provider costs nothing.
  expect_s3_class(report$cost, "data.frame")
  expect_setequal(report$cost$role, c("chat", "embedding"))
  expect_true(all(c("input_tokens", "output_tokens", "dollars", "batch_dollars") %in% names(report$cost)))
  expect_gt(report$estimated_embedding_tokens, 0)
  expect_equal(report$dollars, 0)
  expect_equal(report$batch_dollars, 0)
})

test_that("bad arguments are classed errors that name the value and what is allowed", {
  expect_snapshot(error = TRUE, {
    llm_validate(passage, task = "sentimentt", provider = llm_provider_simulated())
  })
  expect_snapshot(error = TRUE, {
    llm_validate(passage, task = "sentiment", provider = llm_provider_simulated(), M = 0)
  })
  expect_snapshot(error = TRUE, {
    llm_validate(passage, task = "sentiment", provider = "gpt")
  })
  expect_error(llm_validate(passage, task = "nope", provider = llm_provider_simulated()),
               class = "llmvalidate_error_invalid_input")
})

test_that("a validation and a dry run print as synthetic, with every number", {
  expect_snapshot(simulated_run(seed = 11))
  # The engine's note is prose owned by the engine; its presence is checked, not its words.
  expect_output(report <- simulated_run(seed = 1, dry_run = TRUE), "Note: Synthetic")
  report$note <- ""
  expect_snapshot(print(report))
  expect_snapshot(print(simulated_run(c(a = passage, b = "Losses widened."), seed = 5)))
})

test_that("further settings in ... are checked by name and value", {
  expect_snapshot(error = TRUE, simulated_run(seed = 1, permutation = 99))
  expect_snapshot(error = TRUE, simulated_run(seed = 1, max_retries = -1))
  expect_snapshot(error = TRUE, simulated_run(seed = 1, methods = c(validation = "bootstrap")))
  expect_snapshot(error = TRUE, simulated_run(seed = "a"))
  expect_snapshot(error = TRUE, llm_validate(NA_character_, task = "sentiment",
                                             provider = llm_provider_simulated()))
  expect_snapshot(error = TRUE, simulated_run(human = c("Positive", "Negative")))
  expect_snapshot(error = TRUE, simulated_run(human = "Positive", labels = "Positive"))
  expect_error(simulated_run(seed = 1, 5), class = "llmvalidate_error_invalid_argument")
})

test_that("a task file can be given by path", {
  task <- system.file("prompts", "simple_sentiment.toml", package = "llmvalidate")
  validation <- llm_details(llm_validate(passage, task = task, provider = llm_provider_simulated(),
                                         M = 20, n = 5, permutations = 199, seed = 11))
  expect_identical(validation$validation$statistic, simulated_run(seed = 11)$validation$statistic)
})

test_that("the progress bar reports the run when asked for", {
  withr::local_options(llmvalidate.progress = TRUE, cli.progress_show_after = 0,
                       cli.dynamic = FALSE)
  messages <- character()
  validation <- withCallingHandlers(
    simulated_run(seed = 11),
    cliMessage = function(m) {
      messages <<- c(messages, conditionMessage(m))
      invokeRestart("muffleMessage")
    }
  )
  expect_s3_class(validation, "llm_validation")
  expect_true(any(grepl("Validating", messages)))
})

test_that("a provider the engine does not know is a classed engine error", {
  provider <- llm_provider_openai()
  provider$name <- "no-such-provider"
  expect_error(llm_validate(passage, task = "sentiment", provider = provider, M = 20, n = 5),
               class = "llmvalidate_error")
})

test_that("printing a provider never shows its key", {
  provider <- llm_provider_openai(model = "gpt-4o-mini", api_key = "sk-secret-123456")
  output <- paste(capture.output(print(provider)), collapse = "\n")
  expect_false(grepl("sk-secret-123456", output, fixed = TRUE))
  expect_match(output, "<redacted>", fixed = TRUE)
  expect_snapshot(print(llm_provider_anthropic(api_key = "sk-ant-secret")))
  expect_snapshot(print(llm_provider_simulated(annotator_accuracy = 0.8)))
  expect_snapshot(print(llm_provider_ollama(model = "llama3.2")))
  expect_snapshot(print(llm_embedding_openai(model = "text-embedding-3-small")))
  withr::local_envvar(OPENAI_API_KEY = "sk-from-the-environment")
  output <- paste(capture.output(print(llm_provider_openai())), collapse = "\n")
  expect_false(grepl("sk-from-the-environment", output, fixed = TRUE))
})

test_that("plot() of many validations draws the grid of verdicts", {
  validations <- simulated_run(c(a = passage, b = "Losses widened sharply this year."), seed = 5)
  path <- withr::local_tempfile(fileext = ".pdf")
  grDevices::pdf(path)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot(validations), validations)
  expect_identical(plot(validations$validation[[1]]), validations$validation[[1]])
})

test_that("keys from the environment are removed from engine messages", {
  withr::local_envvar(OPENAI_API_KEY = "sk-env-secret-999", AZURE_OPENAI_API_KEY = "az-secret-1")
  secrets <- provider_secrets(llm_provider_openai())
  engine_error <- structure(
    list(code = "llmv.provider.auth", message = "key sk-env-secret-999 or az-secret-1 refused"),
    class = "llmvalidate_engine_error"
  )
  expect_identical(redact(engine_error, secrets)$message, "key <redacted> or <redacted> refused")
  batch <- list(passages = list(list(error_message = "echo sk-env-secret-999")))
  expect_identical(redact(batch, secrets)$passages[[1]]$error_message, "echo <redacted>")
})

test_that("every secret variable of the engine's provider table is redacted, and hints name it", {
  withr::local_envvar(AWS_SESSION_TOKEN = "aws-session-secret", LLMV_EMBEDDING_API_KEY = "emb-secret-2",
                      ANTHROPIC_API_KEY = "sk-ant-secret-3", AWS_ACCESS_KEY_ID = "AKIDNOTSECRET")
  secrets <- provider_secrets(llm_provider_openai())
  expect_true(all(c("aws-session-secret", "emb-secret-2", "sk-ant-secret-3") %in% secrets))
  # A key id is not a secret (the table does not list it).
  expect_false("AKIDNOTSECRET" %in% secrets)
  defaults <- llm_provider_defaults()
  expect_type(defaults$key_variables, "list")
  expect_identical(defaults$provider[defaults$kind == "chat" & defaults$batch_api],
                   c("openai", "anthropic"))
  hint <- provider_error_hint("llmv.provider.auth", list(name = "bedrock"))
  expect_match(hint[["i"]], "AWS_PROFILE", fixed = TRUE)
  expect_match(provider_error_hint("llmv.provider.auth", list(name = "anthropic"))[["i"]],
               "ANTHROPIC_API_KEY", fixed = TRUE)
})

test_that("many validations subset, tidy, glance and summarise like a regression's results", {
  skip_if_not_installed("generics")
  texts <- c(a = passage, b = "Losses widened and the outlook was cut sharply.",
             c = "The board met on Tuesday.")
  res <- simulated_run(texts, seed = 5, human = c("Positive", "Negative", "Neutral"))
  if (requireNamespace("tibble", quietly = TRUE)) {
    expect_s3_class(res, c("llm_validations", "tbl_df", "tbl", "data.frame"), exact = TRUE)
    expect_s3_class(res[2, ], "tbl_df")
  }
  head <- res[1:2, ]
  expect_s3_class(head, "llm_validations")
  expect_identical(head$id, c("a", "b"))
  expect_output(print(head), "2 passages")
  expect_true(isTRUE(attr(head, "synthetic")))
  expect_false(inherits(res[, "id", drop = FALSE], "llm_validations"))

  tidied <- generics::tidy(res)
  expect_equal(nrow(tidied), 3)
  expect_identical(tidied$id, res$id)
  expect_identical(tidied$p.value, res$p.value)
  expect_identical(tidied$verdict, res$verdict)
  expect_equal(tidied$p.adjusted, llm_validation_summary(res)$p_adjusted)
  glanced <- generics::glance(res)
  expect_equal(nrow(glanced), 1)
  expect_equal(glanced$n, 3)
  expect_equal(glanced$n_valid + glanced$n_invalid + glanced$n_inconclusive + glanced$n_error, 3)
  expect_true(glanced$synthetic)
  expect_s3_class(summary(res), "llm_validation_summary")
  expect_output(print(summary(res)), "Positive")
})

test_that("the deprecated `labels` argument still gives the human labels, with a warning", {
  texts <- c(a = passage, b = "Losses widened and the outlook was cut sharply.")
  expect_snapshot(old <- simulated_run(texts, seed = 5, labels = c("Positive", "Negative")))
  expect_identical(old$human, c("Positive", "Negative"))
})

test_that("M is checked against the engine's range, before any call", {
  expect_snapshot(error = TRUE, {
    llm_validate(passage, task = "sentiment", provider = llm_provider_simulated(), M = 1)
  })
  expect_snapshot(error = TRUE, {
    llm_validate(passage, task = "sentiment", provider = llm_provider_simulated(), M = 100001)
  })
  expect_snapshot(error = TRUE, {
    llm_validate(passage, task = "sentiment", provider = llm_provider_simulated(), M = 2.5)
  })
  expect_error(
    llm_validate(passage, task = "sentiment", provider = llm_provider_simulated(), M = 1),
    class = "llmvalidate_error_invalid_argument"
  )
})

test_that("human labels outside the task's labels are an error; factors are accepted", {
  expect_snapshot(error = TRUE, {
    simulated_run(c(passage, "Losses widened."), human = c("Positive", "Happy"), seed = 1)
  })
  expect_error(
    simulated_run(c(passage, "Losses widened."), human = c("Positive", "Happy"), seed = 1),
    class = "llmvalidate_error_unknown_label"
  )
  from_factor <- simulated_run(c(passage, "Losses widened."),
                               human = factor(c("Positive", "negative")), seed = 1)
  expect_identical(from_factor$human, c("Positive", "negative"))
})

test_that("a pool too small to reject warns before any call, in the dry run too", {
  expect_warning(
    expect_output(
      report <- llm_validate(passage, task = "sentiment", provider = llm_provider_simulated(),
                             M = 10, n = 5, permutations = 199, seed = 1, dry_run = TRUE),
      "Warning: The exact validation test cannot reject"
    ),
    class = "llmvalidate_warning_cannot_decide"
  )
  expect_snapshot(warn_sizes(list(task_path = resolve_task("sentiment", NULL)$path,
                                   provider = "simulated", m = 10,
                                   settings = list(permutations = 9))))
  report$note <- ""
  expect_snapshot(print(report))
  expect_warning(
    result <- llm_validate(passage, task = "sentiment", provider = llm_provider_simulated(),
                           M = 10, n = 5, permutations = 199, seed = 1),
    class = "llmvalidate_warning_cannot_decide"
  )
  expect_identical(result$verdict, "inconclusive")
  expect_match(llm_details(result)$verdict_reason, "M = 10 pool texts", fixed = TRUE)
  expect_warning(
    llm_power("sentiment", llm_provider_simulated(), M = 10, n = 10, replications = 2,
              permutations = 99, seed = 1),
    class = "llmvalidate_warning_cannot_decide"
  )
})
