# llm_validate() against the project's fake provider server (OpenAI-compatible, 127.0.0.1
# only; see helper-fake-server.R). The server counts every request it receives, so the tests
# check the exact number of paid calls, not only what the engine says it made.
texts <- c(up = "Revenue grew strongly this year.", down = "Losses widened sharply.")

# Without a cache every run warns (llmvalidate_warning_no_cache); the test below checks that
# warning, the others run without a cache on purpose.
fake_run <- function(server, text = texts, cache = NULL, key = "test-key", ...) {
  withCallingHandlers(
    llm_validate(
      text, task = "sentiment",
      provider = llm_provider_openai(model = "fake-chat", base_url = server$base_url,
                                     api_key = key),
      embedding = llm_embedding_openai(model = "fake-embedding", base_url = server$base_url),
      M = 24, n = 6, permutations = 199, seed = 2, cache = cache, concurrency = 4, ...
    ),
    llmvalidate_warning_no_cache = function(warning) invokeRestart("muffleWarning")
  )
}

test_that("a paid run without a cache warns before the first call, one with a cache says where", {
  server <- local_fake_server()
  expect_warning(
    llm_validate(texts[1], task = "sentiment",
                 provider = llm_provider_openai(model = "fake-chat", base_url = server$base_url,
                                                api_key = "test-key"),
                 embedding = llm_embedding_openai(model = "fake-embedding"),
                 M = 19, n = 6, permutations = 199, seed = 2, cache = NULL),
    class = "llmvalidate_warning_no_cache"
  )
  cache <- withr::local_tempfile(fileext = ".sqlite")
  expect_message(fake_run(server, text = texts[1], cache = cache), class = "llmvalidate_message_cache")
})

test_that("the server receives exactly the calls of the cost formula, and dry_run predicts them", {
  server <- local_fake_server()
  labels_k <- 3
  per_passage <- 1 + labels_k * ceiling(24 / 6) + 24  # R + K*ceil(M/n) + M
  expect_output(plan <- fake_run(server, dry_run = TRUE), "chat calls")
  expect_equal(plan$calls[["chat_calls"]], length(texts) * per_passage)
  expect_equal(plan$calls[["embedded_texts"]], length(texts) * (labels_k * 24 + 1))
  expect_equal(fake_counters(server)[["total"]], 0)  # a dry run makes no call

  validations <- fake_run(server)
  expect_s3_class(validations, "llm_validations")
  expect_identical(validations$id, names(texts))
  expect_false(any(validations$verdict == "error"), info = paste(validations$error, collapse = "; "))
  expect_false(isTRUE(attr(validations, "synthetic")))
  received <- fake_counters(server)
  calls <- attr(validations, "calls")
  # The formula, less the requests that two passages made at once and were sent once (the
  # fake server's short texts can repeat, and so then do their backtranslation prompts),
  # plus a redraw for any answer it makes unparseable or outside the label set (rare,
  # random); the engine's own count is exact either way.
  expected <- length(texts) * per_passage - calls[["shared"]]
  expect_gte(received[["chat"]], expected)
  expect_lte(received[["chat"]], expected + 3)
  expect_lte(received[["chat"]], expected + calls[["parse_retries"]])
  expect_equal(received[["chat"]], attr(validations, "calls")[["chat_calls"]])
  expect_equal(received[["embeddings"]], attr(validations, "calls")[["embedding_requests"]])
})

test_that("a re-run with the cache makes zero calls and gives identical numbers", {
  server <- local_fake_server()
  cache <- withr::local_tempfile(fileext = ".sqlite")
  first <- fake_run(server, cache = cache)
  paid <- fake_counters(server)
  expect_gt(paid[["total"]], 0)
  second <- fake_run(server, cache = cache)
  expect_equal(fake_counters(server), paid)  # not one more request
  expect_equal(attr(second, "calls")[["chat_calls"]], 0)
  expect_identical(first$tau, second$tau)
  expect_identical(first$p.value, second$p.value)
  expect_identical(first$verdict, second$verdict)
})

test_that("a new seed draws new texts; the same seed reads them back from the cache", {
  server <- local_fake_server()
  cache <- withr::local_tempfile(fileext = ".sqlite")
  seeded_run <- function(seed) {
    llm_validate(
      texts[[1]], task = "sentiment",
      provider = llm_provider_openai(model = "fake-chat", base_url = server$base_url,
                                     api_key = "test-key"),
      embedding = llm_embedding_openai(model = "fake-embedding", base_url = server$base_url),
      M = 24, n = 6, permutations = 199, seed = seed, cache = cache
    )
  }
  first <- seeded_run(2)
  paid <- fake_counters(server)
  # Another seed: new simulation requests (K * ceil(M / n) = 12) and the backtranslations of
  # their new texts; the passage's annotation comes from the cache.
  third <- seeded_run(3)
  expect_s3_class(third, "llm_validations")
  new_calls <- fake_counters(server)[["chat"]] - paid[["chat"]]
  expect_gte(new_calls, 12)
  expect_gte(llm_details(third)$calls[["cache_hits"]], 1)
  # That seed again: not one request.
  after_third <- fake_counters(server)
  again <- seeded_run(3)
  expect_equal(fake_counters(server), after_third)
  expect_identical(again$tau, third$tau)
})

test_that("a server of your own gets the key named for it (LLMV_API_KEY), never OPENAI_API_KEY", {
  log <- withr::local_tempfile(fileext = ".log")
  # Any key is accepted: the test reads the keys the server received from the log.
  server <- local_fake_server(args = c("--credential-log", log, "--api-key", ""))
  withr::local_envvar(OPENAI_API_KEY = "sk-openai-vendor-key-never-sent", LLMV_API_KEY = NA,
                      LLMV_EMBEDDING_API_KEY = NA)
  validation <- llm_details(fake_run(server, text = texts[[1]], key = NULL))
  expect_s3_class(validation, "llm_validation")
  expect_false(validation$synthetic)
  entries <- readLines(log)
  expect_gt(length(entries), 0)
  expect_false(any(grepl("=", entries, fixed = TRUE)))  # no credential header at all
  unlink(log)
  withr::local_envvar(LLMV_API_KEY = "sk-named-for-this-server")
  fake_run(server, text = texts[[2]], key = NULL)
  entries <- readLines(log)
  expect_gt(length(entries), 0)
  expect_true(all(endsWith(entries, "\tauthorization=Bearer sk-named-for-this-server")))
})

test_that("an HTTP 429 is retried after Retry-After and costs one extra request", {
  server <- local_fake_server()
  fake_faults(server, "openai.chat", list(list(kind = "http_error", status = 429,
                                               retry_after = "0")))
  validation <- llm_details(fake_run(server, text = texts[[1]]))
  expect_s3_class(validation, "llm_validation")
  calls <- validation$calls
  expect_equal(calls[["transport_retries"]], 1)
  # The formula and the retried request; less a backtranslation sent once for two equal
  # pool texts, plus any redraw (both rare: see the first test).
  expect_equal(fake_counters(server)[["chat"]],
               1 + 3 * 4 + 24 + 1 - calls[["shared"]] + calls[["parse_retries"]])
})

test_that("provider errors are classed conditions from the engine's codes, keys redacted", {
  server <- local_fake_server()
  fake_faults(server, "openai.chat", list(list(kind = "http_error", status = 429,
                                               retry_after = "0")))
  expect_error(fake_run(server, text = texts[[1]], max_retries = 0),
               class = "llmvalidate_error_rate_limited")
  fake_reset(server)
  fake_faults(server, "openai.chat", list(list(kind = "http_error", status = 429,
                                               retry_after = "0")))
  expect_snapshot(error = TRUE, transform = scrub_port, {
    fake_run(server, text = texts[[1]], max_retries = 0)
  })

  secret <- "sk-wrong-secret-key-0123456789"
  error <- expect_error(fake_run(server, text = texts[[1]], key = secret),
                        class = "llmvalidate_error_auth")
  expect_s3_class(error, "llmvalidate_error_provider")
  expect_false(grepl(secret, conditionMessage(error), fixed = TRUE))
  # Which request meets the 401 first (annotation or embedding) is a race: no snapshot.
  expect_match(conditionMessage(error), "HTTP 401")
  expect_match(conditionMessage(error), "<redacted>", fixed = TRUE)
  expect_match(conditionMessage(error), "check `api_key`, or where the key comes from: OPENAI_API_KEY",
               fixed = TRUE)
})

test_that("with many passages a failed passage is a row and a classed warning", {
  server <- local_fake_server()
  # A later request (not the run's first, whose 400 stops the run: every request would be
  # refused alike) gets an HTTP 400, which is not retried: one passage fails.
  fake_faults(server, "openai.chat", list(list(kind = "none"), list(kind = "http_error", status = 400)))
  expect_warning(
    validations <- fake_run(server),
    class = "llmvalidate_warning_passages_failed"
  )
  expect_identical(sort(validations$verdict == "error"), c(FALSE, TRUE))
})

# Issue 29 (7): every passage failing for one cause gave a warning and a table of "error" rows
# that a script could carry on with.
test_that("every passage failing for the same cause is an error, key redacted", {
  server <- local_fake_server()
  error <- expect_error(fake_run(server, key = "sk-wrong-secret-key-0123456789"),
                        class = "llmvalidate_error_auth")
  expect_match(conditionMessage(error), "Every passage (2) failed for the same reason", fixed = TRUE)
  expect_false(grepl("sk-wrong-secret", conditionMessage(error), fixed = TRUE))
})

test_that("Ctrl-C cancels the run, the cache keeps what was paid for, the same call resumes", {
  skip_on_os("windows")  # SIGINT
  server <- local_fake_server(latency_ms = 100)
  cache <- withr::local_tempfile(fileext = ".sqlite")
  script <- withr::local_tempfile(fileext = ".R")
  # The run in a separate R process, interrupted with SIGINT as Ctrl-C would be.
  writeLines(c(
    "library(llmvalidate)",
    "args <- commandArgs(TRUE)",
    "outcome <- tryCatch({",
    "  llm_validate(c('Revenue grew strongly this year.', 'Losses widened sharply.'),",
    "    task = 'sentiment',",
    "    provider = llm_provider_openai(model = 'fake-chat', base_url = args[1],",
    "                                   api_key = 'test-key'),",
    "    embedding = llm_embedding_openai(model = 'fake-embedding', base_url = args[1]),",
    "    M = 24, n = 6, permutations = 199, seed = 2, cache = args[2], concurrency = 2)",
    "  'finished'",
    "}, llmvalidate_error_cancelled = function(e) 'cancelled')",
    "cat('OUTCOME', outcome, '\\n')"
  ), script)
  rscript <- file.path(R.home("bin"), "Rscript")
  child <- processx::process$new(rscript, c(script, server$base_url, cache),
                                 stdout = "|", stderr = "|",
                                 env = c("current", R_LIBS = paste(.libPaths(), collapse = ":")))
  withr::defer(child$kill())
  deadline <- Sys.time() + 60
  while (fake_counters(server)[["chat"]] < 5 && Sys.time() < deadline) Sys.sleep(0.05)
  child$interrupt()
  child$wait(30000)
  expect_match(paste(child$read_all_output_lines(), collapse = "\n"), "OUTCOME cancelled")
  paid_before <- fake_counters(server)[["chat"]]
  expect_gt(paid_before, 0)

  fake_reset(server)
  resumed <- fake_run(server, cache = cache)  # the same call (concurrency does not matter)
  resumed_calls <- fake_counters(server)[["chat"]]
  expect_false(any(resumed$verdict == "error"))
  # Everything answered before the interrupt came from the cache.
  expect_lt(resumed_calls, 2 * (1 + 3 * 4 + 24))
  expect_gt(attr(resumed, "calls")[["cache_hits"]], 0)
  fake_reset(server)
  fake_run(server, cache = cache)
  expect_equal(fake_counters(server)[["total"]], 0)

  # Issue 12: nothing paid is lost. The interrupted run and its resume together pay for
  # exactly the answers an uninterrupted run pays for (the fake server's answers are a function
  # of the request, so both runs ask the same requests).
  fake_reset(server)
  fresh <- withr::local_tempfile(fileext = ".sqlite")
  fake_run(server, cache = fresh)
  expect_equal(paid_before + resumed_calls, fake_counters(server)[["chat"]])
})

test_that("chat from Anthropic and embeddings from OpenAI: each request carries only its own key", {
  log <- withr::local_tempfile(fileext = ".log")
  # Any key is accepted: the test reads the keys each endpoint received from the log.
  server <- local_fake_server(args = c("--credential-log", log, "--api-key", ""))
  # The embedding server is not OpenAI's: it gets the key named for it, never OPENAI_API_KEY.
  withr::local_envvar(LLMV_EMBEDDING_API_KEY = "sk-openai-for-embeddings",
                      OPENAI_API_KEY = "sk-openai-vendor-key-never-sent",
                      ANTHROPIC_API_KEY = NA)
  result <- llm_validate(
    "Revenue grew strongly this quarter.", task = "sentiment",
    provider = llm_provider_anthropic(model = "fake-claude", base_url = server$root_url,
                                      api_key = "sk-ant-for-chat-only"),
    embedding = llm_embedding_openai(model = "fake-embed", base_url = server$base_url),
    M = 20, n = 10, permutations = 99, seed = 1
  )
  expect_s3_class(result, "llm_validations")
  entries <- readLines(log)
  chat <- entries[startsWith(entries, "anthropic.messages\t")]
  embeddings <- entries[startsWith(entries, "openai.embeddings\t")]
  expect_gt(length(chat), 0)
  expect_gt(length(embeddings), 0)
  expect_equal(length(chat) + length(embeddings), length(entries))
  expect_true(all(chat == "anthropic.messages\tx-api-key=sk-ant-for-chat-only"))
  expect_true(all(embeddings == "openai.embeddings\tauthorization=Bearer sk-openai-for-embeddings"))
})

test_that("ANTHROPIC_API_KEY reaches no server but Anthropic's; the key named for it does", {
  # Issue 41: as OPENAI_API_KEY, Anthropic's key goes to Anthropic's hosts only.
  log <- withr::local_tempfile(fileext = ".log")
  server <- local_fake_server(args = c("--credential-log", log, "--api-key", ""))
  withr::local_envvar(ANTHROPIC_API_KEY = "sk-ant-vendor-key-never-sent",
                      LLMV_API_KEY = "sk-named-for-this-server",
                      LLMV_EMBEDDING_API_KEY = "sk-openai-for-embeddings")
  result <- llm_validate(
    "Revenue grew strongly this quarter.", task = "sentiment",
    provider = llm_provider_anthropic(model = "fake-claude", base_url = server$root_url),
    embedding = llm_embedding_openai(model = "fake-embed", base_url = server$base_url),
    M = 20, n = 10, permutations = 99, seed = 1
  )
  expect_s3_class(result, "llm_validations")
  expect_identical(result$verdict != "error", TRUE)
  entries <- readLines(log)
  chat <- entries[startsWith(entries, "anthropic.messages\t")]
  expect_gt(length(chat), 0)
  expect_false(any(grepl("sk-ant-vendor-key-never-sent", entries, fixed = TRUE)))
  expect_true(all(chat == "anthropic.messages\tx-api-key=sk-named-for-this-server"))
})

test_that("a password inside a base URL is never printed", {
  printed <- format(llm_provider_openai(model = "m", base_url = "http://user:PASS9x@127.0.0.1:9/v1"))
  expect_false(any(grepl("PASS9x", printed, fixed = TRUE)))
  expect_true(any(grepl("http://<redacted>@127.0.0.1:9/v1", printed, fixed = TRUE)))
})

test_that("an empty or white-space-only passage is refused before any call", {
  server <- local_fake_server()
  expect_snapshot(fake_run(server, text = c(a = "Revenue grew.", b = " \t ")), error = TRUE)
  expect_snapshot(fake_run(server, text = c(a = "Revenue grew.", b = "")), error = TRUE)
  expect_equal(fake_counters(server)[["total"]], 0)
})

test_that("batch = TRUE gives the synchronous run's numbers through the provider's batch API", {
  server <- local_fake_server()
  synchronous <- fake_run(server, cache = tempfile(fileext = ".sqlite"))
  before <- fake_counters(server)
  cache <- tempfile(fileext = ".sqlite")
  # Status lines are classed cli messages (issue 29, 9), not lines on stdout.
  expect_message(batched <- fake_run(server, cache = cache, batch = TRUE, poll_interval = 0),
                 "Batch API: submitted openai batch", class = "llmvalidate_message_batch")
  after <- fake_counters(server)
  # Nothing went through the synchronous endpoints: every answer came from provider batches.
  expect_equal(after[["chat"]], before[["chat"]])
  expect_identical(batched$verdict, synchronous$verdict)
  expect_identical(batched$p.value, synchronous$p.value)
  # Each run's cost says which price it paid (issue 29, 3).
  expect_identical(unique(attr(synchronous, "cost")$paid_through), "synchronous")
  expect_identical(unique(attr(batched, "cost")$paid_through), "batch")
  # A later run without batch reads the batch run's answers from the cache: no call.
  again <- fake_run(server, cache = cache)
  expect_equal(fake_counters(server)[["total"]], after[["total"]])
  expect_identical(again$p.value, synchronous$p.value)
  expect_error(fake_run(server, batch = "yes"), class = "llmvalidate_error")
})

test_that("answer_format = \"auto\" leaves the instructions out of schema prompts, \"always\" keeps them", {
  server <- local_fake_server()
  expect_output(lean <- fake_run(server, text = texts[1], dry_run = TRUE), "chat calls")
  expect_output(full <- fake_run(server, text = texts[1], dry_run = TRUE, answer_format = "always"),
                "chat calls")
  # The same calls; fewer input tokens without the instructions.
  expect_equal(lean$calls[["chat_calls"]], full$calls[["chat_calls"]])
  expect_lt(lean$estimated_input_tokens, full$estimated_input_tokens)
  error <- expect_error(fake_run(server, text = texts[1], dry_run = TRUE, answer_format = "sometimes"),
                        class = "llmvalidate_error_invalid_argument")
  expect_match(conditionMessage(error), "answer_format", fixed = TRUE)
  expect_match(conditionMessage(error), "always", fixed = TRUE)
  expect_equal(fake_counters(server)[["total"]], 0)
})

test_that("a paid run that cannot decide warns once, before its first call", {
  server <- local_fake_server()
  warned <- 0
  chat_at_warning <- NULL
  result <- withCallingHandlers(
    llm_validate(
      texts[[1]], task = "sentiment",
      provider = llm_provider_openai(model = "fake-chat", base_url = server$base_url,
                                     api_key = "test-key"),
      embedding = llm_embedding_openai(model = "fake-embedding", base_url = server$base_url),
      M = 10, n = 5, permutations = 199, seed = 2, cache = NULL
    ),
    llmvalidate_warning_cannot_decide = function(w) {
      warned <<- warned + 1
      chat_at_warning <<- fake_counters(server)[["chat"]]
      expect_match(conditionMessage(w), "cannot reject .* with M = 10 pool texts")
      invokeRestart("muffleWarning")
    },
    llmvalidate_warning_no_cache = function(w) invokeRestart("muffleWarning")
  )
  expect_equal(warned, 1)  # the engine's warning alone, not R's too
  expect_equal(chat_at_warning, 0)
  expect_gt(fake_counters(server)[["chat"]], 0)
  expect_identical(result$verdict, "inconclusive")
})

test_that("llm_cache_merge() brings shards' caches together: a run on the merge pays nothing", {
  # Issue 41: a job split across machines, each shard with its own cache.
  server <- local_fake_server()
  shard_a <- withr::local_tempfile(fileext = ".sqlite")
  shard_b <- withr::local_tempfile(fileext = ".sqlite")
  merged <- withr::local_tempfile(fileext = ".sqlite")
  first <- fake_run(server, texts[1], cache = shard_a)
  second <- fake_run(server, texts[2], cache = shard_b)
  expect_message(counts <- llm_cache_merge(c(shard_a, shard_b), cache = merged), "Merged")
  expect_identical(names(counts), c("from", "answers", "added", "same", "conflicts"))
  expect_identical(counts$from, c(shard_a, shard_b))
  expect_true(all(counts$answers > 0))
  expect_identical(counts$conflicts, c(0, 0))
  # Twice: nothing new.
  again <- suppressMessages(llm_cache_merge(c(shard_a, shard_b), cache = merged))
  expect_identical(again$added, c(0, 0))
  fake_reset(server)
  whole <- fake_run(server, texts, cache = merged)
  expect_identical(fake_counters(server)[["total"]], 0)
  expect_identical(whole$verdict, c(first$verdict, second$verdict))
  expect_error(llm_cache_merge(file.path(tempdir(), "no-such.sqlite"), cache = merged),
               class = "llmvalidate_error")
  expect_error(llm_cache_merge(1, cache = merged), "must be a character vector")
})
