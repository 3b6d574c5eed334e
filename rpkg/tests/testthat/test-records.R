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
