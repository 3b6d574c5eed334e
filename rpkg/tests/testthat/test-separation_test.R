test_that("xi is the mean cross-pool cosine and the p-value is the permutation rank", {
  set.seed(303)
  pool_a <- cluster(20, c(2, 0, 0, 0, 0))
  pool_b <- cluster(25, c(0, 2, 0, 0, 0))
  result <- separation_test(pool_a, pool_b, permutations = 499, seed = 42)

  expect_s3_class(result, c("llmv_separation_test", "htest"))
  expect_equal(unname(result$statistic), mean(cosines(pool_a, pool_b)), tolerance = 1e-12)
  null <- result$null.distribution
  expect_length(null, 499)
  xi <- unname(result$statistic)
  expect_identical(result$p.value, (1 + sum(null <= xi)) / 500)
  k <- floor(0.05 * 500)
  expect_identical(result$critical.value, sort(null)[[k]])
  expect_identical(result$pass, result$p.value <= 0.05)
  expect_true(result$pass)
  expect_identical(result$parameter, c(M_a = 20L, M_b = 25L, R = 499L))
  expect_identical(result$seed, 42)
})

test_that("the permutation null centres on the mean similarity of all pairs", {
  # Under random relabelling, the expected cross-group mean is the mean cosine over all
  # pairs of distinct texts of the pooled sample.
  set.seed(404)
  pool_a <- cluster(15, c(1, 1, 0, 0))
  pool_b <- cluster(15, c(1, -1, 0, 0))
  result <- separation_test(pool_a, pool_b, permutations = 999, seed = 9)
  similarity <- cosines(rbind(pool_a, pool_b), rbind(pool_a, pool_b))
  expected <- mean(similarity[upper.tri(similarity)])
  null <- result$null.distribution
  expect_lt(abs(mean(null) - expected), 5 * sd(null) / sqrt(length(null)))
})

test_that("one distribution for both labels rarely passes", {
  set.seed(505)
  passes <- vapply(1:40, function(i) {
    centre <- c(3, 0, 0)
    separation_test(cluster(10, centre), cluster(10, centre), permutations = 99, seed = i)$pass
  }, logical(1))
  # P(pass) <= 0.05 per test; 9 or more passes in 40 has probability < 0.001.
  expect_lt(sum(passes), 9)
})

test_that("the same seed gives identical results, set.seed() governs seed = NULL", {
  set.seed(1)
  pool_a <- cluster(12, rnorm(6))
  pool_b <- cluster(12, rnorm(6))
  first <- separation_test(pool_a, pool_b, permutations = 199, seed = 123)
  second <- separation_test(pool_a, pool_b, permutations = 199, seed = 123)
  other <- separation_test(pool_a, pool_b, permutations = 199, seed = 124)
  expect_identical(first$null.distribution, second$null.distribution)
  expect_false(identical(first$null.distribution, other$null.distribution))

  set.seed(99)
  drawn <- separation_test(pool_a, pool_b, permutations = 199)
  set.seed(99)
  again <- separation_test(pool_a, pool_b, permutations = 199)
  expect_identical(drawn$null.distribution, again$null.distribution)
  expect_identical(drawn$seed, again$seed)
  set.seed(99)
  expect_identical(drawn$seed, as.double(sample.int(.Machine$integer.max, 1)))
})

test_that("the paper's method matches the author's bootstrap arithmetic", {
  set.seed(606)
  pool_a <- cluster(20, c(2, 0, 0, 0))
  pool_b <- cluster(20, c(0, 2, 0, 0))
  reference <- cluster(40, c(0, 2, 0, 0))
  state <- .Random.seed
  result <- separation_test(pool_a, pool_b, method = "paper", reference = reference)
  # Nothing is drawn: R's generator is untouched.
  expect_identical(.Random.seed, state)
  expected <- reference_separation_paper(pool_a, pool_b, reference, alpha = 0.05)

  expect_equal(unname(result$statistic), expected$statistic, tolerance = 1e-12)
  expect_equal(result$null.distribution, expected$null, tolerance = 1e-12)
  expect_equal(result$critical.value, expected$critical_value, tolerance = 1e-12)
  expect_identical(result$pass, expected$pass)
  expect_true(is.na(result$p.value))
  expect_identical(result$parameter, c(M_a = 20L, M_b = 20L, B = 40L))
})
