# The R writer of the records (rpkg/src/record_r.hpp): a field added to a record's visit()
# appears in the R list, by the writer's rule for its type. The probe (rpkg/src/record_probe.cpp)
# is the one tests/pipeline/test_records.cpp sends through the JSON, CSV and Stata writers.
test_that("a field added to a record appears in the R list", {
  probe <- .Call(llmv_record_probe)
  expect_identical(names(probe), c("statistic", "m", "pass", "method", "accuracy", "added"))
  expect_identical(probe$added, 1.5)
  expect_identical(probe$m, 7L)
  expect_identical(probe$pass, TRUE)
  expect_identical(probe$method, "exact")
  expect_identical(probe$accuracy, 0.5)  # R gets a value that did not run as it is
})

test_that("the tests' R lists carry every field of their records, R-only ones included", {
  set.seed(1)
  pool <- matrix(rnorm(40), 10)
  raw <- .Call(llmv_validation_test, rnorm(4), pool, 0.05, "exact", NULL)
  expect_identical(names(raw), c("statistic", "critical_value", "p_value", "reject", "method",
                                 "m", "b", "alpha", "null_distribution", "can_decide",
                                 "cannot_decide_reason"))
})

test_that("a table's rows are R columns, with R-only fields and without JSON-only ones", {
  table <- .Call(llmv_record_probe_table, 3L)$rows
  expect_identical(names(table), c("label", "n", "share", "pass", "added"))
  expect_identical(table$label, c("", "b", "c"))  # R's own name and value, not the JSON's
  expect_identical(table$n, 0:2)
  expect_identical(table$share, rep(0.5, 3))
  expect_identical(table$pass, rep(TRUE, 3))
  expect_identical(table$added, rep(1.5, 3))
  # No rows: the columns still, each of its type.
  empty <- .Call(llmv_record_probe_table, 0L)$rows
  expect_identical(empty, list(label = character(), n = integer(), share = numeric(),
                               pass = logical(), added = numeric()))
})

test_that("the calls are R's named numeric vector, in R's order", {
  utils::capture.output(dry_run <- llm_validate(
    "Revenue grew strongly.", task = "sentiment", provider = llm_provider_simulated(),
    M = 20, n = 5, dry_run = TRUE, cache = tempfile(fileext = ".sqlite")
  ))
  calls <- dry_run$calls
  expect_type(calls, "double")
  expect_identical(names(calls), c("chat_calls", "annotation_calls", "simulation_calls",
                                   "backtranslation_calls", "embedding_requests",
                                   "embedded_texts", "cache_hits", "shared", "parse_retries",
                                   "transport_retries", "input_tokens", "output_tokens"))
})

test_that("a passage's list has R's elements, and a failed one its error and no tests", {
  passage <- .Call(llmv_record_probe_passage)
  expect_setequal(names(passage), c("id", "ok", "error_code", "error_message", "label",
                                    "annotations", "labels", "tests", "verdict", "task",
                                    "provider", "model", "embedding_provider", "embedding_model",
                                    "synthetic", "seed", "calls"))
  expect_false(passage$ok)
  expect_true("tests" %in% names(passage))
  expect_null(passage$tests)
  expect_identical(passage$error_message, "only white space")
  expect_identical(passage$seed, 0)
  expect_type(passage$calls, "double")
})
