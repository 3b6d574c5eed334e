test_that("accuracy, counts and the Clopper-Pearson bound match their definitions", {
  back <- c(rep("Positive", 46), rep("Neutral", 3), "Negative")
  result <- backtranslation_test("Positive", back, labels = c("Positive", "Neutral", "Negative"),
                                 alpha = 0.05)
  expect_s3_class(result, c("llmv_backtranslation_test", "htest"))
  expect_identical(unname(result$statistic), 46 / 50)
  expect_identical(result$parameter, c(M = 50L))
  expect_identical(result$counts, c(Positive = 46L, Neutral = 3L, Negative = 1L))
  expect_equal(result$conf.int[[1]], reference_clopper_pearson(46, 50, 0.05), tolerance = 1e-10)
  expect_identical(result$conf.int[[2]], 1)
  expect_identical(attr(result$conf.int, "conf.level"), 0.95)
  expect_true(result$pass)  # 0.92 >= 0.9
  expect_null(result$p.value)
})

test_that("the bound rule is stricter than the point rule", {
  back <- c(rep("a", 92), rep("b", 8))
  point <- backtranslation_test("a", back, threshold = 0.9, rule = "point")
  bound <- backtranslation_test("a", back, threshold = 0.9, rule = "bound")
  expect_true(point$pass)
  expect_false(bound$pass)
  expect_lt(bound$conf.int[[1]], 0.9)
  expect_identical(bound$rule, "bound")
})

test_that("Clopper-Pearson agrees with qbeta over a grid", {
  for (n in c(1, 2, 10, 37, 100)) {
    for (x in unique(round(c(0, 1, n / 2, n - 1, n)))) {
      if (x < 0 || x > n) next
      back <- c(rep("yes", x), rep("no", n - x))
      result <- backtranslation_test("yes", back, labels = c("yes", "no"), alpha = 0.1)
      expect_equal(result$conf.int[[1]], reference_clopper_pearson(x, n, 0.1),
                   tolerance = 1e-10, label = sprintf("lower bound for %d of %d", x, n))
    }
  }
})

test_that("labels match after trimming, lower-casing and folding white space", {
  back <- c("positive", " Positive ", "POSITIVE", "very  positive", "Very positive")
  result <- backtranslation_test("Positive", back, labels = c("Positive", "Very Positive"))
  expect_identical(result$correct, 3L)
  expect_identical(unname(result$counts[[1]]), 3L)
  expect_identical(unname(result$counts[[2]]), 2L)
})

test_that("labels default to the target and then the labels back in order", {
  result <- backtranslation_test("b", c("c", "b", "a", "b"))
  expect_identical(names(result$counts), c("b", "c", "a"))
  expect_identical(backtranslation_test("b", factor(c("b", "c")))$correct, 1L)
})
