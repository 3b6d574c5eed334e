# Live provider APIs: skipped unless a key is set in the environment, and never on CRAN. These
# are the only tests that may leave the machine; each makes a few dozen small paid requests
# (M = 4, n = 4) and keeps them in a temporary cache to check that a re-run makes no call.
live_passage <- "Revenue grew strongly and margins improved across every segment."
# The model a live test uses: the variable's, else NULL, the engine's default (the table that
# llm_provider_defaults() shows), so that these tests follow the defaults instead of naming a
# model that may retire.
live_model <- function(variable) {
  value <- Sys.getenv(variable)
  if (nzchar(value)) value else NULL
}

test_that("OpenAI: one passage end to end, and a cached re-run", {
  skip_on_cran()
  skip_if(!nzchar(Sys.getenv("OPENAI_API_KEY")), "OPENAI_API_KEY is not set")
  cache <- withr::local_tempfile(fileext = ".sqlite")
  run <- function() {
    llm_validate(
      live_passage, task = "sentiment",
      provider = llm_provider_openai(model = live_model("LLMV_LIVE_OPENAI_MODEL")),
      embedding = llm_embedding_openai(model = live_model("LLMV_LIVE_OPENAI_EMBEDDING")),
      M = 4, n = 4, permutations = 99, seed = 1, cache = cache
    )
  }
  first <- run()
  expect_s3_class(first, "llm_validation")
  expect_false(first$synthetic)
  expect_true(first$label %in% c("Positive", "Neutral", "Negative"))
  second <- run()
  expect_equal(second$calls[["chat_calls"]], 0)
  expect_identical(first$validation$statistic, second$validation$statistic)
})

test_that("Anthropic: one passage end to end with OpenAI embeddings", {
  skip_on_cran()
  skip_if(!nzchar(Sys.getenv("ANTHROPIC_API_KEY")), "ANTHROPIC_API_KEY is not set")
  skip_if(!nzchar(Sys.getenv("OPENAI_API_KEY")), "OPENAI_API_KEY is not set (embeddings)")
  validation <- llm_validate(
    live_passage, task = "sentiment",
    provider = llm_provider_anthropic(model = live_model("LLMV_LIVE_ANTHROPIC_MODEL")),
    embedding = llm_embedding_openai(),
    M = 4, n = 4, permutations = 99, seed = 1, cache = NULL
  )
  expect_s3_class(validation, "llm_validation")
  expect_false(validation$synthetic)
})
