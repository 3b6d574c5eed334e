# Golden results of the R front end: fixed inputs, the simulated provider (a synthetic
# data-generating process, no network) and fixed seeds. Every object the calls return -- each
# element, attribute and class, each double as its 17 significant digits (which read back to
# the same double), the printed output and the warnings -- is written as text and compared line
# for line with golden/<case>.txt, so that a refactoring that changes any number or field fails.
#
# Masked, because they legitimately differ between runs and machines: the session's temporary
# folder (<tmp>) and the installed package's folder (<pkg>). Nothing else.
#
# To regenerate the goldens deliberately (after a change of an output that is meant), run this
# file from the source tree with LLMV_UPDATE_GOLDEN=1, e.g.
#   LLMV_UPDATE_GOLDEN=1 Rscript -e 'testthat::test_dir("rpkg/tests/testthat", package = "llmvalidate", load_package = "installed", filter = "golden")'
# then review and commit the diff of rpkg/tests/testthat/golden/.

# Bit-identical results across platforms are the Stata/Windows comparison's job; on CRAN's
# machines a libm may differ in the last bit, which is not what this file guards.
skip_on_cran()

golden_passage <- "Revenue grew strongly and margins improved across every segment this year."
golden_passages <- c(
  a = golden_passage,
  b = "Losses widened, and the \"outlook\" was cut sharply after weak demand.",
  c = "The board met on Tuesday to review the quarterly figures.",
  d = "Clients were hit by falling prices and several defaulted on their loans."
)

golden_double <- function(x) {
  out <- sprintf("%.17g", x)
  out[is.na(x) & !is.nan(x)] <- "NA"
  out
}

# One line per vector (its type, length and values) and per attribute, by path.
golden_lines <- function(x, path = "") {
  type <- typeof(x)
  values <- switch(type,
    double = golden_double(x),
    integer = ifelse(is.na(x), "NA", as.character(x)),
    logical = ifelse(is.na(x), "NA", as.character(x)),
    character = ifelse(is.na(x), "NA", encodeString(x, quote = "\"")),
    NULL
  )
  head <- paste0(path, " <", type, "[", length(x), "]>")
  lines <- if (!is.null(values)) {
    paste(head, paste(values, collapse = " "))
  } else if (type %in% c("list", "NULL")) {
    head
  } else {
    paste0(path, " <", type, ">")  # closures, environments: their kind only
  }
  if (!is.null(names(x))) {
    lines <- c(lines, paste0(path, "@names ", paste(encodeString(names(x), quote = "\""), collapse = " ")))
  }
  attrs <- attributes(x)
  # Attributes in a fixed order: base R's order depends on how an object was built
  # (data.frame() puts class before row.names, `$<-` after), which carries no meaning.
  for (name in sort(as.character(setdiff(names(attrs), "names")), method = "radix")) {
    lines <- c(lines, golden_lines(attrs[[name]], paste0(path, "@", name)))
  }
  if (type == "list") {
    for (i in seq_along(x)) {
      lines <- c(lines, golden_lines(x[[i]], paste0(path, "[[", i, "]]")))
    }
  }
  lines
}

golden_mask <- function(lines) {
  folders <- c(
    "<pkg>" = normalizePath(system.file(package = "llmvalidate"), mustWork = FALSE),
    "<tmp>" = normalizePath(tempdir(), mustWork = FALSE),
    "<tmp>" = tempdir()
  )
  for (i in seq_along(folders)) {
    lines <- gsub(folders[[i]], names(folders)[[i]], lines, fixed = TRUE)
  }
  # The run document's creation time (UTC, ISO 8601).
  gsub("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", "<time>", lines)
}

# Runs `expr`, records its value, its printed form, what it printed itself and its warnings
# and messages.
golden_record <- function(expr) {
  conditions <- character()
  value <- NULL
  output <- utils::capture.output(value <- withCallingHandlers(
    expr,
    warning = function(w) {
      conditions <<- c(conditions, paste("warning:", conditionMessage(w)))
      invokeRestart("muffleWarning")
    },
    message = function(m) {
      conditions <<- c(conditions, paste("message:", conditionMessage(m)))
      invokeRestart("muffleMessage")
    }
  ))
  printed <- utils::capture.output(print(value))
  golden_mask(c("== value", golden_lines(value), "== printed", printed,
                "== output of the call", output, "== conditions", conditions))
}

expect_golden <- function(name, lines) {
  path <- test_path("golden", paste0(name, ".txt"))
  if (identical(Sys.getenv("LLMV_UPDATE_GOLDEN"), "1")) {
    dir.create(dirname(path), showWarnings = FALSE)
    writeLines(lines, path, useBytes = TRUE)
  }
  expected <- if (file.exists(path)) readLines(path, encoding = "UTF-8") else character()
  lines <- enc2utf8(lines)
  differs <- which(lines[seq_len(min(length(lines), length(expected)))] !=
                     expected[seq_len(min(length(lines), length(expected)))])
  where <- if (length(differs)) differs[[1]] else min(length(lines), length(expected)) + 1
  expect(
    identical(lines, expected),
    sprintf("golden %s (%s; LLMV_UPDATE_GOLDEN=1 rewrites it) differs at line %d:\n  golden: %s\n  now:    %s",
            name, path, where, expected[where], lines[where])
  )
}

# The cache is named (not left to LLMV_CACHE): its path is part of the result.
golden_cache <- function() file.path(tempdir(), "llmvalidate-golden-cache.sqlite")

golden_simulated <- function(text, M = 20, n = 5, ...) {
  llm_validate(text, task = "sentiment", provider = llm_provider_simulated(),
               M = M, n = n, permutations = 99, seed = 3, cache = golden_cache(), ...)
}

test_that("golden: llm_validate() on one passage", {
  expect_golden("llm_validate_one", golden_record(llm_details(golden_simulated(golden_passage))))
})

test_that("golden: llm_validate() on many passages with human labels, and its summary", {
  validations <- golden_simulated(golden_passages, human = c("Positive", "Negative", "Neutral", "Positive"))
  expect_golden("llm_validate_many", golden_record(validations))
  expect_golden("llm_validate_many_data_frame", golden_record(as.data.frame(validations)))
  expect_golden("llm_validation_summary", golden_record(llm_validation_summary(validations)))
})

test_that("golden: llm_validate() with the paper's methods and a pool too small to decide", {
  expect_golden("llm_validate_paper", golden_record(llm_details(golden_simulated(golden_passage, methods = c(validation = "paper", separation = "paper", backtranslation = "bound")))))
  expect_golden("llm_validate_small_m", golden_record(llm_details(golden_simulated(golden_passage, M = 8, n = 4))))
})

test_that("golden: llm_validate() dry run", {
  expect_golden("llm_validate_dry_run", golden_record(golden_simulated(golden_passages, dry_run = TRUE)))
})

test_that("golden: the tests on embeddings", {
  set.seed(1)
  centres <- list(Positive = c(3, 0, 0, 0, 1), Neutral = c(0, 3, 0, 0, 1), Negative = c(0, 0, 3, 0, 1))
  pools <- lapply(centres, function(centre) t(replicate(24, centre + rnorm(5))))
  passage <- centres$Positive + rnorm(5)
  back <- list(Positive = c(rep("Positive", 21), rep("Neutral", 3)),
               Neutral = c(rep("Neutral", 20), rep("Negative", 4)),
               Negative = rep("Negative", 24))
  expect_golden("validation_test", golden_record(validation_test(passage, pools$Positive)))
  expect_golden("separation_test", golden_record(
    separation_test(pools$Positive, pools$Negative, permutations = 199, seed = 2)))
  expect_golden("backtranslation_test", golden_record(
    backtranslation_test("Positive", back$Positive, labels = names(pools), rule = "bound")))
  expect_golden("llm_validate_embeddings", golden_record(
    llm_validate_embeddings(passage, pools, "Positive", backtranslation = back,
                            permutations = 199, seed = 4)))
})

test_that("golden: llm_power()", {
  expect_golden("llm_power", golden_record(
    llm_power("sentiment", llm_provider_simulated(), M = 20, n = 5,
              replications = 4, permutations = 99, seed = 1)))
})
