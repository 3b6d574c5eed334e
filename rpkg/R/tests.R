#' Validation test on embeddings you bring
#'
#' Tests whether a passage is a plausible draw from the texts an LLM writes from
#' its own label \eqn{\hat\beta}{beta-hat} (Hansen 2026, eq. 5). The statistic is
#' \eqn{\tau}, the mean cosine similarity between the passage and the pool of
#' texts simulated from \eqn{\hat\beta}{beta-hat}; validity is rejected when \eqn{\tau} is
#' too small.
#'
#' With `method = "exact"` (the default) the passage and the pool are scored
#' alike: every text gets its mean cosine similarity to the other \eqn{M} texts,
#' and the p-value is the rank of \eqn{\tau} among the pool's scores,
#' \eqn{(1 + \#\{T(s_j) \le \tau\}) / (M + 1)}{(1 + #{T(s_j) <= tau}) / (M + 1)}. Under the null hypothesis the
#' \eqn{M + 1} texts are exchangeable, so the test has size at most `alpha` for
#' any \eqn{M}. With `method = "paper"` the author's bootstrap is reproduced:
#' \eqn{B} further texts from \eqn{f(\hat\beta)}{f(beta-hat)} (`reference`) give the null
#' distribution of \eqn{\tau}, and the critical value is its `alpha`-quantile
#' (type 7); its `p.value` is the largest level at which that rule does not
#' reject, so that it rejects exactly when `p.value < alpha`.
#'
#' Embeddings are L2-normalised by the engine, so raw embeddings may be passed.
#' Every text of one validation must come from the same embedding model.
#'
#' @param passage The embedding of the passage: a numeric vector.
#' @param pool Embeddings of the texts simulated from the passage's label: a
#'   numeric matrix with one row per text (at least 2 rows).
#' @param alpha Significance level, in (0, 0.5] (the engine's range for every
#'   test).
#' @param method `"exact"` (rank test, default) or `"paper"` (the paper's
#'   bootstrap).
#' @param reference For `method = "paper"` only: embeddings of \eqn{B} further
#'   texts simulated from the same label, one row per text.
#' @return An object of class `c("llmv_validation_test", "htest")`: a list with
#'   `statistic` (\eqn{\tau}), `parameter` (\eqn{M}, and \eqn{B} for the paper
#'   method), `p.value`, `critical.value`, `alpha`, `reject` (validity rejected),
#'   `conclusion`, `method`, `alternative`, `data.name` and `null.distribution`
#'   (the pool's scores, or the bootstrap \eqn{\tilde\tau_b}{tau-tilde_b}).
#' @details The validation test uses no random numbers.
#' @references Hansen, A. L. (2026). Validating Large Language Model
#'   Annotations. Finance and Economics Discussion Series 2026-020.
#'   \doi{10.17016/FEDS.2026.020}
#' @seealso [separation_test()], [backtranslation_test()],
#'   [llm_validate_embeddings()] for all tests and the verdict at once.
#' @family tests on embeddings
#' @export
#' @examples
#' set.seed(1)
#' centre <- rnorm(16)
#' pool <- t(replicate(40, centre + rnorm(16)))
#' passage <- centre + rnorm(16)
#' result <- validation_test(passage, pool)
#' result
#' result$p.value
validation_test <- function(passage, pool,
                            # BEGIN GENERATED formals: alpha method=validation_method
                            alpha = 0.05, method = c("exact", "paper"),
                            # END GENERATED
                            reference = NULL) {
  data_name <- paste(deparse1(substitute(passage)), "against", deparse1(substitute(pool)))
  passage <- check_passage(passage)
  pool <- check_embeddings(pool, "pool")
  alpha <- check_alpha(alpha)
  if (missing(method)) method <- method[[1]]
  method <- check_choice(method, method_names("validation"), "method")
  reference <- check_reference(reference, method, reference_methods("validation"))

  result <- engine_result(.Call(llmv_validation_test, passage, pool, alpha, method, reference))
  new_validation_test(result, data_name)
}

new_validation_test <- function(result, data_name) {
  # The pool size M, and B for a method that draws reference texts (the engine's registry).
  reference <- identical(method_draws("validation", result$method), "B")
  structure(
    list(
      statistic = c(tau = result$statistic),
      parameter = if (reference) c(N = result$m, B = result$b) else c(M = result$m),
      p.value = result$p_value,
      critical.value = result$critical_value,
      alpha = result$alpha,
      reject = result$reject,
      conclusion = if (!isTRUE(result$can_decide %||% TRUE)) {
        paste0("cannot decide: ", result$cannot_decide_reason)
      } else if (result$reject) {
        "validity rejected"
      } else {
        "validity not rejected"
      },
      can_decide = result$can_decide %||% TRUE,
      method = if (!reference) {
        "Validation test (exact rank test)"
      } else {
        "Validation test (paper's bootstrap)"
      },
      alternative = "the passage is not a draw from the pool's distribution (tau too small)",
      data.name = data_name,
      null.distribution = result$null_distribution,
      engine_method = result$method
    ),
    class = c("llmv_validation_test", "htest")
  )
}

#' Separation test on embeddings you bring
#'
#' Tests whether the texts an LLM writes from two labels can be told apart
#' (Hansen 2026, eq. 6). The statistic is \eqn{\xi}, the mean cosine similarity
#' between the two pools. Separation passes when the hypothesis that both pools
#' come from one distribution is rejected because \eqn{\xi} is too small.
#'
#' With `method = "permutation"` (the default) the group labels of the pooled
#' texts are permuted `permutations` times and \eqn{\xi} is recomputed each
#' time; the p-value is \eqn{(1 + \#\{\xi_{perm} \le \xi\}) / (R + 1)}{(1 + #{xi_perm <= xi}) / (R + 1)}. When the
#' two labels share one distribution, separation passes with probability at most
#' `alpha`. With `method = "paper"` the bootstrap of the author's reference code
#' is reproduced: \eqn{B} further single texts from the second label
#' (`reference`) give \eqn{\bar\xi_b}{xi-bar_b}, and separation fails when \eqn{\xi}
#' exceeds their \eqn{(1-\alpha)}{(1 - alpha)}-quantile. That variant can hardly fail
#' (\eqn{\xi} is an average of the draws that make up its null distribution),
#' which is why it is not the default; it reports no p-value. (The paper's text
#' draws \eqn{N} texts per replicate instead; `docs/method.md` compares the
#' variants.)
#'
#' @param pool_a,pool_b Embeddings of texts simulated from two labels
#'   (\eqn{\beta} and \eqn{\gamma}), numeric matrices with one row per text.
#' @param permutations Number of permutations \eqn{R} (`method = "permutation"`).
#' @param method `"permutation"` (default) or `"paper"`.
#' @param reference For `method = "paper"` only: \eqn{B} further texts simulated
#'   from the label of `pool_b`.
#' @param seed Seed of the engine's random number generator. `NULL` (default)
#'   draws one from R's generator, so that [set.seed()] makes the result
#'   reproducible. The same seed and inputs give bit-identical results in R,
#'   Stata and the command-line tool.
#' @inheritParams validation_test
#' @return An object of class `c("llmv_separation_test", "htest")` with
#'   `statistic` (\eqn{\xi}), `parameter`, `p.value` (`NA` for the paper
#'   method), `critical.value`, `alpha`, `pass` (separation holds), `conclusion`,
#'   `seed` and `null.distribution`.
#' @inherit validation_test references
#' @family tests on embeddings
#' @export
#' @examples
#' set.seed(1)
#' pool_a <- t(replicate(30, c(3, 0, 0, 0) + rnorm(4)))
#' pool_b <- t(replicate(30, c(0, 3, 0, 0) + rnorm(4)))
#' separation_test(pool_a, pool_b, permutations = 199)
separation_test <- function(pool_a, pool_b,
                            # BEGIN GENERATED formals: alpha method=separation_method permutations
                            alpha = 0.05, method = c("permutation", "paper"),
                            permutations = 999,
                            # END GENERATED
                            reference = NULL, seed = NULL) {
  data_name <- paste(deparse1(substitute(pool_a)), "and", deparse1(substitute(pool_b)))
  pool_a <- check_embeddings(pool_a, "pool_a")
  pool_b <- check_embeddings(pool_b, "pool_b")
  alpha <- check_alpha(alpha)
  if (missing(method)) method <- method[[1]]
  method <- check_choice(method, method_names("separation"), "method")
  permutations <- check_permutations(permutations)
  reference <- check_reference(reference, method, reference_methods("separation"))
  # A method that permutes nothing (the paper's) draws nothing: leave R's generator alone.
  permutes <- identical(method_draws("separation", method), "R")
  seed <- if (permutes) resolve_seed(seed) else NA_real_

  result <- engine_result(
    .Call(llmv_separation_test, pool_a, pool_b, alpha, method, permutations, reference,
                         if (is.na(seed)) 0 else seed)
  )
  new_separation_test(result, data_name, seed)
}

new_separation_test <- function(result, data_name, seed) {
  # R, the permutations, or B, the reference texts: what the method draws (the registry).
  permutation <- identical(method_draws("separation", result$method), "R")
  parameter <- c(M_a = result$m_beta, M_b = result$m_gamma)
  parameter[[if (permutation) "R" else "B"]] <- if (permutation) result$permutations else result$b
  structure(
    list(
      statistic = c(xi = result$statistic),
      parameter = parameter,
      p.value = result$p_value,
      critical.value = result$critical_value,
      alpha = result$alpha,
      pass = result$pass,
      conclusion = if (!isTRUE(result$can_decide %||% TRUE)) {
        paste0("cannot decide: ", result$cannot_decide_reason)
      } else if (result$pass) {
        "separation holds"
      } else {
        "separation fails"
      },
      can_decide = result$can_decide %||% TRUE,
      method = if (permutation) {
        "Separation test (permutation test)"
      } else {
        "Separation test (paper's bootstrap)"
      },
      alternative = if (permutation) {
        "the pools differ in distribution (xi too small)"
      } else {
        "xi does not exceed the bootstrap's (1 - alpha)-quantile"
      },
      data.name = data_name,
      label = result$label,
      seed = seed,
      null.distribution = result$null_distribution,
      engine_method = result$method
    ),
    class = c("llmv_separation_test", "htest")
  )
}

#' Annotation backtranslation test on labels you bring
#'
#' Checks that the LLM's annotation function gives back the label that its
#' texts were simulated from (Hansen 2026, eq. 3): the texts of the pool of
#' `target` were annotated again, giving `labels_back`. Reports the accuracy,
#' the counts of every label that came back and the exact one-sided
#' Clopper-Pearson lower confidence bound.
#'
#' Labels match after trimming, lower-casing and folding inner white space.
#' With `rule = "point"` (the paper's rule) the test passes when the accuracy is
#' at least `threshold`; with `rule = "bound"` (stricter) when the lower
#' confidence bound is.
#'
#' @param target The label the pool was simulated from: a single string.
#' @param labels_back The labels the annotation function gave the pool's texts,
#'   in pool order: a character vector (or factor).
#' @param labels The label set \eqn{S}, which orders the counts. `NULL`
#'   (default): `target` and then the other labels in order of appearance.
#' @param threshold Accuracy needed to pass, between 0 and 1.
#' @param rule `"point"` (default) or `"bound"`.
#' @param alpha One minus the confidence level of the lower bound.
#' @return An object of class `c("llmv_backtranslation_test", "htest")` with
#'   `statistic` (the accuracy), `parameter` (\eqn{M}), `conf.int` (the
#'   one-sided interval), `critical.value` (the threshold), `pass`,
#'   `conclusion`, `counts` and `rule`. It has no p-value.
#' @inherit validation_test references
#' @family tests on embeddings
#' @export
#' @examples
#' back <- c(rep("Positive", 46), rep("Neutral", 4))
#' backtranslation_test("Positive", back, labels = c("Positive", "Neutral", "Negative"))
backtranslation_test <- function(target, labels_back, labels = NULL,
                                 # BEGIN GENERATED formals: threshold rule=backtranslation_rule alpha
                                 threshold = 0.9, rule = c("point", "bound"), alpha = 0.05
                                 # END GENERATED
                                 ) {
  data_name <- paste(deparse1(substitute(labels_back)), "for", deparse1(substitute(target)))
  target <- check_label(target, "target")
  labels_back <- check_labels(labels_back, "labels_back")
  labels <- if (is.null(labels)) {
    unique(c(target, labels_back))
  } else {
    check_labels(labels, "labels")
  }
  threshold <- check_threshold(threshold)
  rule <- check_choice(rule, c("point", "bound"), "rule")
  alpha <- check_alpha(alpha)

  result <- engine_result(
    .Call(llmv_backtranslation_test, target, labels_back, labels, threshold, rule, alpha)
  )
  new_backtranslation_test(result, data_name)
}

new_backtranslation_test <- function(result, data_name) {
  conf_int <- c(result$lower_bound, 1)
  attr(conf_int, "conf.level") <- 1 - result$alpha
  structure(
    list(
      statistic = c(accuracy = result$accuracy),
      parameter = c(M = result$m),
      p.value = NULL,
      conf.int = conf_int,
      critical.value = result$threshold,
      alpha = result$alpha,
      pass = result$pass,
      conclusion = if (result$pass) "backtranslation passes" else "backtranslation fails",
      method = sprintf(
        "Annotation backtranslation (rule \"%s\": %s >= %s)", result$rule,
        if (identical(result$rule, "bound")) "lower bound" else "accuracy",
        format(result$threshold)
      ),
      alternative = "the accuracy reaches the threshold",
      data.name = data_name,
      label = result$label,
      correct = result$correct,
      counts = result$counts,
      rule = result$rule,
      run = result$run
    ),
    class = c("llmv_backtranslation_test", "htest")
  )
}
