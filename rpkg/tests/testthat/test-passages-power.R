# llm_passages() (the paper's Section 4 passages) and llm_power() (synthetic power analysis).

test_that("llm_passages() reads the five Section 4 passages with their prompts", {
  passages <- llm_passages()
  expect_s3_class(passages, "llm_passages")
  expect_identical(nrow(passages), 5L)
  expect_true(all(nzchar(passages$text)))
  expect_false(anyDuplicated(passages$id) > 0)
  expect_true(all(vapply(passages$simulation, function(s) "simple_sentiment" %in% names(s),
                         logical(1))))
  expect_true(all(vapply(passages$variables,
                         function(v) all(c("topic", "topic_not_discussed", "genre") %in% names(v)),
                         logical(1))))
  expect_snapshot(error = TRUE, llm_passages("no/such/file.toml"))
})

test_that("a passage's own simulation prompt is what the run sends", {
  passages <- llm_passages()[2, ]  # the 10-K prompt is also the task's generic one
  own <- capture_dry_run(llm_validate(passages, task = "sentiment",
                                      provider = llm_provider_simulated(), M = 20, n = 5,
                                      dry_run = TRUE, seed = 1))
  generic <- capture_dry_run(llm_validate(passages$text, task = "sentiment",
                                          provider = llm_provider_simulated(), M = 20, n = 5,
                                          dry_run = TRUE, seed = 1))
  expect_identical(own$calls[["chat_calls"]], generic$calls[["chat_calls"]])
  # The earnings call has its own prompt, which differs from the generic (10-K) one.
  expect_false(identical(own$estimated_input_tokens, generic$estimated_input_tokens))
  validations <- llm_validate(llm_passages(), task = "sentiment",
                              provider = llm_provider_simulated(), M = 20, n = 5,
                              permutations = 99, seed = 1)
  expect_identical(validations$id, llm_passages()$id)
})

test_that("llm_validation_summary() takes an llm_validations frame and its human labels", {
  texts <- c("Revenue grew strongly.", "Losses widened sharply.", "Results were in line.",
             "Margins improved a lot.")
  human <- c("Positive", "Negative", "Neutral", "Positive")
  validations <- llm_validate(texts, task = "sentiment", human = human,
                              provider = llm_provider_simulated(), M = 20, n = 10,
                              permutations = 99, seed = 3)
  summary <- llm_validation_summary(validations)
  expect_s3_class(summary, "llm_validation_summary")
  expect_false(is.null(summary$cross))
  expect_equal(sum(summary$cross$n), summary$n_total - summary$n_inconclusive)
  expect_identical(summary$n_total, 4L)
})

test_that("the topic task takes its variable from `variables`", {
  passage <- llm_passages()$text[[1]]
  expect_error(
    llm_validate(passage, task = "topic", provider = llm_provider_simulated(), M = 20, n = 5,
                 seed = 1),
    class = "llmvalidate_error"
  )
  validation <- llm_validate(passage, task = "topic", provider = llm_provider_simulated(),
                             M = 20, n = 5, permutations = 99, seed = 1,
                             variables = c(topic = "economic risks"))
  expect_true(validation$label %in% c("True", "False"))
  expect_snapshot(error = TRUE, llm_validate(passage, task = "topic",
                                             provider = llm_provider_simulated(),
                                             variables = "economic risks"))
})

test_that("llm_power() gives shares that add up, and is reproducible", {
  provider <- llm_provider_simulated(annotator_accuracy = 0.8)
  power <- llm_power("sentiment", provider, M = 20, n = 10, replications = 30,
                     permutations = 99, seed = 4)
  expect_s3_class(power, "llm_power")
  expect_identical(as.integer(power$replications), 30L)
  expect_equal(power$share_valid + power$share_invalid + power$share_inconclusive, 1)
  expect_equal(power$n_correct + power$n_wrong, 30)
  expect_equal(power$share_annotation_correct, power$n_correct / 30)
  again <- llm_power("sentiment", provider, M = 20, n = 10, replications = 30,
                     permutations = 99, seed = 4)
  expect_identical(power$share_valid, again$share_valid)
  expect_output(print(power), "Synthetic")
  expect_snapshot(error = TRUE, llm_power("sentiment", llm_provider_openai()))
  expect_snapshot(error = TRUE, llm_power("sentiment", replications = 0))
})

test_that("with a label-blind generator, the permutation separation test rarely passes", {
  # label_signal = 0: texts carry no trace of their label, so separation must fail. The
  # permutation test passes at rate <= alpha; the paper's test passes almost always.
  blind <- llm_provider_simulated(label_signal = 0)
  permutation <- llm_power("sentiment", blind, M = 30, n = 10, replications = 40,
                           permutations = 99, seed = 9)
  paper <- llm_power("sentiment", blind, M = 30, n = 10, replications = 40,
                     permutations = 99, seed = 9, methods = c(separation = "paper"))
  expect_lt(permutation$share_separation_all_pass, 0.2)
  expect_gt(paper$share_separation_all_pass, 0.8)
})
