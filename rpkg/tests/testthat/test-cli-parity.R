# The three *_test() functions and llm_validate_embeddings() give bit-identical numbers to
# `llmvalidate test` (the command-line tool) on the same inputs and seed. The CLI is found
# through the environment variable LLMV_CLI (tools/test.d/r-package.sh sets it after the
# CMake build); without it these tests are skipped. Inputs go to the CLI as JSON with 17
# significant digits, which round-trips every double, and its output is read back with
# jsonlite, whose parser rounds correctly; so identical() compares the engine's own bits.

cli_path <- function() {
  path <- Sys.getenv("LLMV_CLI")
  if (!nzchar(path) || !file.exists(path)) {
    skip("LLMV_CLI does not name a built `llmvalidate` binary")
  }
  skip_if_not_installed("jsonlite")
  skip_if_not_installed("processx")
  path
}

run_cli <- function(input) {
  file <- withr::local_tempfile(fileext = ".json")
  writeLines(to_json(input), file)
  result <- processx::run(cli_path(), c("test", "--null-distributions", file), error_on_status = FALSE)
  if (result$status != 0) {
    stop("llmvalidate test failed (", result$status, "): ", result$stderr)
  }
  jsonlite::fromJSON(result$stdout, simplifyVector = TRUE, simplifyDataFrame = FALSE)
}

cli_input <- function(passage, pools, label, seed, ...) {
  c(
    list(
      label = json_scalar(label),
      labels = names(pools),
      passage = passage,
      pools = pools,
      seed = json_scalar(as.integer(seed))
    ),
    list(...)
  )
}

# JSON null (a p-value of NaN, a critical value of -Inf) reads back as NULL.
cli_number <- function(x) if (is.null(x)) NA_real_ else x

test_that("validation_test() agrees with the CLI bit for bit", {
  cli_path()
  data <- three_labels(seed = 31, m = 40, d = 16)
  input <- cli_input(data$passage, data$pools, "Positive", seed = 5,
                     permutations = json_scalar(99L))
  output <- run_cli(input)
  r <- validation_test(data$passage, data$pools$Positive)
  expect_identical(unname(r$statistic), output$validation$statistic)
  expect_identical(r$critical.value, cli_number(output$validation$critical_value))
  expect_identical(r$p.value, output$validation$p_value)
  expect_identical(r$reject, output$validation$reject)
  expect_identical(r$null.distribution, output$validation$null_distribution)
})

test_that("separation_test() agrees with the CLI bit for bit", {
  cli_path()
  data <- three_labels(seed = 32, m = 25, d = 16)
  pools <- data$pools[c("Positive", "Negative")]
  output <- run_cli(cli_input(data$passage, pools, "Positive", seed = 123456,
                              permutations = json_scalar(499L)))
  r <- separation_test(pools$Positive, pools$Negative, permutations = 499, seed = 123456)
  cli <- output$separation[[1]]
  expect_identical(cli$label, "Negative")
  expect_identical(unname(r$statistic), cli$statistic)
  expect_identical(r$critical.value, cli_number(cli$critical_value))
  expect_identical(r$p.value, cli$p_value)
  expect_identical(r$pass, cli$pass)
  expect_identical(r$null.distribution, cli$null_distribution)
})

test_that("the paper's methods agree with the CLI bit for bit", {
  cli_path()
  data <- three_labels(seed = 33, m = 20, d = 12)
  pools <- data$pools[c("Positive", "Neutral")]
  reference <- lapply(data$centres[c("Positive", "Neutral")], cluster, n = 30)
  output <- run_cli(cli_input(
    data$passage, pools, "Positive", seed = 1,
    validation_method = json_scalar("paper"), separation_method = json_scalar("paper"),
    paper_reference = reference
  ))
  validation <- validation_test(data$passage, pools$Positive, method = "paper",
                                reference = reference$Positive)
  expect_identical(unname(validation$statistic), output$validation$statistic)
  expect_identical(validation$critical.value, output$validation$critical_value)
  expect_identical(validation$p.value, output$validation$p_value)
  expect_identical(validation$null.distribution, output$validation$null_distribution)

  separation <- separation_test(pools$Positive, pools$Neutral, method = "paper",
                                reference = reference$Neutral)
  cli <- output$separation[[1]]
  expect_identical(unname(separation$statistic), cli$statistic)
  expect_identical(separation$critical.value, cli$critical_value)
  expect_identical(separation$pass, cli$pass)
  expect_identical(separation$null.distribution, cli$null_distribution)
})

test_that("backtranslation_test() agrees with the CLI bit for bit", {
  cli_path()
  data <- three_labels(seed = 34, m = 37, d = 8)
  back <- c(rep("Positive", 33), rep("Neutral", 3), "negative ")
  for (rule in c("point", "bound")) {
    output <- run_cli(cli_input(
      data$passage, data$pools, "Positive", seed = 1, permutations = json_scalar(19L),
      backtranslation = list(Positive = back), backtranslation_rule = json_scalar(rule),
      threshold = json_scalar(0.85)
    ))
    r <- backtranslation_test("Positive", back, labels = names(data$pools), threshold = 0.85,
                              rule = rule)
    expect_identical(unname(r$statistic), output$backtranslation$accuracy)
    expect_identical(r$conf.int[[1]], output$backtranslation$lower_bound)
    expect_identical(r$pass, output$backtranslation$pass)
    expect_identical(as.list(r$counts), lapply(output$backtranslation$counts, as.integer))
  }
})

test_that("llm_validate_embeddings() agrees with the CLI on every number", {
  cli_path()
  data <- three_labels(seed = 35, m = 30, d = 16)
  back <- list(Positive = c(rep("Positive", 28), "Neutral", "Positive"))
  output <- run_cli(cli_input(data$passage, data$pools, "Positive", seed = 2024,
                              permutations = json_scalar(299L), backtranslation = back))
  r <- llm_validate_embeddings(data$passage, data$pools, "Positive", backtranslation = back,
                               permutations = 299, seed = 2024)
  expect_identical(r$verdict, output$verdict)
  expect_identical(r$verdict_reason, output$verdict_reason)
  expect_identical(r$validation$p.value, output$validation$p_value)
  expect_identical(r$validation$null.distribution, output$validation$null_distribution)
  for (i in seq_along(output$separation)) {
    cli <- output$separation[[i]]
    mine <- r$separation[[cli$label]]
    expect_identical(unname(mine$statistic), cli$statistic)
    expect_identical(mine$p.value, cli$p_value)
    expect_identical(mine$critical.value, cli_number(cli$critical_value))
    expect_identical(mine$null.distribution, cli$null_distribution)
  }
  expect_identical(r$backtranslation$conf.int[[1]], output$backtranslation$lower_bound)
  expect_identical(r$seed, as.double(output$seed))
})
