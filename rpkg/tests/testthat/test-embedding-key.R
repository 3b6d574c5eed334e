# Issue 42, item 10: an embedding provider takes its own key (`api_key`), which reaches the
# embedding server and no other; printing it says where its key comes from, never the key.

test_that("printing an embedding provider says where its key comes from, never the key", {
  default <- paste(utils::capture.output(print(llm_embedding_openai())), collapse = "\n")
  # Not "from the environment": with llm_provider_openai() on the same server, the chat
  # provider's key is the one sent.
  expect_false(grepl("from the environment", default, fixed = TRUE))
  expect_match(default, "the chat provider's key when it is llm_provider_openai() on the same server, else OPENAI_API_KEY", fixed = TRUE)
  own <- paste(utils::capture.output(print(llm_embedding_openai(base_url = "http://127.0.0.1:9/v1"))),
               collapse = "\n")
  expect_match(own, "else LLMV_EMBEDDING_API_KEY", fixed = TRUE)
  given <- paste(utils::capture.output(print(llm_embedding_openai(api_key = "sk-embedding-secret"))),
                 collapse = "\n")
  expect_false(grepl("sk-embedding-secret", given, fixed = TRUE))
  expect_match(given, "<redacted> (given as `api_key`)", fixed = TRUE)
  expect_false(grepl("sk-embedding-secret", paste(utils::capture.output(
    str(llm_embedding_openai(api_key = "sk-embedding-secret"))), collapse = "\n"), fixed = TRUE))
  bedrock <- paste(utils::capture.output(print(llm_embedding_bedrock())), collapse = "\n")
  expect_match(bedrock, "AWS_BEARER_TOKEN_BEDROCK", fixed = TRUE)
  expect_error(llm_embedding_openai(api_key = 1), class = "llmvalidate_error_invalid_argument")
})

test_that("llm_embedding_openai(api_key =) is the key the embedding server receives", {
  withr::local_envvar(LLMV_EMBEDDING_API_KEY = NA, LLMV_API_KEY = NA, OPENAI_API_KEY = NA,
                      LLMV_BASE_URL = NA, LLMV_MODEL = NA, LLMV_EMBEDDING_MODEL = NA)
  chat <- local_fake_server(args = c("--api-key", "chat-key"))
  embedder <- local_fake_server(args = c("--api-key", "embedding-key"))
  run <- function(embedding) {
    llm_validate(c(up = "Revenue grew strongly this year."), task = "sentiment",
                 provider = llm_provider_openai(model = "fake-chat", base_url = chat$base_url,
                                                api_key = "chat-key"),
                 embedding = embedding, M = 20, n = 10, permutations = 99, seed = 2,
                 cache = FALSE, concurrency = 4)
  }
  quiet <- function(expr) {
    withCallingHandlers(expr, llmvalidate_warning = function(w) invokeRestart("muffleWarning"))
  }
  result <- quiet(run(llm_embedding_openai(model = "fake-embedding", base_url = embedder$base_url,
                                           api_key = "embedding-key")))
  expect_false(identical(result$verdict, "error"))
  expect_gt(fake_counters(embedder)[["embeddings"]], 0)
  expect_identical(fake_counters(embedder)[["chat"]], 0)
  expect_identical(fake_counters(chat)[["embeddings"]], 0)
  # The result keeps what llm_generations() needs to read the run back, never a key.
  kept <- rawToChar(serialize(result, NULL, ascii = TRUE))
  expect_false(grepl("embedding-key", kept, fixed = TRUE))
  expect_false(grepl("chat-key", kept, fixed = TRUE))
  # Without it, the embedding server gets no key (the chat key goes to its own server only):
  # the server refuses, and no message shows a key.
  fake_reset(embedder)
  error <- tryCatch(quiet(run(llm_embedding_openai(model = "fake-embedding",
                                                   base_url = embedder$base_url))),
                    error = function(e) e)
  expect_s3_class(error, "llmvalidate_error")
  expect_false(grepl("chat-key", conditionMessage(error), fixed = TRUE))
  # A wrong embedding key is redacted from the server's echo of it.
  error <- tryCatch(quiet(run(llm_embedding_openai(model = "fake-embedding",
                                                   base_url = embedder$base_url,
                                                   api_key = "wrong-embedding-key"))),
                    error = function(e) e)
  expect_s3_class(error, "llmvalidate_error")
  expect_false(grepl("wrong-embedding-key", conditionMessage(error), fixed = TRUE))
})
