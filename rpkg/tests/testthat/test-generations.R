# llm_generations(): the audit trail of a run, read back from its cache, checked against what
# the fake provider server served (helper-fake-server.R).
phrasebank_texts <- c(q1 = "Operating profit rose to EUR 13.1 mn from EUR 8.7 mn.",
                      q2 = "The company expects its net sales to decrease in 2009.")

phrasebank_run <- function(server, cache, ...) {
  # The Financial PhraseBank task's simulation prompt quotes the passage: no request is shared
  # between the passages, so what was served and what is read back are the same texts.
  llm_validate(
    phrasebank_texts, task = "phrasebank",
    provider = llm_provider_openai(model = "fake-chat", base_url = server$base_url,
                                   api_key = "test-key"),
    embedding = llm_embedding_openai(model = "fake-embedding", base_url = server$base_url),
    M = 12, n = 4, permutations = 99, seed = 3, cache = cache, concurrency = 4, ...
  )
}

test_that("llm_generations() returns K*M texts per passage, those the server served, with no call", {
  server <- local_fake_server()
  cache <- withr::local_tempfile(fileext = ".sqlite")
  validations <- phrasebank_run(server, cache, repeats = 2)
  expect_false(any(validations$verdict == "error"))
  served <- fake_served_texts(server)
  fake_reset(server)

  generations <- llm_generations(validations)
  expect_equal(fake_counters(server)[["total"]], 0)
  expect_named(generations, c("id", "kind", "label", "draw", "text", "backtranslated", "model",
                              "prompt_hash"))
  simulated <- generations[generations$kind == "simulation", ]
  expect_equal(as.vector(table(simulated$id)), c(3 * 12, 3 * 12))
  expect_equal(sort(simulated$text), sort(served))
  expect_true(all(simulated$draw %in% 1:12))
  expect_true(all(generations$model == "fake-chat"))
  expect_true(all(nchar(generations$prompt_hash) == 64))
  for (i in seq_len(nrow(validations))) {
    v <- validations$validation[[i]]
    mine <- simulated[simulated$id == validations$id[i], ]
    # The pool of the passage's label is backtranslated, the others are not.
    own <- mine[mine$label == v$label, ]
    expect_equal(nrow(own), 12)
    expect_false(anyNA(own$backtranslated))
    expect_true(all(is.na(mine$backtranslated[mine$label != v$label])))
    expect_equal(sum(own$backtranslated == v$label), v$backtranslation$correct)
    annotations <- generations[generations$kind == "annotation" &
                                 generations$id == validations$id[i], ]
    expect_equal(annotations$draw, 1:2)
    expect_identical(annotations$backtranslated, v$annotations)
    expect_identical(unique(annotations$text), unname(phrasebank_texts[i]))
  }
  # One passage of the table: only its rows.
  one <- llm_generations(validations[validations$id == "q2", ])
  expect_identical(unique(one$id), "q2")
})

test_that("llm_generations() warns about passages the cache does not hold, and checks its argument", {
  server <- local_fake_server()
  cache <- withr::local_tempfile(fileext = ".sqlite")
  validation <- phrasebank_run(server, cache)
  other_cache <- withr::local_tempfile(fileext = ".sqlite")
  attr(validation, "run")$config$cache_path <- other_cache
  expect_snapshot(gone <- llm_generations(validation), transform = scrub_port)
  expect_equal(nrow(gone), 0)
  expect_snapshot(llm_generations(list(a = 1)), error = TRUE)
  attr(validation, "run")$config$cache_path <- ""
  expect_snapshot(llm_generations(validation), error = TRUE)
})

test_that("llm_generations() of the simulated provider recomputes the same texts", {
  validation <- llm_validate("Revenue grew strongly.", task = "sentiment",
                             provider = llm_provider_simulated(), M = 10, n = 5,
                             permutations = 99, seed = 1)
  generations <- llm_generations(validation)
  expect_equal(nrow(generations), 1 + 3 * 10)
  expect_identical(generations, llm_generations(validation))
  own <- generations[generations$kind == "simulation" & generations$label == validation$label, ]
  expect_equal(sum(own$backtranslated == validation$label),
               llm_details(validation)$backtranslation$correct)
  # One passage's details read its texts alone.
  expect_identical(llm_generations(llm_details(validation)), generations)
})
