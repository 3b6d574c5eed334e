# No key in an error message: the secrets of a run and their removal from the engine's answers.

# Keys that an error message must never show: the provider's own and those in the
# environment variables the engine reads.
provider_secrets <- function(provider) {
  # Every provider's secret variables, as the engine's provider table declares them.
  variables <- unique(unlist(.Call(llmv_provider_defaults)$key_variables))
  from_env <- Sys.getenv(variables, unset = "")
  secrets <- c(provider_key(provider), unname(from_env))
  unique(secrets[!is.na(secrets) & nchar(secrets) >= 4])
}

# Replaces every secret in the engine's messages (providers may echo a key back).
redact <- function(result, secrets) {
  if (length(secrets) == 0) {
    return(result)
  }
  scrub <- function(message) {
    for (secret in secrets) message <- gsub(secret, "<redacted>", message, fixed = TRUE)
    message
  }
  if (inherits(result, "llmvalidate_engine_error")) {
    result$message <- scrub(result$message)
  } else if (is.list(result$passages)) {
    result$passages <- lapply(result$passages, function(p) {
      p$error_message <- scrub(p$error_message)
      p
    })
  }
  result
}

# A URL without its credentials ("http://user:PASS@host/v1" -> "http://<redacted>@host/v1"),
# as the engine's text::without_url_credentials() writes every URL it prints or stores.
without_url_credentials <- function(x) {
  if (is.null(x)) return(x)
  gsub("(://)[^/?#\"'`<>()[:space:]]*@", "\\1<redacted>@", x, perl = TRUE)
}
