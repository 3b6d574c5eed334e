# llm_report(): the engine's HTML report of a run, the same file as the command-line tool's for
# the same run (the CLI through LLMV_CLI, as in test-cli-parity.R); autoplot() and plot().

report_lines <- function(path) {
  # Everything but the creation time, which is the run's own.
  lines <- readLines(path, warn = FALSE, encoding = "UTF-8")
  grep("^<p class=\"created\">", lines, value = TRUE, invert = TRUE)
}

test_that("llm_report() writes a self-contained report with the synthetic banner", {
  validations <- llm_validate(c(a = "Revenue grew strongly.", b = "Losses widened."),
                              task = "sentiment", provider = llm_provider_simulated(),
                              M = 20, n = 10, permutations = 99, seed = 1)
  file <- withr::local_tempfile(fileext = ".html")
  expect_identical(llm_report(validations, file), file)
  html <- paste(readLines(file, encoding = "UTF-8"), collapse = "\n")
  expect_match(html, "<div class=\"synthetic\"", fixed = TRUE)
  expect_match(html, "@top-center", fixed = TRUE)
  expect_match(html, "<table", fixed = TRUE)
  expect_false(grepl("(src|href)=\"(https?:)?//", html))
  # The passages' ids and the run's verdict counts, from the run document.
  expect_match(html, ">Revenue grew strongly.<", fixed = TRUE)
  document <- jsonlite::fromJSON(attr(validations, "run")$document, simplifyVector = FALSE)
  expect_identical(document$totals$passages, 2L)
  expect_identical(document$synthetic, TRUE)
})

test_that("llm_report() refuses what is not a run", {
  expect_error(llm_report(data.frame(x = 1), tempfile()), class = "llmvalidate_error")
})

test_that("llm_report() and the command-line tool write the same report for the same run", {
  cli <- Sys.getenv("LLMV_CLI")
  skip_if(!nzchar(cli) || !file.exists(cli), "LLMV_CLI does not name a built `llmvalidate`")
  skip_if_not_installed("processx")
  cache <- withr::local_tempfile(fileext = ".sqlite")
  text <- "Profit fell 40% as loan losses doubled."
  # R's simulated provider draws from the run's seed (its dgp_seed); the CLI's takes --dgp-seed.
  validation <- llm_validate(text, task = "simple_sentiment", provider = llm_provider_simulated(),
                             seed = 1, cache = cache)
  r_file <- withr::local_tempfile(fileext = ".html")
  llm_report(validation, r_file)
  cli_file <- withr::local_tempfile(fileext = ".html")
  run <- processx::run(cli, c("run", "--provider", "simulated", "--task", "simple_sentiment",
                              "--text", text, "--seed", "1", "--dgp-seed", "1", "--cache", cache,
                              "--report", cli_file), error_on_status = FALSE)
  expect_identical(run$status, 0L)
  expect_identical(report_lines(r_file), report_lines(cli_file))
  # And from the CLI's run document.
  json <- withr::local_tempfile(fileext = ".json")
  processx::run(cli, c("run", "--provider", "simulated", "--task", "simple_sentiment",
                       "--text", text, "--seed", "1", "--dgp-seed", "1", "--cache", cache,
                       "--run-json", json))
  from_json <- withr::local_tempfile(fileext = ".html")
  llm_report(json, from_json)
  expect_identical(report_lines(from_json), report_lines(cli_file))
})

test_that("autoplot() draws a validation, a set of validations and a power analysis", {
  skip_if_not_installed("ggplot2")
  validations <- llm_validate(c(a = "Revenue grew strongly.", b = "Losses widened."),
                              task = "sentiment", provider = llm_provider_simulated(),
                              M = 20, n = 10, permutations = 99, seed = 1)
  one <- ggplot2::autoplot(validations$validation[[1]])
  expect_s3_class(one, "ggplot")
  built <- ggplot2::ggplot_build(one)
  expect_identical(sum(built$data[[1]]$count), length(validations$validation[[1]]$validation$null_distribution))
  many <- ggplot2::autoplot(validations)
  expect_s3_class(many, "ggplot")
  expect_setequal(as.character(ggplot2::ggplot_build(many)$layout$panel_params[[1]]$y$get_labels()),
                  c("a", "b"))
  power <- llm_power("sentiment", llm_provider_simulated(annotator_accuracy = 0.8),
                     M = 20, n = 10, replications = 5, permutations = 99, seed = 1)
  expect_s3_class(ggplot2::autoplot(power), "ggplot")
})

test_that("plot() labels every row it draws, grouping passages beyond 40", {
  cells <- cbind(rep(c("pass", "fail"), length.out = 45), "pass", "not rejected",
                 rep(c("valid", "inconclusive"), length.out = 45))
  ids <- paste0("p", 1:45)
  drawn <- grid_rows(cells, ids)
  expect_identical(nrow(drawn$cells), length(drawn$labels))
  expect_identical(drawn$labels, c("23 passages", "22 passages"))
  few <- grid_rows(cells[1:5, ], ids[1:5])
  expect_identical(few$labels, ids[1:5])
})
