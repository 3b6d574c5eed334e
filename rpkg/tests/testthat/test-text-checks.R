# The passages' strings are checked before any call (issue 42, items 4 and 11): an unmarked
# string that is not UTF-8 (a latin1 file read without `encoding`) is refused, naming the
# column, the rows and the fix; a missing value names its column and row.

simulated_check_run <- function(text, ...) {
  llm_validate(text, task = "sentiment", provider = llm_provider_simulated(), M = 20, n = 10,
               permutations = 99, seed = 1, cache = FALSE, ...)
}

# The condition's message on one line (cli wraps it at the console's width).
flat_message <- function(condition) gsub("\\s+", " ", conditionMessage(condition))

# A CSV file in latin1: "é" is the single byte 0xE9, which is not UTF-8.
write_latin1_csv <- function() {
  path <- withr::local_tempfile(fileext = ".csv", .local_envir = parent.frame())
  lines <- c("id,text", "p1,\"Les r\xe9sultats ont \xe9t\xe9 bons.\"", "p2,\"Revenue grew.\"",
             "p3,\"Caf\xe9 sales fell.\"")
  writeBin(charToRaw(paste0(paste(lines, collapse = "\n"), "\n")), path)
  path
}

test_that("an unmarked latin1 CSV read with read.csv() is refused before any request", {
  skip_if_not(isTRUE(l10n_info()[["UTF-8"]]), "the session is not UTF-8")
  path <- write_latin1_csv()
  corpus <- utils::read.csv(path)
  expect_identical(Encoding(corpus$text[1]), "unknown")
  expect_false(validUTF8(corpus$text[1]))
  # A real provider on a closed port: had the check not stopped the run first, the run would
  # have failed on the connection (or made a request), not with this condition.
  error <- expect_error(
    llm_validate(corpus, task = "sentiment",
                 provider = llm_provider_openai(model = "m", base_url = "http://127.0.0.1:9/v1",
                                                api_key = "k"),
                 embedding = llm_embedding_openai(model = "e"), M = 20, n = 5, cache = FALSE),
    class = "llmvalidate_error_invalid_encoding"
  )
  expect_s3_class(error, "llmvalidate_error")
  message <- flat_message(error)
  expect_match(message, "Column `text` of `text`", fixed = TRUE)
  expect_match(message, "rows 1 and 3 (ids \"p1\", \"p3\")", fixed = TRUE)
  expect_match(message, "encoding = \"latin1\"", fixed = TRUE)
  expect_match(message, "iconv(", fixed = TRUE)
  # A character vector: the names are the ids.
  vector_error <- expect_error(simulated_check_run(stats::setNames(corpus$text, corpus$id)),
                               class = "llmvalidate_error_invalid_encoding")
  expect_match(flat_message(vector_error), "`text` must be UTF-8", fixed = TRUE)
  # The dry run makes no call either, and is refused the same way.
  expect_error(simulated_check_run(corpus, dry_run = TRUE),
               class = "llmvalidate_error_invalid_encoding")
})

test_that("the fixes the message names run: read.csv(encoding =), iconv(), encoding =", {
  skip_if_not(isTRUE(l10n_info()[["UTF-8"]]), "the session is not UTF-8")
  path <- write_latin1_csv()
  marked <- utils::read.csv(path, encoding = "latin1")
  expect_identical(Encoding(marked$text[1]), "latin1")
  from_marked <- simulated_check_run(marked)
  converted <- utils::read.csv(path)
  converted$text <- iconv(converted$text, from = "latin1", to = "UTF-8")
  from_iconv <- simulated_check_run(converted)
  from_setting <- simulated_check_run(utils::read.csv(path), encoding = "latin1")
  expect_identical(from_marked$verdict, from_iconv$verdict)
  expect_identical(from_marked$tau, from_setting$tau)
})

test_that("an unmarked non-UTF-8 id or human label is refused too, naming its column", {
  skip_if_not(isTRUE(l10n_info()[["UTF-8"]]), "the session is not UTF-8")
  corpus <- data.frame(id = c("a", "b"), text = c("Revenue grew.", "Losses widened."),
                       human = c("Positive", rawToChar(as.raw(c(0x4e, 0xe9, 0x67)))))
  error <- expect_error(simulated_check_run(corpus), class = "llmvalidate_error_invalid_encoding")
  expect_match(flat_message(error), "Column `human` of `text`", fixed = TRUE)
  expect_match(flat_message(error), "row 2 (id \"b\")", fixed = TRUE)
  corpus$human <- c("Positive", "Negative")
  corpus$id[2] <- rawToChar(as.raw(c(0x62, 0xe9)))
  error <- expect_error(simulated_check_run(corpus), class = "llmvalidate_error_invalid_encoding")
  expect_match(flat_message(error), "Column `id` of `text`", fixed = TRUE)
  expect_match(flat_message(error), "row 2", fixed = TRUE)
})

test_that("a missing passage or human label names its column and row", {
  corpus <- data.frame(id = c("a", "b", "c"), text = c("Revenue grew.", NA, "Losses widened."))
  error <- expect_error(simulated_check_run(corpus), class = "llmvalidate_error_invalid_argument")
  expect_match(flat_message(error), "Column `text` of `text` is NA in row 2 (id \"b\")",
               fixed = TRUE)
  corpus$text[2] <- "Flat."
  corpus$human <- c("Positive", NA, NA)
  error <- expect_error(simulated_check_run(corpus), class = "llmvalidate_error_invalid_argument")
  expect_match(flat_message(error),
               "Column `human` of `text` is NA in rows 2 and 3 (ids \"b\", \"c\")", fixed = TRUE)
  error <- expect_error(simulated_check_run(c("Revenue grew.", NA)),
                        class = "llmvalidate_error_invalid_argument")
  expect_match(flat_message(error), "`text` is NA in row 2.", fixed = TRUE)
  error <- expect_error(simulated_check_run(c("a", "b"), human = c("Positive", NA)),
                        class = "llmvalidate_error_invalid_argument")
  expect_match(flat_message(error), "`human` is NA in row 2.", fixed = TRUE)
  # Many rows: the first five, and how many more.
  many <- data.frame(text = c(rep(NA, 8), "Revenue grew."))
  error <- expect_error(simulated_check_run(many), class = "llmvalidate_error_invalid_argument")
  expect_match(flat_message(error), "rows 1, 2, 3, 4, 5 and 3 more", fixed = TRUE)
})

test_that("messages count in the singular and plural, with the right article", {
  expect_identical(describe_value(data.frame(a = 1)), "a data frame with 1 row and 1 column")
  expect_identical(describe_value(data.frame(a = 1:2, b = 3:4)),
                   "a data frame with 2 rows and 2 columns")
  expect_identical(describe_value(1:3), "an integer vector of length 3")
  expect_identical(describe_value(c(1.5, NA)), "a double vector of length 2 with 1 missing value")
  expect_identical(describe_value(matrix(1L, 1, 8)), "an integer matrix with 1 row and 8 columns")
  expect_identical(count_of(1, "request"), "1 request")
  expect_identical(count_of(c(0, 2, 1200), "request"), c("0 requests", "2 requests",
                                                         "1,200 requests"))
  report <- structure(list(passages = 1, synthetic = TRUE,
                           calls = c(chat_calls = 1, annotation_calls = 1, simulation_calls = 0,
                                     backtranslation_calls = 0, embedded_texts = 1,
                                     embedding_requests = 1),
                           to_make = c(chat_calls = 1, texts_to_embed = 1, shared_calls = 0,
                                       cached_texts = 0, shared_texts = 0),
                           cached_calls = 0, estimated_input_tokens = 1,
                           estimated_output_tokens = 1, note = ""),
                      class = "llm_dry_run")
  printed <- utils::capture.output(print(report))
  expect_true(any(grepl("1 chat call, 1 text to embed", printed, fixed = TRUE)))
  expect_true(any(grepl("in 1 request$", printed)))
  expect_false(any(grepl("\\b1 (requests|chat calls|texts)\\b", printed)))
})
