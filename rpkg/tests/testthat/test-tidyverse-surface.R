# Issue 29: the R package as a tidyverse user expects it. Each test names the item of the
# issue's list of defects that it reproduces ("1" ... "11"); each failed before the fix. The
# runs use the simulated provider (a synthetic data-generating process, not an LLM) or the
# project's fake provider server on 127.0.0.1.

clear_provider_environment <- function(env = parent.frame()) {
  withr::local_envvar(
    LLMV_BASE_URL = NA, ANTHROPIC_API_KEY = NA, OPENAI_API_KEY = NA, AWS_BEARER_TOKEN_BEDROCK = NA,
    AWS_ACCESS_KEY_ID = NA, AWS_SECRET_ACCESS_KEY = NA, LLMV_MODEL = NA,
    LLMV_EMBEDDING_MODEL = NA, .local_envir = env
  )
}

simulated_validate <- function(text, ...) {
  llm_validate(text, task = "sentiment", provider = llm_provider_simulated(), M = 20, n = 10,
               permutations = 99, seed = 1, ...)
}

three_passages <- c(a = "Revenue grew strongly and margins improved.",
                    b = "Losses widened and the outlook darkened.",
                    c = "The board met on Tuesday.")

quietly_without_cache <- function(expr) {
  withCallingHandlers(expr, llmvalidate_warning_no_cache = function(w) invokeRestart("muffleWarning"))
}

test_that("1: a server of your own without an embedding model stops before any call", {
  clear_provider_environment()
  server <- local_fake_server()
  own_server <- llm_provider_openai(model = "chat-x", base_url = server$base_url)
  error <- expect_error(
    llm_validate(three_passages, task = "sentiment", provider = own_server, cache = FALSE),
    class = "llmvalidate_error_invalid_input"
  )
  message <- conditionMessage(error)
  expect_match(message, "`embedding` must be the name of the embedding model the server at",
               fixed = TRUE)
  expect_match(message, "llm_embedding_openai(model = ", fixed = TRUE)
  expect_match(message, "LLMV_EMBEDDING_MODEL", fixed = TRUE)
  # Only LLMV_BASE_URL set: both went out as model "default".
  withr::local_envvar(LLMV_BASE_URL = server$base_url)
  expect_error(llm_validate(three_passages, task = "sentiment", cache = FALSE),
               class = "llmvalidate_error_invalid_input")
  # Ollama would have embedded with the chat LLM.
  expect_error(llm_validate("Revenue grew.", task = "sentiment", cache = FALSE, dry_run = TRUE,
                            provider = llm_provider_ollama(model = "llama3")),
               "`embedding` must be the name of the embedding model", fixed = TRUE)
  expect_equal(fake_counters(server)[["total"]], 0)  # stopped before any call
})

test_that("1, 10: llm_provider_openai() reads LLMV_BASE_URL, LLMV_MODEL and LLMV_EMBEDDING_MODEL", {
  clear_provider_environment()
  withr::local_envvar(OPENAI_API_KEY = "test-key", LLMV_API_KEY = "test-key", LLMV_EMBEDDING_API_KEY = "test-key")
  server <- local_fake_server()
  withr::local_envvar(LLMV_BASE_URL = server$base_url, LLMV_MODEL = "chat-x",
                      LLMV_EMBEDDING_MODEL = "embed-x")
  res <- quietly_without_cache(
    llm_validate(three_passages[1:2], task = "sentiment", provider = llm_provider_openai(),
                 M = 20, n = 10, permutations = 99, seed = 1, cache = FALSE)
  )
  expect_s3_class(res, "llm_validations")
  served <- fake_served(server)
  models <- vapply(served$request, function(body) jsonlite::fromJSON(body)$model, character(1))
  expect_setequal(unique(models[served$endpoint == "openai.embeddings"]), "embed-x")
  expect_setequal(unique(models[served$endpoint == "openai.chat"]), "chat-x")
})

test_that("10: printing or str() of a provider never shows its key", {
  provider <- llm_provider_openai(model = "m", api_key = "sk-secret-0123456789")
  expect_false(any(grepl("sk-secret", utils::capture.output(str(provider)), fixed = TRUE)))
  expect_false(any(grepl("sk-secret", utils::capture.output(print(unclass(provider))),
                         fixed = TRUE)))
  expect_false(any(grepl("sk-secret", utils::capture.output(print(provider)), fixed = TRUE)))
})

test_that("3: cache = FALSE and options(llmvalidate.cache = FALSE) write nothing to disk", {
  clear_provider_environment()
  withr::local_envvar(OPENAI_API_KEY = "test-key", LLMV_API_KEY = "test-key", LLMV_EMBEDDING_API_KEY = "test-key")
  server <- local_fake_server()
  default_cache <- file.path(withr::local_tempdir(), "default", "cache.sqlite")
  withr::local_envvar(LLMV_CACHE = default_cache)
  run <- function(...) {
    quietly_without_cache(llm_validate(
      three_passages[1:2], task = "sentiment",
      provider = llm_provider_openai(model = "fake-chat", base_url = server$base_url),
      embedding = llm_embedding_openai(model = "fake-embedding"),
      M = 20, n = 10, permutations = 99, seed = 1, ...
    ))
  }
  # The defect: options(llmvalidate.cache = NULL) removes the option, so the default file was
  # written; FALSE is the documented value that turns the cache off.
  withr::local_options(llmvalidate.cache = FALSE)
  run()
  expect_false(file.exists(default_cache))
  withr::local_options(llmvalidate.cache = NULL)
  run(cache = FALSE)
  expect_false(file.exists(default_cache))
  run()  # the option removed: the default per-user file, as documented
  expect_true(file.exists(default_cache))
  expect_error(run(cache = 3), class = "llmvalidate_error_invalid_input")
})

# Thirty notes of one's own, with a simulation prompt that does not quote them: the pools are
# shared across passages. About as long as the texts the fake server writes (24 words), as
# the dry run assumes of generated texts.
own_corpus <- function() {
  positive <- sprintf(paste("Sales at store %d grew strongly this quarter, profits improved",
                            "across every product line, and the managers expect these gains",
                            "to continue well into next year."), 1:10)
  negative <- sprintf(paste("Losses at plant %d widened sharply this quarter, orders fell",
                            "across every product line, and the managers expect the outlook",
                            "to darken well into next year."), 1:10)
  neutral <- sprintf(paste("The quarterly meeting of committee %d was held on Tuesday in the",
                           "main building, and the minutes list the members who attended",
                           "and the next date."), 1:10)
  data.frame(id = sprintf("s%02d", 1:30), sentence = c(positive, negative, neutral))
}

test_that("4: the dry run of a 30-text own corpus predicts the calls and the price of the run", {
  clear_provider_environment()
  withr::local_envvar(OPENAI_API_KEY = "test-key", LLMV_API_KEY = "test-key", LLMV_EMBEDDING_API_KEY = "test-key")
  server <- local_fake_server()
  cache <- withr::local_tempfile(fileext = ".sqlite")
  run <- function(...) {
    llm_validate(own_corpus(), text_column = "sentence", task = "general_sentiment",
                 variables = c(genre = "one-sentence notes from a company's records"),
                 provider = llm_provider_openai(model = "gpt-4o-mini", base_url = server$base_url),
                 embedding = llm_embedding_openai(model = "text-embedding-3-small"),
                 M = 30, n = 10, permutations = 99, seed = 3, cache = cache, ...)
  }
  plan <- NULL
  printed <- utils::capture.output(plan <- run(dry_run = TRUE))
  expect_true(is.na(plan$calls[["embedding_requests"]]))  # not the sentinel -1
  expect_true(any(grepl("to be made:", printed, fixed = TRUE)))
  expect_true(any(grepl("shared with an earlier passage", printed, fixed = TRUE)))
  res <- run()
  made <- fake_counters(server)
  # The formula's count (every passage's pools and backtranslation) is far above what is made.
  expect_gt(plan$calls[["chat_calls"]], 2 * made[["chat"]])
  expect_lt(abs(plan$to_make[["chat_calls"]] - made[["chat"]]) / made[["chat"]], 0.10)
  served <- fake_served(server)
  embedded <- sum(vapply(served$request[served$endpoint == "openai.embeddings"], function(body) {
    length(jsonlite::fromJSON(body)$input)
  }, numeric(1)))
  expect_lt(abs(plan$to_make[["texts_to_embed"]] - embedded) / embedded, 0.10)
  cost <- attr(res, "cost")
  paid <- sum(cost$dollars)
  # The cost says which price the run paid: the synchronous APIs' (issue 29, 3).
  expect_identical(unique(cost$paid_through), "synchronous")
  expect_equal(cost$paid_dollars, cost$dollars)
  expect_gt(paid, 0)
  expect_lt(abs(plan$dollars - paid) / paid, 0.10)
})

test_that("4: the progress bar's total is the dry run's count of calls to make", {
  withr::local_options(llmvalidate.progress = NULL)
  expect_false(new_progress_bar(to_make = 120)$shown)  # not interactive: no bar
  # 400 request units done of the formula's 1000, 340 of them from the cache: 60 of the 120
  # calls to make, not 40% (nor the 7% the formula's bound showed).
  expect_equal(progress_position(done = 400, total = 1000, cached = 340, planned = 120),
               c(set = 60, total = 120))
  expect_equal(progress_position(400, 1000, 0, planned = NA), c(set = 400, total = 1000))
  withr::local_options(llmvalidate.progress = TRUE)
  bar <- new_progress_bar(to_make = 120)
  expect_true(bar$shown)
  expect_no_error(utils::capture.output(type = "message", {
    bar$update(400, 1000, 340)
    bar$done()
  }))
})

test_that("the progress bar takes updates after it reached its total (no 'Cannot find')", {
  # Issue 40: an interactive run printed "Cannot find progress bar" 2 to 79 times: cli ended
  # the bar when it reached its total, and the engine's total grew after that.
  withr::local_options(llmvalidate.progress = TRUE, cli.progress_show_after = 0)
  run_bar <- function() {
    bar <- new_progress_bar(to_make = NULL)
    bar$update(3, 3)
    bar$update(4, 6)
    bar$update(6, 6)
    bar$done()
  }
  expect_no_error(utils::capture.output(type = "message", run_bar()))
})

test_that("5, 10: a many-passage result goes into modelsummary beside a regression", {
  skip_if_not_installed("modelsummary")
  skip_if_not_installed("tibble")
  res <- simulated_validate(three_passages)
  tidied <- generics::tidy(res)
  expect_true(all(c("term", "estimate", "tau") %in% names(tidied)))
  expect_identical(tidied$term, c("tau (a)", "tau (b)", "tau (c)"))
  expect_identical(tidied$estimate, res$tau)  # the table's column is tau, as tidy() says
  fit <- lm(mpg ~ wt, data = mtcars)
  table <- modelsummary::modelsummary(list(OLS = fit, Validation = res), output = "data.frame")
  estimates <- table[table$part == "estimates" & table$statistic == "estimate", ]
  expect_true(all(c("(Intercept)", "wt", "share valid") %in% estimates$term))
  # One row per passage on request (issue 42: the default is the tally by verdict).
  by_passage <- modelsummary::modelsummary(list(OLS = fit, Validation = res), passages = TRUE,
                                           output = "data.frame")
  expect_true("tau (a)" %in% by_passage$term)
  gof <- table[table$part == "gof", ]
  expect_false(any(grepl("[0-9]\\.[0-9]{6,}", unlist(gof))))  # no 15-digit rows
  # A single validation: its terms are not rendered as interactions, and M is not Num.Obs.
  single <- llm_details(simulated_validate(three_passages[["a"]]))
  one <- modelsummary::modelsummary(list(OLS = fit, Validation = single), output = "data.frame")
  expect_false(any(grepl("\u00d7", one$term)))
  expect_true(any(grepl("accuracy (", one$term, fixed = TRUE)))
  nobs <- one[one$term == "Num.Obs.", ]
  expect_identical(nobs$Validation, "")
  expect_false(any(grepl("[0-9]\\.[0-9]{6,}", unlist(one[one$part == "gof", ]))))
})

test_that("6: the result behaves as a tibble: summary, dplyr verbs, print(n =)", {
  skip_if_not_installed("tibble")
  skip_if_not_installed("dplyr")
  res <- simulated_validate(three_passages)
  expect_no_warning(summary(res))
  filtered <- dplyr::filter(res, verdict != "error")
  expect_s3_class(filtered, "llm_validations")
  counted <- dplyr::count(filtered, verdict)
  expect_false(inherits(counted, "llm_validations"))  # key columns gone: a plain tibble
  expect_s3_class(counted, "tbl_df")
  expect_no_warning(utils::capture.output(print(counted)))
  expect_false(inherits(dplyr::select(res, id, tau), "llm_validations"))
  printed <- expect_no_error(utils::capture.output(print(res, n = 2)))
  expect_match(printed[1], "<llm_validations> 3 passages:", fixed = TRUE)
  expect_true(any(grepl("1 more row", printed, fixed = TRUE)))
  # Two hundred passages print a screen, not 202 lines.
  many <- simulated_validate(stats::setNames(rep(unname(three_passages), length.out = 200),
                                             sprintf("p%03d", 1:200)))
  expect_lt(length(utils::capture.output(print(many))), 40)
})

test_that("7: a data frame and a string always give the table; one failing cause is an error", {
  one_row <- simulated_validate(data.frame(text = "Revenue grew strongly.", id = "x"))
  expect_s3_class(one_row, "llm_validations")
  expect_identical(one_row$id, "x")
  # One string too (issue 42, item 8): one type for every length, the details one call away.
  one_string <- simulated_validate("Revenue grew strongly.")
  expect_s3_class(one_string, "llm_validations")
  expect_identical(nrow(one_string), 1L)
  expect_s3_class(llm_details(one_string), "llm_validation")
})

test_that("8: latin1-marked strings, factors and other column names are accepted", {
  latin1 <- "Caf\xe9 sales grew strongly."
  Encoding(latin1) <- "latin1"
  utf8 <- enc2utf8(latin1)
  from_latin1 <- simulated_validate(c(a = latin1, b = "Losses widened."))
  from_utf8 <- simulated_validate(c(a = utf8, b = "Losses widened."))
  expect_identical(from_latin1$tau, from_utf8$tau)
  from_factor <- simulated_validate(factor(c("Revenue grew.", "Losses widened.")))
  expect_identical(from_factor$id, c("1", "2"))
  frame <- data.frame(doc = c("d1", "d2"), sentence = c("Revenue grew.", "Losses widened."))
  res <- simulated_validate(frame, text_column = "sentence", id_column = "doc")
  expect_identical(res$id, c("d1", "d2"))
  expect_error(simulated_validate(frame), "text_column", class = "llmvalidate_error_invalid_input")
  expect_error(simulated_validate(frame, text_column = "sentence", id_column = "nope"),
               class = "llmvalidate_error_invalid_input")
  expect_error(simulated_validate("Revenue grew.", text_column = "sentence"),
               class = "llmvalidate_error_invalid_input")
})

test_that("9: batch = TRUE with a provider without a batch API is refused", {
  clear_provider_environment()
  error <- expect_error(
    llm_validate(three_passages, task = "sentiment", batch = TRUE, cache = tempfile(),
                 # A closed port: nothing would answer if the request were not refused first.
                 provider = llm_provider_ollama(model = "llama3", base_url = "http://127.0.0.1:9/v1"),
                 embedding = llm_embedding_ollama(base_url = "http://127.0.0.1:9")),
    class = "llmvalidate_error_invalid_input"
  )
  expect_match(conditionMessage(error), "no batch API", fixed = TRUE)
})

test_that("10: duplicate ids are an error, not two rows with one id", {
  expect_error(simulated_validate(c(a = "Revenue grew.", a = "Losses widened.")),
               "appears more than once", class = "llmvalidate_error_invalid_input")
  expect_error(simulated_validate(data.frame(id = c("x", "x"), text = c("Up.", "Down."))),
               "column `id`", class = "llmvalidate_error_invalid_input")
})

test_that("10: empty summary cells are NA, not NaN", {
  passages <- data.frame(label = c("Positive", "Negative"), verdict = c("inconclusive", "valid"))
  summary <- llm_validation_summary(passages, human = c("Positive", "Negative"),
                                    labels = c("Positive", "Negative", "Neutral"))
  numbers <- unlist(Filter(is.double, c(summary$by_label, summary$cross)))
  expect_false(any(is.nan(numbers)))
  expect_true(anyNA(numbers))
})

test_that("10: llm_validate_embeddings() takes methods = as llm_validate() does", {
  set.seed(1)
  centres <- list(Positive = c(3, 0, 0, 0), Negative = c(0, 3, 0, 0))
  pools <- lapply(centres, function(centre) t(replicate(30, centre + rnorm(4))))
  passage <- centres$Positive + rnorm(4)
  one <- llm_validate_embeddings(passage, pools, "Positive", seed = 1, permutations = 99,
                                 methods = c(backtranslation = "bound"))
  other <- llm_validate_embeddings(passage, pools, "Positive", seed = 1, permutations = 99,
                                   backtranslation_rule = "bound")
  expect_identical(one$settings, other$settings)
  expect_error(llm_validate_embeddings(passage, pools, "Positive", methods = c(validation = "x")),
               class = "llmvalidate_error_invalid_input")
})

test_that("10: help shows no raw LaTeX, and alpha's range is the engine's", {
  rd <- tools::Rd_db("llmvalidate")
  text_of <- function(topic) {
    paste(utils::capture.output(tools::Rd2txt(rd[[paste0(topic, ".Rd")]],
                                              options = list(underline_titles = FALSE))),
          collapse = "\n")
  }
  for (topic in c("validation_test", "separation_test", "llm_validate_embeddings")) {
    expect_false(grepl("\\\\|hatbeta|\\\\hat", text_of(topic)), info = topic)
  }
  expect_match(text_of("validation_test"), "(0, 0.5]", fixed = TRUE)
})

test_that("10: plot() keeps a statistic outside the null histogram on the axis", {
  set.seed(1)
  pool <- t(replicate(40, c(3, 0, 0, 0, 0) + rnorm(5)))
  far <- validation_test(c(-3, 0.2, 0, 0, 0), pool)  # tau far left of the null histogram
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  plot(far)
  usr <- graphics::par("usr")
  ticks <- graphics::axTicks(1)
  statistic <- unname(far$statistic)
  expect_true(statistic >= min(ticks) && statistic <= max(ticks))
  expect_true(statistic > usr[1] && statistic < usr[2])
})

test_that("10: the verdict grid of 200 passages writes no words over its cells", {
  many <- simulated_validate(stats::setNames(rep(unname(three_passages), length.out = 200),
                                             sprintf("p%03d", 1:200)))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  grDevices::dev.control("enable")
  plot(many)
  calls <- grDevices::recordPlot()[[1]]
  names <- vapply(calls, function(entry) {
    name <- entry[[2]][[1]]
    if (is.list(name)) name$name else as.character(name)
  }, character(1))
  # Passages with the same outcomes share a row (three texts repeated: at most three rows), so
  # at most a word per cell of those rows, 4 columns each, and the legend's at most 8 words
  # (one per cell of 200 rows before: 800).
  expect_gt(sum(names == "C_text"), 0)
  expect_lte(sum(names == "C_text"), 3 * 4 + 8)
})

test_that("10: the getting-started example is a positive passage labelled Positive, valid", {
  # The vignette's first llm_validate() chunk, as it is written there (installed in doc/ by
  # R CMD build, else in the source tree).
  vignette <- system.file("doc", "getting-started.Rmd", package = "llmvalidate")
  if (!nzchar(vignette)) vignette <- test_path("..", "..", "..", "vignettes", "getting-started.Rmd")
  skip_if_not(file.exists(vignette), "the getting-started vignette's source is not here")
  lines <- readLines(vignette)
  starts <- grep("^```\\{r\\}", lines)
  ends <- grep("^```$", lines)
  chunks <- lapply(starts, function(start) lines[(start + 1):(ends[ends > start][1] - 1)])
  first <- Find(function(chunk) any(grepl("validation <- llm_validate(", chunk, fixed = TRUE)),
                chunks)
  env <- new.env()
  utils::capture.output(eval(parse(text = first), envir = env))
  expect_identical(env$validation$label, "Positive")
  expect_identical(env$validation$verdict, "valid")
})

test_that("11: DESCRIPTION, NEWS and the pkgdown index are complete", {
  description <- utils::packageDescription("llmvalidate")
  expect_match(description$URL, "^https://")
  expect_match(description$BugReports, "^https://.*/issues$")
  news <- system.file("NEWS.md", package = "llmvalidate")
  if (nzchar(news)) {
    expect_match(readLines(news, n = 1), paste0("^# llmvalidate ", description$Version))
  }
  skip_if_not_installed("yaml")
  site <- yaml::read_yaml(system.file("_pkgdown.yml", package = "llmvalidate"))
  listed <- unlist(lapply(site$reference, `[[`, "contents"))
  rd <- tools::Rd_db("llmvalidate")
  topics <- sub("\\.Rd$", "", names(rd))
  expect_setequal(listed, topics)  # the package page is listed though its keyword is internal
  # Every exported help page has examples.
  has_examples <- vapply(rd, function(page) {
    any(vapply(page, attr, "", "Rd_tag") == "\\examples")
  }, logical(1))
  expect_identical(names(rd)[!has_examples], character())
  articles <- unlist(lapply(site$articles, `[[`, "contents"))
  vignettes <- tools::file_path_sans_ext(basename(
    dir(system.file("doc", package = "llmvalidate"), pattern = "\\.Rmd$")))
  if (length(vignettes) > 0) expect_setequal(articles, vignettes)
})

test_that("10: the package README shows llm_validate() on one's own texts, and it runs", {
  # LLMV_REPO_ROOT: the repository (tools/test.d/r-package.sh sets it, so R CMD check runs this
  # too); else the source tree's README beside tests/.
  root <- Sys.getenv("LLMV_REPO_ROOT")
  readme <- if (nzchar(root)) file.path(root, "rpkg", "README.md") else test_path("..", "..", "README.md")
  skip_if_not(file.exists(readme), "the source tree's README.md is not here (R CMD check)")
  lines <- readLines(readme)
  starts <- which(lines == "```r")
  ends <- which(lines == "```")
  first <- lines[(starts[1] + 1):(ends[ends > starts[1]][1] - 1)]
  expect_true(any(grepl("llm_validate(texts", first, fixed = TRUE)))
  env <- new.env()
  utils::capture.output(eval(parse(text = first), envir = env))
  expect_s3_class(env$res, "llm_validations")
  expect_identical(env$res$id, c("q1", "q2", "q3"))
})

test_that("10: a provider's HTTP 404 or 501 body is shown once, not twice", {
  clear_provider_environment()
  withr::local_envvar(OPENAI_API_KEY = "test-key", LLMV_API_KEY = "test-key", LLMV_EMBEDDING_API_KEY = "test-key")
  server <- local_fake_server()
  for (status in c(404, 501)) {
    fake_faults(server, "openai.chat", list(list(kind = "http_error", status = status)))
    error <- expect_error(quietly_without_cache(llm_validate(
      "Revenue grew.", task = "sentiment",
      provider = llm_provider_openai(model = "fake-chat", base_url = server$base_url),
      embedding = llm_embedding_openai(model = "fake-embedding"),
      M = 20, n = 10, cache = FALSE, max_retries = 0, concurrency = 1
    )), class = "llmvalidate_error_provider")
    message <- conditionMessage(error)
    expect_length(gregexpr(paste0("scripted\\s+HTTP\\s+", status), message)[[1]], 1)
    expect_match(message, paste0("HTTP\\s+", status, "\\s+\\w+_error:\\s+fake\\s+server"))
    fake_reset(server)
  }
})
