# Issue 23: the vendor's own model list (llm_models()), and a setting the model refuses is an
# error before any request. Both against the fake provider server on 127.0.0.1.

test_that("llm_models() lists the vendor's catalogue, marks the defaults and says which are priced", {
  server <- local_fake_server()
  # ANTHROPIC_API_KEY goes to Anthropic's hosts only: the fake server gets LLMV_API_KEY.
  withr::local_envvar(ANTHROPIC_API_KEY = "test-key", LLMV_API_KEY = "test-key")
  models <- llm_models("anthropic", base_url = server$root_url)
  expect_equal(models$id, c("claude-haiku-5-5", "claude-sonnet-4-6", "claude-opus-4-8"))
  defaults <- llm_provider_defaults()
  expect_equal(models$default_for[models$id == defaults$model[defaults$provider == "anthropic"]], "chat")
  expect_equal(sum(models$default_for != ""), 1)
  expect_true(all(models$priced))
  expect_equal(models$kind, rep("model", 3))
})

test_that("llm_models() names the argument when the vendor has no model list", {
  expect_error(llm_models("ollama"), "`provider` must be a vendor with a model list")
})

test_that("a temperature the model refuses is an error before any request", {
  server <- local_fake_server()
  # ANTHROPIC_API_KEY goes to Anthropic's hosts only: the fake server gets LLMV_API_KEY.
  withr::local_envvar(ANTHROPIC_API_KEY = "test-key", LLMV_API_KEY = "test-key",
                      LLMV_EMBEDDING_API_KEY = "test-key")
  expect_error(
    llm_validate("Revenue grew strongly this quarter.", task = "sentiment",
                 provider = llm_provider_anthropic(model = "claude-opus-4-8", base_url = server$root_url),
                 embedding = llm_embedding_openai(model = "fake-embedding", base_url = server$base_url),
                 M = 20, n = 10, temperature = 0.7, cache = NULL),
    "`temperature` must be 1 only for model claude-opus-4-8.*received 0.7", class = "llmvalidate_error"
  )
  expect_equal(fake_counters(server)[["total"]], 0)
})
test_that("the defaults are dated with their source", {
  defaults <- llm_provider_defaults()
  vendors <- defaults[defaults$provider %in% c("openai", "anthropic", "bedrock", "bedrock-titan"), ]
  expect_true(all(grepl("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", vendors$checked)))
  expect_true(all(nzchar(vendors$source)))
})
