# Issue 39: model lifecycles from the vendor, at run time, against the fake provider server
# serving the vendors' lifecycle fields (--lifecycle-models 1: per vendor a model retiring 30
# days after the server's start and a retired one).

in_30_days <- function() format(as.Date(Sys.time() + 30 * 86400, tz = "UTC"))

test_that("llm_models() shows each model's lifecycle and retirement date, also from a provider", {
  server <- local_fake_server(args = c("--lifecycle-models", "1"))
  # ANTHROPIC_API_KEY goes to Anthropic's hosts only: the fake server gets LLMV_API_KEY.
  withr::local_envvar(ANTHROPIC_API_KEY = "test-key", LLMV_API_KEY = "test-key")
  models <- llm_models("anthropic", base_url = server$root_url)
  retiring <- models[models$id == "claude-fake-retiring", ]
  expect_equal(retiring$lifecycle, "deprecated")
  expect_equal(retiring$retires, in_30_days())
  expect_equal(retiring$lifecycle_source, "vendor")
  expect_equal(models$lifecycle[models$id == "claude-fake-retired"], "retired")
  expect_equal(models$lifecycle[models$id == "claude-haiku-5-5"], "active")
  expect_equal(models$retires[models$id == "claude-haiku-5-5"], "")
  # A provider object: its vendor, base URL and key.
  openai <- llm_models(llm_provider_openai(base_url = server$base_url, api_key = "test-key"))
  expect_equal(openai$retires[openai$id == "fake-chat-retiring"], in_30_days())
  expect_equal(openai$lifecycle[openai$id == "fake-chat-retired"], "retired")
  expect_true(all(c("status", "lifecycle", "retires", "replacement") %in% names(openai)))
})

test_that("llm_models(cache =) answers a second listing from the day cache", {
  server <- local_fake_server(args = c("--lifecycle-models", "1"))
  # ANTHROPIC_API_KEY goes to Anthropic's hosts only: the fake server gets LLMV_API_KEY.
  withr::local_envvar(ANTHROPIC_API_KEY = "test-key", LLMV_API_KEY = "test-key")
  cache <- withr::local_tempfile(fileext = ".sqlite")
  first <- llm_models("anthropic", base_url = server$root_url, cache = cache)
  second <- llm_models("anthropic", base_url = server$root_url, cache = cache)
  expect_equal(second, first)
  counters <- fake_control(server, "GET", "/_control/counters")
  expect_equal(counters[["anthropic.models"]], 1)
})

test_that("a run on a model retiring in 30 days warns before its first call", {
  server <- local_fake_server(args = c("--lifecycle-models", "1"))
  # ANTHROPIC_API_KEY goes to Anthropic's hosts only: the fake server gets LLMV_API_KEY.
  withr::local_envvar(ANTHROPIC_API_KEY = "test-key", LLMV_API_KEY = "test-key",
                      LLMV_EMBEDDING_API_KEY = "test-key",
                      LLMV_MODEL_LIST = "always")
  calls_at_warning <- NULL
  result <- withCallingHandlers(
    llm_validate("Revenue grew strongly this quarter.", task = "sentiment",
                 provider = llm_provider_anthropic(model = "claude-fake-retiring",
                                                   base_url = server$root_url),
                 embedding = llm_embedding_openai(model = "fake-embedding", base_url = server$base_url),
                 M = 20, n = 10, cache = NULL),
    llmvalidate_warning_model_retiring = function(w) {
      calls_at_warning <<- fake_control(server, "GET", "/_control/counters")[["anthropic.messages"]] %||% 0
      expect_match(conditionMessage(w), paste0("claude-fake-retiring.*retires on ", in_30_days()))
      invokeRestart("muffleWarning")
    },
    llmvalidate_warning_no_cache = function(w) invokeRestart("muffleWarning")
  )
  expect_equal(calls_at_warning, 0)
  counters <- fake_control(server, "GET", "/_control/counters")
  expect_gt(counters[["anthropic.messages"]], 0)
})

test_that("a run on a retired model sends nothing", {
  server <- local_fake_server(args = c("--lifecycle-models", "1"))
  # ANTHROPIC_API_KEY goes to Anthropic's hosts only: the fake server gets LLMV_API_KEY.
  withr::local_envvar(ANTHROPIC_API_KEY = "test-key", LLMV_API_KEY = "test-key",
                      LLMV_EMBEDDING_API_KEY = "test-key",
                      LLMV_MODEL_LIST = "always")
  expect_error(
    suppressWarnings(
      llm_validate("Revenue grew strongly this quarter.", task = "sentiment",
                   provider = llm_provider_anthropic(model = "claude-fake-retired",
                                                     base_url = server$root_url),
                   embedding = llm_embedding_openai(model = "fake-embedding", base_url = server$base_url),
                 M = 20, n = 10, cache = NULL)
    ),
    "`model` must be a model anthropic still serves: this one was retired on",
    class = "llmvalidate_error"
  )
  counters <- fake_control(server, "GET", "/_control/counters")
  expect_equal(counters[["anthropic.messages"]] %||% 0, 0)
  expect_equal(counters[["total"]], counters[["anthropic.models"]])
})
