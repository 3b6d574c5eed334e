# llm_validate(provider = <ellmer Chat>): the Chat becomes the package's own provider
# (as_llm_provider() in R/providers.R). Making a Chat contacts nothing; the end-to-end test runs
# against the project's fake server (helper-fake-server.R).

skip_if_not_installed("ellmer")
skip_if_not_installed("S7")

# ellmer 0.4.0 deprecated `api_key` (for `credentials`): the tests still give it, as users do.
quietly_chat <- function(expr) {
  withr::with_options(list(lifecycle_verbosity = "quiet"), suppressMessages(expr))
}

as_provider <- function(chat, settings = "temperature") {
  llmvalidate:::as_llm_provider(chat, settings, call = rlang::current_env())
}

test_that("an OpenAI Chat gives the openai provider with its model, server and key", {
  chat <- quietly_chat(ellmer::chat_openai(base_url = "http://127.0.0.1:9/v1/", model = "fake-chat",
                                           api_key = "sk-host-secret"))
  provider <- as_provider(chat)
  expect_s3_class(provider, "llm_provider")
  expect_identical(provider$name, "openai")
  expect_identical(provider$model, "fake-chat")
  expect_identical(provider$base_url, "http://127.0.0.1:9/v1")
  expect_identical(llmvalidate:::provider_key(provider), "sk-host-secret")
  expect_false(any(grepl("sk-host-secret", c(format(provider), utils::capture.output(str(provider))),
                         fixed = TRUE)))

  # A key from the user's own credentials function is taken too.
  chat <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m",
                                         credentials = function() "sk-from-function")
  expect_identical(llmvalidate:::provider_key(as_provider(chat)), "sk-from-function")
})

test_that("the vendor's default URL and ellmer's default credentials are left to the engine", {
  withr::local_envvar(OPENAI_API_KEY = "sk-openai-from-environment",
                      ANTHROPIC_API_KEY = "sk-ant-from-environment", ANTHROPIC_BASE_URL = NA)
  openai <- as_provider(ellmer::chat_openai(model = "gpt-x"))
  expect_identical(openai$name, "openai")
  expect_identical(openai$model, "gpt-x")
  expect_null(openai$base_url)
  expect_null(llmvalidate:::provider_key(openai))
  # ellmer sends OPENAI_API_KEY to any OpenAI-compatible server by default; the engine does not.
  other <- as_provider(ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1",
                                                      model = "m"))
  expect_identical(other$base_url, "http://127.0.0.1:9/v1")
  expect_null(llmvalidate:::provider_key(other))

  anthropic <- as_provider(suppressMessages(ellmer::chat_anthropic(model = "claude-x")))
  expect_identical(anthropic$name, "anthropic")
  expect_identical(anthropic$model, "claude-x")
  expect_null(anthropic$base_url)
  expect_null(llmvalidate:::provider_key(anthropic))
  # ellmer's Anthropic URLs end in /v1, which the engine adds itself.
  proxy <- as_provider(ellmer::chat_anthropic(model = "claude-x", base_url = "https://proxy.test/v1",
                                              credentials = function() "sk-ant-user"))
  expect_identical(proxy$base_url, "https://proxy.test")
  expect_identical(llmvalidate:::provider_key(proxy), "sk-ant-user")
})

test_that("an Azure OpenAI Chat gives the azure flavour with its endpoint and deployment", {
  chat <- suppressMessages(ellmer::chat_azure_openai(
    endpoint = "https://resource.openai.azure.com", model = "my-deployment",
    api_version = "2024-06-01", credentials = function() "azure-key"
  ))
  provider <- as_provider(chat)
  expect_identical(provider$name, "openai")
  expect_identical(provider$base_url, "https://resource.openai.azure.com")
  expect_identical(provider$model, "my-deployment")
  expect_identical(provider$options, list(flavor = "azure", api_version = "2024-06-01"))
  expect_identical(llmvalidate:::provider_key(provider), "azure-key")
})

test_that("the Chat's temperature becomes the setting; params without one are named in a warning", {
  chat <- ellmer::chat_openai(model = "gpt-x", params = ellmer::params(temperature = 0.25))
  expect_identical(as_provider(chat)$settings, list(temperature = 0.25))
  chat <- ellmer::chat_openai(model = "gpt-x",
                              params = ellmer::params(temperature = 0, max_tokens = 50, seed = 7))
  expect_warning(provider <- as_provider(chat), class = "llmvalidate_warning_ellmer_ignored")
  expect_identical(provider$settings, list(temperature = 0))
  expect_warning(as_provider(chat), "max_tokens")
  # Checked against the engine's range, naming where the value came from.
  chat <- ellmer::chat_openai(model = "gpt-x", params = ellmer::params(temperature = 3))
  expect_error(as_provider(chat), class = "llmvalidate_error_invalid_argument")
  expect_error(as_provider(chat), "params$temperature", fixed = TRUE)
})

test_that("a Chat of another provider class is refused, naming the class", {
  chat <- suppressMessages(ellmer::chat_google_gemini(credentials = function() "google-key"))
  error <- expect_error(as_provider(chat), class = "llmvalidate_error_invalid_argument")
  expect_match(conditionMessage(error), "`provider`", fixed = TRUE)
  expect_match(conditionMessage(error), "ProviderGoogleGemini", fixed = TRUE)
  expect_match(conditionMessage(error), "ProviderAnthropic", fixed = TRUE)  # what is allowed
  # llm_validate() refuses it before any call.
  expect_error(llm_validate("Revenue grew.", task = "sentiment", provider = chat),
               class = "llmvalidate_error_invalid_argument")
})

test_that("Bedrock's Converse Chat gives the bedrock provider; its Messages API is refused", {
  # These classes are internal to ellmer (chat_aws_bedrock() needs AWS credentials to run).
  converse <- get0("ProviderAWSBedrock", envir = asNamespace("ellmer"))
  messages <- get0("ProviderAWSBedrockMessages", envir = asNamespace("ellmer"))
  skip_if(is.null(converse) || is.null(messages) || !is.function(ellmer::Chat$new),
          "this ellmer has no Bedrock API classes")
  bedrock_chat <- function(class, base_url, ...) {
    tryCatch(
      ellmer::Chat$new(provider = class(name = "AWS/Bedrock", base_url = base_url,
                                        region = "eu-west-1", profile = NULL,
                                        creds_cache = list(), ...),
                       model = ellmer::Model(name = "amazon.nova-lite-v1:0")),
      error = function(e) skip(paste("this ellmer's Bedrock classes differ:", conditionMessage(e)))
    )
  }
  provider <- as_provider(bedrock_chat(converse, "https://bedrock-runtime.eu-west-1.amazonaws.com",
                                       cache_point = "none"))
  expect_identical(provider$name, "bedrock")
  expect_identical(provider$model, "amazon.nova-lite-v1:0")
  expect_null(provider$base_url)
  expect_null(llmvalidate:::provider_key(provider))
  chat <- bedrock_chat(messages, "https://bedrock-mantle.eu-west-1.api.aws/anthropic/v1",
                       beta_headers = character(), cache = "none")
  error <- expect_error(as_provider(chat), class = "llmvalidate_error_invalid_argument")
  expect_match(conditionMessage(error), "ProviderAWSBedrockMessages", fixed = TRUE)
})

test_that("llm_validate() with an ellmer Chat gives what the same llm_provider_openai() gives", {
  log <- withr::local_tempfile(fileext = ".log")
  # The server refuses any other key: a run without the Chat's key would fail.
  server <- local_fake_server(args = c("--credential-log", log, "--api-key", "sk-host-secret"))
  withr::local_envvar(OPENAI_API_KEY = NA, LLMV_API_KEY = NA, LLMV_EMBEDDING_API_KEY = NA,
                      LLMV_BASE_URL = NA, LLMV_MODEL = NA)
  texts <- c(up = "Revenue grew strongly this year.", down = "Losses widened sharply.")
  run <- function(provider, ...) {
    withCallingHandlers(
      llm_validate(texts, task = "sentiment", provider = provider,
                   embedding = llm_embedding_openai(model = "fake-embedding",
                                                    base_url = server$base_url),
                   M = 24, n = 6, permutations = 199, seed = 2, cache = NULL, concurrency = 4, ...),
      llmvalidate_warning_no_cache = function(warning) invokeRestart("muffleWarning")
    )
  }
  # Temperature 0: the fake server then answers each prompt the same way, whatever the order.
  chat <- quietly_chat(ellmer::chat_openai(base_url = server$base_url, model = "fake-chat",
                                           api_key = "sk-host-secret",
                                           params = ellmer::params(temperature = 0)))
  from_chat <- run(chat)
  sent <- fake_served(server)
  fake_reset(server)
  expected <- run(llm_provider_openai(model = "fake-chat", base_url = server$base_url,
                                      api_key = "sk-host-secret"), temperature = 0)

  expect_false(any(from_chat$verdict == "error"), info = paste(from_chat$error, collapse = "; "))
  expect_identical(from_chat$label, expected$label)
  expect_identical(from_chat$verdict, expected$verdict)
  expect_identical(from_chat$tau, expected$tau)
  expect_identical(from_chat$p.value, expected$p.value)
  # The Chat's temperature reached the server, and only the Chat's key did.
  chat_requests <- sent$request[sent$endpoint == "openai.chat"]
  expect_gt(length(chat_requests), 0)
  temperatures <- vapply(chat_requests, function(body) {
    as.numeric(jsonlite::fromJSON(body, simplifyVector = FALSE)$temperature %||% NA)
  }, numeric(1))
  expect_true(all(temperatures == 0))
  entries <- readLines(log)
  expect_gt(length(entries), 0)
  expect_true(all(endsWith(entries, "\tauthorization=Bearer sk-host-secret")))
  # A setting given in the call wins over the Chat's.
  fake_reset(server)
  run(chat, temperature = 0.5)
  sent <- fake_served(server)
  temperatures <- vapply(sent$request[sent$endpoint == "openai.chat"], function(body) {
    as.numeric(jsonlite::fromJSON(body, simplifyVector = FALSE)$temperature %||% NA)
  }, numeric(1))
  expect_true(length(temperatures) > 0 && all(temperatures == 0.5))
})
