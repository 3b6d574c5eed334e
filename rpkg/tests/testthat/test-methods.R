fixed_tests <- function() {
  set.seed(12)
  centre <- c(3, 0, 0, 0, 0)
  pool <- cluster(20, centre)
  list(
    validation = validation_test(centre + rnorm(5), pool),
    separation = separation_test(pool, cluster(20, c(0, 3, 0, 0, 0)), permutations = 99,
                                 seed = 5),
    backtranslation = backtranslation_test("Positive", c(rep("Positive", 18), "Neutral", " "),
                                           labels = c("Positive", "Neutral", "Negative"))
  )
}

test_that("print shows the htest block, the critical value and the conclusion", {
  tests <- fixed_tests()
  expect_snapshot({
    print(tests$validation)
    print(tests$separation)
    print(tests$backtranslation)
  })
  expect_output(expect_invisible(print(tests$validation)), "critical value")
})

test_that("format gives one line", {
  tests <- fixed_tests()
  for (test in tests) {
    line <- format(test)
    expect_length(line, 1)
    expect_match(line, test$conclusion, fixed = TRUE)
  }
  expect_snapshot(cat(vapply(tests, format, character(1)), sep = "\n"))
})

test_that("as.data.frame, tidy and glance give one row with the numbers", {
  tests <- fixed_tests()
  frame <- as.data.frame(tests$validation)
  expect_s3_class(frame, "data.frame")
  expect_identical(nrow(frame), 1L)
  expect_identical(frame$estimate, unname(tests$validation$statistic))
  expect_identical(frame$p.value, tests$validation$p.value)
  expect_identical(frame$critical.value, tests$validation$critical.value)
  expect_identical(frame$term, "tau")
  expect_identical(as.data.frame(tests$backtranslation)$conf.low,
                   tests$backtranslation$conf.int[[1]])
  expect_true(is.na(as.data.frame(tests$backtranslation)$p.value))

  skip_if_not_installed("generics")
  for (test in tests) {
    tidied <- generics::tidy(test)
    expect_identical(nrow(tidied), 1L)
    expect_true(all(c("term", "estimate", "p.value", "critical.value") %in% names(tidied)))
    glanced <- generics::glance(test)
    expect_identical(nrow(glanced), 1L)
    expect_identical(glanced$nobs, unname(test$parameter[[1]]))
  }
})

test_that("broom's tidy() finds the methods without llmvalidate attaching broom", {
  skip_if_not_installed("broom")
  tests <- fixed_tests()
  expect_identical(broom::tidy(tests$separation)$statistic, unname(tests$separation$statistic))
  expect_identical(broom::glance(tests$validation)$p.value, tests$validation$p.value)
})

test_that("plot draws the null distribution and returns its input", {
  tests <- fixed_tests()
  path <- withr::local_tempfile(fileext = ".pdf")
  grDevices::pdf(path)
  on.exit(grDevices::dev.off(), add = TRUE)
  for (test in tests) {
    expect_identical(expect_invisible(plot(test)), test)
  }
})

test_that("a full validation prints a Table-1 block and converts to data frames", {
  data <- three_labels(seed = 21, m = 20)
  validation <- llm_validate_embeddings(data$passage, data$pools, "Positive",
                                        backtranslation = list(Positive = rep("Positive", 20)),
                                        permutations = 99, seed = 3)
  expect_snapshot({
    print(validation)
    summary(validation)
    format(validation)
  })
  glanced <- as.data.frame(validation)
  expect_identical(nrow(glanced), 1L)
  expect_identical(glanced$verdict, validation$verdict)
  expect_identical(glanced$tau, unname(validation$validation$statistic))
  expect_identical(glanced$seed, 3)

  skip_if_not_installed("generics")
  tidied <- generics::tidy(validation)
  expect_identical(tidied$test, c("backtranslation", "separation", "separation", "validation"))
  expect_identical(tidied$estimate[[4]], unname(validation$validation$statistic))
  expect_identical(generics::glance(validation)$verdict, validation$verdict)

  path <- withr::local_tempfile(fileext = ".pdf")
  grDevices::pdf(path)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(expect_invisible(plot(validation)), validation)
})
