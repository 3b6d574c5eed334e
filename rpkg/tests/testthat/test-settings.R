# The engine's settings table is the one source of every setting's name, default and range
# (issue 10). These tests walk the whole table, so a front end that drifts fails here.

settings <- llmvalidate:::engine_settings()
# The settings R reads through the table (not the knobs it reads by hand: provider objects, ...).
r_settings <- settings[nzchar(settings$r) & settings$group == "validation" & !settings$by_hand, ,
                       drop = FALSE]
# The simulated provider's data-generating process: the arguments of llm_provider_simulated().
simulated_settings <- settings[nzchar(settings$r) & settings$group == "simulated" &
                                 !settings$by_hand, , drop = FALSE]

# The default as R evaluates a formal's default (NULL for the seed, drawn from R's RNG).
formal_default <- function(fun, spelling) {
  element <- regmatches(spelling, regexec("^([a-z_]+)\\[\\[\"([a-z]+)\"\\]\\]$", spelling))[[1]]
  if (length(element) == 3) {
    return(eval(formals(fun)[[element[2]]])[[element[3]]])
  }
  eval(formals(fun)[[spelling]])
}

test_that("every setting R offers has the engine's default in the formals of llm_validate()", {
  for (i in seq_len(nrow(r_settings))) {
    row <- r_settings[i, ]
    spelling <- row$r
    base <- sub("\\[\\[.*", "", spelling)
    if (row$kind == "seed") {
      expect_null(formals(llm_validate)[[base]], label = spelling)  # NULL: drawn from R's RNG
      next
    }
    if (!base %in% names(formals(llm_validate))) {
      next  # offered through `...`: its default is taken from the table at run time
    }
    expected <- if (row$kind %in% c("integer", "number")) as.numeric(row$default) else row$default
    expect_equal(formal_default(llm_validate, spelling), expected, label = spelling)
  }
})

test_that("the same formals of llm_power(), llm_validate_embeddings() and the single tests use the engine's defaults", {
  for (fun_name in c("llm_power", "llm_validate_embeddings", "validation_test",
                     "separation_test", "backtranslation_test")) {
    fun <- getExportedValue("llmvalidate", fun_name)
    for (name in intersect(names(formals(fun)), c("M", "n", "alpha", "threshold", "permutations"))) {
      row <- settings[settings$r == name, ]
      expect_equal(eval(formals(fun)[[name]]), as.numeric(row$default),
                   label = paste0(fun_name, "(", name, ")"))
    }
  }
})

test_that("every numeric setting R offers is refused outside the engine's range, with its message", {
  for (i in seq_len(nrow(r_settings))) {
    row <- r_settings[i, ]
    if (!row$kind %in% c("integer", "number")) next
    bad <- if (row$high >= 1e9) row$low - 1 else row$high + 1
    args <- list(text = "Revenue grew.", task = "sentiment", provider = llm_provider_simulated(),
                 dry_run = TRUE)
    args[[row$r]] <- bad
    error <- expect_error(suppressMessages(do.call(llm_validate, args)),
                          class = "llmvalidate_error_invalid_argument", label = row$r)
    expect_match(conditionMessage(error), row$allowed, fixed = TRUE, label = row$r)
  }
})

test_that("alpha is refused above 0.5 by every function that takes it, as by the engine", {
  set.seed(1)
  passage <- rnorm(4)
  pool <- matrix(rnorm(40), 10)
  expect_error(validation_test(passage, pool, alpha = 0.6),
               "`alpha` must be a number in [1e-06, 0.5]", fixed = TRUE,
               class = "llmvalidate_error_invalid_argument")
  expect_error(separation_test(pool, pool + 1, alpha = 0.6),
               "`alpha` must be a number in [1e-06, 0.5]", fixed = TRUE,
               class = "llmvalidate_error_invalid_argument")
  expect_error(separation_test(pool, pool + 1, permutations = 1e9),
               "`permutations` must be a whole number in 1..1000000", fixed = TRUE,
               class = "llmvalidate_error_invalid_argument")
  expect_error(llm_validate("Revenue grew.", task = "sentiment",
                            provider = llm_provider_simulated(), alpha = 0.6),
               "`alpha` must be a number in [1e-06, 0.5]", fixed = TRUE,
               class = "llmvalidate_error_invalid_argument")
})

test_that("the task catalog: R accepts the CLI's names and the aliases, an unknown name lists them", {
  expect_equal(basename(llmvalidate:::resolve_task("simple_sentiment", NULL)$path),
               "simple_sentiment.toml")
  expect_equal(basename(llmvalidate:::resolve_task("sentiment", NULL)$path), "simple_sentiment.toml")
  expect_error(llmvalidate:::resolve_task("sentimentt", NULL),
               "simple_sentiment (or sentiment)", fixed = TRUE,
               class = "llmvalidate_error_task_invalid")
})

test_that("every engine error code maps to a category class", {
  expect_equal(.Call(llmvalidate:::llmv_error_category, "llmv.provider.malformed_response"),
               "provider")
  expect_equal(.Call(llmvalidate:::llmv_error_category, "llmv.input.invalid_argument"),
               "invalid_input")
  error <- tryCatch(llmvalidate:::abort_llmv("x", code = "llmv.transport.timeout"),
                    error = identity)
  expect_s3_class(error, "llmvalidate_error_transport")
})

test_that("llm_provider_simulated() has the engine's defaults and ranges for every DGP setting", {
  expect_gt(nrow(simulated_settings), 0)
  expect_setequal(simulated_settings$r, names(formals(llm_provider_simulated)))
  for (i in seq_len(nrow(simulated_settings))) {
    row <- simulated_settings[i, ]
    expect_equal(eval(formals(llm_provider_simulated)[[row$r]]), as.numeric(row$default),
                 label = row$r)
    bad <- if (row$high_open) row$high else row$high + 1
    args <- list()
    args[[row$r]] <- bad
    error <- expect_error(do.call(llm_provider_simulated, args),
                          class = "llmvalidate_error_invalid_argument", label = row$r)
    expect_match(conditionMessage(error), row$allowed, fixed = TRUE, label = row$r)
  }
})

test_that("every engine setting llm_validate() takes through `...` reaches the engine with its value", {
  # A value other than the default for each one, by kind; the dry run reports what the engine's
  # configuration holds (its `settings`), so a setting R accepts but drops fails here.
  dots <- llmvalidate:::dots_settings()
  expect_gt(length(dots), 5)
  for (r_name in names(dots)) {
    row <- settings[settings$name == dots[[r_name]], ]
    value <- switch(row$kind,
      choice = setdiff(strsplit(row$choices, ",", fixed = TRUE)[[1]], row$default)[[1]],
      flag = TRUE,
      seed = 7,
      integer = if (as.numeric(row$default) < row$high) as.numeric(row$default) + 1 else row$low,
      number = (if (row$low_open) row$low + (row$high - row$low) / 4 else row$low) +
        if (as.numeric(row$default) == row$low) (row$high - row$low) / 8 else 0
    )
    if (identical(r_name, "encoding")) next  # latin1 changes how R hands over the text
    args <- list(text = "Revenue grew.", task = "sentiment", provider = llm_provider_simulated(),
                 M = 20, dry_run = TRUE, cache = FALSE)
    args[[r_name]] <- value
    plan <- NULL
    expect_output(plan <- suppressWarnings(do.call(llm_validate, args)), "to be made", label = r_name)
    used <- plan$settings[[dots[[r_name]]]]
    if (row$kind %in% c("integer", "number")) {
      expect_equal(as.numeric(used), value, label = r_name)
    } else {
      expect_identical(used, as.character(value), label = r_name)
    }
    expect_false(identical(used, row$default), label = r_name)
  }
})

test_that("the help of `...` lists every engine setting it takes, with the table's range and default", {
  help <- paste(llmvalidate:::dots_settings_help(), collapse = "")
  dots <- llmvalidate:::dots_settings()
  for (r_name in names(dots)) {
    row <- settings[settings$name == dots[[r_name]], ]
    expect_match(help, paste0("* `", r_name, "`: "), fixed = TRUE, label = r_name)
    expect_match(help, gsub("([][])", "\\\\\\1", row$allowed), fixed = TRUE, label = r_name)
    expect_match(help, paste0("default `", row$default, "`"), fixed = TRUE, label = r_name)
  }
})
