# The paper's way from R against the fake provider server (127.0.0.1 only, see
# helper-fake-server.R): each Section 4 passage's own topic (Tables 5 and 6) and, under
# preset = "paper", no redraw of an unusable backtranslation answer.

simulation_prompts <- function(server) {
  served <- fake_served(server)
  served <- served[served$endpoint == "openai.chat", , drop = FALSE]
  prompts <- vapply(served$request, function(body) {
    messages <- jsonlite::fromJSON(body, simplifyVector = FALSE)$messages
    paste(vapply(messages, function(m) as.character(m$content), character(1)), collapse = "")
  }, character(1), USE.NAMES = FALSE)
  prompts[startsWith(prompts, "TASK: Write ")]
}

paper_run <- function(server, text, task, ...) {
  withCallingHandlers(
    llm_validate(
      text, task = task,
      provider = llm_provider_openai(model = "fake-chat", base_url = server$base_url,
                                     api_key = "test-key"),
      embedding = llm_embedding_openai(model = "fake-embedding", base_url = server$base_url),
      M = 20, n = 10, seed = 2, concurrency = 1, preset = "paper", ...
    ),
    llmvalidate_warning_no_cache = function(warning) invokeRestart("muffleWarning")
  )
}

test_that("each passage's own topic reaches its simulation prompts (Tables 5 and 6)", {
  server <- local_fake_server(args = c("--labels", "True,False"))
  passages <- llm_passages()
  marks <- c("annual 10-K filing", "earnings call transcript", "financial newspaper article",
             "governor of the Federal", "Reddit conversation thread")
  for (key in c("topic", "topic_not_discussed")) {
    fake_reset(server)
    variables <- if (key == "topic") NULL else c(topic = "@topic_not_discussed")
    validations <- paper_run(server, passages, "topic", variables = variables)
    expect_identical(validations$id, passages$id)
    expect_true(all(validations$verdict %in% c("valid", "invalid", "inconclusive")))
    prompts <- simulation_prompts(server)
    for (i in seq_len(nrow(passages))) {
      own <- prompts[grepl(marks[i], prompts, fixed = TRUE)]
      topic <- passages$variables[[i]][[key]]
      expect_gt(length(own), 0)
      expect_true(all(grepl(paste0("the topic '", topic, "'"), own, fixed = TRUE)),
                  info = paste(passages$id[i], key))
    }
  }
  expect_snapshot(error = TRUE, paper_run(server, passages, "topic",
                                          variables = c(topic = "@no_such_variable")))
})

test_that("under preset = \"paper\" an out-of-set backtranslation answer counts as wrong at once", {
  server <- local_fake_server()
  faults <- c(list(list(kind = "none")), rep(list(list(kind = "label_outside_set")), 400))
  fake_faults(server, "openai.chat", faults)
  validation <- llm_details(paper_run(server, "Revenue rose and margins held.", "sentiment"))
  calls <- validation$calls
  expect_identical(as.integer(calls[["parse_retries"]]), 0L)
  # (The out-of-set count is in the CLI's JSON only; R's calls carry the retries.)
  expect_identical(validation$verdict, "inconclusive")
  # parse_retries given beside the preset wins.
  fake_reset(server)
  fake_faults(server, "openai.chat", faults)
  redrawn <- llm_details(paper_run(server, "Revenue rose and margins held.", "sentiment",
                                   parse_retries = 1))
  # Each of the 20 backtranslation answers is redrawn once at least (the faults also reach
  # other calls, which go out beside the annotation since the pools are asked for with it).
  expect_gte(as.integer(redrawn$calls[["parse_retries"]]), 20L)
  expect_snapshot(error = TRUE, paper_run(server, "Revenue rose.", "sentiment",
                                          parse_retries = -1))
})

test_that("every R route of docs/paper-fidelity.md runs and prints its table", {
  # LLMV_REPO_ROOT: the repository (tools/test.d/r-package.sh); else the source tree's.
  root <- Sys.getenv("LLMV_REPO_ROOT", file.path("..", "..", ".."))
  doc <- file.path(root, "docs", "paper-fidelity.md")
  skip_if_not(file.exists(doc), "the repository's docs are not beside the package")
  text <- readLines(doc, encoding = "UTF-8")
  start <- grep("^## Routes to every table", text)
  open <- which(text == "```r" & seq_along(text) > start)[1]
  close <- which(text == "```" & seq_along(text) > open)[1]
  code <- text[(open + 1):(close - 1)]
  # The paper's models replaced by the simulated provider (a synthetic data-generating
  # process); every other line as the doc shows it.
  env <- new.env(parent = environment())
  env$llm_provider_bedrock <- function(model = NULL, ...) llm_provider_simulated()
  env$llm_embedding_bedrock <- function(model = NULL, ...) NULL
  phrasebank <- Sys.getenv("LLMV_PHRASEBANK")
  if (nzchar(phrasebank) && file.exists(phrasebank)) {
    withr::local_dir(withr::local_tempdir())
    file.copy(phrasebank, "financial_phrasebank.csv")
  } else {
    code <- code[seq_len(grep("read.csv", code, fixed = TRUE) - 1)]
  }
  set.seed(27)
  eval(parse(text = code), env)
  panel <- paste(utils::capture.output(print(env$table1$validation[[1]])), collapse = "\n")
  expect_match(panel, "[0-9]\\.[0-9]{3}")
  for (name in paste0("table", 1:6)) {
    expect_identical(env[[name]]$id, llm_passages()$id, info = name)
    expect_true(all(env[[name]]$verdict %in% c("valid", "invalid", "inconclusive")), info = name)
  }
  expect_identical(dim(env$table7), c(5L, 7L))
  expect_identical(names(env$table8), c("id", "sonnet", "haiku", "llama70b", "llama8b"))
  expect_true(all(grepl("^[A-Za-z -]+ \\((valid|invalid|inconclusive)\\)$", unlist(env$table7[-1]))))
  if (!is.null(env$section5)) {
    summary <- llm_validation_summary(env$section5)
    expect_false(is.null(summary$disagreements))
    expect_match(paste(utils::capture.output(print(summary)), collapse = "\n"), "Table 11")
  }
})

test_that("llm_overview() says what it needs", {
  expect_snapshot(error = TRUE, llm_overview(list(1)))
})
