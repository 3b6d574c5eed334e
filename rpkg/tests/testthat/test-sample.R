# llm_sample() draws with the engine's generator: the same rows as the CLI's batch --sample.
corpus <- data.frame(
  text = sprintf("Sentence number %d reports %s results.", 1:40,
                 rep(c("strong", "weak", "mixed", "flat"), 10)),
  agreement = rep(c(100, 66, 50, 75), 10),
  stringsAsFactors = FALSE
)

test_that("llm_sample() draws n distinct rows, reproducibly, among those where keeps", {
  first <- llm_sample(corpus, n = 5, seed = 3, where = list(agreement = c(50, 66)))
  expect_equal(nrow(first), 5)
  expect_true(all(first$agreement %in% c(50, 66)))
  expect_false(anyDuplicated(first$row) > 0)
  expect_true(!is.unsorted(first$row))
  expect_identical(llm_sample(corpus, n = 5, seed = 3, where = list(agreement = c(50, 66))), first)
  expect_false(identical(llm_sample(corpus, n = 5, seed = 4, where = list(agreement = c(50, 66)))$row,
                         first$row))
  set.seed(1)
  a <- llm_sample(corpus, n = 5, seed = 3)
  set.seed(2)
  expect_identical(llm_sample(corpus, n = 5, seed = 3), a)  # R's RNG plays no part
})

test_that("llm_sample()'s default seed is the engine's (the CLI's --sample-seed and Stata's)", {
  expect_identical(formals(llm_sample)$seed, .Call(llmvalidate:::llmv_default_sample_seed))
  expect_identical(llm_sample(corpus, n = 5), llm_sample(corpus, n = 5, seed = 1))
})

test_that("llm_sample() errors name the argument, the value and what is allowed", {
  expect_snapshot(error = TRUE, llm_sample(corpus, n = 50, seed = 1))
  expect_snapshot(error = TRUE, llm_sample(corpus, n = 2, where = list(score = 1)))
  expect_snapshot(error = TRUE, llm_sample(corpus, n = 2, seed = -1))
})

test_that("the CLI's batch --sample draws the same rows as llm_sample()", {
  cli <- Sys.getenv("LLMV_CLI")
  skip_if(!nzchar(cli) || !file.exists(cli), "LLMV_CLI is not set")
  input <- withr::local_tempfile(fileext = ".csv")
  output <- withr::local_tempfile(fileext = ".csv")
  utils::write.csv(corpus, input, row.names = FALSE)
  status <- system2(cli, c("batch", "--task", "sentiment", "--input", shQuote(input), "--provider", "simulated",
                           "-M", "19", "-n", "5", "--permutations", "99", "--quiet",
                           "--sample", "4", "--sample-seed", "11", "--where", shQuote("agreement=50|66"),
                           "--output", shQuote(output)), stdout = FALSE, stderr = FALSE)
  expect_equal(status, 0)
  rows <- utils::read.csv(output, stringsAsFactors = FALSE)
  expected <- llm_sample(corpus, n = 4, seed = 11, where = list(agreement = c(50, 66)))
  expect_setequal(as.integer(rows$id), expected$row)
})
