# An independent re-implementation in plain R of the arithmetic the engine does, written from
# ../shared/METHOD.md, to check the engine's numbers against. Deliberately naive: loops and
# base R, no shared code with the engine.

# Synthetic embeddings: Gaussian clusters around a centre, one row per text.
cluster <- function(n, centre, spread = 1) {
  t(vapply(seq_len(n), function(i) centre + stats::rnorm(length(centre), sd = spread),
           numeric(length(centre))))
}

unit_rows <- function(x) {
  x <- if (is.null(dim(x))) matrix(x, 1) else x
  x / sqrt(rowSums(x^2))
}

cosines <- function(a, b) unit_rows(a) %*% t(unit_rows(b))

# The exact validation test: every text of {y, s_1..s_M} scored by its mean cosine to the others.
reference_validation_exact <- function(passage, pool, alpha) {
  z <- rbind(passage, pool)
  similarity <- cosines(z, z)
  n <- nrow(z)
  scores <- vapply(seq_len(n), function(i) mean(similarity[i, -i]), numeric(1))
  tau <- scores[[1]]
  null <- scores[-1]
  m <- length(null)
  k <- floor(alpha * (m + 1))
  list(
    statistic = mean(cosines(passage, pool)),
    score_of_passage = tau,
    null = null,
    p_value = (1 + sum(null <= tau)) / (m + 1),
    critical_value = if (k == 0) -Inf else sort(null)[[k]]
  )
}

reference_validation_paper <- function(passage, pool, reference, alpha) {
  tau <- mean(cosines(passage, pool))
  null <- rowMeans(cosines(reference, pool))
  list(
    statistic = tau,
    null = null,
    critical_value = unname(stats::quantile(null, alpha, type = 7)),
    # The level at which quantile(null, a, type = 7) starts to exceed tau (the paper's rule
    # rejects exactly below it), by the closed form of the interpolation: j the last order
    # statistic at most tau, h = (j - 1) + (tau - s_j) / (s_j+1 - s_j), p = h / (B - 1).
    p_value = local({
      s <- sort(null)
      b <- length(s)
      if (s[1] > tau) return(0)
      if (s[b] <= tau) return(1)
      j <- max(which(s <= tau))
      (j - 1 + (tau - s[j]) / (s[j + 1] - s[j])) / (b - 1)
    })
  )
}

reference_separation_paper <- function(pool_a, pool_b, reference, alpha) {
  xi <- mean(cosines(pool_a, pool_b))
  null <- rowMeans(cosines(reference, pool_a))
  critical <- unname(stats::quantile(null, 1 - alpha, type = 7))
  list(statistic = xi, null = null, critical_value = critical, pass = !(xi > critical))
}

# Exact one-sided Clopper-Pearson lower bound at level 1 - alpha.
reference_clopper_pearson <- function(successes, trials, alpha) {
  if (successes == 0) 0 else stats::qbeta(alpha, successes, trials - successes + 1)
}

# A minimal JSON writer whose doubles round-trip (jsonlite writes at most 15 digits).
to_json <- function(x) {
  if (is.null(x)) {
    return("null")
  }
  if (is.list(x)) {
    values <- vapply(x, to_json, character(1))
    if (is.null(names(x))) {
      return(paste0("[", paste(values, collapse = ","), "]"))
    }
    keys <- vapply(names(x), function(key) encodeString(key, quote = "\""), character(1))
    return(paste0("{", paste0(keys, ":", values, collapse = ","), "}"))
  }
  if (is.matrix(x)) {
    return(to_json(lapply(seq_len(nrow(x)), function(i) x[i, ])))
  }
  scalar <- inherits(x, "json_scalar")
  values <- if (is.character(x)) {
    vapply(x, encodeString, character(1), quote = "\"")
  } else if (is.logical(x)) {
    ifelse(x, "true", "false")
  } else if (is.integer(x)) {
    as.character(x)
  } else {
    sprintf("%.17g", x)
  }
  if (scalar) values else paste0("[", paste(values, collapse = ","), "]")
}

json_scalar <- function(x) structure(x, class = c("json_scalar", class(x)))
