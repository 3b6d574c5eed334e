# Numbers are checked against helper-reference.R with a tolerance of 1e-12: the engine sums in
# a different order (one GEMM) than the naive R loops, so the last bits may differ; counts,
# ranks and decisions must agree exactly.

test_that("the exact validation test matches the rank-test definition", {
  set.seed(101)
  centre <- rnorm(12)
  pool <- cluster(40, centre)
  passage <- centre + rnorm(12)
  result <- validation_test(passage, pool, alpha = 0.1)
  expected <- reference_validation_exact(passage, pool, alpha = 0.1)

  expect_s3_class(result, c("llmv_validation_test", "htest"))
  expect_equal(unname(result$statistic), expected$statistic, tolerance = 1e-12)
  # The passage's score among the augmented set is tau itself.
  expect_equal(expected$score_of_passage, expected$statistic, tolerance = 1e-12)
  expect_equal(result$null.distribution, expected$null, tolerance = 1e-12)
  expect_identical(result$p.value, expected$p_value)
  expect_equal(result$critical.value, expected$critical_value, tolerance = 1e-12)
  expect_identical(result$reject, result$p.value <= 0.1)
  expect_identical(result$parameter, c(M = 40L))
  expect_identical(result$alpha, 0.1)
})

test_that("a passage far from the pool is rejected, one from the pool's distribution is not", {
  set.seed(7)
  centre <- c(4, rep(0, 7))
  pool <- cluster(60, centre)
  far <- validation_test(c(0, 4, rep(0, 6)), pool)
  expect_true(far$reject)
  expect_identical(far$p.value, 1 / 61)
  expect_identical(far$conclusion, "validity rejected")

  near <- validation_test(pool[1, ] + 0.01, pool[-1, ])
  expect_false(near$reject)
  expect_identical(near$conclusion, "validity not rejected")
})

test_that("the critical value and the p-value never disagree", {
  set.seed(11)
  pool <- cluster(19, rnorm(6))
  for (i in 1:20) {
    result <- validation_test(rnorm(6), pool, alpha = 0.05)
    # With M = 19 the smallest p-value is 1/20 = alpha: reject exactly when below all scores.
    expect_identical(result$reject, unname(result$statistic) < result$critical.value)
  }
})

test_that("raw and normalised embeddings give the same test", {
  set.seed(3)
  pool <- cluster(25, rnorm(5))
  passage <- rnorm(5)
  raw <- validation_test(passage, pool)
  scaled <- validation_test(passage * 7, pool * 3)
  expect_equal(unname(raw$statistic), unname(scaled$statistic), tolerance = 1e-12)
  expect_identical(raw$p.value, scaled$p.value)
})

test_that("the paper's method matches the author's bootstrap arithmetic", {
  set.seed(202)
  centre <- rnorm(10)
  pool <- cluster(30, centre)
  reference <- cluster(50, centre)
  passage <- centre + rnorm(10)
  result <- validation_test(passage, pool, alpha = 0.05, method = "paper", reference = reference)
  expected <- reference_validation_paper(passage, pool, reference, alpha = 0.05)

  expect_equal(unname(result$statistic), expected$statistic, tolerance = 1e-12)
  expect_equal(result$null.distribution, expected$null, tolerance = 1e-12)
  expect_equal(result$critical.value, expected$critical_value, tolerance = 1e-12)
  expect_equal(result$p.value, expected$p_value, tolerance = 1e-9)
  expect_identical(result$reject, expected$critical_value > expected$statistic)
  expect_identical(result$reject, result$p.value < 0.05)  # the p-value agrees with the decision
  expect_identical(result$parameter, c(N = 30L, B = 50L))
  expect_match(result$method, "paper")
})

test_that("a one-row matrix is accepted as the passage, a data frame as the pool", {
  set.seed(5)
  pool <- cluster(10, rnorm(4))
  passage <- rnorm(4)
  expect_identical(
    validation_test(matrix(passage, 1), as.data.frame(pool))$p.value,
    validation_test(passage, pool)$p.value
  )
})

test_that("data.name records the arguments", {
  set.seed(5)
  my_pool <- cluster(10, rnorm(4))
  my_passage <- rnorm(4)
  expect_identical(validation_test(my_passage, my_pool)$data.name, "my_passage against my_pool")
})
