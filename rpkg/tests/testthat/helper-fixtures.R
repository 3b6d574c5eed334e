# Three labels with well separated clusters, and a passage from the first.
three_labels <- function(seed = 1, m = 30, d = 8) {
  set.seed(seed)
  centres <- list(
    Positive = c(4, rep(0, d - 1)),
    Neutral = c(0, 4, rep(0, d - 2)),
    Negative = c(0, 0, 4, rep(0, d - 3))
  )
  list(
    pools = lapply(centres, cluster, n = m),
    passage = centres$Positive + rnorm(d),
    centres = centres
  )
}
