# The tests sit in a modelsummary table beside a regression: its row is the statistic, whichever
# extractor modelsummary asks first (parameters::model_parameters() before broom's tidy()).

test_that("a validation test's tau appears in a modelsummary table beside a regression", {
  skip_if_not_installed("modelsummary")
  skip_if_not_installed("parameters")
  set.seed(11)
  pool <- matrix(rnorm(30 * 8), 30)
  validity <- validation_test(rnorm(8), pool)
  separation <- separation_test(pool, matrix(rnorm(30 * 8, mean = 1), 30), seed = 3)
  regression <- lm(mpg ~ wt, data = mtcars)
  table <- modelsummary::modelsummary(
    list(regression, validity, separation), output = "data.frame", statistic = "p.value",
    fmt = 6, gof_map = "nobs"
  )
  estimates <- table[table$part == "estimates" & table$statistic == "estimate", ]
  expect_setequal(estimates$term, c("(Intercept)", "wt", "tau", "xi"))
  expect_identical(estimates[estimates$term == "tau", "(2)"],
                   sprintf("%.6f", unname(validity$statistic)))
  expect_identical(estimates[estimates$term == "xi", "(3)"],
                   sprintf("%.6f", unname(separation$statistic)))
  p_values <- table[table$part == "estimates" & table$statistic == "p.value", ]
  expect_identical(p_values[p_values$term == "tau", "(2)"], sprintf("(%.6f)", validity$p.value))
})

# Issue 42, item 7: a result of many passages is a compact table (the tally by verdict), with
# nothing printed on the way, whatever the number of passages; per-passage rows on request.
many_passages <- function(count) {
  base <- c("Revenue grew strongly and margins improved.",
            "Losses widened and the outlook darkened.", "The board met on Tuesday.")
  text <- stats::setNames(rep(base, length.out = count), sprintf("p%02d", seq_len(count)))
  llm_validate(text, task = "sentiment", provider = llm_provider_simulated(), M = 20, n = 10,
               permutations = 99, seed = 1, cache = FALSE)
}

quiet_table <- function(...) {
  table <- NULL
  printed <- utils::capture.output(
    messages <- utils::capture.output(
      table <- modelsummary::modelsummary(..., output = "data.frame"), type = "message"),
    type = "output")
  list(table = table, printed = c(printed, messages))
}

test_that("72 passages beside a regression: at most 12 rows of their own, nothing printed", {
  skip_if_not_installed("modelsummary")
  skip_if_not_installed("parameters")
  res <- many_passages(72)
  expect_identical(nrow(res), 72L)
  fit <- lm(mpg ~ wt, data = mtcars)
  shown <- quiet_table(list(OLS = fit, Validation = res))
  expect_identical(shown$printed, character())  # no "Objects of class `NULL` ..."
  table <- shown$table
  own <- table[nzchar(trimws(table$Validation)), ]
  expect_lte(nrow(own), 12)
  expect_identical(nrow(table), nrow(quiet_table(list(OLS = fit))$table) + nrow(own))
  expect_false(any(grepl("^tau", table$term)))
  estimates <- own[own$part == "estimates", ]
  expect_identical(estimates$term,
                   c("share valid", "share invalid", "share inconclusive", "share error"))
  counts <- table(res$verdict)
  expect_identical(estimates$Validation[1], sprintf("%.3f", counts[["valid"]] / 72))
  gof <- stats::setNames(own$Validation[own$part == "gof"], own$term[own$part == "gof"])
  expect_identical(gof[["n"]], "72")
  expect_identical(gof[["n_valid"]], as.character(counts[["valid"]]))
  decided <- counts[["valid"]] + counts[["invalid"]]
  expect_identical(gof[["share_valid"]], sprintf("%.3f", counts[["valid"]] / decided))
  expect_identical(gof[["synthetic"]], "yes")
})

test_that("coef_omit and gof_map select among the tally's rows", {
  skip_if_not_installed("modelsummary")
  skip_if_not_installed("parameters")
  res <- many_passages(12)
  fit <- lm(mpg ~ wt, data = mtcars)
  omitted <- quiet_table(list(OLS = fit, Validation = res), coef_omit = "^tau|error")
  expect_identical(omitted$printed, character())
  expect_false(any(grepl("error", omitted$table$term[omitted$table$part == "estimates"])))
  expect_true("share valid" %in% omitted$table$term)
  # gof_map by names: share_valid keeps its decimals (it showed 0) and synthetic reads "yes"
  # (it showed 1, or 0).
  mapped <- quiet_table(list(OLS = fit, Validation = res),
                        gof_map = c("nobs", "n", "share_valid", "synthetic"))$table
  gof <- mapped[mapped$part == "gof", ]
  expect_identical(gof$term, c("Num.Obs.", "n", "share_valid", "synthetic"))
  expect_match(gof$Validation[gof$term == "share_valid"], "^[01]\\.[0-9]{3}$")
  expect_false(gof$Validation[gof$term == "share_valid"] %in% c("0", "1"))
  expect_identical(gof$Validation[gof$term == "synthetic"], "yes")
  # glance() keeps numbers and a logical for code.
  glanced <- generics::glance(res)
  expect_type(glanced$share_valid, "double")
  expect_true(glanced$synthetic)
})

test_that("per-passage rows on request: passages = TRUE or the option", {
  skip_if_not_installed("modelsummary")
  skip_if_not_installed("parameters")
  res <- many_passages(6)
  fit <- lm(mpg ~ wt, data = mtcars)
  shown <- quiet_table(list(OLS = fit, Validation = res), passages = TRUE)
  expect_identical(shown$printed, character())
  expect_setequal(grep("^tau", shown$table$term, value = TRUE), sprintf("tau (p%02d)", 1:6))
  withr::local_options(llmvalidate.modelsummary_passages = TRUE)
  table <- quiet_table(list(OLS = fit, Validation = res))$table
  expect_identical(sum(grepl("^tau", table$term)), 6L)
  # tidy() itself: one row per passage by default, the tally with passages = FALSE.
  expect_identical(nrow(generics::tidy(res)), 6L)
  tally <- generics::tidy(res, passages = FALSE)
  expect_identical(tally$n, vapply(c("valid", "invalid", "inconclusive", "error"),
                                   function(v) sum(res$verdict == v), integer(1),
                                   USE.NAMES = FALSE))
  expect_equal(sum(tally$estimate), 1)
  expect_error(generics::tidy(res, passages = NA), class = "llmvalidate_error_invalid_argument")
})

test_that("a single test's critical value reads with 3 decimals in the table", {
  skip_if_not_installed("modelsummary")
  skip_if_not_installed("parameters")
  set.seed(11)
  pool <- matrix(rnorm(30 * 8), 30)
  validity <- validation_test(rnorm(8), pool)
  table <- quiet_table(list(OLS = lm(mpg ~ wt, data = mtcars), Validation = validity))$table
  critical <- table$Validation[table$term == "critical.value"]
  expect_identical(critical, sprintf("%.3f", validity$critical.value))
  expect_false(any(grepl("[0-9]\\.[0-9]{6,}", table$Validation)))
  expect_identical(generics::glance(validity)$critical.value, validity$critical.value)
})
