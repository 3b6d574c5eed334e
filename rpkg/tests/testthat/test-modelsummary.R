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
