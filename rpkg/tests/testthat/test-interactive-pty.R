# Issue 40: an interactive R session (R on a pseudo-terminal, as a user at a console) printed
# "Cannot find progress bar" 2 to 79 times during a run. The session runs here under script(1),
# so that interactive() is TRUE and cli draws its bar on a terminal, against the fake server: a
# fresh run, then the same run resumed from its cache.
test_that("an interactive run on a terminal draws its bar and prints no progress-bar error", {
  skip_on_os("windows")
  skip_on_cran()
  skip_if(!nzchar(Sys.which("script")), "script(1) is not installed")
  server <- local_fake_server(latency_ms = 30)
  cache <- withr::local_tempfile(fileext = ".sqlite")
  library_path <- dirname(system.file(package = "llmvalidate"))
  session <- withr::local_tempfile(fileext = ".R")
  writeLines(c(
    sprintf(".libPaths(c(%s, .libPaths()))", deparse(library_path)),
    "suppressPackageStartupMessages(library(llmvalidate))",
    "options(cli.progress_show_after = 0)",
    "cat('INTERACTIVE', interactive(), '\\n')",
    "texts <- rep(c('Revenue grew strongly.', 'Losses widened sharply.', 'The board met.'), 4)",
    "texts <- paste(texts, seq_along(texts))",
    "for (round in 1:2) {",
    "  res <- llm_validate(texts, task = 'sentiment',",
    sprintf("    provider = llm_provider_openai(model = 'fake-chat', base_url = %s,",
            deparse(server$base_url)),
    "                                   api_key = 'test-key'),",
    sprintf("    embedding = llm_embedding_openai(model = 'fake-embedding', base_url = %s),",
            deparse(server$base_url)),
    sprintf("    M = 20, n = 5, permutations = 99, seed = 3, cache = %s, concurrency = 2)",
            deparse(cache)),
    "  cat('ROUND', round, 'ROWS', nrow(res), '\\n')",
    "}"
  ), session)
  # The commands on standard input (R reads a -f file, but waits at a prompt, once interactive).
  command <- sprintf("%s --vanilla --interactive -q < %s",
                     shQuote(file.path(R.home("bin"), "R")), shQuote(session))
  out <- processx::run("script", c("-qec", command, "/dev/null"), timeout = 600,
                       error_on_status = FALSE, env = c("current", TERM = "xterm"))
  transcript <- paste(out$stdout, out$stderr)
  expect_match(transcript, "INTERACTIVE TRUE")
  expect_match(transcript, "ROUND 1 ROWS 12")
  expect_match(transcript, "ROUND 2 ROWS 12")  # resumed from the cache
  expect_match(transcript, "Validating")       # the bar was drawn on the terminal
  expect_no_match(transcript, "Cannot find progress bar")
  expect_no_match(transcript, "Error")
})
