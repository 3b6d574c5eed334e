# The passages' strings before any call: no missing value, and no bytes that would be sent
# mangled. Each message names where the value is (the column of a data frame, or the argument)
# and the rows, so that the user can find them.

# "row 3 (id \"c\")", "rows 2, 5 and 9", "rows 1, 2, 3, 4, 5 and 12 more": at most five shown.
rows_text <- function(rows, ids = NULL) {
  shown <- utils::head(rows, 5)
  more <- length(rows) - length(shown)
  listed <- if (more > 0) {
    paste0(paste(shown, collapse = ", "), " and ", more, " more")
  } else if (length(shown) == 1) {
    as.character(shown)
  } else {
    paste0(paste(utils::head(shown, -1), collapse = ", "), " and ", utils::tail(shown, 1))
  }
  out <- paste(if (length(rows) == 1) "row" else "rows", listed)
  shown_ids <- if (!is.null(ids)) ids[shown]
  if (length(shown_ids) > 0 && !anyNA(shown_ids) && all(nzchar(shown_ids))) {
    out <- paste0(out, " (", if (length(shown) == 1) "id " else "ids ",
                  paste(encodeString(shown_ids, quote = "\""), collapse = ", "),
                  if (more > 0) ", ..." else "", ")")
  }
  out
}

# Where a vector came from, for messages: "Column `text` of `text`" or "`human`".
place_text <- function(arg, column = NULL) {
  if (is.null(column)) sprintf("`%s`", arg) else sprintf("Column `%s` of `%s`", column, arg)
}

# `values` (a character vector) without missing values; `arg` is the argument it came from,
# `column` its column when `arg` is a data frame, `ids` the passages' ids (or NULL).
check_no_missing <- function(values, arg, column = NULL, ids = NULL, what = "passage",
                             call = rlang::caller_env()) {
  missing <- which(is.na(values))
  if (length(missing) == 0) {
    return(invisible(values))
  }
  place <- place_text(arg, column)
  where <- rows_text(missing, ids)
  abort_llmv(
    c("{.arg {arg}} must have no missing {what}s.",
      x = "{place} is NA in {where}.",
      i = if (is.null(column)) {
        "Drop them first, e.g. {.code {arg}[!is.na({arg})]}."
      } else {
        "Drop those rows first, e.g. {.code {arg}[!is.na({arg}${column}), ]}."
      }),
    code = "llmv.input.invalid_argument", call = call
  )
}

# R marks the encoding of strings it has read as latin1 (`read.csv(encoding = "latin1")`) or
# converted, and enc2utf8() converts those. A string without a mark is taken as UTF-8 in a UTF-8
# session: if it is not (a latin1 file read without `encoding`), enc2utf8() leaves its bytes
# as they are and R would send `<e9>` escapes to the model and cache them. Refuse it, before any
# call, naming the rows.
# `place` says where the values are (place_text()), `ids` the passages' ids (or NULL).
check_utf8 <- function(values, place, ids = NULL, call = rlang::caller_env()) {
  if (!is.character(values) || !isTRUE(l10n_info()[["UTF-8"]])) {
    return(invisible(values))
  }
  bad <- which(!is.na(values) & Encoding(values) == "unknown" & !validUTF8(values))
  if (length(bad) == 0) {
    return(invisible(values))
  }
  # An id that is not UTF-8 would print mangled in the message: rows by number then.
  if (!is.null(ids) && !all(validUTF8(ids[bad]))) ids <- NULL
  where <- rows_text(bad, ids)
  abort_llmv(
    c("{place} must be UTF-8 text, or strings marked with their encoding.",
      x = paste0("In {where}, it is not valid UTF-8 and has no encoding mark (as ",
                 "{.code read.csv()} gives for a latin1 file read without {.arg encoding})."),
      i = paste0("Read the file with {.code read.csv(..., encoding = \"latin1\")}, or convert ",
                 "the strings with {.code iconv(x, from = \"latin1\", to = \"UTF-8\")}; if ",
                 "every passage is latin1, {.code llm_validate(..., encoding = \"latin1\")} ",
                 "reads them as such.")),
    code = "llmv.input.invalid_encoding", call = call
  )
}
