# Writes stata/llmv_phrasebank.dta, the example dataset of `help llmvalidate`, from the
# Financial PhraseBank v1.0 (Malo, Sinha, Korhonen, Wallenius and Takala 2014, "Good debt or
# bad debt: Detecting semantic orientations in economic texts", JASIST 65(4): 782-796;
# licence CC BY-NC-SA 3.0, which the dataset keeps), the data of the paper's Section 5.
#
#   Rscript stata/tools/make_example_data.R [path/to/financial_phrasebank.csv]
#
# Default input: ../shared/data/financial-phrasebank/financial_phrasebank.csv beside the
# repository (UTF-8, columns sentence, label, agreement; SOURCE.md there describes it).
# The rows: 100 sentences all annotators agreed on (agreement 100) and 100 with 50-66%
# agreement, as the paper's two Section 5 samples, drawn with R's sample() under a fixed seed
# among the sentences that are plain ASCII of at most 244 characters (the string limit of the
# .dta format foreign::write.dta writes, which every Stata from 10 on reads). `row` is the
# sentence's row in the CSV, so each one can be traced back.
args <- commandArgs(trailingOnly = TRUE)
script_dir <- local({
  file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
  if (length(file_arg) == 1) dirname(normalizePath(sub("^--file=", "", file_arg))) else "stata/tools"
})
stata_dir <- normalizePath(file.path(script_dir, ".."))
input <- if (length(args) >= 1) args[[1]] else
  file.path(stata_dir, "..", "..", "shared", "data", "financial-phrasebank", "financial_phrasebank.csv")
if (!file.exists(input)) {
  input <- file.path(stata_dir, "..", "..", "..", "shared", "data", "financial-phrasebank",
                     "financial_phrasebank.csv")
}
stopifnot(file.exists(input))
corpus <- utils::read.csv(input, stringsAsFactors = FALSE, encoding = "UTF-8")
stopifnot(identical(names(corpus), c("sentence", "label", "agreement")))
corpus$row <- seq_len(nrow(corpus))
usable <- nchar(corpus$sentence, type = "bytes") <= 244 &
  !grepl("[^ -~]", corpus$sentence, useBytes = TRUE)
old_kind <- RNGkind("Mersenne-Twister", "Inversion", "Rejection")
set.seed(20261202)
draw <- function(rows) rows[sort(sample.int(length(rows), 100))]
all_agree <- draw(which(usable & corpus$agreement == 100))
half_agree <- draw(which(usable & corpus$agreement %in% c(50, 66)))
do.call(RNGkind, as.list(old_kind))
out <- corpus[c(all_agree, half_agree), c("row", "sentence", "label", "agreement")]
rownames(out) <- NULL
out$row <- as.integer(out$row)
out$agreement <- as.integer(out$agreement)
attr(out, "var.labels") <- c(
  "row of the sentence in financial_phrasebank.csv",
  "sentence (Financial PhraseBank v1.0)",
  "human label: positive, neutral or negative",
  "annotator agreement (%): 100, 75, 66 or 50"
)
attr(out, "datalabel") <- "Financial PhraseBank, Malo et al. (2014), CC BY-NC-SA 3.0"
output <- file.path(stata_dir, "llmv_phrasebank.dta")
foreign::write.dta(out, output, version = 10L)
cat("wrote", output, "with", nrow(out), "sentences\n")
