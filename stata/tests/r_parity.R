# R <-> Stata parity, R's half: runs the R package's validation_test(), separation_test() and
# backtranslation_test() on fixed inputs and writes inputs and results to a JSON file, every
# double as C99 hexadecimal text (sprintf("%a"), exact to the bit). The Stata test host
# (stata/tests/host/test_r_parity.cpp, tag [r-parity]) runs the plugin's `test` subcommand on
# the same inputs and compares. Run by tools/test.d/stata-r-parity.sh.
#
# Usage: Rscript r_parity.R OUTPUT.json
args <- commandArgs(trailingOnly = TRUE)
stopifnot(length(args) == 1)
suppressPackageStartupMessages(library(llmvalidate))

hex <- function(x) {
  x <- as.double(x)
  out <- sprintf("%a", x)
  out[is.nan(x) | is.na(x)] <- "nan"
  out[x == Inf & !is.na(x)] <- "inf"
  out[x == -Inf & !is.na(x)] <- "-inf"
  out
}
json_string <- function(x) paste0('"', x, '"')
json_array <- function(items) paste0("[", paste(items, collapse = ","), "]")
json_object <- function(fields) {
  paste0("{", paste(json_string(names(fields)), unlist(fields), sep = ":", collapse = ","), "}")
}

# Clusters around one centre per label (the R tests' design), a passage from the first.
cluster <- function(centre, n) t(replicate(n, centre + rnorm(length(centre))))
make_pools <- function(seed, m, d, labels) {
  set.seed(seed)
  centres <- lapply(seq_along(labels), function(k) {
    centre <- rep(0, d)
    centre[k] <- 4
    centre
  })
  names(centres) <- labels
  list(pools = lapply(centres, cluster, n = m), passage = centres[[1]] + rnorm(d))
}

# One text per row, as the Stata data hold them: label, passage flag, backtranslation answer,
# embedding.
rows_json <- function(data, back) {
  rows <- character()
  for (label in names(data$pools)) {
    pool <- data$pools[[label]]
    answers <- if (is.null(back[[label]])) rep(label, nrow(pool)) else back[[label]]
    for (i in seq_len(nrow(pool))) {
      rows <- c(rows, json_object(list(
        label = json_string(label), passage = "0", bt = json_string(answers[i]),
        embedding = json_array(json_string(hex(pool[i, ])))
      )))
    }
  }
  rows <- c(rows, json_object(list(
    label = json_string(names(data$pools)[1]), passage = "1", bt = json_string(""),
    embedding = json_array(json_string(hex(data$passage)))
  )))
  json_array(rows)
}

number_fields <- function(...) {
  values <- list(...)
  lapply(values, function(v) json_string(hex(v)))
}

cases <- character()

# 1. validation_test() and backtranslation_test(), point and bound rules: three labels.
data <- make_pools(seed = 31, m = 40, d = 16, labels = c("Positive", "Neutral", "Negative"))
back <- list(Positive = c(rep("Positive", 35), rep("Neutral", 4), "negative "))
validation <- validation_test(data$passage, data$pools$Positive)
for (rule in c("point", "bound")) {
  bt <- backtranslation_test("Positive", back$Positive, labels = names(data$pools),
                             threshold = 0.85, rule = rule)
  cases <- c(cases, json_object(c(
    list(name = json_string(paste0("validation+backtranslation/", rule)),
         rule = json_string(rule), threshold = json_string(hex(0.85)),
         seed = "5", permutations = "99",
         rows = rows_json(data, back)),
    number_fields(tau = validation$statistic, crit = validation$critical.value,
                  p = validation$p.value, reject = validation$reject,
                  accuracy = bt$statistic, acc_lb = bt$conf.int[[1]], bt_pass = bt$pass)
  )))
}

# 2. separation_test(): two labels, so the plugin's one separation test is R's.
data <- make_pools(seed = 32, m = 25, d = 16, labels = c("Positive", "Negative"))
separation <- separation_test(data$pools$Positive, data$pools$Negative, permutations = 499,
                              seed = 123456)
cases <- c(cases, json_object(c(
  list(name = json_string("separation"), rule = json_string("point"),
       threshold = json_string(hex(0.9)), seed = "123456", permutations = "499",
       rows = rows_json(data, list())),
  number_fields(xi = separation$statistic, sep_crit = separation$critical.value,
                sep_p = separation$p.value, sep_pass = separation$pass)
)))

writeLines(json_object(list(
  r_version = json_string(as.character(packageVersion("llmvalidate"))),
  cases = json_array(cases)
)), args[[1]])
cat("r_parity.R: wrote", length(cases), "cases to", args[[1]], "\n")
