#' Power of the validation with the simulated data-generating process
#'
#' Estimates how often the validation reaches each verdict when the truth is
#' known, to choose `M`, `n` and the methods before paying for a real run. In
#' each replication the simulated provider writes the passage itself from
#' `true_label`, so an annotation is correct exactly when it returns
#' `true_label`; the whole pipeline then runs as [llm_validate()] would.
#'
#' The results are **synthetic**: they describe the simulated provider (see
#' [llm_provider_simulated()]), whose parameters stand in for how well a real
#' model follows labels (`follow_probability`, `label_signal`) and annotates
#' (`annotator_accuracy`).
#'
#' @inheritParams llm_validate
#' @param provider A simulated provider, [llm_provider_simulated()].
#' @param true_label The label the passages are written from; `NULL` takes the
#'   task's first label.
#' @param replications Number of simulated passages.
#' @param seed `NULL` draws the seed from R's random number generator, so that
#'   [set.seed()] makes the analysis reproducible; or a whole number. It picks the
#'   simulated passages, their pools and the tests' permutations (nothing is paid).
#' @param ... `permutations`, `repeats`, `variables` as in [llm_validate()].
#' @return A one-row data frame of class `llm_power` with the shares of
#'   replications whose annotation is correct, whose validation test does not
#'   reject, whose backtranslation and separation tests pass, the shares of
#'   each verdict, `share_valid_given_correct` (power to confirm a correct
#'   label), `share_invalid_given_wrong` (power to catch a wrong one), the
#'   counts `n_correct` and `n_wrong`, the Monte Carlo standard error of
#'   `share_valid`, and the settings.
#' @export
#' @examples
#' # Synthetic: the simulated provider is a data-generating process, not an LLM.
#' llm_power("sentiment", llm_provider_simulated(annotator_accuracy = 0.8),
#'           M = 20, n = 10, replications = 20, permutations = 99, seed = 1)
llm_power <- function(task, provider = llm_provider_simulated(),
                      # BEGIN GENERATED formals: M n alpha threshold methods
                      M = 100, n = 10, alpha = 0.05, threshold = 0.9,
                      methods = c(validation = "exact", separation = "permutation", backtranslation = "point"),
                      # END GENERATED
                      true_label = NULL,
                      # BEGIN GENERATED formals: replications
                      replications = 200,
                      # END GENERATED
                      seed = NULL, ...) {
  call <- rlang::current_env()
  task <- resolve_task(task, call)
  if (!inherits(provider, "llm_provider") || !identical(provider$name, "simulated")) {
    abort_argument("provider", "a simulated provider, `llm_provider_simulated()`", provider,
                   call)
  }
  M <- check_setting(M, "M", call = call)
  n <- check_setting(n, "n", call = call)
  alpha <- check_alpha(alpha, call = call)
  threshold <- check_threshold(threshold, call = call)
  methods <- check_methods(methods, call)
  if (!is.null(true_label)) true_label <- check_label(true_label, "true_label", call)
  replications <- check_count(replications, "replications", call)
  extra <- check_settings(list(...), c("permutations", "repeats", "variables"), call)
  given_settings <- check_dots_settings(extra, call)
  seed <- resolve_seed(seed, call)
  config <- list(
    task_path = task$path, task_source = task$source, provider = "simulated", m = M, n = n,
    alpha = alpha, threshold = threshold, validation_method = methods[["validation"]],
    separation_method = methods[["separation"]],
    backtranslation_rule = methods[["backtranslation"]],
    seed = seed, settings = given_settings, variables = extra$variables,
    simulated = c(provider$simulated, seed = seed)
  )
  warn_sizes(config, call)
  result <- engine_result(.Call(llmv_power, config, true_label %||% "", replications),
                          call = call)
  if (isTRUE(result$cancelled)) {
    abort_llmv("The power analysis was interrupted.", code = "llmv.cancelled", call = call)
  }
  result$cancelled <- NULL
  frame <- as.data.frame(result, stringsAsFactors = FALSE)
  frame$M <- M
  frame$n <- n
  frame$alpha <- alpha
  frame$validation_method <- methods[["validation"]]
  frame$separation_method <- methods[["separation"]]
  structure(frame, class = c("llm_power", "data.frame"), synthetic = TRUE)
}

#' @export
print.llm_power <- function(x, digits = 3, ...) {
  if (nrow(x) != 1 || !all(c("share_valid", "M", "monte_carlo_se") %in% names(x))) {
    # Several settings side by side (rbind) or a selection of columns: a table.
    cat("Synthetic: simulated provider (a data-generating process, not a language model)\n")
    print(as.data.frame(unclass(x), stringsAsFactors = FALSE), digits = digits, ...)
    return(invisible(x))
  }
  cat(sprintf("<llm_power> %s, M = %d, n = %d, alpha = %s (%s / %s)\n",
              count_of(as.integer(x$replications[1]), "replication"), as.integer(x$M[1]),
              as.integer(x$n[1]),
              format(x$alpha[1]), x$validation_method[1], x$separation_method[1]))
  cat("Synthetic: simulated provider (a data-generating process, not a language model)\n")
  shares <- c("annotation correct" = x$share_annotation_correct[1],
              "validation not rejected" = x$share_validation_not_rejected[1],
              "backtranslation passes" = x$share_backtranslation_pass[1],
              "separation passes (all labels)" = x$share_separation_all_pass[1],
              "valid" = x$share_valid[1], "invalid" = x$share_invalid[1],
              "inconclusive" = x$share_inconclusive[1],
              "valid | annotation correct" = x$share_valid_given_correct[1],
              "invalid | annotation wrong" = x$share_invalid_given_wrong[1])
  lines <- sprintf("  %-32s %s", names(shares), formatC(shares, digits = digits, format = "f"))
  cat(lines, sep = "\n")
  cat(sprintf("  (Monte Carlo s.e. of the share valid: %s)\n",
              formatC(x$monte_carlo_se[1], digits = digits, format = "f")))
  invisible(x)
}
