test_that("Table 9 and Table 10 match counts done in R", {
  passages <- data.frame(
    label = c("Positive", "Positive", "Negative", "Neutral", "Negative", "Positive", "Neutral"),
    verdict = c("valid", "invalid", "valid", "inconclusive", "valid", "valid", "valid"),
    p.value = c(0.40, 0.01, 0.22, 0.03, 0.65, 0.5, 0.04),
    stringsAsFactors = FALSE
  )
  human <- c("Positive", "Neutral", "Negative", "Neutral", "Neutral", "Positive", "Neutral")
  labels <- c("Positive", "Neutral", "Negative")
  summary <- llm_validation_summary(passages, human = human, labels = labels)
  expect_s3_class(summary, "llm_validation_summary")
  expect_identical(summary$n_total, 7L)
  expect_identical(summary$n_inconclusive, 1L)

  decided <- passages$verdict != "inconclusive"
  overall <- summary$by_label[summary$by_label$label == "(all)", ]
  expect_identical(overall$n, sum(decided))
  expect_identical(overall$n_valid, sum(passages$verdict == "valid"))
  expect_equal(overall$share_valid, mean(passages$verdict[decided] == "valid"))
  for (label in labels) {
    row <- summary$by_label[summary$by_label$label == label, ]
    in_label <- decided & passages$label == label
    expect_identical(row$n, sum(in_label), label = label)
    expect_identical(row$n_valid, sum(in_label & passages$verdict == "valid"), label = label)
    expect_identical(row$n_human_agree, sum(in_label & human == label), label = label)
  }

  cross <- summary$cross
  for (i in seq_len(nrow(cross))) {
    in_cell <- decided & passages$label == cross$llm_label[[i]] & human == cross$human_label[[i]]
    expect_identical(cross$n[[i]], sum(in_cell))
    expect_identical(cross$n_valid[[i]], sum(in_cell & passages$verdict == "valid"))
  }
  expect_identical(sum(cross$n), sum(decided))
})

test_that("Benjamini-Hochberg adjusted p-values equal p.adjust()", {
  set.seed(1)
  p <- c(runif(30)^3, NA, 1, 0)
  passages <- data.frame(label = "a", verdict = "valid", p.value = p)
  summary <- llm_validation_summary(passages)
  expect_equal(summary$p_adjusted, p.adjust(p, method = "BH"), tolerance = 1e-14)
  expect_null(summary$cross)
  expect_null(summary$by_label$share_human)
})

test_that("a list of validations is summarised", {
  data <- three_labels(seed = 9, m = 15)
  back <- list(Positive = rep("Positive", 15))
  validations <- lapply(1:3, function(i) {
    llm_validate_embeddings(data$centres$Positive + rnorm(8), data$pools, "Positive",
                            backtranslation = back, permutations = 99, seed = i)
  })
  summary <- llm_validation_summary(validations)
  expect_identical(summary$n_total, 3L)
  expect_length(summary$p_adjusted, 3)
  expect_snapshot(print(llm_validation_summary(
    data.frame(label = c("a", "b", "a"), verdict = c("valid", "invalid", "inconclusive"),
               p.value = c(0.3, 0.01, 0.2)),
    human = c("a", "a", "b")
  )))
})
