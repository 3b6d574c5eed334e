# `permutations` means R, the permutations of the permutation test, alone; B, the paper's
# reference texts, is `b` (issue 40, item 5): a paper-method validation never prints
# "permutations = 999", which it did not draw.

test_that("print() and summary() show permutations only when the permutation test ran", {
  data <- three_labels(seed = 4, m = 20)
  back <- list(Positive = rep("Positive", 20))
  permuted <- llm_validate_embeddings(data$passage, data$pools, "Positive",
                                      backtranslation = back, permutations = 199, seed = 1)
  expect_identical(permuted$b, 0L)
  printed <- paste(capture.output(print(permuted)), collapse = "\n")
  expect_match(printed, "permutations = 199", fixed = TRUE)
  expect_no_match(printed, "B = ", fixed = TRUE)
  summarized <- paste(capture.output(print(summary(permuted))), collapse = "\n")
  expect_match(summarized, "permutations = 199", fixed = TRUE)
  expect_equal(permuted$separation$Negative$parameter[["R"]], 199)

  reference <- lapply(data$centres, cluster, n = 25)
  paper <- llm_validate_embeddings(data$passage, data$pools, "Positive",
                                   validation_method = "paper", separation_method = "paper",
                                   reference = reference, backtranslation = back,
                                   permutations = 199, seed = 1)
  expect_identical(paper$b, 25L)
  printed <- paste(capture.output(print(paper)), collapse = "\n")
  expect_no_match(printed, "permutations", fixed = TRUE)
  expect_match(printed, "B = 25", fixed = TRUE)
  summarized <- paste(capture.output(print(summary(paper))), collapse = "\n")
  expect_no_match(summarized, "permutations", fixed = TRUE)
  expect_match(summarized, "B = 25", fixed = TRUE)
  # The separation test's B is its reference texts, not a permutation count.
  expect_equal(paper$separation$Negative$parameter[["B"]], 25)
  expect_false("R" %in% names(paper$separation$Negative$parameter))
})

test_that("the test methods and what they draw come from the engine's registry", {
  methods <- engine_test_methods("separation")
  expect_setequal(methods$name, c("permutation", "paper"))
  expect_identical(method_draws("separation", "permutation"), "R")
  expect_identical(method_draws("separation", "paper"), "B")
  expect_identical(method_draws("validation", "exact"), "M")
  expect_identical(reference_methods("validation"), "paper")
  expect_true(all(nzchar(engine_test_methods("validation")$title)))
  # The choices R offers are the registry's.
  expect_error(validation_test(rnorm(4), matrix(rnorm(40), 10), method = "bootstrap"),
               "\"exact\", \"paper\"", fixed = TRUE)
})
