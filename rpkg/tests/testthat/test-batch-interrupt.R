# batch = TRUE as a researcher uses it (issues 24 and 29): Ctrl-C while the run waits for a
# provider batch, and submit now / collect later (wait = FALSE). The fake provider server keeps
# its batches in progress for as long as a test asks; the poll interval is an hour, so that only
# the interrupt can end the wait (no assertion on wall time).
batch_texts <- c(up = "Revenue grew strongly this year.", down = "Losses widened sharply.")

batch_run <- function(server, cache, ...) {
  llm_validate(
    batch_texts, task = "sentiment",
    provider = llm_provider_openai(model = "fake-chat", base_url = server$base_url,
                                   api_key = "test-key"),
    embedding = llm_embedding_openai(model = "fake-embedding", base_url = server$base_url),
    M = 24, n = 6, permutations = 199, seed = 2, cache = cache, concurrency = 4, batch = TRUE, ...
  )
}

custom_id_uses <- function(server) {
  unlist(fake_control(server, "GET", "/_control/batches")$custom_ids)
}

batches_created <- function(server) {
  batches <- fake_control(server, "GET", "/_control/batches")$batches
  if (is.data.frame(batches)) nrow(batches) else length(batches)
}

test_that("Ctrl-C during the first poll of batch = TRUE stops with llmvalidate_error_cancelled; the same call then collects without resubmitting", {
  skip_if_not_installed("callr")
  server <- local_fake_server(args = c("--batch-polls", "1000000"))
  cache <- withr::local_tempfile(fileext = ".sqlite")
  child <- callr::r_bg(
    function(base_url, cache, texts) {
      library(llmvalidate)
      tryCatch({
        llm_validate(
          texts, task = "sentiment",
          provider = llm_provider_openai(model = "fake-chat", base_url = base_url,
                                         api_key = "test-key"),
          embedding = llm_embedding_openai(model = "fake-embedding", base_url = base_url),
          M = 24, n = 6, permutations = 199, seed = 2, cache = cache, concurrency = 4,
          batch = TRUE, poll_interval = 3600
        )
        "finished"
      },
      llmvalidate_error_cancelled = function(e) "llmvalidate_error_cancelled",
      interrupt = function(e) "a bare interrupt",
      error = function(e) paste("another error:", conditionMessage(e)))
    },
    args = list(server$base_url, cache, batch_texts), libpath = .libPaths()
  )
  withr::defer(child$kill())
  # Created and polled once: the child is in its poll wait.
  for (i in 1:600) {
    polls <- fake_control(server, "GET", "/_control/counters")[["openai.batches"]] %||% 0
    if (polls >= 2 || !child$is_alive()) break
    Sys.sleep(0.1)
  }
  expect_true(child$is_alive())
  Sys.sleep(0.3)
  at_signal <- batches_created(server)
  child$interrupt()
  child$wait(60000)
  expect_false(child$is_alive())
  expect_identical(child$get_result(), "llmvalidate_error_cancelled")
  expect_equal(batches_created(server), at_signal)  # nothing submitted after the interrupt

  fake_control(server, "POST", "/_control/batch_polls", "{\"polls\": 0}")
  # Batch status lines are cli messages (class llmvalidate_message_batch), not printed output.
  expect_message(collected <- batch_run(server, cache, poll_interval = 0),
                 class = "llmvalidate_message_batch")
  expect_s3_class(collected, "llm_validations")
  expect_true(all(custom_id_uses(server) == 1))
})

test_that("batch = TRUE, wait = FALSE returns a pending handle at once; the same call collects later", {
  server <- local_fake_server()
  cache <- withr::local_tempfile(fileext = ".sqlite")
  expect_message(pending <- batch_run(server, cache, wait = FALSE), "submitted",
                 class = "llmvalidate_message_batch")
  expect_s3_class(pending, "llm_batch_pending")
  expect_true(length(pending$submitted) >= 1)
  expect_output(print(pending), "llm_collect(<this object>)", fixed = TRUE)
  result <- pending
  for (i in 1:30) {
    capture.output(result <- batch_run(server, cache, wait = FALSE))
    if (!inherits(result, "llm_batch_pending")) break
  }
  expect_s3_class(result, "llm_validations")
  expect_true(all(custom_id_uses(server) == 1))
  expect_error(batch_run(server, cache, wait = "no"), class = "llmvalidate_error_invalid_argument")
  expect_error(
    llm_validate(batch_texts, task = "sentiment", provider = llm_provider_simulated(), wait = FALSE),
    class = "llmvalidate_error"
  )
})

test_that("wait = FALSE with path saves the engine's handle; llm_collect() polls it, then collects the same table, paying nothing twice", {
  server <- local_fake_server(args = c("--batch-polls", "1000000"))
  cache <- withr::local_tempfile(fileext = ".sqlite")
  handle_path <- withr::local_tempfile(fileext = ".json")
  suppressMessages(pending <- batch_run(server, cache, wait = FALSE, path = handle_path,
                                        poll_interval = 0))
  expect_s3_class(pending, "llm_batch_pending")
  expect_true(file.exists(handle_path))
  handle <- jsonlite::fromJSON(handle_path)
  expect_identical(handle$format, "llmvalidate pending batch")
  expect_identical(sort(handle$passages$id), sort(names(batch_texts)))
  expect_identical(handle$batch_ids, pending$batch_ids)
  expect_true(length(handle$batch_ids) >= 1)
  expect_false(grepl("test-key", paste(readLines(handle_path), collapse = "\n"), fixed = TRUE))
  printed <- capture.output(print(pending))
  expect_true(any(grepl(handle_path, printed, fixed = TRUE)))
  expect_true(any(grepl("llm_collect(", printed, fixed = TRUE)))
  created <- batches_created(server)
  # As ellmer's path: another run (here another M) does not overwrite this run's handle.
  expect_error(llm_validate(
    batch_texts, task = "sentiment",
    provider = llm_provider_openai(model = "fake-chat", base_url = server$base_url,
                                   api_key = "test-key"),
    embedding = llm_embedding_openai(model = "fake-embedding", base_url = server$base_url),
    M = 12, n = 6, permutations = 199, seed = 2, cache = cache, batch = TRUE, wait = FALSE,
    path = handle_path),
               "another run", class = "llmvalidate_error_invalid_argument")
  expect_equal(batches_created(server), created)

  # Still in progress: polled once, the pending object again, nothing submitted.
  # The handle holds no key: the run's provider gives it (or the environment does).
  keyed <- llm_provider_openai(model = "fake-chat", base_url = server$base_url, api_key = "test-key")
  suppressMessages(again <- llm_collect(handle_path, provider = keyed))
  expect_s3_class(again, "llm_batch_pending")
  expect_identical(again$path, handle_path)
  expect_equal(batches_created(server), created)
  expect_identical(again$key, pending$key)

  # Done: collected (waiting through every phase) into the table the synchronous call returns.
  fake_control(server, "POST", "/_control/batch_polls", "{\"polls\": 0}")
  withr::local_envvar(LLMV_API_KEY = "test-key")
  suppressMessages(result <- llm_collect(handle_path, wait = TRUE))
  expect_s3_class(result, "llm_validations")
  expect_identical(result$id, names(batch_texts))
  expect_true(all(custom_id_uses(server) == 1))  # no request was in two batches
  counters <- fake_counters(server)

  # Collecting again, from the object, or running the same call synchronously: all from the
  # cache, no request, the same table.
  suppressMessages(from_object <- llm_collect(pending))
  suppressMessages(same_call <- batch_run(server, cache, poll_interval = 0))
  expect_identical(fake_counters(server), counters)
  strip <- function(x) {
    attr(x, "run") <- NULL
    attr(x, "cost") <- NULL
    attr(x, "calls") <- NULL
    x$validation <- NULL
    x
  }
  expect_identical(strip(from_object), strip(result))
  expect_identical(strip(same_call), strip(result))
  expect_identical(llm_details(same_call, "up")$validation, llm_details(result, "up")$validation)
  generations <- llm_generations(result)
  expect_setequal(unique(generations$id), names(batch_texts))
})

test_that("llm_collect() refuses what is not a handle, and path needs batch = TRUE, wait = FALSE", {
  bad <- withr::local_tempfile(fileext = ".json")
  writeLines("{\"format\": \"something else\"}", bad)
  expect_error(llm_collect(bad), class = "llmvalidate_error_invalid_argument")
  expect_error(llm_collect(42), class = "llmvalidate_error_invalid_argument")
  expect_error(
    llm_validate("Revenue grew.", task = "sentiment", provider = llm_provider_simulated(),
                 path = bad),
    class = "llmvalidate_error_invalid_argument"
  )
})
