# Every R chunk the docs show runs as written (issue 42, item 17): docs/*.md and the README,
# each ```r block evaluated in a fresh folder. A chunk that names no provider reaches the fake
# provider server the way a user's own server is set (LLMV_BASE_URL, LLMV_API_KEY), as the
# shell commands' test does (tests/pipeline/test_doc_commands.cpp). docs/paper-fidelity.md's
# routes have their own test (test-paper-routes.R).

doc_r_chunks <- function(path) {
  lines <- readLines(path, encoding = "UTF-8")
  starts <- which(lines == "```r")
  lapply(starts, function(start) {
    end <- which(lines == "```" & seq_along(lines) > start)[1]
    lines[(start + 1):(end - 1)]
  })
}

test_that("every R chunk of the README and docs/*.md runs as written", {
  root <- Sys.getenv("LLMV_REPO_ROOT", file.path("..", "..", ".."))
  docs <- c(file.path(root, "README.md"), Sys.glob(file.path(root, "docs", "*.md")))
  docs <- docs[file.exists(docs) & basename(docs) != "paper-fidelity.md"]
  skip_if(length(docs) == 0, "the repository's docs are not beside the package")
  server <- local_fake_server()
  withr::local_envvar(LLMV_BASE_URL = server$base_url, LLMV_API_KEY = "test-key",
                      LLMV_EMBEDDING_MODEL = "fake-embedding", OPENAI_API_KEY = NA,
                      LLMV_CACHE = file.path(withr::local_tempdir(), "cache.sqlite"))
  ran <- 0
  for (doc in docs) {
    for (chunk in doc_r_chunks(doc)) {
      withr::with_dir(withr::local_tempdir(), {
        env <- new.env(parent = environment())
        result <- tryCatch({
          suppressMessages(suppressWarnings(utils::capture.output(
            eval(parse(text = chunk), envir = env))))
          NULL
        }, error = function(e) conditionMessage(e))
        expect_null(result, label = paste0(basename(doc), ": ", paste(chunk, collapse = "\n")))
        # The files the chunk's code names (comments apart) are there: read or written.
        code <- sub("#.*$", "", chunk)
        named <- unlist(regmatches(code, gregexpr("\"[^\"]+\\.(html|json|csv)\"", code)))
        for (file in gsub("\"", "", named)) {
          expect_true(file.exists(file), label = paste(basename(doc), file))
        }
      })
      ran <- ran + 1
    }
  }
  expect_gte(ran, 1)
})
