# Every user-facing error: a classed condition naming the argument, the value received and
# what is allowed.

test_that("argument errors are classed and say what was received", {
  set.seed(1)
  pool <- cluster(10, rnorm(4))
  passage <- rnorm(4)
  expect_snapshot(error = TRUE, {
    validation_test(passage, pool, alpha = 1.5)
    validation_test(passage, pool, alpha = c(0.05, 0.1))
    validation_test(passage, pool, method = "bootstrap")
    validation_test(passage, pool, method = "paper")
    validation_test(passage, pool, reference = pool)
    validation_test("text", pool)
    validation_test(passage, letters)
    separation_test(pool, pool, permutations = 0)
    separation_test(pool, pool, seed = -1)
    separation_test(pool, pool, seed = 1.5)
    backtranslation_test(c("a", "b"), "a")
    backtranslation_test("a", c("a", NA))
    backtranslation_test("a", "a", threshold = 2)
    backtranslation_test("a", "a", rule = "mean")
    llm_validate_embeddings(passage, list(pool), "a")
    llm_validate_embeddings(passage, NULL, "a")
    llm_validation_summary(list(1, 2))
    llm_validation_summary(data.frame(label = "a", verdict = "valid"), human = c("a", "b"))
  })
})

test_that("errors found by the engine carry its stable code as a class", {
  set.seed(2)
  pool <- cluster(10, rnorm(4))
  passage <- rnorm(4)
  zero_row <- pool
  zero_row[3, ] <- 0
  nan_row <- pool
  nan_row[2, 2] <- NaN
  expect_snapshot(error = TRUE, {
    validation_test(passage, zero_row)
    validation_test(passage, nan_row)
    validation_test(c(passage, 1), pool)
    validation_test(passage, pool[1, , drop = FALSE])
    separation_test(pool, cluster(10, rnorm(5)))
    llm_validate_embeddings(passage, list(a = pool, b = pool), "c")
    llm_validation_summary(data.frame(label = "a", verdict = "maybe"))
  })

  condition <- rlang::catch_cnd(validation_test(passage, zero_row))
  expect_s3_class(condition, "llmvalidate_error_invalid_embedding")
  expect_s3_class(condition, "llmvalidate_error_input")
  expect_s3_class(condition, "llmvalidate_error")
  expect_identical(condition$code, "llmv.input.invalid_embedding")

  expect_error(validation_test(c(passage, 1), pool), class = "llmvalidate_error_dimension_mismatch")
  expect_error(validation_test(passage, pool[1, , drop = FALSE]),
               class = "llmvalidate_error_pool_too_small")
  expect_error(llm_validate_embeddings(passage, list(a = pool, b = pool), "c"),
               class = "llmvalidate_error_unknown_label")
  expect_error(validation_test(passage, pool, alpha = 2),
               class = "llmvalidate_error_invalid_argument")
})

test_that("engine codes map to condition classes", {
  expect_identical(
    error_classes("llmv.input.invalid_embedding"),
    c("llmvalidate_error_invalid_embedding", "llmvalidate_error_input",
      "llmvalidate_error_invalid_input", "llmvalidate_error")
  )
  expect_identical(
    error_classes("llmv.provider.rate_limited"),
    c("llmvalidate_error_rate_limited", "llmvalidate_error_provider", "llmvalidate_error")
  )
  expect_identical(
    error_classes("llmv.transport.failed"),
    c("llmvalidate_error_transport_failed", "llmvalidate_error_transport", "llmvalidate_error")
  )
  expect_identical(error_classes("llmv.cancelled"),
                   c("llmvalidate_error_cancelled", "llmvalidate_error"))
  expect_identical(error_classes("llmv.internal"),
                   c("llmvalidate_error_internal", "llmvalidate_error"))
})

test_that("no C++ exception crosses into R, even past the R-side checks", {
  set.seed(3)
  pool <- cluster(5, rnorm(3))
  # The glue called directly with what the R wrappers would refuse: a missing reference
  # fails inside the glue's guard and comes back as a classed internal error ...
  result <- .Call(llmv_validation_test, rnorm(3), pool, 0.05, "paper", NULL)
  expect_s3_class(result, "llmvalidate_engine_error")
  expect_identical(result$code, "llmv.internal")
  expect_error(engine_result(result), class = "llmvalidate_error_internal")
  # ... and a value that Rcpp cannot convert becomes an ordinary R error.
  expect_error(.Call(llmv_validation_test, rnorm(3), pool, "a", "exact", NULL))
})
