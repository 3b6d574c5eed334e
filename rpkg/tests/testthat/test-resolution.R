# Issue 10: provider, model, key and cache resolution come from the engine, as for the CLI and
# Stata. Each of these failed before: `embedding = NULL` and `llm_embedding_openai(model = NULL)`
# ended in an error, `llm_provider_openai()` had no default model, R had no default cache, and
# only the CLI could pick a provider from the environment. Dry runs make no call.

no_provider_environment <- function(env = parent.frame()) {
  withr::local_envvar(
    LLMV_BASE_URL = NA, ANTHROPIC_API_KEY = NA, OPENAI_API_KEY = NA, AWS_BEARER_TOKEN_BEDROCK = NA,
    AWS_ACCESS_KEY_ID = NA, AWS_SECRET_ACCESS_KEY = NA, LLMV_MODEL = NA,
    LLMV_EMBEDDING_MODEL = NA, .local_envir = env
  )
}

dry_run_of <- function(...) {
  report <- NULL
  utils::capture.output(report <- suppressWarnings(
    llm_validate("Revenue grew.", task = "sentiment", M = 19, n = 5, seed = 1, dry_run = TRUE,
                 cache = NULL, ...)
  ))
  report
}

test_that("the engine's default models fill what R leaves NULL", {
  no_provider_environment()
  defaults <- llm_provider_defaults()
  default_of <- function(kind, provider) defaults$model[defaults$kind == kind & defaults$provider == provider]
  withr::local_envvar(OPENAI_API_KEY = "sk-test-openai")
  report <- dry_run_of(provider = llm_provider_openai(), embedding = NULL)
  expect_match(report$providers, paste0("model ", default_of("chat", "openai")), fixed = TRUE)
  expect_match(report$providers, default_of("embedding", "openai"), fixed = TRUE)

  withr::local_envvar(ANTHROPIC_API_KEY = "sk-ant-test")
  report <- dry_run_of(provider = llm_provider_anthropic(), embedding = llm_embedding_openai(model = NULL))
  expect_match(report$providers, default_of("chat", "anthropic"), fixed = TRUE)
  expect_match(report$providers, paste0("Embeddings: openai (model ", default_of("embedding", "openai")),
               fixed = TRUE)
  expect_setequal(unique(defaults$kind), c("chat", "embedding"))
  expect_true(all(c("openai", "anthropic", "bedrock") %in% defaults$provider[defaults$kind == "chat"]))
})

test_that("provider = NULL picks the provider the environment configures", {
  no_provider_environment()
  withr::local_envvar(ANTHROPIC_API_KEY = "sk-ant-test", OPENAI_API_KEY = "sk-test-openai")
  report <- dry_run_of(provider = NULL)
  expect_match(report$providers, "Provider: anthropic", fixed = TRUE)
  expect_match(report$providers, "chosen from ANTHROPIC_API_KEY", fixed = TRUE)
})

test_that("provider = NULL with nothing configured is an error, not the simulated provider", {
  no_provider_environment()
  withr::local_options(llmvalidate.provider = NULL)
  expect_error(dry_run_of(provider = NULL), class = "llmvalidate_error_invalid_input")
  expect_snapshot(error = TRUE, dry_run_of(provider = NULL))
})

test_that("a server of your own must name its model", {
  no_provider_environment()
  expect_snapshot(error = TRUE,
                  dry_run_of(provider = llm_provider_openai(base_url = "http://127.0.0.1:9/v1")))
})

test_that("Anthropic without an embedding provider asks for one", {
  no_provider_environment()
  withr::local_envvar(ANTHROPIC_API_KEY = "sk-ant-test")
  expect_snapshot(error = TRUE, dry_run_of(provider = llm_provider_anthropic()))
})

test_that("the default cache is the per-user file the CLI and Stata share", {
  withr::local_envvar(LLMV_CACHE = NA, R_USER_CACHE_DIR = file.path(tempdir(), "user-cache"))
  expect_identical(llm_cache_path(),
                   file.path(tools::R_user_dir("llmvalidate", "cache"), "cache.sqlite"))
  withr::local_envvar(LLMV_CACHE = "/somewhere/cache.sqlite")
  expect_identical(llm_cache_path(), "/somewhere/cache.sqlite")
  expect_identical(eval(formals(llm_validate)$cache), llm_cache_path())
  cli <- Sys.getenv("LLMV_CLI")
  skip_if(!nzchar(cli) || !file.exists(cli), "LLMV_CLI is not set")
  expect_identical(system2(cli, c("cache", "--path"), stdout = TRUE), llm_cache_path())
})

test_that("a paid run without a cache says so before the first call", {
  no_provider_environment()
  withr::local_envvar(OPENAI_API_KEY = "sk-test-openai")
  report <- dry_run_of(provider = llm_provider_openai())
  expect_true(any(grepl("No cache", report$warnings, fixed = TRUE)))
  synthetic <- dry_run_of(provider = llm_provider_simulated())
  expect_false(any(grepl("No cache", synthetic$warnings, fixed = TRUE)))
})

test_that("R compares labels with the engine's one normaliser", {
  result <- backtranslation_test("Very Positive", c("very-positive", "Very_Positive", "Neutral"),
                                 labels = c("Very Positive", "Neutral"))
  expect_equal(unname(result$statistic), 2 / 3)
})

test_that("llm_cache_import() names a side file it cannot read", {
  cache <- withr::local_tempfile(fileext = ".sqlite")
  expect_snapshot(error = TRUE, llm_cache_import("/nonexistent/side.jsonl", cache = cache),
                  transform = function(lines) gsub(cache, "<cache>", lines, fixed = TRUE))
})
