#' A full validation from embeddings you bring
#'
#' Runs every test of one validation and returns the verdict, as
#' `llmvalidate test` does on the command line: the validation test of the
#' passage against the pool of its label, the separation test of that pool
#' against every other label's pool, and the annotation backtranslation test
#' when the labels that came back are given.
#'
#' The verdict is `"valid"` when every prerequisite (separation,
#' backtranslation) passes and validity is not rejected, `"invalid"` when every
#' prerequisite passes and validity is rejected, and `"inconclusive"` when a
#' prerequisite fails or was not run.
#'
#' @param passage The embedding of the passage: a numeric vector.
#' @param pools A named list of embedding matrices, one per label (one row per
#'   text). It must hold `label`; every other label with a pool gets a
#'   separation test.
#' @param label The LLM's label of the passage, \eqn{\hat\beta}{beta-hat}.
#' @param labels The label set \eqn{S}. Defaults to `names(pools)`.
#' @param backtranslation `NULL`, or a named list mapping a label to the labels
#'   the annotation function gave that label's pool, in pool order. It should
#'   hold `label`; without it backtranslation is reported as not run and the
#'   verdict is inconclusive.
#' @param threshold Backtranslation accuracy needed to pass.
#' @param methods A named character vector, as for [llm_validate()]:
#'   `validation` (`"exact"` or `"paper"`, see [validation_test()]),
#'   `separation` (`"permutation"` or `"paper"`, see [separation_test()]) and
#'   `backtranslation` (`"point"` or `"bound"`, see [backtranslation_test()]);
#'   those not named keep their default.
#' @param validation_method,separation_method,backtranslation_rule The same
#'   choices one at a time (the older spelling; give either these or
#'   `methods`).
#' @param reference `NULL`, or (for the paper's methods) a named list of
#'   embedding matrices: \eqn{B} further texts per label.
#' @param ... Further statistics settings of the engine's settings table that
#'   have no argument here, by their R names (`docs/settings.md`); none today.
#' @inheritParams separation_test
#' @return An object of class `llm_validation`: a list with `label`, `labels`,
#'   `verdict`, `verdict_reason`, `validation` (an `llmv_validation_test`),
#'   `separation` (a named list of `llmv_separation_test`), `backtranslation`
#'   (an `llmv_backtranslation_test`, or `NULL` when not run),
#'   `backtranslation_other`, `seed` and `settings`.
#' @inherit validation_test references
#' @family tests on embeddings
#' @export
#' @examples
#' set.seed(1)
#' centres <- list(Positive = c(3, 0, 0, 0), Negative = c(0, 3, 0, 0))
#' pools <- lapply(centres, function(centre) t(replicate(30, centre + rnorm(4))))
#' passage <- centres$Positive + rnorm(4)
#' back <- list(Positive = rep("Positive", 30))
#' validation <- llm_validate_embeddings(passage, pools, "Positive",
#'   backtranslation = back, permutations = 199)
#' validation
#' as.data.frame(validation)
llm_validate_embeddings <- function(passage, pools, label, labels = names(pools),
                                    backtranslation = NULL,
                                    # BEGIN GENERATED formals: alpha threshold validation_method separation_method backtranslation_rule permutations
                                    alpha = 0.05, threshold = 0.9,
                                    validation_method = c("exact", "paper"),
                                    separation_method = c("permutation", "paper"),
                                    backtranslation_rule = c("point", "bound"),
                                    permutations = 999,
                                    # END GENERATED
                                    reference = NULL, seed = NULL, methods = NULL, ...) {
  call <- rlang::current_env()
  if (!is.null(methods)) {
    if (!missing(validation_method) || !missing(separation_method) ||
          !missing(backtranslation_rule)) {
      abort_argument("methods", paste0("NULL when `validation_method`, `separation_method` or ",
                                       "`backtranslation_rule` is given (one spelling)"),
                     methods, call)
    }
    methods <- check_methods(methods, call)
    validation_method <- methods[["validation"]]
    separation_method <- methods[["separation"]]
    backtranslation_rule <- methods[["backtranslation"]]
  }
  passage <- check_passage(passage)
  pools <- check_named_list(pools, "pools", check_embeddings, required = TRUE)
  label <- check_label(label, "label")
  labels <- check_labels(labels, "labels")
  backtranslation <- check_named_list(backtranslation, "backtranslation", check_labels)
  alpha <- check_alpha(alpha)
  threshold <- check_threshold(threshold)
  if (missing(validation_method)) validation_method <- validation_method[[1]]
  if (missing(separation_method)) separation_method <- separation_method[[1]]
  validation_method <- check_choice(validation_method, method_names("validation"),
                                    "validation_method")
  separation_method <- check_choice(separation_method, method_names("separation"),
                                    "separation_method")
  backtranslation_rule <- check_choice(backtranslation_rule, c("point", "bound"),
                                       "backtranslation_rule")
  permutations <- check_permutations(permutations)
  reference <- check_named_list(reference, "reference", check_embeddings)
  seed <- resolve_seed(seed)
  # The engine's statistics settings, by engine name: the formals above and any other the
  # table has (through `...`); the engine sets each through its table.
  settings <- c(list(alpha = alpha, threshold = threshold, permutations = permutations,
                     validation_method = validation_method,
                     separation_method = separation_method,
                     backtranslation_rule = backtranslation_rule),
                check_statistics_dots(list(...), call))

  result <- engine_result(.Call(llmv_run_tests, label, labels, passage, pools, backtranslation,
                                reference, c(settings, list(seed = format(seed, scientific = FALSE)))))
  new_llm_validation(result, label, labels, settings)
}

# The statistics settings of the engine's table given in `...` of llm_validate_embeddings()
# (those with an R spelling and no formal there), checked by the table: a list by engine name.
check_statistics_dots <- function(extra, call) {
  table <- engine_settings()
  rows <- table$statistics & !table$by_hand & nzchar(table$r) & !startsWith(table$r, "methods[[") &
    !table$r %in% names(formals(llm_validate_embeddings))
  spellings <- stats::setNames(table$name[rows], table$r[rows])
  check_settings(extra, names(spellings), call)
  given <- list()
  for (r_name in names(extra)) {
    given[[spellings[[r_name]]]] <- check_table_value(extra[[r_name]], spellings[[r_name]], r_name,
                                                      call)
  }
  given
}

check_named_list <- function(x, arg, check_element, required = FALSE,
                             call = rlang::caller_env()) {
  if (is.null(x) && !required) {
    return(list())
  }
  if (!is.list(x) || is.data.frame(x) || length(x) == 0 || is.null(names(x)) ||
        anyNA(names(x)) || any(names(x) == "") || anyDuplicated(names(x))) {
    abort_argument(arg, "a list named by label, with unique non-empty names", x, call)
  }
  elements <- names(x)
  out <- lapply(seq_along(x), function(i) {
    check_element(x[[i]], sprintf("%s$%s", arg, elements[[i]]), call = call)
  })
  names(out) <- elements
  out
}

new_llm_validation <- function(result, label, labels, settings) {
  validation <- new_validation_test(result$validation, sprintf("passage against pool of %s",
                                                               encodeString(label, quote = "\"")))
  separation <- lapply(result$separation, function(entry) {
    new_separation_test(entry, sprintf("pools of %s and %s", encodeString(label, quote = "\""),
                                       encodeString(entry$label, quote = "\"")),
                        result$seed)
  })
  names(separation) <- vapply(result$separation, `[[`, character(1), "label")
  backtranslation <- if (isTRUE(result$backtranslation$run)) {
    new_backtranslation_test(result$backtranslation,
                             sprintf("labels back for %s", encodeString(label, quote = "\"")))
  }
  backtranslation_other <- lapply(result$backtranslation_other, function(entry) {
    new_backtranslation_test(entry, sprintf("labels back for %s",
                                            encodeString(entry$label, quote = "\"")))
  })
  names(backtranslation_other) <- vapply(result$backtranslation_other, `[[`, character(1),
                                         "label")
  structure(
    list(
      label = label,
      labels = labels,
      verdict = result$verdict,
      verdict_reason = result$verdict_reason,
      validation = validation,
      separation = separation,
      backtranslation = backtranslation,
      backtranslation_other = backtranslation_other,
      seed = result$seed,
      b = result$b,
      settings = settings
    ),
    class = "llm_validation"
  )
}
