test_that("a full validation agrees with the tests run one by one", {
  data <- three_labels()
  back <- list(Positive = c(rep("Positive", 29), "Neutral"))
  validation <- llm_validate_embeddings(data$passage, data$pools, "Positive",
                                        backtranslation = back, permutations = 199, seed = 17)
  expect_s3_class(validation, "llm_validation")

  alone <- validation_test(data$passage, data$pools$Positive)
  expect_identical(validation$validation$statistic, alone$statistic)
  expect_identical(validation$validation$p.value, alone$p.value)
  expect_identical(validation$validation$null.distribution, alone$null.distribution)

  # Separation tests draw from one generator in the order of `labels`: the first one is the
  # same as separation_test() with the same seed.
  expect_named(validation$separation, c("Neutral", "Negative"))
  first <- separation_test(data$pools$Positive, data$pools$Neutral, permutations = 199, seed = 17)
  expect_identical(validation$separation$Neutral$null.distribution, first$null.distribution)
  expect_identical(validation$separation$Neutral$p.value, first$p.value)

  bt <- backtranslation_test("Positive", back$Positive, labels = names(data$pools))
  expect_identical(validation$backtranslation$statistic, bt$statistic)
  expect_identical(validation$backtranslation$conf.int, bt$conf.int)

  expect_identical(validation$verdict, "valid")
  expect_identical(validation$seed, 17)
})

test_that("the verdict follows the prerequisites and the validation test", {
  data <- three_labels(seed = 2)
  good_back <- list(Positive = rep("Positive", 30))
  valid <- llm_validate_embeddings(data$passage, data$pools, "Positive",
                                   backtranslation = good_back, permutations = 99, seed = 1)
  expect_identical(valid$verdict, "valid")

  # The passage is a negative text: validity rejected, prerequisites pass.
  invalid <- llm_validate_embeddings(data$centres$Negative + rnorm(8), data$pools, "Positive",
                                     backtranslation = good_back, permutations = 99, seed = 1)
  expect_true(invalid$validation$reject)
  expect_identical(invalid$verdict, "invalid")

  # Backtranslation fails: inconclusive, whatever the validation test says.
  bad_back <- list(Positive = c(rep("Positive", 20), rep("Neutral", 10)))
  failed <- llm_validate_embeddings(data$passage, data$pools, "Positive",
                                    backtranslation = bad_back, permutations = 99, seed = 1)
  expect_false(failed$backtranslation$pass)
  expect_identical(failed$verdict, "inconclusive")

  # Backtranslation not run: inconclusive.
  not_run <- llm_validate_embeddings(data$passage, data$pools, "Positive", permutations = 99,
                                     seed = 1)
  expect_null(not_run$backtranslation)
  expect_identical(not_run$verdict, "inconclusive")
  expect_true(nzchar(not_run$verdict_reason))

  # Separation fails: the Neutral pool is drawn like the Positive one.
  same <- data$pools
  same$Neutral <- cluster(30, data$centres$Positive)
  no_separation <- llm_validate_embeddings(data$passage, same, "Positive",
                                           backtranslation = good_back, permutations = 99,
                                           seed = 3)
  expect_false(no_separation$separation$Neutral$pass)
  expect_identical(no_separation$verdict, "inconclusive")
})

test_that("seed = NULL takes the seed from R's generator", {
  data <- three_labels(seed = 4, m = 10)
  set.seed(8)
  first <- llm_validate_embeddings(data$passage, data$pools, "Positive", permutations = 99)
  set.seed(8)
  second <- llm_validate_embeddings(data$passage, data$pools, "Positive", permutations = 99)
  expect_identical(first$seed, second$seed)
  expect_identical(first$separation$Negative$null.distribution,
                   second$separation$Negative$null.distribution)
})

test_that("the paper's methods run with reference texts per label", {
  data <- three_labels(seed = 5, m = 20)
  reference <- lapply(data$centres, cluster, n = 25)
  validation <- llm_validate_embeddings(
    data$passage, data$pools, "Positive", validation_method = "paper",
    separation_method = "paper", reference = reference,
    backtranslation = list(Positive = rep("Positive", 20)), seed = 1
  )
  alone <- validation_test(data$passage, data$pools$Positive, method = "paper",
                           reference = reference$Positive)
  expect_identical(validation$validation$critical.value, alone$critical.value)
  separation <- separation_test(data$pools$Positive, data$pools$Negative, method = "paper",
                                reference = reference$Negative)
  expect_identical(validation$separation$Negative$critical.value, separation$critical.value)
  expect_identical(validation$settings$validation_method, "paper")
})

test_that("a validation test that cannot reject at alpha gives inconclusive, never valid", {
  # The passage is a negative text; every prerequisite passes. With M = 10 at alpha = 0.05
  # the exact test's smallest p-value is 1/11 > alpha: "not rejected" is no evidence.
  data <- three_labels(seed = 4, m = 10)
  passage <- data$centres$Negative + rnorm(8)
  back <- list(Positive = rep("Positive", 10))
  small <- llm_validate_embeddings(passage, data$pools, "Positive", backtranslation = back,
                                   permutations = 99, seed = 1)
  expect_false(small$validation$reject)
  expect_false(small$validation$can_decide)
  expect_identical(small$verdict, "inconclusive")
  expect_identical(
    small$verdict_reason,
    paste0("Inconclusive: the exact validation test cannot reject at \u03b1 = 0.05 with M = 10 ",
           "pool texts: its smallest attainable p-value, 1/(M + 1) = 0.09091, exceeds \u03b1; ",
           "M >= 19 is needed (M + 1 >= 1/\u03b1).")
  )
  expect_match(small$validation$conclusion, "^cannot decide: ")

  # M = 19 can reject: the same kind of passage is invalid.
  data <- three_labels(seed = 4, m = 19)
  passage <- data$centres$Negative + rnorm(8)
  back <- list(Positive = rep("Positive", 19))
  enough <- llm_validate_embeddings(passage, data$pools, "Positive", backtranslation = back,
                                    permutations = 99, seed = 1)
  expect_true(enough$validation$can_decide)
  expect_identical(enough$validation$p.value, 1 / 20)
  expect_identical(enough$verdict, "invalid")
})

test_that("vectors scaled by 1e+-200 are not zero vectors", {
  data <- three_labels(seed = 5)
  back <- list(Positive = rep("Positive", 30))
  plain <- llm_validate_embeddings(data$passage, data$pools, "Positive", backtranslation = back,
                                   permutations = 99, seed = 1)
  for (scale in c(1e200, 1e-200)) {
    pools <- lapply(data$pools, function(pool) pool * scale)
    scaled <- llm_validate_embeddings(data$passage * scale, pools, "Positive",
                                      backtranslation = back, permutations = 99, seed = 1)
    expect_equal(unname(scaled$validation$statistic), unname(plain$validation$statistic),
                 tolerance = 1e-12)
    expect_identical(scaled$verdict, plain$verdict)
  }
  expect_snapshot(error = TRUE, validation_test(rep(0, 8), data$pools$Positive))
})

test_that("labels may be factors wherever a label is taken", {
  data <- three_labels(seed = 6)
  back <- list(Positive = factor(rep("Positive", 30)))
  from_factor <- llm_validate_embeddings(data$passage, data$pools, factor("Positive"),
                                         labels = factor(names(data$pools)),
                                         backtranslation = back, permutations = 99, seed = 1)
  from_string <- llm_validate_embeddings(data$passage, data$pools, "Positive",
                                         backtranslation = list(Positive = rep("Positive", 30)),
                                         permutations = 99, seed = 1)
  expect_identical(from_factor$verdict, from_string$verdict)
  bt <- backtranslation_test(factor("Positive"), factor(rep("Positive", 10)),
                             labels = factor(c("Positive", "Negative")))
  expect_true(bt$pass)
})
